// Package ratelimit parses the IETF RateLimit and RateLimit-Policy response
// headers (draft-ietf-httpapi-ratelimit-headers) and the Retry-After header.
//
// Both RateLimit fields are Structured-Field lists (RFC 9651) with one member
// per window; the member's value names the window (a String, or a Token in an
// older draft) and its parameters carry the numbers: r (remaining) and t
// (seconds until reset) on RateLimit, q (quota) and w (window seconds) on
// RateLimit-Policy. A header that does not parse is treated as absent, and a
// member whose parameters are missing or of the wrong type is skipped: rate
// limit information is advisory and never fails a call.
//
// Parsing is bounded: a field longer than MaxFieldBytes is ignored as
// malformed (a real one is well under 200 bytes), at most MaxWindows
// windows are kept (so the duplicate check is bounded), and the cost is
// linear in the header's size whatever a server sends.
package ratelimit

import (
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
)

// MaxFieldBytes is the longest RateLimit or RateLimit-Policy field (all of
// its lines together) that is parsed; a longer one is ignored.
const MaxFieldBytes = 8 << 10

// MaxWindows is how many windows of one field are kept; later members are
// ignored.
const MaxWindows = 32

// Window is one rate-limit window (for example "minute") as the server
// reported it.
type Window struct {
	// Name is the window's policy name, such as "minute", "hour" or "day".
	Name string
	// Remaining is the number of requests left in the window (the r
	// parameter), or -1 when the response carried a policy for the window
	// but no RateLimit member.
	Remaining int64
	// Reset is the time until the window resets (the t parameter).
	Reset time.Duration
	// Quota is the window's request quota (the q parameter of
	// RateLimit-Policy), or 0 when unknown.
	Quota int64
	// Length is the window's length (the w parameter of RateLimit-Policy), or
	// 0 when unknown.
	Length time.Duration
}

// Exhausted reports whether the window has no requests left.
func (w Window) Exhausted() bool { return w.Remaining == 0 }

// RateLimit is the caller's request quota as one response reported it.
type RateLimit struct {
	// Windows lists the windows in the order the RateLimit header gave them,
	// followed by windows only RateLimit-Policy named.
	Windows []Window
	// Observed is when the response carrying these headers was received.
	Observed time.Time
}

// IsZero reports whether the response carried no usable rate-limit headers.
func (rl RateLimit) IsZero() bool { return len(rl.Windows) == 0 }

// Window returns the window with the given name.
func (rl RateLimit) Window(name string) (Window, bool) {
	if i := slices.IndexFunc(rl.Windows, func(w Window) bool { return w.Name == name }); i >= 0 {
		return rl.Windows[i], true
	}
	return Window{}, false
}

// ExhaustedWait returns the longest Reset among windows with no requests
// left, and false when no window is exhausted. It is how long a caller must
// wait before the server accepts another request.
func (rl RateLimit) ExhaustedWait() (time.Duration, bool) {
	var wait time.Duration
	found := false
	for _, w := range rl.Windows {
		if w.Exhausted() {
			found = true
			wait = max(wait, w.Reset)
		}
	}
	return wait, found
}

// String summarises the windows, for example
// "minute 59/60 reset 12s, hour 2999/3000 reset 30m0s".
func (rl RateLimit) String() string {
	if rl.IsZero() {
		return "no rate-limit information"
	}
	var b strings.Builder
	for i, w := range rl.Windows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w.Name)
		b.WriteByte(' ')
		if w.Remaining >= 0 {
			b.WriteString(strconv.FormatInt(w.Remaining, 10))
		} else {
			b.WriteByte('?')
		}
		if w.Quota > 0 {
			b.WriteByte('/')
			b.WriteString(strconv.FormatInt(w.Quota, 10))
		}
		if w.Remaining >= 0 {
			b.WriteString(" reset ")
			b.WriteString(w.Reset.String())
		}
	}
	return b.String()
}

// LogValue renders the windows as a group of "name=remaining" attributes.
func (rl RateLimit) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(rl.Windows))
	for _, w := range rl.Windows {
		attrs = append(attrs, slog.Int64(w.Name, w.Remaining))
	}
	return slog.GroupValue(attrs...)
}

// Parse reads the RateLimit and RateLimit-Policy headers of h. It returns the
// zero RateLimit when neither header is present or usable. observed is
// recorded as the RateLimit's Observed time.
func Parse(h http.Header, observed time.Time) RateLimit {
	limits := h.Values("RateLimit")
	policies := h.Values("RateLimit-Policy")
	if len(limits) == 0 && len(policies) == 0 {
		return RateLimit{}
	}
	var windows []Window
	for _, m := range parseList(limits) {
		r, okR := intParam(m.params, "r")
		t, okT := intParam(m.params, "t")
		if !okR || !okT {
			continue
		}
		windows = append(windows, Window{Name: m.name, Remaining: r, Reset: seconds(t)})
	}
	for _, m := range parseList(policies) {
		q, ok := intParam(m.params, "q")
		if !ok {
			continue
		}
		w, _ := intParam(m.params, "w")
		i := slices.IndexFunc(windows, func(w Window) bool { return w.Name == m.name })
		if i < 0 {
			windows = append(windows, Window{Name: m.name, Remaining: -1})
			i = len(windows) - 1
		}
		windows[i].Quota = q
		windows[i].Length = seconds(w)
	}
	if len(windows) == 0 {
		return RateLimit{}
	}
	return RateLimit{Windows: windows, Observed: observed}
}

type member struct {
	name   string
	params *httpsfv.Params
}

// parseList returns the first MaxWindows distinct items whose value is a
// String or a Token. A list that does not parse, or whose lines together
// are longer than MaxFieldBytes, yields nothing.
func parseList(values []string) []member {
	if len(values) == 0 {
		return nil
	}
	size := 0
	for _, v := range values {
		if size += len(v); size > MaxFieldBytes {
			return nil
		}
	}
	list, err := httpsfv.UnmarshalList(values)
	if err != nil {
		return nil
	}
	out := make([]member, 0, min(len(list), MaxWindows))
	for _, m := range list {
		if len(out) == MaxWindows {
			break
		}
		item, ok := m.(httpsfv.Item)
		if !ok {
			continue
		}
		var name string
		switch v := item.Value.(type) {
		case string:
			name = v
		case httpsfv.Token:
			name = string(v)
		default:
			continue
		}
		// out holds at most MaxWindows members, so this check is bounded.
		if name == "" || slices.ContainsFunc(out, func(o member) bool { return o.name == name }) {
			continue
		}
		out = append(out, member{name: name, params: item.Params})
	}
	return out
}

// intParam returns a non-negative integer parameter.
func intParam(p *httpsfv.Params, name string) (int64, bool) {
	if p == nil {
		return 0, false
	}
	v, ok := p.Get(name)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok || n < 0 {
		return 0, false
	}
	return n, true
}

// maxSeconds keeps a window's duration representable.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

func seconds(n int64) time.Duration {
	return time.Duration(min(n, maxSeconds)) * time.Second
}

// RetryAfter parses a Retry-After header value, either delay-seconds or an
// HTTP-date, relative to now. A date in the past gives a zero wait. ok is
// false when the header is absent or malformed.
func RetryAfter(value string, now time.Time) (wait time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(value, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return seconds(n), true
	}
	t, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
