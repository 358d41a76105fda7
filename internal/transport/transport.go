// Package transport is the one HTTP pipeline under every surface of the
// SDK: credentials, User-Agent, retries and their waits, typed errors,
// rate-limit headers, middleware and logging. Surfaces build a Request and
// decode the response; they never deal with headers, status codes or
// retries.
//
// A call is one value (call.go) that holds everything the call needs: its
// options, its own retryablehttp.Client (whose hooks are the call's
// methods, so no per-call state rides in the context) and its own
// http.Client, whose RoundTripper is the call itself. From a service
// method to the base RoundTripper:
//
//	service method → DoJSON/DoBody/Do → do → retryablehttp.Client.Do →
//	http.Client.Do → call.RoundTrip (credentials, log, hooks) → base
//
// Middleware (option.WithMiddleware), when a call has any, wraps the
// retryablehttp loop; credentials are added inside it, to each attempt.
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/hosts"
	"github.com/runpodkit/runpod-go/internal/version"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/ratelimit"
	"github.com/runpodkit/runpod-go/secret"
)

// Transport sends requests for the services built from one option.Config.
// It is safe for concurrent use.
type Transport struct {
	cfg option.Config // defaults filled
	err error         // the Config's validation error: every call returns it

	baseURL, inferenceURL *url.URL
	proxyHost             string

	// Header values built once and shared by every request (net/http
	// never modifies a request's header values).
	userAgent []string
	accept    []string
	jsonType  []string
	bearer    *authHeader // the Authorization value, "Bearer <key>"
	key       secret.String

	base     http.RoundTripper
	jar      http.CookieJar
	timeout  time.Duration // the HTTP client's per-attempt Timeout
	redirect func(*http.Request, []*http.Request) error
	log      *slog.Logger
	red      redactor // finds the key in what a server or library echoes
}

// New builds the Transport of cfg. A cfg that does not validate gives a
// Transport whose every call fails with the validation error, before
// anything is sent.
func New(cfg option.Config) *Transport {
	t := &Transport{err: cfg.Validate()}
	if t.err != nil {
		return t
	}
	cfg.BaseURL, cfg.InferenceURL, cfg.ProxyHost = cfg.Hosts()
	// Hosts gave the URLs as Validate accepted them, "/v2" dropped.
	t.baseURL, _ = url.Parse(cfg.BaseURL)
	t.inferenceURL, _ = url.Parse(cfg.InferenceURL)
	t.proxyHost = cfg.ProxyHost
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	fillCallDefaults(&cfg)
	if cfg.RateLimits == nil {
		cfg.RateLimits = new(ratelimit.Tracker)
	}
	t.cfg, t.log = cfg, cfg.Logger
	t.key = cfg.APIKey
	t.red = newRedactor(cfg.APIKey.Reveal())
	t.userAgent = []string{UserAgent(cfg.UserAgent)}
	t.accept = []string{"application/json"}
	t.jsonType = []string{"application/json"}
	t.bearer = &authHeader{v: &[]string{"Bearer " + cfg.APIKey.Reveal()}}

	user := cfg.HTTPClient
	if user == nil {
		user = &http.Client{}
	}
	t.base = user.Transport
	if t.base == nil {
		pooled := http.DefaultTransport.(*http.Transport).Clone()
		n := cmpOr(cfg.MaxIdleConnsPerHost, option.DefaultMaxIdleConnsPerHost)
		pooled.MaxIdleConns, pooled.MaxIdleConnsPerHost = n, n
		pooled.MaxResponseHeaderBytes = maxResponseHeaderBytes
		t.base = pooled
	}
	t.jar, t.timeout = user.Jar, user.Timeout
	t.redirect = redirectPolicy(user.CheckRedirect)
	return t
}

// maxResponseHeaderBytes caps the response header of the pooled transport
// (net/http's default is 10 MB).
const maxResponseHeaderBytes = 1 << 20

// fillCallDefaults puts the defaults in the fields a call may change.
func fillCallDefaults(c *option.Config) {
	if c.MaxRetries < 0 {
		c.MaxRetries = option.DefaultMaxRetries
	}
	c.RetryWaitMin = cmpOr(c.RetryWaitMin, option.DefaultRetryWaitMin)
	c.RetryWaitMax = cmpOr(c.RetryWaitMax, option.DefaultRetryWaitMax)
	c.MaxWait = cmpOr(c.MaxWait, option.DefaultMaxWait)
	c.RetryWaitMax = max(min(c.RetryWaitMax, c.MaxWait), c.RetryWaitMin)
	c.MaxResponseBytes = cmpOr(c.MaxResponseBytes, option.DefaultMaxResponseBytes)
}

func cmpOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// callConfig is the Config of one call: the Transport's, or, with opts, a
// copy they changed. A call cannot change what the client talks to.
func (t *Transport) callConfig(opts []option.RequestOption) (*option.Config, error) {
	if len(opts) == 0 {
		return &t.cfg, nil
	}
	c, err := t.cfg.ForCall(opts...)
	if err != nil {
		return nil, err
	}
	if err := clientOnly(&t.cfg, &c); err != nil {
		return nil, err
	}
	fillCallDefaults(&c)
	if c.Logger == nil {
		c.Logger = t.log
	}
	return &c, nil
}

// clientOnly refuses a call whose options changed what only a client may
// set without saying so (Config.ForCall refuses the SDK's options): an
// option of the caller's own that writes a client field. A Dialer it
// writes is not seen, as functions do not compare.
func clientOnly(client, call *option.Config) error {
	for _, o := range []struct {
		changed bool
		name    string
	}{
		{call.APIKey.Reveal() != client.APIKey.Reveal(), "WithAPIKey"},
		{call.BaseURL != client.BaseURL, "WithBaseURL"},
		{call.InferenceURL != client.InferenceURL, "WithInferenceURL"},
		{call.ProxyHost != client.ProxyHost, "WithProxyHost"},
		{call.S3URL != client.S3URL, "WithS3URL"},
		{call.S3AccessKey != client.S3AccessKey || call.S3SecretKey.Reveal() != client.S3SecretKey.Reveal(), "WithS3Credentials"},
		{call.HTTPClient != client.HTTPClient, "WithHTTPClient"},
		{call.MaxIdleConnsPerHost != client.MaxIdleConnsPerHost, "WithMaxIdleConnsPerHost"},
		{call.GraphQLQueryKey != client.GraphQLQueryKey, "WithGraphQLQueryKey"},
		{call.RateLimits != client.RateLimits, "Config.RateLimits"},
	} {
		if o.changed {
			return &errs.ValidationError{Field: o.name, Message: "configures a client (option.NewConfig, runpod.NewClient), not one call"}
		}
	}
	return nil
}

// UserAgent returns "runpod-go/<version> (<goos>/<goarch>; <go version>)",
// followed by suffix when it is not empty.
func UserAgent(suffix string) string { return version.UserAgent("runpod-go", suffix) }

// BaseURL returns the REST v2 and GraphQL host joined with path, the
// concatenation of its parts, written as it goes on the wire: segments
// that need it escaped with url.PathEscape.
func (t *Transport) BaseURL(path ...string) *url.URL { return join(t.baseURL, path) }

// InferenceURL returns the inference host joined with path, as BaseURL
// does.
func (t *Transport) InferenceURL(path ...string) *url.URL { return join(t.inferenceURL, path) }

// ProxyHost returns the host that serves pod HTTP proxy URLs.
func (t *Transport) ProxyHost() string { return t.proxyHost }

// Logger returns the SDK's logger.
func (t *Transport) Logger() *slog.Logger { return t.log }

// PollInterval returns the pause between a wait's checks: asked when it
// is positive, else the client's PollInterval, else
// option.DefaultPollInterval.
func (t *Transport) PollInterval(asked time.Duration) time.Duration {
	switch {
	case asked > 0:
		return asked
	case t.cfg.PollInterval > 0:
		return t.cfg.PollInterval
	}
	return option.DefaultPollInterval
}

// PageSize returns the page size a list asks for with opts on top of the
// client's (Config.PageSize, option.WithPageSize): 0 when neither sets
// one. It fails as a call with opts would, before sending: an invalid
// Config or option.
func (t *Transport) PageSize(opts []option.RequestOption) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	cfg, err := t.callConfig(opts)
	if err != nil {
		return 0, err
	}
	return cfg.PageSize, nil
}

// join returns base with the parts of an escaped path appended. The URL's
// Path is that path unescaped and its RawPath the path as written, so an
// escaped segment ("a%2Fb", an id holding a slash) goes on the wire as it
// is, neither split nor escaped twice.
func join(base *url.URL, parts []string) *url.URL {
	if base == nil { // an invalid Config: the call fails before sending
		base = &url.URL{}
	}
	u := *base
	prefix := strings.TrimSuffix(base.EscapedPath(), "/")
	n := len(prefix)
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(prefix)
	for _, p := range parts {
		b.WriteString(p)
	}
	escaped := b.String()
	u.Path, u.RawPath = escaped, ""
	if strings.IndexByte(escaped, '%') >= 0 {
		if p, err := url.PathUnescape(escaped); err == nil {
			u.Path, u.RawPath = p, escaped
		}
	}
	return &u
}

// CloseIdleConnections closes the idle connections of the base transport.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RateLimit returns the rate-limit headers of the most recent response
// that carried any, and the zero RateLimit before that.
func (t *Transport) RateLimit() ratelimit.RateLimit {
	if t.cfg.RateLimits == nil {
		return ratelimit.RateLimit{}
	}
	return t.cfg.RateLimits.Latest()
}

// Auth says which credential a request carries.
type Auth uint8

const (
	// AuthBearer sends "Authorization: Bearer <key>" (REST v2, inference).
	AuthBearer Auth = iota
	// AuthGraphQL sends "Authorization: Bearer <key>" like AuthBearer or,
	// with Config.GraphQLQueryKey, the api_key query parameter.
	AuthGraphQL
	// AuthNone sends no credential (pod proxy URLs, third-party hosts).
	AuthNone
)

// Request is one call. The zero Auth is AuthBearer.
type Request struct {
	Method string
	URL    *url.URL
	// Route is the call's route template, such as "/v2/pods/{podId}",
	// for middleware, attempt hooks and logs; empty means the path.
	Route string
	// Body is sent as application/json unless ContentType says otherwise.
	Body []byte
	// JSON, when Body is nil and JSON is not, is encoded (MarshalBody) as
	// the body.
	JSON        any
	ContentType string
	// Header holds extra request headers.
	Header http.Header
	// Idempotent marks a call that may be repeated after an ambiguous
	// failure (GET, GraphQL query, status, health). Leave it false for
	// calls with side effects (run, create, mutations, actions).
	Idempotent bool
	Auth       Auth
	// MaxBody caps the 2xx body DoJSON, DoDecode and DoBody read, when it
	// is positive and below the client's MaxResponseBytes.
	MaxBody int64
	// Refit, when set, is asked before each retry with the time the
	// context will have left when the retry starts (negative when the
	// context has no deadline). It reports whether a retry still makes
	// sense and, when u is not nil, rewrites u (the retry's URL) to fit:
	// a long poll asks the server for a shorter hold. With u nil it only
	// answers.
	Refit func(u *url.URL, left time.Duration) bool
	// EarlierUnknown, when not nil, is set once the call returns to
	// whether an attempt before the last one ended with its outcome
	// unknown: a failure after the request may have been sent (a reset,
	// a timeout, a body cut off) or a 500/502/503/504. A 429 or a request
	// that never left says the platform did not act, and does not count.
	// A retried DELETE uses it to read a later 404 as "already gone".
	EarlierUnknown *bool
}

// Do sends r and returns a 2xx response with its body open; the caller
// closes it. Any other outcome is an error: *errs.APIError for a non-2xx
// response, *errs.TransportError when no response arrived, and
// *errs.ValidationError or errs.ErrInsecureURL for a request refused before
// sending.
func (t *Transport) Do(ctx context.Context, r *Request, opts ...option.RequestOption) (*http.Response, error) {
	resp, _, err := t.do(ctx, r, false, opts)
	return resp, err
}

// DoJSON sends r and decodes a 2xx JSON body into out (skipped when out is
// nil). The body is read whole, up to the limit, before decoding;
// see DoDecode for the errors.
func (t *Transport) DoJSON(ctx context.Context, r *Request, out any, opts ...option.RequestOption) error {
	resp, body, err := t.do(ctx, r, true, opts)
	if err != nil || out == nil {
		return err
	}
	return t.decoded(r, resp, body, json.Unmarshal(body, out))
}

// DoDecode sends r, reads a 2xx body whole (up to MaxResponseBytes, or
// r.MaxBody when lower) and hands it to decode (skipped when decode is
// nil); decode must not keep body. Besides Do's errors, it returns
// *errs.ResponseError when the body is larger than the limit
// (errs.ErrResponseTooLarge) or decode fails with it (its OutcomeUnknown
// set for calls that are not idempotent). A body cut off by the network
// is retried for idempotent calls, and is a *errs.TransportError with
// OutcomeUnknown for the others.
func (t *Transport) DoDecode(ctx context.Context, r *Request, decode func(body []byte) error, opts ...option.RequestOption) error {
	resp, body, err := t.do(ctx, r, true, opts)
	if err != nil || decode == nil {
		return err
	}
	return t.decoded(r, resp, body, decode(body))
}

// decoded types a decoding failure of a 2xx body.
func (t *Transport) decoded(r *Request, resp *http.Response, body []byte, err error) error {
	if err == nil {
		return nil
	}
	e := fail.ResponseError(r.Method, r.URL.EscapedPath(), resp.StatusCode, resp.Header.Get("Content-Type"), t.red.bytes(body), t.red.error(err))
	e.OutcomeUnknown = !r.Idempotent
	return e
}

// DoBody sends r and returns a 2xx response with its body read whole (up
// to MaxResponseBytes, or r.MaxBody when lower); resp.Body is then empty.
// The errors are DoDecode's; body belongs to the caller.
func (t *Transport) DoBody(ctx context.Context, r *Request, opts ...option.RequestOption) (resp *http.Response, body []byte, err error) {
	return t.do(ctx, r, true, opts)
}

// Redact returns s with every spelling of the API key replaced by
// "[REDACTED]", for surfaces that build messages from what a server sent.
func (t *Transport) Redact(s string) string { return t.red.string(s) }

// RedactBytes is Redact for a body; it returns b itself when b holds no
// key.
func (t *Transport) RedactBytes(b []byte) []byte { return t.red.bytes(b) }

// ValidMethod reports whether m is an HTTP method: a token (RFC 9110
// section 5.6.2), as net/http sends only those.
func ValidMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// unwrapURLError drops the *url.Error layer net/http adds, whose message
// repeats the request URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// redirectPolicy refuses a redirect that would take the request from https
// to plain http on a non-loopback host, drops an api_key parameter a
// Location to another origin repeats, then defers to the caller's policy
// (or net/http's limit of 10 redirects). Credentials are added to each
// attempt by call.RoundTrip, and only for the origin the call was made to.
func redirectPolicy(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !hosts.SecureEnough(req.URL) && via[0].URL.Scheme == "https" {
			return errs.ErrInsecureURL
		}
		if !sameOrigin(req.URL, via[0].URL) {
			req.Header.Del("Authorization")
			if q := req.URL.Query(); q.Has("api_key") {
				q.Del("api_key")
				req.URL.RawQuery = q.Encode()
			}
		}
		if user != nil {
			return user(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "http") {
		return "80"
	}
	return "443"
}
