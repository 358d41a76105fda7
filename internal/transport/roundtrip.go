package transport

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/errs"
)

// attemptRoundTripper counts and logs each attempt. It sees the request as
// the caller built it, before credentials are added, so nothing it logs can
// contain the key; it logs the path and never the query string.
type attemptRoundTripper struct {
	next http.RoundTripper
	t    *Transport
}

// RoundTrip runs one attempt and logs it.
func (a *attemptRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	c := callFrom(ctx)
	attempt := 1
	if c != nil {
		attempt = int(c.attempts.Add(1))
		c.connected.Store(false)
	}
	start := time.Now()
	resp, err := a.next.RoundTrip(req)
	if resp != nil {
		a.t.observe(resp.Header, time.Now())
	}

	level := slog.LevelDebug
	if err != nil || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		level = slog.LevelWarn
	}
	if a.t.log.Enabled(ctx, level) {
		attrs := []slog.Attr{
			slog.String("method", req.Method),
			slog.String("path", req.URL.EscapedPath()),
			slog.Int("attempt", attempt),
			slog.Duration("duration", time.Since(start)),
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", a.t.red.string(err.Error())))
		} else {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
			if id := resp.Header.Get("X-Request-Id"); id != "" {
				attrs = append(attrs, slog.String("request_id", a.t.red.string(id)))
			}
		}
		a.t.log.LogAttrs(ctx, level, "runpod: http attempt", attrs...)
	}
	return resp, err
}

// credentialRoundTripper is the innermost layer: when the client sends the
// GraphQL key as a query parameter (Config.GraphQLQueryKey; the default is
// the Bearer header Transport.do sets), it adds api_key to a copy of each
// GraphQL request, only for the host the call was made to (never on a
// redirect elsewhere), and it keeps the key out of the response's Request
// and out of any error.
type credentialRoundTripper struct {
	next     http.RoundTripper
	key      Secret
	red      redactor
	queryKey bool // Config.GraphQLQueryKey
}

// RoundTrip sends req, with the api_key query parameter for GraphQL calls
// when queryKey is set.
func (cr *credentialRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	c := callFrom(req.Context())
	key := cr.key.Reveal()
	if !cr.queryKey || c == nil || c.auth != AuthGraphQL || key == "" || req.Header.Get("Authorization") != "" || req.URL.Host != c.host {
		return cr.next.RoundTrip(req)
	}
	if !secureEnough(req.URL) {
		return nil, errs.ErrInsecureURL
	}
	withKey := req.Clone(req.Context())
	q := withKey.URL.Query()
	q.Set("api_key", key)
	withKey.URL.RawQuery = q.Encode()
	resp, err := cr.next.RoundTrip(withKey)
	if resp != nil {
		resp.Request = req
	}
	return resp, cr.red.error(err)
}
