package lease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/lease"
)

// TestNameAndParse: Name writes the deadline in UTC to the minute,
// rounded up, and Parse reads back the base and the deadline, also before
// the " -fb" the platform appends to a FlashBoot endpoint's name.
func TestNameAndParse(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		base     string
		deadline time.Time
		want     string
		back     time.Time
	}{
		{"ci-run", time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC), "ci-run~lease-20261128T0130Z", time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC)},
		{"ci run", time.Date(2026, 11, 28, 2, 30, 0, 0, paris), "ci run~lease-20261128T0130Z", time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC)},
		{"up", time.Date(2026, 12, 31, 23, 59, 0, 1, time.UTC), "up~lease-20270101T0000Z", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Modèle Ω", time.Date(2030, 2, 3, 4, 5, 59, 0, time.UTC), "Modèle Ω~lease-20300203T0406Z", time.Date(2030, 2, 3, 4, 6, 0, 0, time.UTC)},
	} {
		name, err := lease.Name(tc.base, tc.deadline)
		require.NoError(t, err)
		assert.Equal(t, tc.want, name)
		assert.False(t, tc.deadline.After(tc.back), "never earlier than asked")
		for _, n := range []string{name, name + " -fb"} {
			base, deadline, ok := lease.Parse(n)
			require.True(t, ok, n)
			assert.Equal(t, tc.base, base)
			assert.Equal(t, tc.back, deadline)
			assert.Equal(t, time.UTC, deadline.Location())
		}
	}
}

// TestParseRefuses: anything that is not exactly what Name writes is no
// lease, so a reaper never acts on it.
func TestParseRefuses(t *testing.T) {
	for _, n := range []string{
		"", "plain", "~lease-20261128T0130Z", "   ~lease-20261128T0130Z",
		"x~lease-", "x~lease-2026", "x~lease-20261128T0130", "x~lease-20261128T0130ZZ",
		"x~lease-20261128T0130z", "x~lease-20261128t0130Z", "x~lease-20261128 0130Z",
		"x~lease-2026-11-28T01:30Z", "x~lease-+0261128T0130Z", "x~lease-٢0261128T0130Z",
		"x~lease-20261332T0130Z", "x~lease-20260230T0130Z", "x~lease-20261128T2430Z", "x~lease-20261128T0160Z",
		"x~lease-19991231T2359Z", "x~lease-00010101T0000Z",
		"x~lease-20261128T0130Z -fb -fb", "x~lease-20261128T0130Z-fb", "x~lease-20261128T0130Z ",
		"x~lease-20261128T0130Z~lease-20261128T0130Z", "a\nb~lease-20261128T0130Z", "\xff~lease-20261128T0130Z",
		"x~LEASE-20261128T0130Z", "x-lease-20261128T0130Z",
	} {
		_, _, ok := lease.Parse(n)
		assert.False(t, ok, "%q", n)
	}
}

// TestNameRefuses: a name Name cannot make is a *errs.ValidationError
// naming the argument.
func TestNameRefuses(t *testing.T) {
	ok := time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		base     string
		deadline time.Time
		field    string
	}{
		{"", ok, "base"},
		{" \t", ok, "base"},
		{"a\x00b", ok, "base"},
		{"a\nb", ok, "base"},
		{"\xff", ok, "base"},
		{"x~lease-20261128T0130Z", ok, "base"},
		{"x", time.Time{}, "deadline"},
		{"x", time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), "deadline"},
		{"x", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "deadline"},
	} {
		_, err := lease.Name(tc.base, tc.deadline)
		var v *errs.ValidationError
		require.True(t, errors.As(err, &v), "%q %v: %v", tc.base, tc.deadline, err)
		assert.Equal(t, tc.field, v.Field)
		assert.ErrorIs(t, err, errs.ErrValidation)
	}
	_, err := lease.NameFor("x", 0)
	var v *errs.ValidationError
	require.True(t, errors.As(err, &v))
	assert.Equal(t, "ttl", v.Field)
	name, err := lease.NameFor("x", time.Hour)
	require.NoError(t, err)
	_, d, parsed := lease.Parse(name)
	require.True(t, parsed)
	assert.True(t, d.After(time.Now()), "an hour from now: %s", d) // the local clock is what NameFor documents
	assert.True(t, lease.Leased("x~lease-junk"))
	assert.False(t, lease.Leased(strings.Repeat("x", 3)))
}

// FuzzParse: Parse never panics, and a name it accepts is exactly what
// Name makes of what it read (with " -fb" after it at most): one spelling
// per deadline, so no two readings of a name differ.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"ci-run~lease-20261128T0130Z", "ep~lease-20300101T0000Z -fb", "x~lease-20260230T0130Z", "plain", "~lease-", "a~lease-20261128T0130Z~lease-20261128T0130Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		base, deadline, ok := lease.Parse(name)
		if !ok {
			assert.Empty(t, base)
			assert.True(t, deadline.IsZero())
			return
		}
		again, err := lease.Name(base, deadline)
		require.NoError(t, err)
		assert.Equal(t, strings.TrimSuffix(name, " -fb"), again)
		assert.True(t, lease.Leased(name))
		assert.Equal(t, deadline, deadline.Truncate(time.Minute))
	})
}
