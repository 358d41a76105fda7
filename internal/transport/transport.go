// Package transport is the one HTTP pipeline under every surface of the
// SDK: credentials, User-Agent, retries and their waits, typed errors,
// rate-limit headers and logging. Surfaces build a Request and decode the
// response; they never deal with headers, status codes or retries.
//
// The layers, outermost first:
//
//	Transport.Do        builds the request, turns failures into typed errors
//	retryablehttp       retries per the table in DESIGN.md (checkRetry, backoff)
//	attemptRoundTripper counts and logs each attempt (path only, never the query)
//	credentialRoundTripper adds ?api_key= for GraphQL, after everything that logs
//	base RoundTripper   the pooled *http.Transport, or the caller's
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/runpodkit/runpod-go/internal/errs"
	"github.com/runpodkit/runpod-go/internal/ratelimit"
	"github.com/runpodkit/runpod-go/internal/version"
)

// Defaults of the retry policy.
const (
	DefaultMaxRetries          = 3
	DefaultRetryWaitMin        = 500 * time.Millisecond
	DefaultRetryWaitMax        = 8 * time.Second
	DefaultMaxWait             = time.Minute
	DefaultMaxIdleConnsPerHost = 256
)

// Config configures a Transport. URLs must already be validated.
type Config struct {
	APIKey       Secret
	BaseURL      *url.URL
	InferenceURL *url.URL
	ProxyHost    string
	// HTTPClient supplies the base RoundTripper, cookie jar, per-attempt
	// timeout and redirect policy. Nil means a pooled transport sized by
	// MaxIdleConnsPerHost.
	HTTPClient          *http.Client
	MaxIdleConnsPerHost int
	Logger              *slog.Logger
	// UserAgentSuffix is appended to the SDK's User-Agent.
	UserAgentSuffix string
	// MaxRetries is how many times a call is retried (so MaxRetries+1
	// attempts at most). Negative means the default.
	MaxRetries int
	// RetryWaitMin and RetryWaitMax bound the exponential backoff.
	RetryWaitMin, RetryWaitMax time.Duration
	// MaxWait caps a server-directed wait (Retry-After, an exhausted
	// RateLimit window): a longer one fails the call at once.
	MaxWait time.Duration
	// GraphQLBearer sends the key as a Bearer header on GraphQL calls too,
	// instead of the api_key query parameter.
	GraphQLBearer bool
}

// Transport sends requests. It is safe for concurrent use.
type Transport struct {
	cfg Config
	// Header values built once and shared by every request (net/http
	// never modifies a request's header values).
	userAgent []string
	accept    []string
	jsonType  []string
	bearer    Secret // "Bearer <key>", kept redacted like the key
	rc        *retryablehttp.Client
	base      http.RoundTripper
	log       *slog.Logger
	latest    atomic.Pointer[observation]
}

// observation is the most recent response header that carried rate-limit
// fields; it is parsed only when asked for.
type observation struct {
	header http.Header
	at     time.Time
}

// New builds a Transport.
func New(cfg Config) *Transport {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.RetryWaitMin <= 0 {
		cfg.RetryWaitMin = DefaultRetryWaitMin
	}
	if cfg.RetryWaitMax <= 0 {
		cfg.RetryWaitMax = DefaultRetryWaitMax
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	cfg.RetryWaitMax = max(min(cfg.RetryWaitMax, cfg.MaxWait), cfg.RetryWaitMin)
	if cfg.MaxIdleConnsPerHost <= 0 {
		cfg.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	}

	t := &Transport{cfg: cfg, log: cfg.Logger}
	t.userAgent = []string{UserAgent(cfg.UserAgentSuffix)}
	t.accept = []string{"application/json"}
	t.jsonType = []string{"application/json"}
	if !cfg.APIKey.IsZero() {
		t.bearer = NewSecret("Bearer " + cfg.APIKey.Reveal())
	}

	user := cfg.HTTPClient
	if user == nil {
		user = &http.Client{}
	}
	t.base = user.Transport
	if t.base == nil {
		pooled := http.DefaultTransport.(*http.Transport).Clone()
		pooled.MaxIdleConns = cfg.MaxIdleConnsPerHost
		pooled.MaxIdleConnsPerHost = cfg.MaxIdleConnsPerHost
		t.base = pooled
	}
	hc := &http.Client{
		Transport: &attemptRoundTripper{
			next: &credentialRoundTripper{next: t.base, key: cfg.APIKey},
			t:    t,
		},
		Jar:           user.Jar,
		Timeout:       user.Timeout,
		CheckRedirect: redirectPolicy(user.CheckRedirect),
	}
	t.rc = &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // it would log URLs with their query; we log per attempt ourselves
		RetryWaitMin: cfg.RetryWaitMin,
		RetryWaitMax: cfg.RetryWaitMax,
		RetryMax:     cfg.MaxRetries,
		CheckRetry:   t.checkRetry,
		Backoff:      t.backoff,
		// Hand back the last response or error; Do turns it into a typed
		// error that carries no URL.
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			if err != nil && resp != nil {
				drain(resp.Body)
				resp = nil
			}
			return resp, err
		},
	}
	return t
}

// UserAgent returns "runpod-go/<version> (<goos>/<goarch>; <go version>)",
// followed by suffix when it is not empty.
func UserAgent(suffix string) string {
	ua := "runpod-go/" + version.Version + " (" + runtime.GOOS + "/" + runtime.GOARCH + "; " + runtime.Version() + ")"
	if suffix = strings.TrimSpace(suffix); suffix != "" {
		ua += " " + suffix
	}
	return ua
}

// BaseURL returns the REST v2 and GraphQL host joined with path.
func (t *Transport) BaseURL(path string) *url.URL { return join(t.cfg.BaseURL, path) }

// InferenceURL returns the inference host joined with path.
func (t *Transport) InferenceURL(path string) *url.URL { return join(t.cfg.InferenceURL, path) }

// ProxyHost returns the host that serves pod HTTP proxy URLs.
func (t *Transport) ProxyHost() string { return t.cfg.ProxyHost }

// Logger returns the SDK's logger.
func (t *Transport) Logger() *slog.Logger { return t.log }

func join(base *url.URL, path string) *url.URL {
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + path
	u.RawPath = ""
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
	o := t.latest.Load()
	if o == nil {
		return ratelimit.RateLimit{}
	}
	return ratelimit.Parse(o.header, o.at)
}

func (t *Transport) observe(h http.Header, at time.Time) {
	if _, ok := h["Ratelimit"]; !ok {
		if _, ok := h["Ratelimit-Policy"]; !ok {
			return
		}
	}
	t.latest.Store(&observation{header: h, at: at})
}

// Auth says which credential a request carries.
type Auth uint8

const (
	// AuthBearer sends "Authorization: Bearer <key>" (REST v2, inference).
	AuthBearer Auth = iota
	// AuthGraphQL sends the key as the api_key query parameter, added in
	// the innermost RoundTripper (or as Bearer with Config.GraphQLBearer).
	AuthGraphQL
	// AuthNone sends no credential (pod proxy URLs, third-party hosts).
	AuthNone
)

// Request is one call. The zero Auth is AuthBearer.
type Request struct {
	Method string
	URL    *url.URL
	// Body is sent as application/json unless ContentType says otherwise.
	Body        []byte
	ContentType string
	// Header holds extra request headers.
	Header http.Header
	// Idempotent marks a call that may be repeated after an ambiguous
	// failure (GET, GraphQL query, status, health). Leave it false for
	// calls with side effects (run, create, mutations, actions).
	Idempotent bool
	Auth       Auth
}

// ResponseInfo describes the HTTP response to a call: filled by
// WithResponseInto for successful and failed calls alike.
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

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	into *ResponseInfo
}

// WithResponseInto fills *dst with the call's response metadata.
func WithResponseInto(dst *ResponseInfo) CallOption {
	return func(o *callOptions) { o.into = dst }
}

// call is the per-call state that travels in the request context through
// retryablehttp to the RoundTrippers.
type call struct {
	method     string
	path       string
	host       string
	idempotent bool
	auth       Auth
	attempts   atomic.Int32
	connected  atomic.Bool // the current attempt obtained a connection
	ambiguous  atomic.Bool // set when a failure left the outcome unknown
	trace      httptrace.ClientTrace
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// Do sends r and returns a 2xx response with its body open; the caller
// closes it. Any other outcome is an error: *errs.APIError for a non-2xx
// response, *errs.TransportError when no response arrived, and
// *errs.ValidationError or errs.ErrInsecureURL for a request refused before
// sending.
func (t *Transport) Do(ctx context.Context, r *Request, opts ...CallOption) (*http.Response, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	c := &call{
		method:     r.Method,
		path:       r.URL.EscapedPath(),
		host:       r.URL.Host,
		idempotent: r.Idempotent,
		auth:       r.Auth,
	}
	c.trace.GotConn = func(httptrace.GotConnInfo) { c.connected.Store(true) }
	if r.Auth != AuthNone && !secureEnough(r.URL) {
		return nil, &errs.TransportError{Method: c.method, Path: c.path, Err: errs.ErrInsecureURL}
	}

	ctx = context.WithValue(ctx, callKey{}, c)
	ctx = httptrace.WithClientTrace(ctx, &c.trace)
	var body any // nil interface: no body
	if r.Body != nil {
		body = r.Body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.Method, r.URL.String(), body)
	if err != nil {
		return nil, &errs.TransportError{Method: c.method, Path: c.path, Err: err}
	}
	h := req.Header
	for k, v := range r.Header {
		h[k] = v
	}
	h["User-Agent"] = t.userAgent
	if _, ok := h["Accept"]; !ok {
		h["Accept"] = t.accept
	}
	if r.Body != nil {
		if r.ContentType != "" {
			h.Set("Content-Type", r.ContentType)
		} else {
			h["Content-Type"] = t.jsonType
		}
	}
	if !t.bearer.IsZero() && (r.Auth == AuthBearer || (r.Auth == AuthGraphQL && t.cfg.GraphQLBearer)) {
		h.Set("Authorization", t.bearer.Reveal())
	}

	resp, err := t.rc.Do(req)
	attempts := int(c.attempts.Load())
	if err != nil {
		if o.into != nil {
			*o.into = ResponseInfo{Attempts: attempts}
		}
		return nil, &errs.TransportError{
			Method:         c.method,
			Path:           c.path,
			Attempts:       attempts,
			OutcomeUnknown: c.ambiguous.Load(),
			Err:            unwrapURLError(err),
		}
	}
	if o.into != nil {
		*o.into = ResponseInfo{
			StatusCode: resp.StatusCode,
			Header:     resp.Header,
			RequestID:  resp.Header.Get("X-Request-Id"),
			Attempts:   attempts,
			RateLimit:  ratelimit.Parse(resp.Header, time.Now()),
		}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer drain(resp.Body)
	b, _ := io.ReadAll(io.LimitReader(resp.Body, errs.MaxErrorBody))
	e := errs.NewAPIError(resp.StatusCode, resp.Header, b, time.Now())
	e.Method, e.Path = c.method, c.path
	e.OutcomeUnknown = c.ambiguous.Load()
	return nil, e
}

// DoJSON sends r and decodes a 2xx JSON body into out (skipped when out is
// nil).
func (t *Transport) DoJSON(ctx context.Context, r *Request, out any, opts ...CallOption) error {
	resp, err := t.Do(ctx, r, opts...)
	if err != nil {
		return err
	}
	defer drain(resp.Body)
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("runpod: %s %s: decoding response: %w", r.Method, r.URL.EscapedPath(), unwrapURLError(err))
	}
	return nil
}

// MarshalBody encodes v as a JSON request body.
func MarshalBody(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("runpod: encoding request body: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// drain reads what is left of a body (up to a limit, so the connection can
// be reused) and closes it.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	_ = body.Close()
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

// secureEnough reports whether credentials may go to u: https anywhere,
// plain http only to loopback.
func secureEnough(u *url.URL) bool {
	return u.Scheme == "https" || (u.Scheme == "http" && IsLoopback(u.Hostname()))
}

// IsLoopback reports whether host is "localhost" or a loopback IP.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectPolicy refuses a redirect that would take the request from https
// to plain http on a non-loopback host, then defers to the caller's policy
// (or net/http's limit of 10 redirects).
func redirectPolicy(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !secureEnough(req.URL) && via[0].URL.Scheme == "https" {
			return errs.ErrInsecureURL
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
