package ratelimit

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var at = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestParsePlatformExample(t *testing.T) {
	rl := Parse(header(
		"RateLimit", `"minute";r=0;t=12, "hour";r=2800;t=1812, "day";r=49500;t=45012`,
		"RateLimit-Policy", `"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400`,
	), at)
	require.Equal(t, []Window{
		{Name: "minute", Remaining: 0, Reset: 12 * time.Second, Quota: 60, Length: time.Minute},
		{Name: "hour", Remaining: 2800, Reset: 1812 * time.Second, Quota: 3000, Length: time.Hour},
		{Name: "day", Remaining: 49500, Reset: 45012 * time.Second, Quota: 50000, Length: 24 * time.Hour},
	}, rl.Windows)
	assert.Equal(t, at, rl.Observed)
	wait, ok := rl.ExhaustedWait()
	assert.True(t, ok)
	assert.Equal(t, 12*time.Second, wait)
	m, ok := rl.Window("minute")
	assert.True(t, ok)
	assert.True(t, m.Exhausted())
	assert.Equal(t, "minute 0/60 reset 12s, hour 2800/3000 reset 30m12s, day 49500/50000 reset 12h30m12s", rl.String())
}

func TestParseSplitAcrossLines(t *testing.T) {
	rl := Parse(header("RateLimit", `"minute";r=50;t=30`, "RateLimit", `"hour";r=900;t=1800`), at)
	require.Len(t, rl.Windows, 2)
	assert.Equal(t, "hour", rl.Windows[1].Name)
	assert.Equal(t, int64(900), rl.Windows[1].Remaining)
	_, exhausted := rl.ExhaustedWait()
	assert.False(t, exhausted)
}

func TestParseTokenNames(t *testing.T) {
	rl := Parse(header("RateLimit", `default;r=5;t=1`, "RateLimit-Policy", `default;q=100;w=60`), at)
	require.Len(t, rl.Windows, 1)
	assert.Equal(t, Window{Name: "default", Remaining: 5, Reset: time.Second, Quota: 100, Length: time.Minute}, rl.Windows[0])
}

func TestParsePolicyOnly(t *testing.T) {
	rl := Parse(header("RateLimit-Policy", `"minute";q=60;w=60`), at)
	require.Len(t, rl.Windows, 1)
	assert.Equal(t, int64(-1), rl.Windows[0].Remaining)
	_, exhausted := rl.ExhaustedWait()
	assert.False(t, exhausted)
	assert.Equal(t, "minute ?/60", rl.String())
}

// TestParseMalformedIgnored: a header that does not parse is treated as
// absent, a member with bad parameters is skipped, and nothing panics.
func TestParseMalformedIgnored(t *testing.T) {
	for _, bad := range []string{
		`garbage,,`, `"x";r=abc;t=1`, `"x";r=1`, `"x";t=1`, `"x";r=-1;t=1`, `"x";r=1;t=-5`,
		`"x";r=1.5;t=1`, `("a" "b");r=1;t=1`, `1;r=1;t=1`, `"";r=1;t=1`, `"x";r="1";t=1`, `;;;`,
	} {
		rl := Parse(header("RateLimit", bad), at)
		assert.True(t, rl.IsZero(), bad)
	}
	rl := Parse(header("RateLimit", `"a";r=x;t=1, "b";r=3;t=4`), at)
	require.Len(t, rl.Windows, 1)
	assert.Equal(t, "b", rl.Windows[0].Name)
	rl = Parse(header("RateLimit", `"a";r=1;t=1, "a";r=0;t=9`), at)
	require.Len(t, rl.Windows, 1, "a repeated name keeps the first member")
	rl = Parse(header("RateLimit", `"a";r=1;t=1`, "RateLimit-Policy", `"a";w=60`), at)
	assert.Zero(t, rl.Windows[0].Quota, "a policy without q is skipped")
	assert.True(t, Parse(http.Header{}, at).IsZero())
	assert.Equal(t, "no rate-limit information", RateLimit{}.String())
}

func TestHugeResetDoesNotOverflow(t *testing.T) {
	rl := Parse(header("RateLimit", `"x";r=0;t=999999999999999`), at)
	require.Len(t, rl.Windows, 1)
	assert.Greater(t, rl.Windows[0].Reset, time.Duration(0))
}

func TestRetryAfter(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"12", 12 * time.Second, true},
		{" 0 ", 0, true},
		{at.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{at.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Sun, 06 Nov 1994 08:49:37 GMT", 0, true},
		{"", 0, false},
		{"-3", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	}
	for _, c := range cases {
		got, ok := RetryAfter(c.in, at)
		assert.Equal(t, c.ok, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`"minute";r=0;t=12, "hour";r=2800;t=1812`, `"minute";q=60;w=60`)
	f.Add(`default;r=5;t=1`, `default;q=100;w=60`)
	f.Add(`garbage,,`, `"x";q=abc`)
	f.Add(`("a" "b");r=1;t=1`, ``)
	f.Fuzz(func(t *testing.T, limit, policy string) {
		h := http.Header{"Ratelimit": {limit}, "Ratelimit-Policy": {policy}}
		rl := Parse(h, at)
		for _, w := range rl.Windows {
			if w.Name == "" || w.Remaining < -1 || w.Reset < 0 || w.Quota < 0 || w.Length < 0 {
				t.Fatalf("bad window %+v from %q / %q", w, limit, policy)
			}
		}
		if wait, ok := rl.ExhaustedWait(); ok && wait < 0 {
			t.Fatalf("negative wait")
		}
		_ = rl.String()
		_, _ = RetryAfter(limit, at)
	})
}

// hugeField is a syntactically valid RateLimit field of about n bytes:
// many distinct members, the shape that made duplicate checks quadratic.
func hugeField(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"w%d";r=%d;t=1`, i, i)
	}
	return b.String()
}

func TestParseIgnoresOversizedField(t *testing.T) {
	big := hugeField(1 << 20)
	rl := Parse(header("RateLimit", big, "RateLimit-Policy", big), at)
	assert.True(t, rl.IsZero(), "a 1 MB field is ignored as malformed")

	// The limit counts every line of the field together.
	half := hugeField(MaxFieldBytes/2 + 10)
	rl = Parse(header("RateLimit", half, "RateLimit", half), at)
	assert.True(t, rl.IsZero())

	// A field just under the limit is parsed, keeping MaxWindows windows.
	rl = Parse(header("RateLimit", hugeField(MaxFieldBytes-64)), at)
	require.Len(t, rl.Windows, MaxWindows)
	assert.Equal(t, "w0", rl.Windows[0].Name)
}

func TestParseManyDuplicatesIsBounded(t *testing.T) {
	var b strings.Builder
	for b.Len() < MaxFieldBytes-40 {
		b.WriteString(`"minute";r=1;t=1, `)
	}
	b.WriteString(`"hour";r=2;t=2`)
	rl := Parse(header("RateLimit", b.String()), at)
	require.Len(t, rl.Windows, 2)
	assert.Equal(t, "hour", rl.Windows[1].Name)
}

// BenchmarkParseRateLimitField measures Parse on RateLimit fields of
// growing size; the 1 MiB case is ignored after a length check.
func BenchmarkParseRateLimitField(b *testing.B) {
	for _, n := range []int{128, 1 << 10, 4 << 10, MaxFieldBytes - 64, 256 << 10, 1 << 20} {
		h := header("RateLimit", hugeField(n), "RateLimit-Policy", `"minute";q=60;w=60`)
		b.Run(fmt.Sprintf("bytes=%d", len(h.Get("RateLimit"))), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Parse(h, at)
			}
		})
	}
}
