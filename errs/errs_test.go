package errs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func problemHeader() http.Header {
	return http.Header{"Content-Type": {"application/problem+json"}}
}

func TestProblemJSON(t *testing.T) {
	h := problemHeader()
	h.Set("X-Request-Id", "req-1")
	h.Set("Retry-After", "12")
	h.Set("RateLimit", `"minute";r=0;t=12`)
	e := NewAPIError(429, h, []byte(`{"title":"Too Many Requests","status":429,"detail":"rate limit exceeded for the minute window","errors":["a","b"]}`), now)
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
	e := NewAPIError(403, http.Header{"Content-Type": {"application/problem+json; charset=utf-8"}}, []byte(`{"title":"Forbidden","status":403,"detail":"access denied"}`), now)
	assert.Equal(t, "access denied", e.Detail)
	e = NewAPIError(400, http.Header{"Content-Type": {"application/json"}}, []byte(`{"title":"Bad Request","status":400,"detail":"request could not be processed"}`), now)
	assert.Equal(t, "Bad Request", e.Title)
	e = NewAPIError(400, http.Header{"Content-Type": {"application/json"}}, []byte(`{"error":"no workers available"}`), now)
	assert.Empty(t, e.Title)
	assert.Equal(t, `{"error":"no workers available"}`, e.Excerpt)
	assert.Equal(t, `runpod: 400 Bad Request: "{\"error\":\"no workers available\"}"`, e.Error())
}

func TestNonProblemBodyExcerpt(t *testing.T) {
	html := "<html>\n<body>\t502 Bad   Gateway</body></html>" + strings.Repeat("x", 5000)
	e := NewAPIError(502, http.Header{"Content-Type": {"text/html"}}, []byte(html), now)
	assert.True(t, strings.HasPrefix(e.Excerpt, "<html> <body> 502 Bad Gateway</body></html>xxx"))
	assert.LessOrEqual(t, len(e.Excerpt), maxExcerpt+len("…"))
	assert.True(t, strings.HasSuffix(e.Excerpt, "…"))
	e = NewAPIError(500, http.Header{}, []byte("\xff\xfebad utf8\x00"), now)
	assert.True(t, utf8.ValidString(e.Excerpt))
	assert.Equal(t, "bad utf8", e.Excerpt)
	e = NewAPIError(500, http.Header{"Content-Type": {"application/problem+json"}}, []byte(`{not json`), now)
	assert.Equal(t, "{not json", e.Excerpt)
	assert.Equal(t, "runpod: 500 Internal Server Error: \"{not json\"", e.Error())
}

func TestAPIErrorIs(t *testing.T) {
	for status, sentinel := range map[int]error{401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound, 429: ErrRateLimited} {
		e := error(&APIError{StatusCode: status})
		assert.ErrorIs(t, e, sentinel)
		wrapped := fmt.Errorf("ctx: %w", e)
		assert.ErrorIs(t, wrapped, sentinel)
		for _, other := range []error{ErrUnauthorized, ErrForbidden, ErrNotFound, ErrRateLimited, ErrOutcomeUnknown} {
			if other != sentinel {
				assert.NotErrorIs(t, e, other)
			}
		}
	}
	e := &APIError{StatusCode: 503, OutcomeUnknown: true, Method: "POST", Path: "/v2/ep/run"}
	assert.ErrorIs(t, e, ErrOutcomeUnknown)
	assert.Contains(t, e.Error(), "outcome unknown")
}

func TestTransportError(t *testing.T) {
	e := &TransportError{Method: "POST", Path: "/v2/ep/run", Attempts: 2, Err: context.Canceled, OutcomeUnknown: true}
	assert.ErrorIs(t, e, context.Canceled)
	assert.ErrorIs(t, e, ErrOutcomeUnknown)
	assert.Equal(t, "runpod: POST /v2/ep/run (after 2 attempts): context canceled; outcome unknown: the server may have acted on the request, so it was not retried", e.Error())
	assert.NotErrorIs(t, &TransportError{Err: context.Canceled}, ErrOutcomeUnknown)
	assert.Equal(t, "runpod: GET /x: request failed", (&TransportError{Method: "GET", Path: "/x"}).Error())
}

func TestValidationError(t *testing.T) {
	err := error(Invalid("Params.LastN", "must be at least 1, got %d", 0))
	assert.ErrorIs(t, err, ErrValidation)
	assert.Equal(t, "runpod: invalid Params.LastN: must be at least 1, got 0", err.Error())
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, "Params.LastN", ve.Field)
	err = &ValidationError{Field: "RUNPOD_BASE_URL", Message: "plain http", Err: ErrInsecureURL}
	assert.ErrorIs(t, err, ErrInsecureURL)
	assert.ErrorIs(t, err, ErrValidation)
}

func TestGraphQLError(t *testing.T) {
	e := &GraphQLError{Operation: "SaveEndpoint", Errors: []GraphQLErrorDetail{
		{Message: "template not found", Path: []any{"saveEndpoint", float64(0)}, Extensions: map[string]any{"code": "NOT_FOUND"}},
		{Message: "second"},
	}}
	assert.Equal(t, "runpod: graphql SaveEndpoint: template not found (at saveEndpoint.0) [NOT_FOUND]; second", e.Error())
	assert.ErrorIs(t, e, ErrNotFound)
	assert.NotErrorIs(t, e, ErrUnauthorized)
	assert.ErrorIs(t, &GraphQLError{Errors: []GraphQLErrorDetail{{Extensions: map[string]any{"code": "UNAUTHENTICATED"}}}}, ErrUnauthorized)
	assert.ErrorIs(t, &GraphQLError{Errors: []GraphQLErrorDetail{{Extensions: map[string]any{"code": "FORBIDDEN"}}}}, ErrForbidden)
	assert.Equal(t, "runpod: graphql: unknown error", (&GraphQLError{}).Error())
	assert.Equal(t, "runpod: graphql: unknown error", (&GraphQLError{Errors: []GraphQLErrorDetail{{}}}).Error())
}

func FuzzNewAPIError(f *testing.F) {
	f.Add(429, "application/problem+json", []byte(`{"title":"Too Many Requests","status":429,"detail":"x","errors":["a"]}`), "12")
	f.Add(500, "text/html", []byte("<html>oops</html>"), "")
	f.Add(401, "application/json", []byte(`{"title":1}`), "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(400, "application/problem+json; charset=\"", []byte("\xff"), "-1")
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte, retryAfter string) {
		h := http.Header{"Content-Type": {contentType}, "Retry-After": {retryAfter}}
		e := NewAPIError(status, h, body, now)
		msg := e.Error()
		if !utf8.ValidString(msg) || !utf8.ValidString(e.Excerpt) || !utf8.ValidString(e.Detail) {
			t.Fatalf("invalid UTF-8 in %q", msg)
		}
		if len(e.Excerpt) > maxExcerpt+len("…") || len(e.Title) > maxExcerpt+len("…") || len(e.Detail) > 4*maxExcerpt+len("…") {
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
