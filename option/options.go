package option

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/secret"
)

var errNoAPIKey = errs.ErrNoAPIKey

// WithAPIKey sets the API key (overriding RUNPOD_API_KEY, the rp profile
// file, and a WithProfile before it). It configures a client.
func WithAPIKey(key string) RequestOption {
	return func(c *Config) error {
		c.APIKey, c.keyFrom = secret.NewString(strings.TrimSpace(key)), "WithAPIKey"
		c.profile, c.profileFrom = "", ""
		c.setsClient("WithAPIKey")
		return nil
	}
}

// WithBaseURL sets the host of the REST v2 and GraphQL APIs (overriding
// RUNPOD_BASE_URL), for example "https://api.runpod.io". A trailing "/v2"
// is dropped ("https://api.runpod.io/v2" works too); any other path is a
// prefix of every request path, for a gateway in front of the platform.
// Plain http is allowed only for a loopback host. It configures a client.
func WithBaseURL(u string) RequestOption {
	return func(c *Config) error {
		c.BaseURL, c.baseFrom = u, "WithBaseURL"
		c.setsClient("WithBaseURL")
		return nil
	}
}

// WithInferenceURL sets the host that serves endpoints and public models
// (overriding RUNPOD_INFERENCE_URL), for example "https://api.runpod.ai".
// As with WithBaseURL, a trailing "/v2" is dropped and any other path is
// kept as a prefix. It configures a client.
func WithInferenceURL(u string) RequestOption {
	return func(c *Config) error {
		c.InferenceURL, c.inferenceFrom = u, "WithInferenceURL"
		c.setsClient("WithInferenceURL")
		return nil
	}
}

// WithProxyHost sets the host of pod HTTP proxy URLs (overriding
// RUNPOD_PROXY_HOST), for example "proxy.runpod.net". It configures a
// client.
func WithProxyHost(host string) RequestOption {
	return func(c *Config) error {
		c.ProxyHost, c.proxyFrom = host, "WithProxyHost"
		c.setsClient("WithProxyHost")
		return nil
	}
}

// WithHTTPClient supplies the *http.Client whose Transport, Jar, Timeout and
// CheckRedirect the SDK uses underneath its own retry and credential
// layers. The client is not modified. Its Timeout applies to each attempt;
// prefer a context deadline, which covers the whole call and leaves
// streams alone, or WithRequestTimeout. It configures a client.
func WithHTTPClient(hc *http.Client) RequestOption {
	return notNil("WithHTTPClient", "client", hc, func(c *Config) { c.HTTPClient = hc; c.setsClient("WithHTTPClient") })
}

// WithDialer sets how the SDK opens the TCP connections it makes outside
// HTTP: SSH to pods (package pods/podssh), which dials the pod's public
// address ("203.0.113.7:10022") with network "tcp". A test points it at
// an in-process server (runpodtest's clients do); a program can reach
// pods through a SOCKS proxy or a bastion with it. HTTP requests go
// through WithHTTPClient's transport instead. It configures a client.
func WithDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) RequestOption {
	return func(c *Config) error {
		if dial == nil {
			return invalid("WithDialer", "dialer is nil")
		}
		c.Dialer = dial
		c.setsClient("WithDialer")
		return nil
	}
}

// WithMaxIdleConnsPerHost sizes the connection pool NewConfig makes
// (default 256). It has no effect with WithHTTPClient. It configures a
// client.
func WithMaxIdleConnsPerHost(n int) RequestOption {
	return atLeastOne("WithMaxIdleConnsPerHost", n, func(c *Config) *int {
		c.setsClient("WithMaxIdleConnsPerHost")
		return &c.MaxIdleConnsPerHost
	})
}

// WithGraphQLQueryKey sends the API key to the GraphQL API as the api_key
// query parameter (https://api.runpod.io/graphql?api_key=…), the form the
// platform's GraphQL documentation shows, instead of the Authorization:
// Bearer header, the default (the platform's own clients send the header;
// keys in URLs end up in proxy and server logs). The platform accepts
// both. The SDK still sends the key only to the configured host, never
// over plain http to a host that is not loopback, and keeps it out of its
// logs and errors. It configures a client.
func WithGraphQLQueryKey() RequestOption {
	return func(c *Config) error {
		c.GraphQLQueryKey = true
		c.setsClient("WithGraphQLQueryKey")
		return nil
	}
}

// WithLogger sets the logger for per-attempt lines (method, path without
// query, status, attempt, duration, request id): Debug for each attempt,
// Warn for failed ones. The default discards everything.
func WithLogger(l *slog.Logger) RequestOption {
	return notNil("WithLogger", "logger", l, func(c *Config) { c.Logger = l })
}

// WithUserAgent appends an application token, such as "myapp/1.2", to the
// SDK's User-Agent.
func WithUserAgent(suffix string) RequestOption {
	return func(c *Config) error {
		if strings.ContainsAny(suffix, "\r\n") {
			return invalid("WithUserAgent", "suffix contains a line break")
		}
		c.UserAgent = suffix
		return nil
	}
}

// WithMaxRetries sets how many times a failed call may be retried
// (default 3; 0 turns retries off). Calls that are not safe to repeat are
// only retried when the request never left or the server answered 429.
// Given to a call, it overrides the client's for that call.
func WithMaxRetries(n int) RequestOption {
	return func(c *Config) error {
		if n < 0 {
			return invalid("WithMaxRetries", "must not be negative, got %d", n)
		}
		c.MaxRetries = n
		return nil
	}
}

// WithMaxWait caps a wait the server asks for (Retry-After, or an exhausted
// RateLimit window): when the server asks for longer, the call fails at
// once with an error matching errs.ErrRateLimited and carrying RetryAfter,
// instead of sleeping (default one minute).
func WithMaxWait(d time.Duration) RequestOption {
	return positive("WithMaxWait", d, func(c *Config) *time.Duration { return &c.MaxWait })
}

// WithBackoff sets the bounds of the exponential backoff with full jitter
// used between retries when the server does not say how long to wait
// (default 500ms and 8s).
func WithBackoff(minWait, maxWait time.Duration) RequestOption {
	return func(c *Config) error {
		if minWait <= 0 || maxWait < minWait {
			return invalid("WithBackoff", "need 0 < min <= max, got %s and %s", minWait, maxWait)
		}
		c.RetryWaitMin, c.RetryWaitMax = minWait, maxWait
		return nil
	}
}

// WithRequestTimeout bounds each attempt of a call, from sending the
// request to the end of its response body (a stream's too); the context
// bounds the whole call, retries and their waits included. An attempt cut
// by it is retried like any other timeout: for a call that is not safe to
// repeat, it ends the call with its outcome unknown.
func WithRequestTimeout(d time.Duration) RequestOption {
	return positive("WithRequestTimeout", d, func(c *Config) *time.Duration { return &c.RequestTimeout })
}

// WithPollInterval sets the pause between the checks of every wait whose
// Poll.Interval is zero (default DefaultPollInterval, 2 s): job waits
// where the platform does not hold status requests, video generation,
// endpoint drain, load-balancer readiness and pod ports. A test against
// a local fake sets it short (runpodtest's clients use 10 ms).
func WithPollInterval(d time.Duration) RequestOption {
	return positive("WithPollInterval", d, func(c *Config) *time.Duration { return &c.PollInterval })
}

// WithPageSize sets how many items each page of a list asks for, from 1 to
// MaxPageSize (the platform's default). Every list of the REST v2 API
// comes in pages, and the SDK follows them all: List returns the whole
// list, and the iterators (All…) hold one page at a time, so a smaller page
// holds less while it is read, in more requests. A size out of range is a
// *errs.ValidationError before anything is sent.
func WithPageSize(n int) RequestOption {
	return func(c *Config) error {
		if n < 1 || n > MaxPageSize {
			return invalid("WithPageSize", "want 1 to %d, got %d", MaxPageSize, n)
		}
		c.PageSize = n
		return nil
	}
}

// WithMaxResponseBytes caps the size of a successful response body the SDK
// reads and decodes (default 64 MiB). A larger body is refused as it
// arrives, so it never costs more than about the cap in memory: the call
// fails with a *errs.ResponseError matching errs.ErrResponseTooLarge and is
// not retried. Streams (chat, job and log streams) and file downloads are
// not read whole and have limits of their own per event.
func WithMaxResponseBytes(n int64) RequestOption {
	return atLeastOne("WithMaxResponseBytes", n, func(c *Config) *int64 { return &c.MaxResponseBytes })
}

// WithHeader sets a request header on every request (of the client, or of
// the one call), replacing the value the SDK would send. Authorization
// cannot be set this way: the key is WithAPIKey's, and is added after
// every middleware.
func WithHeader(key, value string) RequestOption {
	return func(c *Config) error {
		if err := checkHeader(key, value); err != nil {
			return err
		}
		h := c.Header.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set(key, value)
		c.Header = h
		return nil
	}
}

// WithMiddleware adds middleware around every call (of the client, or of
// the one call). Middleware runs in the order given, after the client's:
// the first is outermost. Each sees the request once per call, before any
// credential is added, and its next sends the request with the SDK's
// retries; see Middleware.
func WithMiddleware(mw ...Middleware) RequestOption {
	return func(c *Config) error {
		for i, m := range mw {
			if m == nil {
				return invalid("WithMiddleware", "middleware %d is nil", i)
			}
		}
		c.Middleware = append(slices.Clip(c.Middleware), mw...)
		return nil
	}
}

// WithAttemptHook adds a hook called after every attempt of every call
// (of the client, or of the one call), with the attempt's request context
// and what the attempt found.
func WithAttemptHook(h AttemptHook) RequestOption {
	return func(c *Config) error {
		if h == nil {
			return invalid("WithAttemptHook", "hook is nil")
		}
		c.AttemptHooks = append(slices.Clip(c.AttemptHooks), h)
		return nil
	}
}

// WithResponseInto fills *dst with the call's response metadata, for
// failed calls as well as successful ones (for a list read in pages, the
// last page's). Given more than once, every dst is filled; given to a
// client, it reports every call.
func WithResponseInto(dst *ResponseInfo) RequestOption {
	return notNil("WithResponseInto", "destination", dst, func(c *Config) {
		c.ResponseInto = append(slices.Clip(c.ResponseInto), dst)
	})
}

// notNil returns an option running set, refusing a nil v; name is the
// option's and what names v, for the error.
func notNil[T any](name, what string, v *T, set func(*Config)) RequestOption {
	return func(c *Config) error {
		if v == nil {
			return invalid(name, "%s is nil", what)
		}
		set(c)
		return nil
	}
}

// positive returns an option setting the duration field to d, refusing a d
// that is not positive; name is the option's, for the error.
func positive(name string, d time.Duration, field func(*Config) *time.Duration) RequestOption {
	return func(c *Config) error {
		if d <= 0 {
			return invalid(name, "must be positive, got %s", d)
		}
		*field(c) = d
		return nil
	}
}

// atLeastOne returns an option setting the count field to n, refusing an
// n below 1; name is the option's, for the error.
func atLeastOne[T int | int64](name string, n T, field func(*Config) *T) RequestOption {
	return func(c *Config) error {
		if n < 1 {
			return invalid(name, "must be at least 1, got %d", n)
		}
		*field(c) = n
		return nil
	}
}

// checkHeader refuses a header the SDK owns or that cannot be sent.
func checkHeader(key, value string) error {
	field := "WithHeader(" + key + ")"
	if key == "" || strings.ContainsAny(key, " \t\r\n:") {
		return invalid(field, "not a header name")
	}
	if strings.ContainsAny(value, "\r\n") {
		return invalid(field, "value contains a line break")
	}
	switch http.CanonicalHeaderKey(key) {
	case "Authorization", "Host", "Content-Length":
		return invalid(field, "the SDK sets %s itself", http.CanonicalHeaderKey(key))
	}
	return nil
}

// validateCall checks the fields a call may change.
func (c Config) validateCall() error {
	switch {
	case c.RetryWaitMin < 0 || c.RetryWaitMax < 0 || (c.RetryWaitMax > 0 && c.RetryWaitMax < c.RetryWaitMin):
		return invalid("Config.RetryWaitMin", "need 0 <= RetryWaitMin <= RetryWaitMax, got %s and %s", c.RetryWaitMin, c.RetryWaitMax)
	case c.MaxWait < 0:
		return invalid("Config.MaxWait", "must not be negative, got %s", c.MaxWait)
	case c.RequestTimeout < 0:
		return invalid("Config.RequestTimeout", "must not be negative, got %s", c.RequestTimeout)
	case c.MaxResponseBytes < 0:
		return invalid("Config.MaxResponseBytes", "must not be negative, got %d", c.MaxResponseBytes)
	case c.PollInterval < 0:
		return invalid("Config.PollInterval", "must not be negative, got %s", c.PollInterval)
	case c.PageSize < 0 || c.PageSize > MaxPageSize:
		return invalid("Config.PageSize", "want 0 to %d, got %d", MaxPageSize, c.PageSize)
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			if err := checkHeader(k, v); err != nil {
				return err
			}
		}
	}
	for i, m := range c.Middleware {
		if m == nil {
			return invalid("Config.Middleware", "middleware %d is nil", i)
		}
	}
	return nil
}
