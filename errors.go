package runpod

import (
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/ratelimit"
)

// APIError is [errs.APIError]: a non-2xx HTTP response from the platform.
// REST v2 errors are application/problem+json and fill Title, Detail and
// Errors; other bodies are kept as a short Excerpt. Its other fields are
// StatusCode, Body, RetryAfter, RateLimit, RequestID, Method, Path and
// OutcomeUnknown; see errs.APIError for each. Match it with errors.As, or
// match its status with errors.Is and ErrUnauthorized, ErrForbidden,
// ErrNotFound or ErrRateLimited.
type APIError = errs.APIError

// GraphQLError is [errs.GraphQLError]: a GraphQL response carrying errors.
// Operation names the operation that failed and Errors keeps every entry
// of the errors array (a GraphQLErrorDetail: message, path, locations and
// extensions). errors.Is matches ErrUnauthorized, ErrForbidden and
// ErrNotFound by an entry's extensions.code.
type GraphQLError = errs.GraphQLError

// GraphQLErrorDetail is [errs.GraphQLErrorDetail]: one entry of a GraphQL
// errors array, with its Message, Path, Locations and Extensions (Code
// returns extensions.code).
type GraphQLErrorDetail = errs.GraphQLErrorDetail

// GraphQLLocation is [errs.GraphQLLocation]: a Line and Column, from 1, in
// the GraphQL document the SDK sent.
type GraphQLLocation = errs.GraphQLLocation

// ValidationError is [errs.ValidationError]: an argument rejected before any
// request was sent. Field names it as the caller wrote it (such as
// "Params.LastN" or "RUNPOD_BASE_URL"), Message says what is wrong, and Err
// is an underlying sentinel such as ErrInsecureURL, when one applies.
// Every ValidationError matches ErrValidation.
type ValidationError = errs.ValidationError

// TransportError is [errs.TransportError]: a call that got no HTTP response
// (connection refused or reset, timeout, context ended), or whose body was
// cut off as it arrived. Method and Path name the request, Attempts counts
// the tries, Err is the cause (context.Canceled, a *net.OpError, …), and
// OutcomeUnknown is set when the request may have reached the server and
// the call is not safe to repeat.
type TransportError = errs.TransportError

// ResponseError is [errs.ResponseError]: a successful (2xx) response whose
// body could not be used: larger than WithMaxResponseBytes
// (ErrResponseTooLarge; Limit is the cap), or not the JSON the call expects
// (an HTML page from a proxy, a body the server cut short; Excerpt is its
// start and Err the decoding error). Method, Path, StatusCode and
// ContentType describe the response. For a call that is not safe to repeat
// OutcomeUnknown is set and it matches ErrOutcomeUnknown: the server
// probably acted, but its answer is lost.
type ResponseError = errs.ResponseError

// RateLimit is [ratelimit.RateLimit]: the caller's quota as a response's
// RateLimit and RateLimit-Policy headers reported it. Windows lists each
// window (a RateLimitWindow) and Observed is when the response arrived;
// Window(name) finds one window, and the zero RateLimit means the response
// carried none.
type RateLimit = ratelimit.RateLimit

// RateLimitWindow is [ratelimit.Window]: one window (minute, hour, day) of a
// RateLimit. Name names it; Remaining is the requests left (-1 when only
// the policy was reported) and Reset the time until it resets; Quota and
// Length are the window's request quota and length from RateLimit-Policy
// (0 when unknown).
type RateLimitWindow = ratelimit.Window

// ResponseInfo is [option.ResponseInfo]: the HTTP metadata of one call's
// final response, filled by WithResponseInto. StatusCode is its status (0
// when no response arrived), Header its header, RequestID its X-Request-Id,
// Attempts how many times the request was sent, and RateLimit what its
// rate-limit headers reported.
type ResponseInfo = option.ResponseInfo

// Poll is [option.Poll]: it tunes every wait of the SDK (a job, a video, a
// drain, a pod's port, a load balancer's readiness). Interval is the pause
// between checks (DefaultPollInterval when zero) and OnCheck, when set, is
// called with what each check found, in order.
type Poll[T any] = option.Poll[T]

// DefaultPollInterval is [option.DefaultPollInterval] (2 s): the pause
// between checks of every wait whose Poll.Interval is zero.
const DefaultPollInterval = option.DefaultPollInterval

// CallOption is [option.CallOption]: it adjusts one call, and every method
// of every service accepts them, last. Options compose: each one given
// applies, in order.
type CallOption = option.CallOption

// WithResponseInto fills *dst with the status, headers, request id, attempt
// count and rate limits of the call's final response, whether the call
// succeeded or failed.
func WithResponseInto(dst *ResponseInfo) CallOption { return option.WithResponseInto(dst) }

// Errors matched with errors.Is. Each is the sentinel of the same name in
// package errs (runpod.ErrNotFound is errs.ErrNotFound), so either name
// matches.
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
	// not wait out because the server asked for more than the WithMaxWait
	// cap.
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
	// ErrGraphQLRetired matches the failure of every call of
	// rp.Serverless.GraphQL once the platform has retired its GraphQL API
	// (announced for early 2027; it then answers 410 Gone). The message
	// names the REST v2 call to use instead (rp.Serverless.Endpoints:
	// Create, Get, List, Update, Delete); the account's serverless
	// discount has no REST v2 equivalent. errors.As still finds the
	// *APIError, with StatusCode 410.
	ErrGraphQLRetired = errs.ErrGraphQLRetired
)
