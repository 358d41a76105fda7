package lease

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Marker begins the lease suffix of a name: the deadline follows it, as
// Layout writes it in UTC.
const Marker = "~lease-"

// Layout is how the deadline is written after Marker (a time.Format
// layout): year, month, day, "T", hour and minute, in UTC, "Z" closing
// it, such as 20261128T0130Z for 28 November 2026, 01:30 UTC.
const Layout = "20060102T1504Z"

// flashBootSuffix is what runpodctl appended to the name of a FlashBoot
// endpoint it created, and so what such endpoints' names end with; a
// lease is read before it.
const flashBootSuffix = " -fb"

// Deadlines Name writes and Parse reads lie in these years: four digits,
// and none before the platform existed (a zero time.Time is a mistake,
// not a deadline).
const (
	minYear = 2000
	maxYear = 9999
)

// Name returns base with a lease that ends at deadline: base, Marker and
// the deadline in UTC (Layout), such as "ci-run~lease-20261128T0130Z".
// The deadline is rounded up to the next whole minute, so the resource
// lives at least until deadline.
//
// base must not be blank (the platform refuses an empty name), must be
// valid UTF-8 without control characters, and must not carry a lease
// already (Parse it and name its base to move a deadline). deadline must
// fall in the years 2000 to 9999. Otherwise Name returns a
// *errs.ValidationError naming base or deadline.
//
// The platform's document sets no maximum length and no alphabet for the
// names of pods, endpoints, network volumes, templates and clusters, only
// that they are not empty, so the suffix (21 bytes) fits every kind.
func Name(base string, deadline time.Time) (string, error) {
	if err := checkBase(base); err != nil {
		return "", err
	}
	if deadline.IsZero() {
		return "", fail.Invalid("deadline", "is required")
	}
	d := deadline.UTC()
	if t := d.Truncate(time.Minute); t.Before(d) {
		d = t.Add(time.Minute)
	}
	if y := d.Year(); y < minYear || y > maxYear {
		return "", fail.Invalid("deadline", "must fall in the years %d to %d, got %s", minYear, maxYear, d.Format(time.RFC3339))
	}
	return base + Marker + d.Format(Layout), nil
}

// NameFor returns base leased for ttl from now by the local clock: Name(base,
// time.Now().Add(ttl)). ttl must be positive.
func NameFor(base string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", fail.Invalid("ttl", "must be positive, got %s", ttl)
	}
	return Name(base, time.Now().Add(ttl))
}

// checkBase says what is wrong with base as the part of a name before a
// lease, naming base.
func checkBase(base string) error {
	switch {
	case strings.TrimSpace(base) == "":
		return fail.Invalid("base", "must not be blank: the platform refuses an empty name")
	case !utf8.ValidString(base):
		return fail.Invalid("base", "is not valid UTF-8")
	case strings.IndexFunc(base, unicode.IsControl) >= 0:
		return fail.Invalid("base", "contains a control character")
	case strings.Contains(base, Marker):
		return fail.Invalid("base", "carries a lease already (%q): Parse the name and lease its base", Marker)
	}
	return nil
}

// Parse reads the lease of a name that Name made, and the suffix runpodctl
// appended to a FlashBoot endpoint's name (" -fb") after it. It
// is strict: ok is true only when name is exactly what Name returns for
// base and deadline, optionally followed by " -fb". Anything else (no
// lease, a second lease, a deadline that is not a real minute of the
// years 2000 to 9999, other text after it) is not a lease, and a reaper
// leaves the resource alone.
func Parse(name string) (base string, deadline time.Time, ok bool) {
	rest := strings.TrimSuffix(name, flashBootSuffix)
	i := strings.LastIndex(rest, Marker)
	if i < 0 {
		return "", time.Time{}, false
	}
	base, stamp := rest[:i], rest[i+len(Marker):]
	if checkBase(base) != nil || len(stamp) != len(Layout) {
		return "", time.Time{}, false
	}
	for j := range len(stamp) {
		if c := stamp[j]; Layout[j] >= '0' && Layout[j] <= '9' {
			if c < '0' || c > '9' {
				return "", time.Time{}, false
			}
		} else if c != Layout[j] {
			return "", time.Time{}, false
		}
	}
	d, err := time.Parse(Layout, stamp)
	if err != nil || d.Format(Layout) != stamp || d.Year() < minYear || d.Year() > maxYear {
		return "", time.Time{}, false
	}
	return base, d.UTC(), true
}

// Leased reports whether name carries the lease marker, whether or not
// the lease parses: a name for which Leased is true and Parse fails has
// a lease nobody can read, which Reap reports and never acts on.
func Leased(name string) bool { return strings.Contains(name, Marker) }
