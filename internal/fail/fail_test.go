package fail_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/fail/oneline"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func problemHeader() http.Header {
	return http.Header{"Content-Type": {"application/problem+json"}}
}

func TestProblemJSON(t *testing.T) {
	h := problemHeader()
	h.Set("X-Request-Id", "req-1")
	h.Set("Retry-After", "12")
	h.Set("RateLimit", `"minute";r=0;t=12`)
	e := fail.APIError(429, h, []byte(`{"title":"Too Many Requests","status":429,"detail":"rate limit exceeded for the minute window","errors":["a","b"]}`), now)
	assert.Equal(t, "Too Many Requests", e.Title)
	assert.Equal(t, "rate limit exceeded for the minute window", e.Detail)
	assert.Equal(t, []string{"a", "b"}, e.Errors)
	assert.Equal(t, 12*time.Second, e.RetryAfter)
	assert.Equal(t, "req-1", e.RequestID)
	assert.False(t, e.RateLimit.IsZero())
	assert.Empty(t, e.Excerpt)
	e.Method, e.Path = "GET", "/v2/billing/serverless"
	assert.Equal(t, "runpod: GET /v2/billing/serverless: 429 Too Many Requests: rate limit exceeded for the minute window [a; b] (retry after 12s) (request id req-1)", e.Error())
}

func TestProblemWithCharsetAndPlainJSON(t *testing.T) {
	e := fail.APIError(403, http.Header{"Content-Type": {"application/problem+json; charset=utf-8"}}, []byte(`{"title":"Forbidden","status":403,"detail":"access denied"}`), now)
	assert.Equal(t, "access denied", e.Detail)
	e = fail.APIError(400, http.Header{"Content-Type": {"application/json"}}, []byte(`{"title":"Bad Request","status":400,"detail":"request could not be processed"}`), now)
	assert.Equal(t, "Bad Request", e.Title)
	e = fail.APIError(400, http.Header{"Content-Type": {"application/json"}}, []byte(`{"error":"no workers available"}`), now)
	assert.Empty(t, e.Title)
	assert.Equal(t, `{"error":"no workers available"}`, e.Excerpt)
	assert.Equal(t, `runpod: 400 Bad Request: "{\"error\":\"no workers available\"}"`, e.Error())
}

func TestNonProblemBodyExcerpt(t *testing.T) {
	html := "<html>\n<body>\t502 Bad   Gateway</body></html>" + strings.Repeat("x", 5000)
	e := fail.APIError(502, http.Header{"Content-Type": {"text/html"}}, []byte(html), now)
	assert.True(t, strings.HasPrefix(e.Excerpt, "<html> <body> 502 Bad Gateway</body></html>xxx"))
	assert.LessOrEqual(t, len(e.Excerpt), oneline.MaxExcerpt+len("…"))
	assert.True(t, strings.HasSuffix(e.Excerpt, "…"))
	e = fail.APIError(500, http.Header{}, []byte("\xff\xfebad utf8\x00"), now)
	assert.True(t, utf8.ValidString(e.Excerpt))
	assert.Equal(t, "bad utf8", e.Excerpt)
	e = fail.APIError(500, http.Header{"Content-Type": {"application/problem+json"}}, []byte(`{not json`), now)
	assert.Equal(t, "{not json", e.Excerpt)
	assert.Equal(t, "runpod: 500 Internal Server Error: \"{not json\"", e.Error())
}

func TestAPIErrorKeepsContentType(t *testing.T) {
	h := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	e := fail.APIError(503, h, []byte("<p>down</p>"), now)
	assert.Equal(t, "text/html; charset=utf-8", e.ContentType)
	assert.Equal(t, "<p>down</p>", e.Excerpt)

	// DecodeBody reads the fields again from Body and ContentType.
	e.Body, e.ContentType = []byte(`{"title":"Service Unavailable","detail":"maintenance"}`), "application/problem+json"
	fail.DecodeBody(e)
	assert.Equal(t, "Service Unavailable", e.Title)
	assert.Equal(t, "maintenance", e.Detail)
	assert.Empty(t, e.Excerpt)
	e.ContentType = "text/plain"
	fail.DecodeBody(e)
	assert.Empty(t, e.Title)
	assert.Empty(t, e.Detail)
	assert.Equal(t, `{"title":"Service Unavailable","detail":"maintenance"}`, e.Excerpt)
}

func TestAPIErrorRateLimitWait(t *testing.T) {
	h := http.Header{"Ratelimit": {`"minute";r=0;t=30`}, "Ratelimit-Policy": {`"minute";q=100;w=60`}}
	e := fail.APIError(429, h, nil, now)
	assert.Equal(t, 30*time.Second, e.RetryAfter, "an exhausted window's reset stands in for Retry-After on a 429")
	e = fail.APIError(500, h, nil, now)
	assert.Zero(t, e.RetryAfter, "only on a 429 or a 503")
}

func TestResponseError(t *testing.T) {
	cause := errors.New("invalid character '<'")
	e := fail.ResponseError("POST", "/v2/pods", 200, "text/html", []byte("  <html>\n<body>oops</body></html>\n"), cause)
	assert.Equal(t, "POST", e.Method)
	assert.Equal(t, "/v2/pods", e.Path)
	assert.Equal(t, 200, e.StatusCode)
	assert.Equal(t, "text/html", e.ContentType)
	assert.Equal(t, "<html> <body>oops</body></html>", e.Excerpt)
	assert.ErrorIs(t, e, cause)
	assert.Equal(t, `runpod: POST /v2/pods: 200 response: decoding body: invalid character '<' (Content-Type "text/html"): "<html> <body>oops</body></html>"`, e.Error())
	var re *errs.ResponseError
	assert.ErrorAs(t, error(e), &re)
}

func TestServerWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"none", http.Header{}, 0, false},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second, true},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		{"exhausted window", http.Header{"Ratelimit": {`"minute";r=0;t=12`}}, 12 * time.Second, true},
		{"window left", http.Header{"Ratelimit": {`"minute";r=5;t=12`}}, 0, false},
		{"Retry-After first", http.Header{"Retry-After": {"3"}, "Ratelimit": {`"minute";r=0;t=12`}}, 3 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := fail.ServerWait(tc.h, now)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzAPIError(f *testing.F) {
	f.Add(429, "application/problem+json", []byte(`{"title":"Too Many Requests","status":429,"detail":"x","errors":["a"]}`), "12")
	f.Add(500, "text/html", []byte("<html>oops</html>"), "")
	f.Add(401, "application/json", []byte(`{"title":1}`), "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(400, "application/problem+json; charset=\"", []byte("\xff"), "-1")
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte, retryAfter string) {
		h := http.Header{"Content-Type": {contentType}, "Retry-After": {retryAfter}}
		e := fail.APIError(status, h, body, now)
		msg := e.Error()
		if !utf8.ValidString(msg) || !utf8.ValidString(e.Excerpt) || !utf8.ValidString(e.Detail) {
			t.Fatalf("invalid UTF-8 in %q", msg)
		}
		if len(e.Excerpt) > oneline.MaxExcerpt+len("…") || len(e.Title) > oneline.MaxExcerpt+len("…") || len(e.Detail) > 4*oneline.MaxExcerpt+len("…") {
			t.Fatalf("excerpt not capped: %d", len(e.Excerpt))
		}
		if strings.ContainsAny(e.Excerpt+e.Detail+e.Title, "\n\r\x00") {
			t.Fatalf("control characters kept")
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative Retry-After")
		}
	})
}
