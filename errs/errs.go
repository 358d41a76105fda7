package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrNoAPIKey reports that no API key was configured.
	ErrNoAPIKey = errors.New("runpod: no API key: pass option.WithAPIKey or set RUNPOD_API_KEY")
	// ErrUnauthorized matches a 401 response: the API key is missing,
	// malformed, expired or unknown.
	ErrUnauthorized = errors.New("runpod: unauthorized")
	// ErrForbidden matches a 403 response: the key lacks the permission.
	ErrForbidden = errors.New("runpod: forbidden")
	// ErrNotFound matches a 404 response.
	ErrNotFound = errors.New("runpod: not found")
	// ErrPaymentRequired matches a 402 response: the account's balance
	// is too low for what was asked (a sandbox create answers so), and
	// nothing was created. Add funds before trying again.
	ErrPaymentRequired = errors.New("runpod: payment required: the account balance is too low")
	// ErrRateLimited matches a 429 response, including one the SDK gave up
	// on because the server asked for a wait longer than the configured cap.
	ErrRateLimited = errors.New("runpod: rate limited")
	// ErrOutcomeUnknown matches a failure of a call that is not safe to
	// repeat (submitting a job, creating an endpoint, a mutation) after the
	// request may have reached the server: the SDK did not retry it, and
	// the server may or may not have acted on it.
	ErrOutcomeUnknown = errors.New("runpod: outcome unknown: the server may have acted on the request")
	// ErrValidation matches every *ValidationError.
	ErrValidation = errors.New("runpod: invalid argument")
	// ErrInsecureURL is returned instead of sending credentials over plain
	// http to a host that is not loopback.
	ErrInsecureURL = errors.New("runpod: refusing to send credentials over plain http to a non-loopback host")
	// ErrGraphQLRetired matches a 410 Gone answer from the platform's
	// GraphQL API: the platform retired it (announced for early 2027). The
	// error wrapping it names the REST v2 call to use instead; the
	// *APIError (StatusCode 410) stays reachable with errors.As.
	ErrGraphQLRetired = errors.New("runpod: the platform retired its GraphQL API (410 Gone)")
)

// ValidationError reports an argument the SDK rejected before sending any
// request. Field names the offending parameter as the caller wrote it, for
// example "Params.LastN" or "RUNPOD_BASE_URL".
type ValidationError struct {
	// Field names the rejected parameter, option or environment variable,
	// with its path inside a request (such as "CreatePodRequest.Ports[0]").
	Field string
	// Message says what is wrong with it, and what is wanted.
	Message string
	// Err is an underlying sentinel, such as ErrInsecureURL, when one
	// applies.
	Err error
}

// Error names the field and says what is wrong with it.
func (e *ValidationError) Error() string {
	return "runpod: invalid " + e.Field + ": " + e.Message
}

// Is reports whether target is ErrValidation.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

// Unwrap returns the underlying sentinel, if any.
func (e *ValidationError) Unwrap() error { return e.Err }

// TransportError reports a request that got no HTTP response: the
// connection failed, was reset or timed out, or the context ended. The
// message names the method and the path, never the query string.
type TransportError struct {
	// Method is the request's HTTP method, such as "GET".
	Method string
	// Path is the request's URL path, without the query string (which may
	// carry a credential).
	Path string
	// Attempts is how many times the request was tried, the first time
	// included.
	Attempts int
	// OutcomeUnknown is set when the call is not safe to repeat and the
	// request may have reached the server.
	OutcomeUnknown bool
	// Err is the underlying cause (context.Canceled, a *net.OpError, …).
	Err error
}

// Error names the method and path (never the query) and the cause.
func (e *TransportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "runpod: %s %s", e.Method, e.Path)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("request failed")
	}
	return endMessage(&b, e.OutcomeUnknown)
}

// Unwrap returns the underlying cause.
func (e *TransportError) Unwrap() error { return e.Err }

// Is reports whether target is ErrOutcomeUnknown and the outcome is unknown.
func (e *TransportError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.OutcomeUnknown
}

// outcomeUnknownNote ends the message of an error whose call was not safe
// to repeat and may have reached the server.
const outcomeUnknownNote = "; outcome unknown: the server may have acted on the request, so it was not retried"

// startMessage begins an error message about a request: "runpod: ", then
// the method and path and ": " when the method is known.
func startMessage(b *strings.Builder, method, path string) {
	b.WriteString("runpod: ")
	if method != "" {
		b.WriteString(method + " " + path + ": ")
	}
}

// endMessage appends outcomeUnknownNote when outcomeUnknown is set and
// returns the message.
func endMessage(b *strings.Builder, outcomeUnknown bool) string {
	if outcomeUnknown {
		b.WriteString(outcomeUnknownNote)
	}
	return b.String()
}
