package billing_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/billing"
)

func TestAmountParse(t *testing.T) {
	for in, want := range map[string]billing.Amount{
		"0":                 0,
		"94.55":             94*billing.Dollar + 55*billing.Cent,
		"-0.5":              -50 * billing.Cent,
		"0.000000001":       billing.Nanodollar,
		"0.0000000015":      2 * billing.Nanodollar, // half to even
		"0.0000000025":      2 * billing.Nanodollar,
		"-0.0000000025":     -2 * billing.Nanodollar,
		"1.2e-3":            1_200_000,
		"1E2":               100 * billing.Dollar,
		"1234567890.5":      1234567890*billing.Dollar + 50*billing.Cent,
		"1e-999999999":      0,
		"0e999999999":       0,
		"8.899999999999999": 8_900_000_000, // a double's text, to the nano-dollar
	} {
		got, err := billing.ParseAmount(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "-", "1.", ".5", "01", "1e", "$1", "1,000", "NaN", "1e41", "9300000000", "1e999999999"} {
		_, err := billing.ParseAmount(in)
		assert.Error(t, err, in)
	}
}

// TestAmountSumsExactly: the sum that drifts in float64 is exact.
func TestAmountSumsExactly(t *testing.T) {
	var f float64
	var a billing.Amount
	for range 10 {
		f += 0.1
		a += billing.Dollars(0.1)
	}
	assert.NotEqual(t, 1.0, f, "float64 drifts")
	assert.Equal(t, "$1.00", a.String())
	assert.Equal(t, "1", a.Decimal())
	assert.Equal(t, 1.0, a.Float64())
}

func TestAmountString(t *testing.T) {
	for a, want := range map[billing.Amount]string{
		0:                                     "$0.00",
		3 * billing.Dollar:                    "$3.00",
		-3 * billing.Dollar:                   "-$3.00",
		1204*billing.Dollar + 50*billing.Cent: "$1,204.50",
		1234567 * billing.Dollar:              "$1,234,567.00",
	} {
		assert.Equal(t, want, a.String())
	}
}

func TestAmountJSON(t *testing.T) {
	var v struct {
		A billing.Amount `json:"a"`
		B billing.Amount `json:"b"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"a":94.55,"b":null}`), &v))
	assert.Equal(t, 94*billing.Dollar+55*billing.Cent, v.A)
	out, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":94.55,"b":0}`, string(out))
	require.Error(t, json.Unmarshal([]byte(`{"a":"94.55"}`), &v), "a string is not an amount")
}

// FuzzAmount: any input either fails or reads as the exact rational value
// rounded half to even to the nano-dollar, and the amount's decimal text
// reads back as itself.
func FuzzAmount(f *testing.F) {
	for _, s := range []string{"0", "94.55", "-0.0000000025", "1.2e-3", "1e40", "1234567890.5", "-9223372036.854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := billing.ParseAmount(s)
		if err != nil {
			return
		}
		back, err := billing.ParseAmount(a.Decimal())
		require.NoError(t, err)
		require.Equal(t, a, back)
		if len(s) > 200 {
			return
		}
		r, ok := new(big.Rat).SetString(s)
		require.True(t, ok, "a parsed amount is a number: %q", s)
		nanos := new(big.Rat).Mul(r, big.NewRat(1_000_000_000, 1))
		diff := new(big.Rat).Sub(nanos, new(big.Rat).SetInt64(int64(a)))
		require.LessOrEqual(t, diff.Abs(diff).Cmp(big.NewRat(1, 2)), 0, "%q read as %d", s, int64(a))
	})
}

// FuzzAmountJSON: the allocation-free reading of JSON amounts agrees with
// ParseAmount on every input.
func FuzzAmountJSON(f *testing.F) {
	for _, s := range []string{"0", "94.55", "-0.5", "01", "1.", "123456789.123456789", "1234567890", "0.0000000001", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantErr := billing.ParseAmount(s)
		var got billing.Amount
		err := got.UnmarshalJSON([]byte(s))
		if s == "null" {
			return
		}
		require.Equal(t, wantErr == nil, err == nil, "%q: %v / %v", s, wantErr, err)
		if err == nil {
			require.Equal(t, want, got, s)
		}
	})
}
