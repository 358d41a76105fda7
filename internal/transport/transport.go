// Package transport is the one HTTP pipeline under every surface of the
// SDK: credentials, User-Agent, retries and their waits, typed errors,
// rate-limit headers and logging. Surfaces build a Request and decode the
// response; they never deal with headers, status codes or retries.
//
// The layers, outermost first:
//
//	Transport.Do        builds the request, turns failures into typed errors
//	retryablehttp       retries per the table in retry.go (checkRetry)
//	attemptRoundTripper counts and logs each attempt (path only, never the query)
//	credentialRoundTripper adds ?api_key= for GraphQL with Config.GraphQLQueryKey,
//	                    after everything that logs
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
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/sse"
	"github.com/runpodkit/runpod-go/internal/version"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/ratelimit"
)

// Defaults of the retry policy.
const (
	DefaultMaxRetries          = 3
	DefaultRetryWaitMin        = 500 * time.Millisecond
	DefaultRetryWaitMax        = 8 * time.Second
	DefaultMaxWait             = time.Minute
	DefaultMaxIdleConnsPerHost = 256
	// DefaultMaxResponseBytes caps a decoded 2xx body (64 MiB).
	DefaultMaxResponseBytes = 64 << 20
	// maxResponseHeaderBytes caps the response header of the pooled
	// transport (net/http's default is 10 MB).
	maxResponseHeaderBytes = 1 << 20
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
	// GraphQLQueryKey sends the key on GraphQL calls as the api_key query
	// parameter (the form the platform's GraphQL documentation shows)
	// instead of the Authorization: Bearer header, the default. Either
	// way the key goes only to the host the call was made to, never over
	// plain http to a host that is not loopback, and is redacted from
	// logs and errors.
	GraphQLQueryKey bool
	// MaxResponseBytes caps a 2xx body that DoJSON or DoDecode reads;
	// a longer one fails with errs.ErrResponseTooLarge. Zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// PollInterval is the pause of every wait whose Poll.Interval is
	// zero. Zero means option.DefaultPollInterval.
	PollInterval time.Duration
}

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

// Transport sends requests. It is safe for concurrent use.
type Transport struct {
	cfg Config
	// Header values built once and shared by every request (net/http
	// never modifies a request's header values).
	userAgent []string
	accept    []string
	jsonType  []string
	bearer    Secret // "Bearer <key>", kept redacted like the key
	// readHandler is readBuffered, made once: the response handler every
	// buffered call sets.
	readHandler func(*http.Response) error
	rc          *retryablehttp.Client
	base        http.RoundTripper
	log         *slog.Logger
	latest      atomic.Pointer[observation]
	red         redactor // finds the key in what a server or library echoes
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
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}

	t := &Transport{cfg: cfg, log: cfg.Logger, red: newRedactor(cfg.APIKey.Reveal())}
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
		pooled.MaxResponseHeaderBytes = maxResponseHeaderBytes
		t.base = pooled
	}
	hc := &http.Client{
		Transport: &attemptRoundTripper{
			next: &credentialRoundTripper{next: t.base, key: cfg.APIKey, red: t.red, queryKey: cfg.GraphQLQueryKey},
			t:    t,
		},
		Jar:           user.Jar,
		Timeout:       user.Timeout,
		CheckRedirect: redirectPolicy(user.CheckRedirect),
	}
	t.readHandler = t.readBuffered
	t.rc = &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // it would log URLs with their query; we log per attempt ourselves
		RetryWaitMin: cfg.RetryWaitMin,
		RetryWaitMax: cfg.RetryWaitMax,
		RetryMax:     cfg.MaxRetries,
		CheckRetry:   t.checkRetry,
		Backoff:      noBackoff,
		PrepareRetry: refitHold,
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
func UserAgent(suffix string) string { return version.UserAgent("runpod-go", suffix) }

// BaseURL returns the REST v2 and GraphQL host joined with path, the
// concatenation of its parts, written as it goes on the wire: segments
// that need it escaped with url.PathEscape.
func (t *Transport) BaseURL(path ...string) *url.URL { return join(t.cfg.BaseURL, path) }

// InferenceURL returns the inference host joined with path, as BaseURL
// does.
func (t *Transport) InferenceURL(path ...string) *url.URL { return join(t.cfg.InferenceURL, path) }

// ProxyHost returns the host that serves pod HTTP proxy URLs.
func (t *Transport) ProxyHost() string { return t.cfg.ProxyHost }

// Logger returns the SDK's logger.
func (t *Transport) Logger() *slog.Logger { return t.log }

// join returns base with the parts of an escaped path appended. The URL's
// Path is that path unescaped and its RawPath the path as written, so an
// escaped segment ("a%2Fb", an id holding a slash) goes on the wire as it
// is, neither split nor escaped twice.
func join(base *url.URL, parts []string) *url.URL {
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
	// AuthGraphQL sends "Authorization: Bearer <key>" like AuthBearer or,
	// with Config.GraphQLQueryKey, the api_key query parameter, added in
	// the innermost RoundTripper.
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
	// MaxBody caps the 2xx body DoJSON, DoDecode and DoBody read, when it
	// is positive and below the client's MaxResponseBytes.
	MaxBody int64
	// Hold is how long the server may hold the request before it answers,
	// a long poll whose hold the query parameter HoldParam carries in
	// milliseconds (/runsync?wait=, /status-sync?wait=). A retry asks for
	// the hold that still fits in the context after its wait, less a
	// margin (a fifth of the time left, 250 ms to 2 s), and is not made
	// when that is under MinHold: a retried long poll that outlasted the
	// context could submit a job whose id never comes back.
	Hold      time.Duration
	HoldParam string
	MinHold   time.Duration
	// EarlierUnknown, when not nil, is set once the call returns to
	// whether an attempt before the last one ended with its outcome
	// unknown: a failure after the request may have been sent (a reset,
	// a timeout, a body cut off) or a 500/502/503/504. A 429 or a request
	// that never left says the platform did not act, and does not count.
	// A retried DELETE uses it to read a later 404 as "already gone".
	EarlierUnknown *bool
}

// call is the per-call state that travels in the request context through
// retryablehttp to the RoundTrippers.
type call struct {
	method     string
	path       string
	host       string
	idempotent bool
	hold       time.Duration // see Request.Hold
	holdParam  string
	minHold    time.Duration
	auth       Auth
	attempts   atomic.Int32
	connected  atomic.Bool // the current attempt obtained a connection
	ambiguous  atomic.Bool // set when a failure left the outcome unknown
	retries    int         // retries so far; only checkRetry touches it
	// earlierUnknown: an attempt that was retried ended with its outcome
	// unknown (see Request.EarlierUnknown); only checkRetry touches it.
	earlierUnknown bool
	// deadlineCut: the retries stopped because the next wait would not
	// fit in the context's deadline; only checkRetry touches it.
	deadlineCut bool
	trace       httptrace.ClientTrace
	url         url.URL // the request's URL
	limit       int64   // the largest 2xx body read (buffered calls)
	body        []byte  // the 2xx body, read inside the retry loop (buffered calls)
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
func (t *Transport) Do(ctx context.Context, r *Request, opts ...option.CallOption) (*http.Response, error) {
	resp, _, err := t.do(ctx, r, false, opts)
	return resp, err
}

// do sends r. With buffer, a 2xx body is read whole (up to
// MaxResponseBytes) inside the retry loop, so a body cut off by the
// network is retried like any other failure after sending (idempotent
// calls) or reported as an unknown outcome (the rest); it is then
// returned as body, and resp.Body is empty.
func (t *Transport) do(ctx context.Context, r *Request, buffer bool, opts []option.CallOption) (*http.Response, []byte, error) {
	o := option.NewCall(opts...)
	c := &call{
		method:     r.Method,
		path:       r.URL.EscapedPath(),
		host:       r.URL.Host,
		idempotent: r.Idempotent,
		hold:       r.Hold,
		holdParam:  r.HoldParam,
		minHold:    r.MinHold,
		auth:       r.Auth,
	}
	c.trace.GotConn = func(httptrace.GotConnInfo) { c.connected.Store(true) }
	if !ValidMethod(r.Method) {
		return nil, nil, &errs.TransportError{Method: c.method, Path: c.path, Err: fmt.Errorf("invalid method %q", r.Method)}
	}
	if r.Auth != AuthNone && !secureEnough(r.URL) {
		return nil, nil, &errs.TransportError{Method: c.method, Path: c.path, Err: errs.ErrInsecureURL}
	}

	ctx = context.WithValue(ctx, callKey{}, c)
	ctx = httptrace.WithClientTrace(ctx, &c.trace)
	var reqBody any // nil interface: no body
	if r.Body != nil {
		reqBody = r.Body
	}
	// The request is built from r.URL as it is (copied into the call, so
	// the caller's stays untouched), not from its text parsed again.
	c.url = *r.URL
	req := &retryablehttp.Request{Request: (&http.Request{
		Method: r.Method, URL: &c.url, Host: strings.TrimSuffix(c.url.Host, ":"),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: make(http.Header, 5),
	}).WithContext(ctx)}
	if err := req.SetBody(reqBody); err != nil {
		return nil, nil, &errs.TransportError{Method: c.method, Path: c.path, Err: t.red.error(err)}
	}
	c.limit = t.cfg.MaxResponseBytes
	if r.MaxBody > 0 {
		c.limit = min(c.limit, r.MaxBody)
	}
	if buffer {
		req.SetResponseHandler(t.readHandler)
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
	if !t.bearer.IsZero() && (r.Auth == AuthBearer || (r.Auth == AuthGraphQL && !t.cfg.GraphQLQueryKey)) {
		h.Set("Authorization", t.bearer.Reveal())
	}

	resp, err := t.rc.Do(req)
	attempts := int(c.attempts.Load())
	if r.EarlierUnknown != nil {
		*r.EarlierUnknown = c.earlierUnknown
	}
	if err != nil {
		o.Report(option.ResponseInfo{Attempts: attempts})
		var big *tooLargeError
		if errors.As(err, &big) {
			return nil, nil, &errs.ResponseError{
				Method: c.method, Path: c.path, StatusCode: big.status, ContentType: big.contentType,
				Limit: c.limit, Err: errs.ErrResponseTooLarge, OutcomeUnknown: !c.idempotent,
			}
		}
		return nil, nil, &errs.TransportError{
			Method:         c.method,
			Path:           c.path,
			Attempts:       attempts,
			OutcomeUnknown: c.ambiguous.Load(),
			Err:            t.red.error(unwrapURLError(err)),
		}
	}
	if o.Observed() {
		o.Report(option.ResponseInfo{
			StatusCode: resp.StatusCode,
			Header:     resp.Header,
			RequestID:  t.red.string(resp.Header.Get("X-Request-Id")),
			Attempts:   attempts,
			RateLimit:  ratelimit.Parse(resp.Header, time.Now()),
		})
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, c.body, nil
	}
	defer drain(resp.Body)
	b, _ := io.ReadAll(io.LimitReader(resp.Body, errs.MaxErrorBody))
	e := errs.NewAPIError(resp.StatusCode, resp.Header, t.red.bytes(b), time.Now())
	e.Method, e.Path = c.method, c.path
	e.RequestID = t.red.string(e.RequestID)
	// The decoded fields too: a key the body held JSON-escaped is plain
	// once decoded.
	e.Title, e.Detail, e.Excerpt = t.red.string(e.Title), t.red.string(e.Detail), t.red.string(e.Excerpt)
	for i := range e.Errors {
		e.Errors[i] = t.red.string(e.Errors[i])
	}
	e.OutcomeUnknown = c.ambiguous.Load()
	e.DeadlineCut = c.deadlineCut
	return nil, nil, e
}

// readBuffered is the response handler of buffered calls (one for the
// transport, so a call allocates none): it reads a 2xx body whole, up to
// the call's limit, inside the retry loop, into the call.
func (t *Transport) readBuffered(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	ctx := resp.Request.Context()
	c := callFrom(ctx)
	b, err := readBody(resp, c.limit)
	resp.Body = http.NoBody
	if err != nil {
		if t.log.Enabled(ctx, slog.LevelWarn) {
			t.log.LogAttrs(ctx, slog.LevelWarn, "runpod: reading response body failed",
				slog.String("method", c.method), slog.String("path", c.path),
				slog.Int("status", resp.StatusCode), slog.String("error", t.red.string(err.Error())))
		}
		return err
	}
	c.body = b
	return nil
}

// DoJSON sends r and decodes a 2xx JSON body into out (skipped when out is
// nil). The body is read whole, up to the limit, before decoding;
// see DoDecode for the errors.
func (t *Transport) DoJSON(ctx context.Context, r *Request, out any, opts ...option.CallOption) error {
	if out == nil {
		return t.DoDecode(ctx, r, nil, opts...)
	}
	return t.DoDecode(ctx, r, func(body []byte) error { return json.Unmarshal(body, out) }, opts...)
}

// DoDecode sends r, reads a 2xx body whole (up to MaxResponseBytes, or
// r.MaxBody when lower) and
// hands it to decode (skipped when decode is nil); decode must not keep
// body. Besides Do's errors, it returns *errs.ResponseError when the body
// is larger than the limit (errs.ErrResponseTooLarge) or decode fails
// with it (its OutcomeUnknown set for calls that are not idempotent). A
// body cut off by the network is retried for idempotent calls, and is a
// *errs.TransportError with OutcomeUnknown for the others.
func (t *Transport) DoDecode(ctx context.Context, r *Request, decode func(body []byte) error, opts ...option.CallOption) error {
	resp, body, err := t.do(ctx, r, true, opts)
	if err != nil {
		return err
	}
	if decode == nil {
		return nil
	}
	if err := decode(body); err != nil {
		e := errs.NewResponseError(r.Method, r.URL.EscapedPath(), resp.StatusCode, resp.Header.Get("Content-Type"), t.red.bytes(body), t.red.error(err))
		e.OutcomeUnknown = !r.Idempotent
		return e
	}
	return nil
}

// DoBody sends r and returns a 2xx response with its body read whole (up
// to MaxResponseBytes, or r.MaxBody when lower); resp.Body is then empty.
// The errors are DoDecode's; body belongs to the caller.
func (t *Transport) DoBody(ctx context.Context, r *Request, opts ...option.CallOption) (resp *http.Response, body []byte, err error) {
	return t.do(ctx, r, true, opts)
}

// StreamError types a failure that ended a stream (SSE, a download) of r
// after its 2xx response began: an event over the stream's limit is a
// *errs.ResponseError matching errs.ErrResponseTooLarge; anything else (a
// reset, a body cut short) is a *errs.TransportError.
func (t *Transport) StreamError(r *Request, status int, limit int64, err error) error {
	path := r.URL.EscapedPath()
	if errors.Is(err, sse.ErrEventTooLarge) {
		return &errs.ResponseError{Method: r.Method, Path: path, StatusCode: status, Limit: limit, Err: errs.ErrResponseTooLarge}
	}
	return &errs.TransportError{Method: r.Method, Path: path, Attempts: 1, Err: t.red.error(err)}
}

// BadEvent types a stream event of r that is not the JSON the stream
// carries: a *errs.ResponseError with the event's start as its excerpt.
func (t *Transport) BadEvent(r *Request, status int, data []byte, err error) error {
	return errs.NewResponseError(r.Method, r.URL.EscapedPath(), status, "text/event-stream", t.red.bytes(data), t.red.error(err))
}

// Redact returns s with every spelling of the API key replaced by
// "[REDACTED]", for surfaces that build messages from what a server sent.
func (t *Transport) Redact(s string) string { return t.red.string(s) }

// RedactBytes is Redact for a body; it returns b itself when b holds no
// key.
func (t *Transport) RedactBytes(b []byte) []byte { return t.red.bytes(b) }

// fill reads into buf until it is full or r fails; a clean end of the
// body is io.EOF, unlike io.ReadFull, which also reports a body cut short
// (io.ErrUnexpectedEOF from net/http) as the end of a partial read.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// tooLargeError is the response handler's failure for a 2xx body over the
// limit; Do turns it into an *errs.ResponseError.
type tooLargeError struct {
	status      int
	contentType string
}

func (e *tooLargeError) Error() string { return "response body larger than the limit" }

// readBody reads resp's body whole and closes it. A Content-Length over
// limit is refused before reading; an unknown length is read in chunks of
// growing size, so a body refused at the limit has cost about the limit in
// memory and a body read whole about twice its size.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	tooLarge := func() error {
		return &tooLargeError{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}
	}
	// A length of 0 is read to the end too: RoundTrippers other than
	// net/http's (test doubles, middleware) leave it 0 for unknown.
	if n := resp.ContentLength; n > 0 {
		if n > limit {
			drain(resp.Body)
			return nil, tooLarge()
		}
		// One byte more than the length, to see the body end where its
		// length says: then there is nothing left to drain, and the
		// connection goes back to the pool as it closes.
		b := make([]byte, n+1)
		m, err := fill(resp.Body, b)
		switch {
		case int64(m) == n && err == io.EOF:
			_ = resp.Body.Close()
			return b[:n:n], nil
		case int64(m) < n:
			drain(resp.Body)
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		drain(resp.Body) // longer than its length (not from net/http)
		return b[:n:n], nil
	}
	defer drain(resp.Body)
	var chunks [][]byte
	var total int64
	size := int64(4 << 10)
	for {
		buf := make([]byte, min(size, limit-total+1))
		n, err := fill(resp.Body, buf)
		total += int64(n)
		if total > limit {
			return nil, tooLarge()
		}
		chunks = append(chunks, buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 1<<20)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
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
// to plain http on a non-loopback host, drops the Authorization header on
// a redirect to another origin (scheme, host or port; net/http keeps it
// for the same host on another port and for subdomains), then defers to
// the caller's policy (or net/http's limit of 10 redirects). The GraphQL
// api_key parameter (Config.GraphQLQueryKey) is added only for the
// original host:port, by credentialRoundTripper, and dropped from a
// redirect to another origin whose Location repeats it.
func redirectPolicy(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !secureEnough(req.URL) && via[0].URL.Scheme == "https" {
			return errs.ErrInsecureURL
		}
		if !sameOrigin(req.URL, via[0].URL) {
			req.Header.Del("Authorization")
			// A server may keep the query in its Location, api_key and
			// all; the key must not travel on to another origin.
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
