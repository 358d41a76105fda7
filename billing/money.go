package billing

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Amount is a sum of money in US dollars, held exactly as a whole number
// of nano-dollars (10⁻⁹ USD), so that totals add up without the drift of
// floating point: 94.55 is 94.55, never 94.54999999999998. The platform
// sends amounts as JSON numbers; each is read from its decimal text, and
// a digit past the ninth decimal (finer than the platform bills) is
// rounded half to even.
//
// Amounts add and compare with Go's operators. The zero value is $0.
type Amount int64

// Nanodollar is the smallest Amount, one billionth of a dollar; Cent and
// Dollar are the familiar units.
const (
	Nanodollar Amount = 1
	Cent       Amount = 10_000_000
	Dollar     Amount = 1_000_000_000
)

// MaxAmount is the largest Amount, about 9.2 billion dollars.
const MaxAmount Amount = math.MaxInt64

// errAmountRange reports a number outside what an Amount holds.
var errAmountRange = errors.New("billing: amount out of range")

// ParseAmount reads a decimal number of dollars such as "94.55", "-0.5" or
// "1.2e-3" (JSON number syntax, no currency sign).
func ParseAmount(s string) (Amount, error) {
	a, err := parseAmount(s)
	if err != nil {
		return 0, fmt.Errorf("billing: parse amount %q: %w", s, err)
	}
	return a, nil
}

// Dollars returns the Amount closest to d dollars (rounded to the
// nano-dollar, half to even through d's shortest decimal form).
func Dollars(d float64) Amount {
	a, err := parseAmount(strconv.FormatFloat(d, 'g', -1, 64))
	if err != nil {
		if d < 0 {
			return math.MinInt64
		}
		return MaxAmount
	}
	return a
}

// Float64 returns the amount in dollars as a float64, for charts and
// arithmetic that tolerates rounding.
func (a Amount) Float64() float64 { return float64(a) / float64(Dollar) }

// Decimal returns the exact amount in dollars as a plain decimal number,
// without trailing zeros or a currency sign: "94.55", "-0.0004", "12".
func (a Amount) Decimal() string {
	neg := a < 0
	u := uint64(a)
	if neg {
		u = -u
	}
	whole, frac := u/uint64(Dollar), u%uint64(Dollar)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(strconv.FormatUint(whole, 10))
	if frac != 0 {
		f := fmt.Sprintf("%09d", frac)
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(f, "0"))
	}
	return b.String()
}

// String prints the amount as dollars the way a bill shows them: a dollar
// sign, thousands separated by commas, rounded to the cent (half away from
// zero): "$94.55", "$1,204.50", "-$3.00". Decimal gives the exact value.
func (a Amount) String() string {
	neg := a < 0
	u := uint64(a)
	if neg {
		u = -u
	}
	cents := (u + uint64(Cent)/2) / uint64(Cent)
	whole := strconv.FormatUint(cents/100, 10)
	var b strings.Builder
	if neg && cents != 0 {
		b.WriteByte('-')
	}
	b.WriteByte('$')
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	fmt.Fprintf(&b, ".%02d", cents%100)
	return b.String()
}

// MarshalJSON writes the amount as an exact JSON number of dollars.
func (a Amount) MarshalJSON() ([]byte, error) { return []byte(a.Decimal()), nil }

// UnmarshalJSON reads a JSON number of dollars exactly (see Amount).
func (a *Amount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if v, ok := parsePlain(b); ok {
		*a = v
		return nil
	}
	v, err := parseAmount(string(b))
	if err != nil {
		return fmt.Errorf("billing: amount %.40q: %w", b, err)
	}
	*a = v
	return nil
}

// parsePlain reads the common form of an amount, -?digits(.digits)? with
// at most nine decimals and nine whole digits, without allocating; ok is
// false for anything else (parseAmount then decides).
func parsePlain(b []byte) (Amount, bool) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		i, neg = 1, true
	}
	start := i
	var n int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	whole := i - start
	if whole == 0 || whole > 9 || (whole > 1 && b[start] == '0') {
		return 0, false
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if frac == 9 {
				return 0, false
			}
			n = n*10 + int64(b[i]-'0')
			frac++
			i++
		}
		if frac == 0 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	for ; frac < 9; frac++ {
		n *= 10
	}
	if neg {
		n = -n
	}
	return Amount(n), true
}

// parseAmount reads JSON number syntax into nano-dollars. The common form
// (no exponent, at most nine decimals, at most 18 digits) is read with
// integer arithmetic; anything else goes through math/big.
func parseAmount(s string) (Amount, error) {
	if !validNumber(s) {
		return 0, errors.New("not a JSON number")
	}
	neg := s[0] == '-'
	body := strings.TrimPrefix(s, "-")
	if !strings.ContainsAny(body, "eE") {
		whole, frac, _ := strings.Cut(body, ".")
		if len(frac) <= 9 && len(whole)+9 <= 18 {
			var n int64
			for _, c := range whole {
				n = n*10 + int64(c-'0')
			}
			for i := range 9 {
				n *= 10
				if i < len(frac) {
					n += int64(frac[i] - '0')
				}
			}
			if neg {
				n = -n
			}
			return Amount(n), nil
		}
	}
	// Bound the exponent before math/big sees it: 1e999999999 must not
	// cost a billion-digit power of ten.
	mant, exp := body, 0
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant = body[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(body[i+1:], "+"))
		if err != nil {
			e = math.MaxInt32 // absurdly long: out of range either way
			if strings.HasPrefix(body[i+1:], "-") {
				e = math.MinInt32
			}
		}
		exp = e
	}
	if strings.Trim(mant, "0.") == "" {
		return 0, nil // zero, whatever its exponent
	}
	switch {
	case exp > 40:
		return 0, errAmountRange
	case exp < -(len(mant) + 20):
		return 0, nil // under half a nano-dollar
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, errors.New("not a number")
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(Dollar)))
	// Round half to even to a whole number of nano-dollars.
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	twice := new(big.Int).Mul(m.Abs(m), big.NewInt(2))
	switch c := twice.Cmp(r.Denom()); {
	case c > 0 || c == 0 && q.Bit(0) == 1:
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return 0, errAmountRange
	}
	return Amount(q.Int64()), nil
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	ok := true
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i, _ = digits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i, ok = digits(s, i+1)
	}
	if ok && i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		i, ok = digits(s, i)
	}
	return ok && i == len(s)
}

// digits returns the end of the run of ASCII digits that starts at s[i],
// and whether the run has at least one.
func digits(s string, i int) (end int, ok bool) {
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i, i > start
}
