package runpod

import (
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/ratelimit"
)

// APIError is a non-2xx HTTP response from the platform. REST v2 errors
// are application/problem+json and fill Title, Detail and Errors; other
// bodies are kept as a short Excerpt. Match it with errors.As, or match its
// status with errors.Is and ErrUnauthorized, ErrForbidden, ErrNotFound or
// ErrRateLimited.
type APIError = errs.APIError

// GraphQLError is a GraphQL response carrying errors; it keeps every
// message, path and extension.
type GraphQLError = errs.GraphQLError

// GraphQLErrorDetail is one entry of a GraphQL errors array.
type GraphQLErrorDetail = errs.GraphQLErrorDetail

// GraphQLLocation is a line and column in a GraphQL document.
type GraphQLLocation = errs.GraphQLLocation

// ValidationError reports an argument rejected before any request was sent;
// Field names it.
type ValidationError = errs.ValidationError

// TransportError reports a call that got no HTTP response (connection
// refused or reset, timeout, context ended).
type TransportError = errs.TransportError

// ResponseError reports a successful (2xx) response whose body could not
// be used: larger than WithMaxResponseBytes (ErrResponseTooLarge), or not
// the JSON the call expects (an HTML page from a proxy, a body the server
// cut short). For a call that is not safe to repeat it matches
// ErrOutcomeUnknown: the server probably acted, but its answer is lost.
type ResponseError = errs.ResponseError

// RateLimit is the caller's quota as a response's RateLimit and
// RateLimit-Policy headers reported it.
type RateLimit = ratelimit.RateLimit

// RateLimitWindow is one window (minute, hour, day) of a RateLimit.
type RateLimitWindow = ratelimit.Window

// ResponseInfo is the HTTP metadata of one call; see WithResponseInto.
type ResponseInfo = option.ResponseInfo

// Poll tunes every wait of the SDK (a job, a video, a drain, a pod's port,
// a load balancer's readiness): the pause between checks (default
// DefaultPollInterval) and a callback with what each check found.
type Poll[T any] = option.Poll[T]

// DefaultPollInterval is the pause between checks of every wait whose
// Poll.Interval is zero.
const DefaultPollInterval = option.DefaultPollInterval

// CallOption adjusts one call; every method of every service accepts them.
type CallOption = option.CallOption

// WithResponseInto fills *dst with the status, headers, request id, attempt
// count and rate limits of the call's final response, whether the call
// succeeded or failed.
func WithResponseInto(dst *ResponseInfo) CallOption { return option.WithResponseInto(dst) }

// Errors matched with errors.Is.
var (
	// ErrNoAPIKey is returned by NewClient when neither WithAPIKey nor
	// RUNPOD_API_KEY supplies a key.
	ErrNoAPIKey = errs.ErrNoAPIKey
	// ErrUnauthorized matches 401 responses (missing, malformed or unknown
	// key) and GraphQL UNAUTHENTICATED errors.
	ErrUnauthorized = errs.ErrUnauthorized
	// ErrForbidden matches 403 responses: the key lacks the permission.
	ErrForbidden = errs.ErrForbidden
	// ErrNotFound matches 404 responses.
	ErrNotFound = errs.ErrNotFound
	// ErrRateLimited matches 429 responses, including those the SDK did
	// not wait out because the server asked for more than the MaxWait cap.
	ErrRateLimited = errs.ErrRateLimited
	// ErrOutcomeUnknown matches failures of calls that are not safe to
	// repeat (run a job, create an endpoint, a mutation) after the request
	// may have reached the server. The SDK never retries those; check the
	// platform's state before trying again.
	ErrOutcomeUnknown = errs.ErrOutcomeUnknown
	// ErrResponseTooLarge matches a *ResponseError for a successful
	// response whose body was larger than WithMaxResponseBytes.
	ErrResponseTooLarge = errs.ErrResponseTooLarge
	// ErrValidation matches every *ValidationError.
	ErrValidation = errs.ErrValidation
	// ErrInsecureURL is returned instead of sending the API key over plain
	// http to a host that is not loopback.
	ErrInsecureURL = errs.ErrInsecureURL
)
