package runpodtest

import (
	"net/http"
	"slices"
	"strings"
)

// The request log: every request the fake received, with its route, what
// it answered and whether the route's handler ran, for tests to inspect
// and count.

// Requests returns a copy of the request log.
func (s *engine) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Count returns how many requests matched route (or "*": all requests).
func (s *engine) Count(route string) int {
	return s.countIf(route, func(Request) bool { return true })
}

// Acted returns how many requests of route reached its handler: the number
// of times the server really did what the route does.
func (s *engine) Acted(route string) int {
	return s.countIf(route, func(r Request) bool { return r.Acted })
}

func (s *engine) countIf(route string, f func(Request) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if (route == "*" || r.Route == route) && f(r) {
			n++
		}
	}
	return n
}

func (s *engine) record(route string, r *http.Request, body []byte) int {
	q := r.URL.Query()
	if q.Has("api_key") {
		q.Set("api_key", "[REDACTED]")
	}
	h := r.Header.Clone()
	if h.Get("Authorization") != "" {
		h.Set("Authorization", "[REDACTED]")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, Request{
		Route: route, Method: r.Method, Path: r.URL.Path, Query: q, RawQuery: redactRawQuery(r.URL.RawQuery),
		Header: h, Body: body, Time: s.now(),
	})
	return len(s.log) - 1
}

func redactRawQuery(raw string) string {
	if !strings.Contains(raw, "api_key") {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		if name, _, _ := strings.Cut(p, "="); name == "api_key" {
			parts[i] = "api_key=[REDACTED]"
		}
	}
	return strings.Join(parts, "&")
}

func (s *engine) markActed(entry int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log[entry].Acted = true
}

func (s *engine) finish(entry, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log[entry].Status = status
}
