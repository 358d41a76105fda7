package errs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/ratelimit"
)

// MaxErrorBody is how much of an error response body the SDK reads, in
// bytes (64 KiB); the rest is discarded.
const MaxErrorBody = 64 << 10

// maxExcerpt is the length of the body excerpt kept for bodies that are
// not problem+json.
const maxExcerpt = 512

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
	// Body is the raw response body, at most MaxErrorBody bytes, for
	// callers that decode error bodies of their own shape.
	Body []byte
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
	// DeadlineCut is set when the call stopped retrying because the wait
	// before the next attempt would not fit in what the context's deadline
	// left: the error is this response, returned at once instead of
	// sleeping into the deadline, and it also matches
	// context.DeadlineExceeded.
	DeadlineCut bool

	// parsed is set when NewAPIError read Title, Detail, Errors and
	// Excerpt from Body, whose Content-Type was contentType: redacting
	// the error reads them again from the redacted Body.
	parsed      bool
	contentType string
}

// NewAPIError builds an APIError from a response's status, headers and (at
// most MaxErrorBody bytes of) body. now is used to resolve an HTTP-date
// Retry-After.
func NewAPIError(status int, h http.Header, body []byte, now time.Time) *APIError {
	e := &APIError{StatusCode: status, RequestID: h.Get("X-Request-Id"), Body: body, parsed: true, contentType: h.Get("Content-Type")}
	e.RateLimit = ratelimit.Parse(h, now)
	if d, ok := ratelimit.RetryAfter(h.Get("Retry-After"), now); ok {
		e.RetryAfter = d
	} else if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		e.RetryAfter, _ = e.RateLimit.ExhaustedWait()
	}
	if p, ok := decodeProblem(h.Get("Content-Type"), body); ok {
		e.Title, e.Detail, e.Errors = p.Title, p.Detail, p.Errors
	} else {
		e.Excerpt = excerpt(body)
	}
	return e
}

// ServerWait is the wait a response's headers ask for before another
// request: Retry-After (seconds or an HTTP date, relative to now), else the
// reset of an exhausted RateLimit window. ok is false when they ask for
// none.
func ServerWait(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if d, ok := ratelimit.RetryAfter(h.Get("Retry-After"), now); ok {
		return d, true
	}
	return ratelimit.Parse(h, now).ExhaustedWait()
}

type problem struct {
	Title  string   `json:"title"`
	Status int      `json:"status"`
	Detail string   `json:"detail"`
	Errors []string `json:"errors"`
}

// decodeProblem decodes an RFC 9457 body. A body labelled plain JSON is
// accepted when it has the problem's fields.
func decodeProblem(contentType string, body []byte) (problem, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || (mt != "application/problem+json" && mt != "application/json") {
		return problem{}, false
	}
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		return problem{}, false
	}
	if p.Title == "" && p.Detail == "" {
		return problem{}, false
	}
	p.Title = clean(p.Title, maxExcerpt)
	p.Detail = clean(p.Detail, 4*maxExcerpt)
	for i, s := range p.Errors {
		p.Errors[i] = clean(s, maxExcerpt)
	}
	return p, true
}

// excerpt returns the start of body as one line of valid UTF-8.
func excerpt(body []byte) string {
	return clean(string(bytes.TrimSpace(body)), maxExcerpt)
}

// clean folds control characters and runs of white space into single
// spaces, drops invalid UTF-8 and cuts s to at most n bytes.
func clean(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > n {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Error describes the response: method, path, status, title, detail and
// request id; never the query string or a credential.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("runpod: ")
	if e.Method != "" {
		b.WriteString(e.Method)
		b.WriteByte(' ')
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
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
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after " + e.RetryAfter.String() + ")")
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	if e.OutcomeUnknown {
		b.WriteString("; outcome unknown: the server may have acted on the request, so it was not retried")
	}
	return b.String()
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
	case ErrOutcomeUnknown:
		return e.OutcomeUnknown
	case context.DeadlineExceeded:
		return e.DeadlineCut
	}
	return false
}
