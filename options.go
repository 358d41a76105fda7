package runpod

import (
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Default hosts, used when neither an option nor the environment sets them.
const (
	// DefaultBaseURL is the host of the REST v2 and GraphQL APIs
	// (WithBaseURL).
	DefaultBaseURL = "https://api.runpod.io"
	// DefaultInferenceURL is the host that serves endpoints' jobs, the
	// OpenAI-compatible routes, load-balancing endpoints (as subdomains)
	// and the public models (WithInferenceURL).
	DefaultInferenceURL = "https://api.runpod.ai"
	// DefaultProxyHost is the host of pods' HTTP proxy URLs
	// (WithProxyHost).
	DefaultProxyHost = "proxy.runpod.net"
)

// Environment variables NewClient reads. Options override them.
const (
	// EnvAPIKey holds the API key (WithAPIKey); surrounding white space is
	// trimmed.
	EnvAPIKey = "RUNPOD_API_KEY"
	// EnvBaseURL overrides DefaultBaseURL (WithBaseURL); empty means unset.
	EnvBaseURL = "RUNPOD_BASE_URL"
	// EnvInferenceURL overrides DefaultInferenceURL (WithInferenceURL);
	// empty means unset.
	EnvInferenceURL = "RUNPOD_INFERENCE_URL"
	// EnvProxyHost overrides DefaultProxyHost (WithProxyHost); empty means
	// unset.
	EnvProxyHost = "RUNPOD_PROXY_HOST"
)

// Option configures a Client. Options are applied after the environment
// is read, so they win over it.
type Option func(*settings) error

// settings is what options and the environment fill before NewClient
// validates it.
type settings struct {
	apiKey        transport.Secret
	apiKeyFrom    string
	baseURL       string
	baseFrom      string
	inferenceURL  string
	inferenceFrom string
	proxyHost     string
	proxyFrom     string
	cfg           transport.Config
}

func defaults() *settings {
	s := &settings{
		baseURL: DefaultBaseURL, baseFrom: "base URL",
		inferenceURL: DefaultInferenceURL, inferenceFrom: "inference URL",
		proxyHost: DefaultProxyHost, proxyFrom: "proxy host",
	}
	s.cfg.MaxRetries = -1
	if v, ok := os.LookupEnv(EnvAPIKey); ok {
		s.apiKey, s.apiKeyFrom = transport.NewSecret(strings.TrimSpace(v)), EnvAPIKey
	}
	if v := os.Getenv(EnvBaseURL); v != "" {
		s.baseURL, s.baseFrom = v, EnvBaseURL
	}
	if v := os.Getenv(EnvInferenceURL); v != "" {
		s.inferenceURL, s.inferenceFrom = v, EnvInferenceURL
	}
	if v := os.Getenv(EnvProxyHost); v != "" {
		s.proxyHost, s.proxyFrom = v, EnvProxyHost
	}
	return s
}

// WithAPIKey sets the API key (overriding RUNPOD_API_KEY).
func WithAPIKey(key string) Option {
	return func(s *settings) error {
		s.apiKey, s.apiKeyFrom = transport.NewSecret(strings.TrimSpace(key)), "WithAPIKey"
		return nil
	}
}

// WithBaseURL sets the host of the REST v2 and GraphQL APIs (overriding
// RUNPOD_BASE_URL), for example "https://api.runpod.io". A trailing "/v2"
// is dropped ("https://api.runpod.io/v2" works too); any other path is a
// prefix of every request path, for a gateway in front of the platform.
func WithBaseURL(u string) Option {
	return func(s *settings) error {
		s.baseURL, s.baseFrom = u, "WithBaseURL"
		return nil
	}
}

// WithInferenceURL sets the host that serves endpoints and public models
// (overriding RUNPOD_INFERENCE_URL), for example "https://api.runpod.ai".
// As with WithBaseURL, a trailing "/v2" is dropped and any other path is
// kept as a prefix.
func WithInferenceURL(u string) Option {
	return func(s *settings) error {
		s.inferenceURL, s.inferenceFrom = u, "WithInferenceURL"
		return nil
	}
}

// WithProxyHost sets the host of pod HTTP proxy URLs (overriding
// RUNPOD_PROXY_HOST), for example "proxy.runpod.net".
func WithProxyHost(host string) Option {
	return func(s *settings) error {
		s.proxyHost, s.proxyFrom = host, "WithProxyHost"
		return nil
	}
}

// WithHTTPClient supplies the *http.Client whose Transport, Jar, Timeout and
// CheckRedirect the SDK uses underneath its own retry and credential
// layers. The client is not modified. Its Timeout applies to each attempt;
// prefer a context deadline, which covers the whole call and leaves
// streams alone.
func WithHTTPClient(c *http.Client) Option {
	return func(s *settings) error {
		if c == nil {
			return errs.Invalid("WithHTTPClient", "client is nil")
		}
		s.cfg.HTTPClient = c
		return nil
	}
}

// WithLogger sets the logger for per-attempt lines (method, path without
// query, status, attempt, duration, request id): Debug for each attempt,
// Warn for failed ones. The default discards everything.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error {
		if l == nil {
			return errs.Invalid("WithLogger", "logger is nil")
		}
		s.cfg.Logger = l
		return nil
	}
}

// WithUserAgent appends an application token, such as "myapp/1.2", to the
// SDK's User-Agent.
func WithUserAgent(suffix string) Option {
	return func(s *settings) error {
		if strings.ContainsAny(suffix, "\r\n") {
			return errs.Invalid("WithUserAgent", "suffix contains a line break")
		}
		s.cfg.UserAgentSuffix = suffix
		return nil
	}
}

// WithMaxRetries sets how many times a failed call may be retried
// (default 3; 0 turns retries off). Calls that are not safe to repeat are
// only retried when the request never left or the server answered 429.
func WithMaxRetries(n int) Option {
	return func(s *settings) error {
		if n < 0 {
			return errs.Invalid("WithMaxRetries", "must not be negative, got %d", n)
		}
		s.cfg.MaxRetries = n
		return nil
	}
}

// WithMaxWait caps a wait the server asks for (Retry-After, or an exhausted
// RateLimit window): when the server asks for longer, the call fails at
// once with an error matching ErrRateLimited and carrying RetryAfter,
// instead of sleeping (default one minute).
func WithMaxWait(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return errs.Invalid("WithMaxWait", "must be positive, got %s", d)
		}
		s.cfg.MaxWait = d
		return nil
	}
}

// WithBackoff sets the bounds of the exponential backoff with full jitter
// used between retries when the server does not say how long to wait
// (default 500ms and 8s).
func WithBackoff(minWait, maxWait time.Duration) Option {
	return func(s *settings) error {
		if minWait <= 0 || maxWait < minWait {
			return errs.Invalid("WithBackoff", "need 0 < min <= max, got %s and %s", minWait, maxWait)
		}
		s.cfg.RetryWaitMin, s.cfg.RetryWaitMax = minWait, maxWait
		return nil
	}
}

// WithPollInterval sets the pause between the checks of every wait whose
// Poll.Interval is zero (default DefaultPollInterval, 2 s): job waits
// where the platform does not hold status requests, video generation,
// endpoint drain, load-balancer readiness and pod ports. A test against
// a local fake sets it short (runpodtest's clients use 10 ms).
func WithPollInterval(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return errs.Invalid("WithPollInterval", "must be positive, got %s", d)
		}
		s.cfg.PollInterval = d
		return nil
	}
}

// WithMaxResponseBytes caps the size of a successful response body the SDK
// reads and decodes (default 64 MiB). A larger body is refused as it
// arrives, so it never costs more than about the cap in memory: the call
// fails with a *ResponseError matching ErrResponseTooLarge and is not
// retried. Streams (chat, job and log streams) and file downloads are not
// read whole and have limits of their own per event.
func WithMaxResponseBytes(n int64) Option {
	return func(s *settings) error {
		if n < 1 {
			return errs.Invalid("WithMaxResponseBytes", "must be at least 1, got %d", n)
		}
		s.cfg.MaxResponseBytes = n
		return nil
	}
}

// WithMaxIdleConnsPerHost sizes the connection pool of the default
// transport (default 256). It has no effect with WithHTTPClient.
func WithMaxIdleConnsPerHost(n int) Option {
	return func(s *settings) error {
		if n < 1 {
			return errs.Invalid("WithMaxIdleConnsPerHost", "must be at least 1, got %d", n)
		}
		s.cfg.MaxIdleConnsPerHost = n
		return nil
	}
}

// WithGraphQLQueryKey sends the API key to the GraphQL API as the api_key
// query parameter (https://api.runpod.io/graphql?api_key=…), the form the
// platform's GraphQL documentation shows and the one earlier versions of
// this SDK used, instead of the Authorization: Bearer header, the default
// (the platform's own clients send the header; keys in URLs end up in
// proxy and server logs). The platform accepts both. The SDK still sends
// the key only to the configured host, never over plain http to a host
// that is not loopback, and keeps it out of its logs and errors.
func WithGraphQLQueryKey() Option {
	return func(s *settings) error {
		s.cfg.GraphQLQueryKey = true
		return nil
	}
}

// WithGraphQLBearer does nothing: the API key already goes to the GraphQL
// API as an Authorization: Bearer header by default.
//
// Deprecated: Bearer is the default; remove the option. Use
// WithGraphQLQueryKey for the api_key query parameter.
func WithGraphQLBearer() Option {
	return func(*settings) error { return nil }
}

// parseHostURL validates a base URL: http or https, a host, no user info,
// query or fragment. Plain http is allowed only for loopback hosts. A path
// is kept as a prefix of every request path (a gateway such as
// https://gw.example.com/runpod), except a final "/v2", which the SDK adds
// itself: other RunPod tools document the base URL as
// https://api.runpod.io/v2 and https://api.runpod.ai/v2.
func parseHostURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, errs.Invalid(field, "not a URL: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errs.Invalid(field, "scheme must be https (or http for a loopback host), got %q", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, errs.Invalid(field, "no host in %q", u.Redacted())
	case u.User != nil:
		return nil, errs.Invalid(field, "must not carry user info")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errs.Invalid(field, "must not have a query or fragment")
	case u.Scheme == "http" && !transport.IsLoopback(u.Hostname()):
		return nil, &errs.ValidationError{Field: field, Message: "plain http is allowed only for a loopback host; use https", Err: errs.ErrInsecureURL}
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v2")
	u.RawPath = ""
	return u, nil
}

// validHost checks a bare host name, with an optional port.
func validHost(field, host string) (string, error) {
	host = strings.TrimSpace(host)
	if host == "" || strings.ContainsAny(host, "/?#@ ") {
		return "", errs.Invalid(field, "want a host name such as %q, got %q", DefaultProxyHost, host)
	}
	u, err := url.Parse("https://x." + host)
	if err != nil || u.Host != "x."+host {
		return "", errs.Invalid(field, "want a host name such as %q, got %q", DefaultProxyHost, host)
	}
	return host, nil
}
