// Package option holds what calls of the SDK accept besides their
// arguments: call options and the response metadata they can observe, and
// Poll, the settings of every wait. The root package re-exports them
// (runpod.CallOption, runpod.WithResponseInto, runpod.ResponseInfo,
// runpod.Poll), so most programs never import this package.
//
// Options compose: every option given applies, in order, so a caller's
// observer and the SDK's own both see a call.
//
//	var info runpod.ResponseInfo
//	pod, err := rp.Pods.Get(ctx, id, runpod.WithResponseInto(&info))
//	fmt.Println(info.StatusCode, info.Attempts, info.RateLimit)
package option

import (
	"net/http"

	"github.com/runpodkit/runpod-go/ratelimit"
)

// CallOption adjusts one call.
type CallOption func(*Call)

// Call is one call's options once applied. The SDK builds it with
// NewCall and reports the response to it; a program has no need of it.
type Call struct {
	into []*ResponseInfo
}

// noOptions is the Call of every call without options: it is only read.
var noOptions Call

// NewCall applies opts in order. A call without options shares one empty
// Call, which nothing writes to.
func NewCall(opts ...CallOption) *Call {
	if len(opts) == 0 {
		return &noOptions
	}
	c := &Call{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// Observed reports whether any option asked for the response.
func (c *Call) Observed() bool { return len(c.into) > 0 }

// Report passes the call's response metadata to every option that asked
// for it.
func (c *Call) Report(info ResponseInfo) {
	for _, dst := range c.into {
		*dst = info
	}
}

// WithResponseInto fills *dst with the call's response metadata, for
// failed calls as well as successful ones. Given more than once, every
// dst is filled.
func WithResponseInto(dst *ResponseInfo) CallOption {
	return func(c *Call) {
		if dst != nil {
			c.into = append(c.into, dst)
		}
	}
}

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
