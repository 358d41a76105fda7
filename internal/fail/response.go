package fail

import (
	"encoding/json"
	"mime"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail/oneline"
	"github.com/runpodkit/runpod-go/ratelimit"
)

// MaxErrorBody is how much of an error response body the SDK reads, in
// bytes (64 KiB); the rest is discarded.
const MaxErrorBody = 64 << 10

// APIError builds the *errs.APIError of a non-2xx response from its
// status, headers and (at most MaxErrorBody bytes of) body. now is used to
// resolve an HTTP-date Retry-After.
func APIError(status int, h http.Header, body []byte, now time.Time) *errs.APIError {
	e := &errs.APIError{StatusCode: status, RequestID: h.Get("X-Request-Id"), Body: body, ContentType: h.Get("Content-Type")}
	e.RateLimit = ratelimit.Parse(h, now)
	if d, ok := ratelimit.RetryAfter(h.Get("Retry-After"), now); ok {
		e.RetryAfter = d
	} else if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		e.RetryAfter, _ = e.RateLimit.ExhaustedWait()
	}
	DecodeBody(e)
	return e
}

// DecodeBody sets e's Title, Detail, Errors and Excerpt from its Body and
// ContentType: the fields of an RFC 9457 problem, each as one line, or
// else the start of the body as Excerpt.
func DecodeBody(e *errs.APIError) {
	e.Title, e.Detail, e.Errors, e.Excerpt = "", "", nil, ""
	if p, ok := decodeProblem(e.ContentType, e.Body); ok {
		e.Title, e.Detail, e.Errors = p.Title, p.Detail, p.Errors
	} else {
		e.Excerpt = oneline.Excerpt(e.Body)
	}
}

// ResponseError builds the *errs.ResponseError for a 2xx body of method
// and path that did not decode with err.
func ResponseError(method, path string, status int, contentType string, body []byte, err error) *errs.ResponseError {
	return &errs.ResponseError{Method: method, Path: path, StatusCode: status, ContentType: contentType, Excerpt: oneline.Excerpt(body), Err: err}
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
	p.Title = oneline.Clean(p.Title, oneline.MaxExcerpt)
	p.Detail = oneline.Clean(p.Detail, 4*oneline.MaxExcerpt)
	for i, s := range p.Errors {
		p.Errors[i] = oneline.Clean(s, oneline.MaxExcerpt)
	}
	return p, true
}
