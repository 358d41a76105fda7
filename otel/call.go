package runpodotel

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/runpodkit/runpod-go/option"
)

// install is one application of WithTelemetry's RequestOption to a
// Config: its middleware and its hook share the key of the call's state,
// so a hook never writes to the span of another install.
type install struct{ t *telemetry }

// stateKey holds the *callState of an install's call in the context the
// middleware passes on; activeKey marks a call the telemetry already
// records (the same option given to a client and to one of its calls).
type (
	stateKey  struct{ in *install }
	activeKey struct{ t *telemetry }
)

// callState is one call, shared by the middleware and the attempt hook
// (which the SDK runs inside next; the mutex is for middleware of the
// caller's between the two that runs next on another goroutine).
type callState struct {
	span     trace.Span
	mu       sync.Mutex
	attempts int
}

// middleware starts the call's span, sends the request, reads a job
// body's times and ends the span (at the end of a successful body).
func (in *install) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	t := in.t
	ctx := req.Context()
	if ctx.Value(activeKey{t}) != nil {
		return next(req)
	}
	start := time.Now()
	method, route := req.Method, option.Route(ctx)
	if route == "" {
		route = req.URL.EscapedPath()
	}
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(method),
		semconv.HTTPRoute(route),
		semconv.URLTemplate(route),
		semconv.URLFull((&url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host, Path: req.URL.Path, RawPath: req.URL.RawPath}).String()),
	}
	if host, port := serverAddress(req.URL); host != "" {
		attrs = append(attrs, semconv.ServerAddress(host))
		if port > 0 {
			attrs = append(attrs, semconv.ServerPort(port))
		}
	}
	ctx, span := t.tracer.Start(ctx, "runpod "+method+" "+route,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	st := &callState{span: span}
	ctx = context.WithValue(context.WithValue(ctx, activeKey{t}, true), stateKey{in}, st)

	resp, err := next(req.WithContext(ctx))

	end := func(status int, err error) { t.end(ctx, st, start, method, route, status, err) }
	if err != nil || resp == nil {
		end(0, err)
		return resp, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Body == nil || resp.Body == http.NoBody {
		end(resp.StatusCode, nil)
		return resp, nil
	}
	if endpoint, ok := jobEndpoint(req.URL.EscapedPath()); ok {
		t.recordJob(ctx, resp, endpoint)
	}
	status := resp.StatusCode
	resp.Body = &endingBody{ReadCloser: resp.Body, end: func(err error) { end(status, err) }}
	return resp, nil
}

// hook adds an attempt's event to its call's span.
func (in *install) hook(ctx context.Context, a option.Attempt) {
	st, _ := ctx.Value(stateKey{in}).(*callState)
	if st == nil {
		return
	}
	st.mu.Lock()
	st.attempts = max(st.attempts, a.Number)
	st.mu.Unlock()
	if !st.span.IsRecording() {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 9)
	attrs = append(attrs,
		semconv.HTTPRequestMethodKey.String(a.Method),
		semconv.HTTPRoute(a.Route),
		semconv.HTTPResponseStatusCode(a.StatusCode),
		AttemptNumberKey.Int(a.Number),
		OutcomeUnknownKey.Bool(a.OutcomeUnknown),
		AttemptDurationKey.Float64(a.Duration.Seconds()),
	)
	if n, ok := remaining(a); ok {
		attrs = append(attrs, RateLimitRemainingKey.Int64(n))
	}
	if a.Err != nil {
		attrs = append(attrs, AttemptErrorKey.String(a.Err.Error()), semconv.ErrorTypeKey.String(errorType(a.Err)))
	}
	st.span.AddEvent(AttemptEvent, trace.WithAttributes(attrs...))
}

// remaining is the fewest requests left in any window a.RateLimit
// reported.
func remaining(a option.Attempt) (int64, bool) {
	n, ok := int64(0), false
	for _, w := range a.RateLimit.Windows {
		if w.Remaining >= 0 && (!ok || w.Remaining < n) {
			n, ok = w.Remaining, true
		}
	}
	return n, ok
}

// end ends the call's span and records its metrics: status is the
// final response's (0 when none arrived), err why the call failed (nil
// for a response, whatever its status).
func (t *telemetry) end(ctx context.Context, st *callState, start time.Time, method, route string, status int, err error) {
	took := time.Since(start)
	st.mu.Lock()
	attempts := st.attempts
	st.mu.Unlock()

	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, semconv.HTTPRequestMethodKey.String(method), semconv.HTTPRoute(route))
	if status > 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(status))
	}
	errType, desc := "", ""
	switch {
	case err != nil:
		errType, desc = errorType(err), message(err)
	case status >= 400:
		errType = strconv.Itoa(status)
	}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}

	span := st.span
	if span.IsRecording() {
		span.SetAttributes(attrs[2:]...)
		if attempts > 1 {
			span.SetAttributes(semconv.HTTPRequestResendCount(attempts - 1))
		}
		if errType != "" {
			span.SetStatus(codes.Error, desc)
		}
	}
	span.End()

	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	t.duration.Record(ctx, took.Seconds(), set)
	t.attempts.Record(ctx, int64(attempts), set)
}

// errorType is the error.type of a failure: "timeout", "canceled", or
// the type of the error under net/url's wrapper.
func errorType(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	return semconv.ErrorType(err).Value.AsString()
}

// message is err's text without net/url's wrapper, which quotes the URL,
// query and all. Attempt errors reach it already redacted by the SDK.
func message(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err.Error()
	}
	return err.Error()
}

// serverAddress returns u's host and port, the scheme's default port when
// u names none.
func serverAddress(u *url.URL) (string, int) {
	host := u.Hostname()
	if p := u.Port(); p != "" {
		n, _ := strconv.Atoi(p)
		return host, n
	}
	switch u.Scheme {
	case "https":
		return host, 443
	case "http":
		return host, 80
	}
	return host, 0
}

// endingBody ends the call's span when the body is read to its end, fails
// or is closed, whichever comes first.
type endingBody struct {
	io.ReadCloser
	once sync.Once
	end  func(err error)
}

func (b *endingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(func() {
			if err == io.EOF {
				b.end(nil)
			} else {
				b.end(err)
			}
		})
	}
	return n, err
}

func (b *endingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { b.end(nil) })
	return err
}
