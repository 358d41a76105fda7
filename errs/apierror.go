package errs

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/ratelimit"
)

// APIError is a non-2xx HTTP response. REST v2 errors are
// application/problem+json (RFC 9457) and fill Title, Detail and Errors;
// any other body is kept as a short Excerpt.
type APIError struct {
	// StatusCode is the response's HTTP status code, such as 404 or 429.
	StatusCode int
	// Title is the problem's short summary, such as "Too Many Requests";
	// empty when the body was not a problem object.
	Title string
	// Detail is the problem's explanation; empty when the body was not a
	// problem object.
	Detail string
	// Errors lists individual request-validation failures, when the
	// problem gives them.
	Errors []string
	// Excerpt is the start of a body that was not a problem object, as one
	// line of at most 512 bytes (and a final "…" when cut), control
	// characters folded into spaces; empty when Title or Detail is set.
	Excerpt string
	// Body is the raw response body, at most 64 KiB, for callers that
	// decode error bodies of their own shape.
	Body []byte
	// ContentType is the response's Content-Type header, as sent.
	ContentType string
	// RetryAfter is the wait the server asked for before another request:
	// the Retry-After header, else (on a 429 or 503) the reset of an
	// exhausted RateLimit window; 0 when it asked for none.
	RetryAfter time.Duration
	// RateLimit is the response's RateLimit and RateLimit-Policy headers;
	// the zero RateLimit when it carried none.
	RateLimit ratelimit.RateLimit
	// RequestID is the response's X-Request-Id header, when present.
	RequestID string
	// Method is the request's HTTP method, such as "POST"; empty when the
	// error was built outside a call.
	Method string
	// Path is the request's URL path, without the query string (which may
	// carry a credential).
	Path string
	// OutcomeUnknown is set for a server error answering a call that is not
	// safe to repeat: the server may have acted before it failed.
	OutcomeUnknown bool
	// RequiredScope, on a 403, is the API key scope the operation
	// requires, such as "tags:read", as the platform's REST v2 document
	// names it (the SDK's copy of the document, looked up by the call's
	// method and route); empty when the document names none, or for
	// another status. A key that lacks the scope is answered 403 though
	// it is valid.
	RequiredScope string
	// DeadlineCut is set when the call stopped retrying because the wait
	// before the next attempt would not fit in what the context's deadline
	// left: the error is this response, returned at once instead of
	// sleeping into the deadline, and it also matches
	// context.DeadlineExceeded.
	DeadlineCut bool
}

// Error describes the response: method, path, status, title, detail, the
// scope a 403's operation needs and request id; never the query string or
// a credential.
func (e *APIError) Error() string {
	var b strings.Builder
	startMessage(&b, e.Method, e.Path)
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := e.Title; t != "" {
		b.WriteString(" " + t)
	} else if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	switch {
	case e.Detail != "":
		b.WriteString(": " + e.Detail)
	case e.Excerpt != "":
		fmt.Fprintf(&b, ": %q", e.Excerpt)
	}
	if len(e.Errors) > 0 {
		b.WriteString(" [" + strings.Join(e.Errors, "; ") + "]")
	}
	if e.RequiredScope != "" {
		b.WriteString(" (the operation needs an API key with scope " + e.RequiredScope + ")")
	}
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after " + e.RetryAfter.String() + ")")
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	return endMessage(&b, e.OutcomeUnknown)
}

// Is matches the sentinel that corresponds to the status code, and
// ErrOutcomeUnknown when the outcome is unknown.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrPaymentRequired:
		return e.StatusCode == http.StatusPaymentRequired
	case ErrOutcomeUnknown:
		return e.OutcomeUnknown
	case context.DeadlineExceeded:
		return e.DeadlineCut
	}
	return false
}
