package option

import (
	"context"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/ratelimit"
)

// Middleware wraps one call. It gets the request as the SDK built it
// (without credentials, which are added to each attempt after every
// middleware) and next, which sends it with the SDK's retries and returns
// the final response; it may change the request, inspect or replace the
// response, or not call next at all. A successful response's body is
// readable by the middleware; a body it replaces is what the call reads.
// Route(req.Context()) names the call's route.
//
//	logCalls := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
//		start := time.Now()
//		resp, err := next(req)
//		log.Printf("%s %s in %s", req.Method, option.Route(req.Context()), time.Since(start))
//		return resp, err
//	}
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// MiddlewareNext sends a request on: to the next middleware, or, from the
// last, with the SDK's retries.
type MiddlewareNext func(req *http.Request) (*http.Response, error)

// AttemptHook is called after each attempt of a call, with the attempt
// request's context (derived from the context a middleware passed to
// next, so it carries what the middleware put there) and what the attempt
// found.
type AttemptHook func(ctx context.Context, a Attempt)

// Attempt describes one attempt of a call.
type Attempt struct {
	// Method and Route name the call: Route is its route template, such
	// as "/v2/pods/{podId}" (the path itself where the SDK has no
	// template).
	Method, Route string
	// Number counts the attempts of the call, from 1.
	Number int
	// StatusCode is the response's status, 0 when none arrived.
	StatusCode int
	// RequestID is the response's X-Request-Id, when present.
	RequestID string
	// Err is why no response arrived (redacted), nil when one did.
	Err error
	// OutcomeUnknown reports that the attempt may have reached the
	// platform without an answer that says what it did: a failure after
	// the request may have been sent, or a 500, 502, 503 or 504.
	OutcomeUnknown bool
	// RateLimit is what the response's rate-limit headers reported.
	RateLimit ratelimit.RateLimit
	// Duration is how long the attempt took, to its response's header.
	Duration time.Duration
}

// Route returns the route template of the call ctx belongs to, such as
// "/v2/pods/{podId}", inside a middleware or an attempt hook; "" elsewhere.
func Route(ctx context.Context) string {
	r, _ := ctx.Value(routeKey{}).(string)
	return r
}

// ContextWithRoute returns ctx carrying route, which Route reads: the SDK
// hands middleware and attempt hooks such a context, and a test of a
// middleware or hook can make one.
func ContextWithRoute(ctx context.Context, route string) context.Context {
	return context.WithValue(ctx, routeKey{}, route)
}

// routeKey is the context key of a call's route.
type routeKey struct{}

// ResponseInfo describes the HTTP response to a call.
type ResponseInfo struct {
	// StatusCode is the final response's status (0 if none arrived).
	StatusCode int
	// Header is the final response's header.
	Header http.Header
	// RequestID is the X-Request-Id header, when present.
	RequestID string
	// Attempts is how many times the request was sent.
	Attempts int
	// RateLimit is the final response's RateLimit and RateLimit-Policy.
	RateLimit ratelimit.RateLimit
}
