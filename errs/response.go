package errs

import (
	"errors"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail/oneline"
)

// ErrResponseTooLarge matches a *ResponseError for a successful response
// whose body was larger than the client's limit (runpod.WithMaxResponseBytes).
var ErrResponseTooLarge = errors.New("runpod: response body too large")

// ResponseError reports a 2xx response whose body the SDK could not use:
// larger than the configured limit, or not the JSON the call expects (an
// HTML page from a proxy, a body cut short by the server). A body that
// stopped arriving because the connection failed is a *TransportError
// instead.
type ResponseError struct {
	// Method is the request's HTTP method, such as "POST".
	Method string
	// Path is the request's URL path, without the query string (which may
	// carry a credential).
	Path string
	// StatusCode is the response's status (2xx), or 0 when unknown.
	StatusCode int
	// ContentType is the response's Content-Type header, as sent.
	ContentType string
	// Limit is the size limit in bytes, when the body exceeded it; 0
	// otherwise.
	Limit int64
	// Excerpt is the start of a body that did not decode, as one line of
	// at most 512 bytes (and a final "…" when cut); empty when the body
	// was too large.
	Excerpt string
	// OutcomeUnknown is set when the call is not safe to repeat: the
	// server answered with success, so it probably acted, but its answer
	// (a job or resource id) is lost. The call was not retried.
	OutcomeUnknown bool
	// Err is ErrResponseTooLarge or the decoding error.
	Err error
}

// Error names the request and what was wrong with the body.
func (e *ResponseError) Error() string {
	var b strings.Builder
	startMessage(&b, e.Method, e.Path)
	if e.StatusCode != 0 {
		b.WriteString(strconv.Itoa(e.StatusCode) + " response: ")
	}
	switch {
	case errors.Is(e.Err, ErrResponseTooLarge):
		b.WriteString("body larger than the limit of " + strconv.FormatInt(e.Limit, 10) + " bytes")
	case e.Err != nil:
		b.WriteString("decoding body: " + oneline.Clean(e.Err.Error(), oneline.MaxExcerpt))
	default:
		b.WriteString("unusable body")
	}
	if e.ContentType != "" && !errors.Is(e.Err, ErrResponseTooLarge) {
		b.WriteString(" (Content-Type " + strconv.Quote(oneline.Clean(e.ContentType, 100)) + ")")
	}
	if e.Excerpt != "" {
		b.WriteString(": " + strconv.Quote(e.Excerpt))
	}
	return endMessage(&b, e.OutcomeUnknown)
}

// Unwrap returns ErrResponseTooLarge or the decoding error.
func (e *ResponseError) Unwrap() error { return e.Err }

// Is reports whether target is ErrOutcomeUnknown and the outcome is unknown.
func (e *ResponseError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.OutcomeUnknown
}
