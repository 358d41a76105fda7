package transport

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/apispec/scope"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/hosts"
	waitpkg "github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/ratelimit"
)

// call is one call: its request, its options, and the retryablehttp and
// http clients that run it. Their hooks and RoundTripper are the call's
// methods, so the call's state reaches them without the context. The
// methods run one at a time (retryablehttp runs attempts in sequence), so
// the fields need no locks.
type call struct {
	t    *Transport
	cfg  *option.Config
	r    *Request
	path string   // r.URL's escaped path, for errors and logs
	url  *url.URL // the URL of the first attempt (a copy of r.URL); its origin gets the key
	rc   retryablehttp.Client
	hc   http.Client

	attempts int
	retries  int
	// ambiguous: the last attempt may have reached the platform, and the
	// call is not safe to repeat.
	ambiguous bool
	// earlierUnknown: an attempt that was retried ended with its outcome
	// unknown (see Request.EarlierUnknown).
	earlierUnknown bool
	// deadlineCut: the retries stopped because the next wait would not
	// fit in the context's deadline.
	deadlineCut bool
	// wait is the wait before the next retry, chosen by checkRetry with
	// nextWait and handed to retryablehttp by backoff.
	wait   time.Duration
	buffer bool   // the call reads a 2xx body whole
	limit  int64  // the largest 2xx body read (buffered calls)
	body   []byte // the 2xx body, read inside the retry loop (buffered calls)
	hooks  hooks  // the call's methods as values, bound once per call value
	rreq   retryablehttp.Request
}

// hooks are a call's methods as func values for retryablehttp. A method
// value costs an allocation each time it is taken, so they are taken once
// when a call value is made, and kept as the value is recycled.
type hooks struct {
	checkRetry   retryablehttp.CheckRetry
	backoff      retryablehttp.Backoff
	readBuffered retryablehttp.ResponseHandlerFunc
	prepareRetry retryablehttp.PrepareRetry
}

// calls recycles call values, so a call costs no allocation of its own:
// a call value, its two clients and its hooks are several hundred bytes.
// A call goes back to the pool when do returns, unless it ran middleware,
// which could keep its next function (and so the call) past that.
var calls = sync.Pool{New: func() any {
	c := new(call)
	c.hooks = hooks{checkRetry: c.checkRetry, backoff: c.backoff, readBuffered: c.readBuffered, prepareRetry: c.prepareRetry}
	return c
}}

// release clears c, dropping what it refers to, and returns it to the
// pool.
func (c *call) release() {
	*c = call{hooks: c.hooks}
	calls.Put(c)
}

// do sends r. With buffer, a 2xx body is read whole (up to
// MaxResponseBytes) inside the retry loop, so a body cut off by the
// network is retried like any other failure after sending (idempotent
// calls) or reported as an unknown outcome (the rest); it is then
// returned as body, and resp.Body is empty.
//
// Its steps: start (the call's Config, body and checks), clients (its
// retryablehttp and http clients), newRequest (the first attempt's
// request), the retry loop itself (here, so the stack from a service
// method to the base RoundTripper stays short), and result (the response,
// or the typed error).
func (t *Transport) do(ctx context.Context, r *Request, buffer bool, opts []option.RequestOption) (*http.Response, []byte, error) {
	c, err := t.start(r, buffer, opts)
	if err != nil {
		return nil, nil, err
	}
	if len(c.cfg.Middleware) == 0 {
		defer c.release()
	}
	c.clients()
	req := c.newRequest(ctx)
	var resp *http.Response
	if len(c.cfg.Middleware) == 0 {
		var rreq *retryablehttp.Request
		if rreq, err = c.request(req); err == nil {
			resp, err = c.rc.Do(rreq)
		}
	} else {
		resp, err = c.middleware(req)
	}
	return c.result(resp, err)
}

// start returns the call value of r, taken from the pool: the call's
// Config, r's body encoded, and the request refused before anything is
// sent when the Config, an option, the body, the method or the URL is
// not valid.
func (t *Transport) start(r *Request, buffer bool, opts []option.RequestOption) (*call, error) {
	if t.err != nil {
		return nil, t.err
	}
	cfg, err := t.callConfig(opts)
	if err != nil {
		return nil, err
	}
	if r.Body == nil && r.JSON != nil {
		if r.Body, err = MarshalBody(r.JSON); err != nil {
			return nil, err
		}
	}
	path := r.URL.EscapedPath()
	if !ValidMethod(r.Method) {
		return nil, &errs.TransportError{Method: r.Method, Path: path, Err: fmt.Errorf("invalid method %q", r.Method)}
	}
	if r.Auth != AuthNone && !hosts.SecureEnough(r.URL) {
		return nil, &errs.TransportError{Method: r.Method, Path: path, Err: errs.ErrInsecureURL}
	}
	c := calls.Get().(*call)
	*c = call{t: t, cfg: cfg, r: r, path: path, buffer: buffer, limit: cfg.MaxResponseBytes, hooks: c.hooks}
	if r.MaxBody > 0 {
		c.limit = min(c.limit, r.MaxBody)
	}
	return c, nil
}

// clients sets up the call's http.Client, whose RoundTripper is the call,
// and the retryablehttp.Client around it, whose hooks are the call's
// methods.
func (c *call) clients() {
	t, cfg := c.t, c.cfg
	c.hc = http.Client{Transport: c, Jar: t.jar, Timeout: t.timeout, CheckRedirect: t.redirect}
	if cfg.RequestTimeout > 0 {
		c.hc.Timeout = cfg.RequestTimeout
	}
	c.rc = retryablehttp.Client{
		HTTPClient:   &c.hc,
		RetryWaitMin: cfg.RetryWaitMin,
		RetryWaitMax: cfg.RetryWaitMax,
		RetryMax:     cfg.MaxRetries,
		CheckRetry:   c.hooks.checkRetry,
		Backoff:      c.hooks.backoff,
		ErrorHandler: lastResponse,
		// Logger stays nil: it would log URLs with their query; the call
		// logs each attempt itself (RoundTrip), path only.
	}
	if c.r.Refit != nil {
		c.rc.PrepareRetry = c.hooks.prepareRetry
	}
}

// newRequest builds the first attempt's request from r.URL as it is
// (copied into the call, so the caller's stays untouched, not parsed again
// from its text), with the SDK's headers, r's, the Config's, and, when no
// middleware runs, the Authorization header.
func (c *call) newRequest(ctx context.Context) *http.Request {
	t, r, cfg := c.t, c.r, c.cfg
	u := *r.URL
	c.url = &u
	req := (&http.Request{
		Method: r.Method, URL: c.url, Host: strings.TrimSuffix(c.url.Host, ":"),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: make(http.Header, 4+len(r.Header)+len(cfg.Header)),
	}).WithContext(ctx)
	h := req.Header
	for k, v := range r.Header {
		h[k] = v
	}
	h["User-Agent"] = t.userAgent
	if cfg.UserAgent != t.cfg.UserAgent {
		h["User-Agent"] = []string{UserAgent(cfg.UserAgent)}
	}
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
	for k, v := range cfg.Header {
		h[k] = v
	}
	if len(cfg.Middleware) == 0 && c.headerCredential() {
		// No middleware: nothing of the caller's sees the request before
		// it is sent, so the header goes on it now, as a redirect to
		// another origin drops it (redirectPolicy). With middleware,
		// RoundTrip adds it to a copy of each attempt.
		h["Authorization"] = *t.bearer.v
	}
	return req
}

// result reports the call (Request.EarlierUnknown, WithResponseInto) and
// returns what the retry loop ended with: a 2xx response and its buffered
// body, or the typed error (failed, apiError).
func (c *call) result(resp *http.Response, err error) (*http.Response, []byte, error) {
	if c.r.EarlierUnknown != nil {
		*c.r.EarlierUnknown = c.earlierUnknown
	}
	if err != nil {
		c.report(nil)
		return nil, nil, c.failed(err)
	}
	c.report(resp)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, c.body, nil
	}
	return nil, nil, c.apiError(resp)
}

// failed types a call that ended without a response: a 2xx body over the
// limit is an *errs.ResponseError, anything else an *errs.TransportError
// (redacted, without net/http's URL).
func (c *call) failed(err error) error {
	r := c.r
	var big *tooLargeError
	if errors.As(err, &big) {
		return &errs.ResponseError{
			Method: r.Method, Path: c.path, StatusCode: big.status, ContentType: big.contentType,
			Limit: c.limit, Err: errs.ErrResponseTooLarge, OutcomeUnknown: !r.Idempotent,
		}
	}
	return &errs.TransportError{
		Method: r.Method, Path: c.path, Attempts: c.attempts, OutcomeUnknown: c.ambiguous,
		Err: c.t.red.error(unwrapURLError(err)),
	}
}

// apiError reads and closes a non-2xx response and returns its
// *errs.APIError, with every field a server could have echoed the key
// into redacted, and the scope a 403 needed.
func (c *call) apiError(resp *http.Response) *errs.APIError {
	t, r := c.t, c.r
	defer drain(resp.Body)
	b, _ := io.ReadAll(io.LimitReader(resp.Body, fail.MaxErrorBody))
	e := fail.APIError(resp.StatusCode, resp.Header, t.red.bytes(b), time.Now())
	e.Method, e.Path = r.Method, c.path
	if e.StatusCode == http.StatusForbidden {
		// Looked up only here: a call that succeeds pays nothing.
		e.RequiredScope = scope.Of(r.Method, cmp.Or(r.Route, c.path))
	}
	e.RequestID = t.red.string(e.RequestID)
	// The decoded fields too: a key the body held JSON-escaped is plain
	// once decoded.
	e.Title, e.Detail, e.Excerpt = t.red.string(e.Title), t.red.string(e.Detail), t.red.string(e.Excerpt)
	for i := range e.Errors {
		e.Errors[i] = t.red.string(e.Errors[i])
	}
	e.OutcomeUnknown = c.ambiguous
	e.DeadlineCut = c.deadlineCut
	return e
}

// request wraps req for the retry loop, with the call's body (or the body
// a middleware left) and, for a buffered call, the handler that reads a
// 2xx body inside the loop.
func (c *call) request(req *http.Request) (*retryablehttp.Request, error) {
	c.rreq = retryablehttp.Request{Request: req}
	rreq := &c.rreq
	body := c.r.Body
	if req.Body != nil && req.Body != http.NoBody { // the body a middleware left
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if body != nil {
		if err := rreq.SetBody(body); err != nil {
			return nil, err
		}
	}
	if c.buffer {
		rreq.SetResponseHandler(c.hooks.readBuffered)
	}
	return rreq, nil
}

// report fills the call's WithResponseInto destinations.
func (c *call) report(resp *http.Response) {
	if len(c.cfg.ResponseInto) == 0 {
		return
	}
	info := option.ResponseInfo{Attempts: c.attempts}
	if resp != nil {
		info.StatusCode, info.Header = resp.StatusCode, resp.Header
		info.RequestID = c.t.red.string(resp.Header.Get("X-Request-Id"))
		info.RateLimit = ratelimit.Parse(resp.Header, time.Now())
	}
	for _, dst := range c.cfg.ResponseInto {
		*dst = info
	}
}

// middleware runs the call's middleware around send. Each sees the
// request without credentials and with a readable body; the response of a
// buffered call reaches it with the body read so far readable again, and
// what it returns is what the call reads.
func (c *call) middleware(req *http.Request) (*http.Response, error) {
	req = req.WithContext(option.ContextWithRoute(req.Context(), cmp.Or(c.r.Route, c.path)))
	if c.r.Body != nil {
		req.Body = io.NopCloser(bytes.NewReader(c.r.Body))
		req.ContentLength = int64(len(c.r.Body))
	}
	next := func(req *http.Request) (*http.Response, error) {
		rreq, err := c.request(req)
		if err != nil {
			return nil, err
		}
		resp, err := c.rc.Do(rreq)
		if err == nil && c.buffer && resp.StatusCode >= 200 && resp.StatusCode < 300 {
			resp.Body = io.NopCloser(bytes.NewReader(c.body))
		}
		return resp, err
	}
	for i := len(c.cfg.Middleware) - 1; i >= 0; i-- {
		mw, inner := c.cfg.Middleware[i], next
		next = func(req *http.Request) (*http.Response, error) { return mw(req, inner) }
	}
	resp, err := next(req)
	if err != nil || resp == nil {
		if err == nil {
			err = errors.New("middleware returned no response")
		}
		return nil, err
	}
	if c.buffer && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		b, err := readBody(resp, c.limit)
		if err != nil {
			return nil, err
		}
		c.body, resp.Body = b, http.NoBody
	}
	return resp, nil
}

// RoundTrip is one attempt: it adds the credential (to a copy of req, and
// only for the origin the call was made to), sends it with the base
// RoundTripper, records rate limits, logs the attempt (path only, never
// the query) and calls the attempt hooks.
func (c *call) RoundTrip(req *http.Request) (*http.Response, error) {
	c.attempts++
	start := time.Now()
	out, err := req, error(nil)
	if len(c.cfg.Middleware) > 0 || (c.r.Auth == AuthGraphQL && c.cfg.GraphQLQueryKey) {
		out, err = c.withCredential(req)
	}
	var resp *http.Response
	if err == nil {
		resp, err = c.t.base.RoundTrip(out)
	}
	took := time.Since(start)
	if resp != nil {
		resp.Request = req
		if c.cfg.RateLimits != nil {
			c.cfg.RateLimits.Observe(resp.Header, start.Add(took))
		}
	}
	if err != nil {
		err = c.t.red.error(err)
	}
	c.logAttempt(req, resp, err, took)
	if len(c.cfg.AttemptHooks) > 0 {
		a := option.Attempt{Method: req.Method, Route: cmp.Or(c.r.Route, c.path), Number: c.attempts, Err: err, Duration: took}
		if resp != nil {
			a.StatusCode = resp.StatusCode
			a.RequestID = c.t.red.string(resp.Header.Get("X-Request-Id"))
			a.RateLimit = ratelimit.Parse(resp.Header, start.Add(took))
			a.OutcomeUnknown = serverFailure(resp.StatusCode)
		} else {
			a.OutcomeUnknown = !isDialError(err) && !isPermanent(err)
		}
		for _, h := range c.cfg.AttemptHooks {
			h(req.Context(), a)
		}
	}
	return resp, err
}

// headerCredential reports whether the call sends the key in the
// Authorization header.
func (c *call) headerCredential() bool {
	return !c.t.key.IsZero() && (c.r.Auth == AuthBearer || (c.r.Auth == AuthGraphQL && !c.cfg.GraphQLQueryKey))
}

// withCredential returns req with the call's credential: a copy with the
// Authorization header, or, for GraphQL with Config.GraphQLQueryKey, with
// the api_key query parameter. A request to another origin than the
// call's (a redirect) goes without.
func (c *call) withCredential(req *http.Request) (*http.Request, error) {
	if c.r.Auth == AuthNone || c.t.key.IsZero() || !sameOrigin(req.URL, c.url) {
		return req, nil
	}
	if !hosts.SecureEnough(req.URL) {
		return nil, errs.ErrInsecureURL
	}
	out := *req
	if c.r.Auth == AuthGraphQL && c.cfg.GraphQLQueryKey {
		u := *req.URL
		q := u.Query()
		q.Set("api_key", c.t.key.Reveal())
		u.RawQuery = q.Encode()
		out.URL = &u
		return &out, nil
	}
	h := make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		h[k] = v
	}
	h["Authorization"] = *c.t.bearer.v
	out.Header = h
	return &out, nil
}

// logAttempt logs one attempt: Debug, or Warn for a failure, a 429 or a
// 5xx.
func (c *call) logAttempt(req *http.Request, resp *http.Response, err error, took time.Duration) {
	log := c.cfg.Logger
	level := slog.LevelDebug
	if err != nil || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		level = slog.LevelWarn
	}
	ctx := req.Context()
	if !log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.EscapedPath()),
		slog.Int("attempt", c.attempts),
		slog.Duration("duration", took),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if id := resp.Header.Get("X-Request-Id"); id != "" {
			attrs = append(attrs, slog.String("request_id", c.t.red.string(id)))
		}
	}
	log.LogAttrs(ctx, level, "runpod: http attempt", attrs...)
}

// checkRetry is retryablehttp's CheckRetry: the retry table, and nothing
// else. It decides; the wait is backoff's, and retryablehttp sleeps it.
//
//	what happened                       idempotent      not idempotent
//	request never left (dial, DNS)      retry           retry
//	429                                 retry after the server-directed wait
//	500/502/503/504, reset or timeout,  retry           no: outcome unknown
//	2xx body cut off while reading
//	501, other 4xx, body too large      no              no
//
// A server-directed wait longer than MaxWait, or any wait longer than the
// context has left, stops the retries at once: the caller gets the last
// response (a 429 carrying RetryAfter) or error instead of sleeping
// towards a deadline that would end the call anyway.
func (c *call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	unknown := false // this attempt may have reached the platform and acted
	if err != nil {
		if isPermanent(err) {
			return false, nil
		}
		unknown = !isDialError(err)
		if unknown && !c.r.Idempotent {
			c.ambiguous = true
			return false, nil
		}
	} else {
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
		case serverFailure(resp.StatusCode):
			unknown = true
			if !c.r.Idempotent {
				c.ambiguous = true
				return false, nil
			}
		default:
			return false, nil
		}
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if c.retries >= c.cfg.MaxRetries {
		return false, nil
	}
	wait, ok := nextWait(c.cfg, c.retries, resp)
	if !ok {
		return false, nil
	}
	if deadline, has := ctx.Deadline(); has {
		left := time.Until(deadline) - wait
		if left < 0 || (c.r.Refit != nil && !c.r.Refit(nil, left)) {
			c.deadlineCut = true
			return false, nil
		}
	}
	c.wait = wait
	c.earlierUnknown = c.earlierUnknown || unknown
	c.retries++
	return true, nil
}

// serverFailure reports the statuses that leave a call's outcome unknown.
func serverFailure(status int) bool {
	switch status {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// nextWait is every wait before a retry: the server's Retry-After, else
// the reset of an exhausted RateLimit window, else exponential backoff
// with full jitter between RetryWaitMin and RetryWaitMax. ok is false when
// the server asks for more than MaxWait.
func nextWait(cfg *option.Config, retries int, resp *http.Response) (wait time.Duration, ok bool) {
	if resp != nil {
		if d, asked := fail.ServerWait(resp.Header, time.Now()); asked {
			return d, d <= cfg.MaxWait
		}
	}
	return waitpkg.Backoff(cfg.RetryWaitMin, cfg.RetryWaitMax, retries), true
}

// backoff is retryablehttp's Backoff: the wait checkRetry chose with
// nextWait when it decided on the retry (it needs the wait to decide: one
// over MaxWait or past the context's deadline stops the retries), so the
// jitter is drawn once. retryablehttp calls it right after checkRetry
// agreed, and sleeps what it returns, until the context ends; the bounds,
// attempt and response it passes are those nextWait was given.
func (c *call) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return c.wait }

// prepareRetry is retryablehttp's PrepareRetry: a request with a Refit
// (a long poll) is fitted to the time its context has left.
func (c *call) prepareRetry(req *http.Request) error {
	if c.r.Refit == nil {
		return nil
	}
	left := time.Duration(-1)
	if deadline, ok := req.Context().Deadline(); ok {
		left = time.Until(deadline)
	}
	u := *req.URL
	c.r.Refit(&u, left)
	req.URL = &u
	return nil
}

// lastResponse is retryablehttp's ErrorHandler: it hands back the last
// response, or the error, so do can type it (without a URL).
func lastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil && resp != nil {
		drain(resp.Body)
		resp = nil
	}
	return resp, err
}

// readBuffered is the response handler of buffered calls: it reads a 2xx
// body whole, up to the call's limit, inside the retry loop.
func (c *call) readBuffered(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	b, err := readBody(resp, c.limit)
	resp.Body = http.NoBody
	if err != nil {
		ctx := resp.Request.Context()
		if c.cfg.Logger.Enabled(ctx, slog.LevelWarn) {
			c.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "runpod: reading response body failed",
				slog.String("method", c.r.Method), slog.String("path", c.path),
				slog.Int("status", resp.StatusCode), slog.String("error", c.t.red.string(err.Error())))
		}
		return err
	}
	c.body = b
	return nil
}

// tooLargeError is the response handler's failure for a 2xx body over the
// limit; do turns it into an *errs.ResponseError.
type tooLargeError struct {
	status      int
	contentType string
}

func (e *tooLargeError) Error() string { return "response body larger than the limit" }

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

// isDialError reports whether err happened before any byte of the request
// could have left: resolving the host or opening the connection.
func isDialError(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect")
}

// isPermanent reports failures that another attempt cannot fix.
func isPermanent(err error) bool {
	var big *tooLargeError
	if errors.Is(err, errs.ErrInsecureURL) || errors.As(err, &big) {
		return true
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuthority) ||
		errors.As(err, &hostnameErr) || errors.As(err, &invalidCert)
}
