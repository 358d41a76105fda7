package ratelimit

import (
	"net/http"
	"sync/atomic"
	"time"
)

// Tracker keeps the rate limits of the most recent response that reported
// any (RateLimit or RateLimit-Policy headers). Every service built from one
// option.Config records into the Config's Tracker, so a client's
// RateLimit covers all of its calls. It is safe for concurrent use; the
// zero Tracker is ready and has seen nothing.
type Tracker struct {
	latest atomic.Pointer[observation]
}

// observation is a response header kept as it came; it is parsed only
// when asked for.
type observation struct {
	header http.Header
	at     time.Time
}

// Observe records h, received at at, when it carries rate-limit fields;
// a header without them leaves the Tracker as it was.
func (t *Tracker) Observe(h http.Header, at time.Time) {
	if _, ok := h["Ratelimit"]; !ok {
		if _, ok := h["Ratelimit-Policy"]; !ok {
			return
		}
	}
	t.latest.Store(&observation{header: h, at: at})
}

// Latest returns the rate limits of the most recent response that
// reported any, and the zero RateLimit before that.
func (t *Tracker) Latest() RateLimit {
	o := t.latest.Load()
	if o == nil {
		return RateLimit{}
	}
	return Parse(o.header, o.at)
}
