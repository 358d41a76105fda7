package runpodotel_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	runpodotel "github.com/runpodkit/runpod-go/otel"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
)

// testKey is shaped like the platform's keys; no recorded value may hold
// it, nor the header value or the query the tests send.
const (
	testKey     = "rpa_0123456789ABCDEF0123456789ABCDEF"
	headerValue = "header-value-never-recorded"
)

// telemetry is what one test records: spans, metrics, and the option
// that records them.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	opt    option.RequestOption
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	rd := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd))
	t.Cleanup(func() {
		assert.NoError(t, tp.Shutdown(context.Background()))
		assert.NoError(t, mp.Shutdown(context.Background()))
	})
	return &telemetry{spans: sr, reader: rd, opt: runpodotel.WithTelemetry(runpodotel.WithTracerProvider(tp), runpodotel.WithMeterProvider(mp))}
}

// metrics collects the metrics recorded so far, by name.
func (tl *telemetry) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tl.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, runpodotel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// keyShape matches the keys of the tests and of runpodtest.
var keyShape = regexp.MustCompile(`rpa_[0-9A-F]{32}`)

// noSecrets checks every span name, attribute, event, status and metric
// attribute recorded for a key, the header value and any URL query.
func (tl *telemetry) noSecrets(t *testing.T) {
	t.Helper()
	var texts []string
	attrs := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			texts = append(texts, string(kv.Key), kv.Value.String())
		}
	}
	for _, s := range tl.spans.Ended() {
		texts = append(texts, s.Name(), s.Status().Description)
		attrs(s.Attributes())
		for _, e := range s.Events() {
			texts = append(texts, e.Name)
			attrs(e.Attributes)
		}
	}
	for name, m := range tl.metrics(t) {
		texts = append(texts, name, m.Description, m.Unit)
		switch d := m.Data.(type) {
		case metricdata.Histogram[float64]:
			for _, dp := range d.DataPoints {
				attrs(dp.Attributes.ToSlice())
			}
		case metricdata.Histogram[int64]:
			for _, dp := range d.DataPoints {
				attrs(dp.Attributes.ToSlice())
			}
		default:
			t.Errorf("metric %s has unexpected data %T", name, m.Data)
		}
	}
	require.NotEmpty(t, texts)
	for _, s := range texts {
		assert.False(t, keyShape.MatchString(s), "a key in %q", s)
		assert.NotContains(t, s, testKey[4:])
		assert.NotContains(t, s, headerValue)
		assert.NotContains(t, s, "?")
		assert.NotContains(t, s, "wait=")
	}
}

// histogram returns the one data point of a histogram metric.
func histogram[N int64 | float64](t *testing.T, ms map[string]metricdata.Metrics, name string) metricdata.HistogramDataPoint[N] {
	t.Helper()
	m, ok := ms[name]
	require.True(t, ok, "no metric %s", name)
	h, ok := m.Data.(metricdata.Histogram[N])
	require.True(t, ok, "metric %s is %T", name, m.Data)
	require.Len(t, h.DataPoints, 1, "metric %s", name)
	return h.DataPoints[0]
}

// attr returns the value of key in kvs.
func attr(kvs []attribute.KeyValue, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func attrOf(t *testing.T, kvs []attribute.KeyValue, key string) attribute.Value {
	t.Helper()
	v, ok := attr(kvs, attribute.Key(key))
	require.True(t, ok, "no attribute %s in %v", key, kvs)
	return v
}

// config aims the SDK at srv (both hosts) at test speed, with the key
// and a header the telemetry must not record.
func config(t *testing.T, srv *httptest.Server, opts ...option.RequestOption) option.Config {
	t.Helper()
	cfg, err := option.NewConfig(append([]option.RequestOption{
		option.WithAPIKey(testKey), option.WithBaseURL(srv.URL), option.WithInferenceURL(srv.URL),
		option.WithHTTPClient(srv.Client()), option.WithBackoff(time.Millisecond, 2*time.Millisecond),
		option.WithHeader("X-Custom", headerValue),
	}, opts...)...)
	require.NoError(t, err)
	return cfg
}

// authorized checks, in a handler, that the key did reach the server (so
// the scans prove something).
func authorized(t *testing.T, r *http.Request) {
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	assert.Equal(t, headerValue, r.Header.Get("X-Custom"))
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("RateLimit", `"minute";r=59;t=30, "hour";r=7;t=1800`)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func TestGetIsOneSpanWithOneAttempt(t *testing.T) {
	tl := newTelemetry(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authorized(t, r)
		assert.Equal(t, "/v2/serverless/ep1", r.URL.Path)
		writeJSON(w, http.StatusOK, `{"id":"ep1","name":"one"}`)
	}))
	defer srv.Close()
	svc := serverless.NewFromConfig(config(t, srv, tl.opt))

	ep, err := svc.Endpoints.Get(context.Background(), "ep1")
	require.NoError(t, err)
	assert.Equal(t, "ep1", ep.ID)

	spans := tl.spans.Ended()
	require.Len(t, spans, 1)
	s := spans[0]
	route := attrOf(t, s.Attributes(), "http.route").AsString()
	assert.Equal(t, "/v2/serverless/{endpointId}", route)
	assert.Equal(t, "runpod GET "+route, s.Name())
	assert.Equal(t, trace.SpanKindClient, s.SpanKind())
	assert.Equal(t, codes.Unset, s.Status().Code)
	assert.Equal(t, runpodotel.ScopeName, s.InstrumentationScope().Name)
	assert.Equal(t, "GET", attrOf(t, s.Attributes(), "http.request.method").AsString())
	assert.Equal(t, int64(200), attrOf(t, s.Attributes(), "http.response.status_code").AsInt64())
	assert.Equal(t, "127.0.0.1", attrOf(t, s.Attributes(), "server.address").AsString())
	assert.Equal(t, srv.URL+"/v2/serverless/ep1", attrOf(t, s.Attributes(), "url.full").AsString())
	_, has := attr(s.Attributes(), "error.type")
	assert.False(t, has)
	_, has = attr(s.Attributes(), "http.request.resend_count")
	assert.False(t, has)

	require.Len(t, s.Events(), 1)
	e := s.Events()[0]
	assert.Equal(t, runpodotel.AttemptEvent, e.Name)
	assert.Equal(t, "GET", attrOf(t, e.Attributes, "http.request.method").AsString())
	assert.Equal(t, route, attrOf(t, e.Attributes, "http.route").AsString())
	assert.Equal(t, int64(200), attrOf(t, e.Attributes, "http.response.status_code").AsInt64())
	assert.Equal(t, int64(1), attrOf(t, e.Attributes, string(runpodotel.AttemptNumberKey)).AsInt64())
	assert.False(t, attrOf(t, e.Attributes, string(runpodotel.OutcomeUnknownKey)).AsBool())
	assert.Equal(t, int64(7), attrOf(t, e.Attributes, string(runpodotel.RateLimitRemainingKey)).AsInt64())
	assert.GreaterOrEqual(t, attrOf(t, e.Attributes, string(runpodotel.AttemptDurationKey)).AsFloat64(), 0.0)
	_, has = attr(e.Attributes, runpodotel.AttemptErrorKey)
	assert.False(t, has)

	ms := tl.metrics(t)
	d := histogram[float64](t, ms, "runpod.client.call.duration")
	assert.Equal(t, "s", ms["runpod.client.call.duration"].Unit)
	assert.Equal(t, uint64(1), d.Count)
	want := attribute.NewSet(
		attribute.String("http.request.method", "GET"), attribute.String("http.route", route),
		attribute.Int("http.response.status_code", 200))
	assert.Equal(t, want, d.Attributes)
	a := histogram[int64](t, ms, "runpod.client.call.attempts")
	assert.Equal(t, "{attempt}", ms["runpod.client.call.attempts"].Unit)
	assert.Equal(t, uint64(1), a.Count)
	assert.Equal(t, int64(1), a.Sum)
	assert.Equal(t, want, a.Attributes)
	assert.NotContains(t, ms, "runpod.job.delay_time")
	tl.noSecrets(t)
}

func TestRetriedCallHasAnEventPerAttempt(t *testing.T) {
	tl := newTelemetry(t)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authorized(t, r)
		if n.Add(1) == 1 {
			writeJSON(w, http.StatusServiceUnavailable, `{"error":"busy"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"id":"job-1","status":"IN_PROGRESS"}`)
	}))
	defer srv.Close()
	q := serverless.NewFromConfig(config(t, srv, tl.opt)).Queue("ep1")

	j, err := q.Status(context.Background(), "job-1")
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatus("IN_PROGRESS"), j.Status)
	assert.Equal(t, int32(2), n.Load())

	spans := tl.spans.Ended()
	require.Len(t, spans, 1)
	s := spans[0]
	assert.Equal(t, "runpod GET /v2/{endpointId}/status/{jobId}", s.Name())
	assert.Equal(t, codes.Unset, s.Status().Code)
	assert.Equal(t, int64(1), attrOf(t, s.Attributes(), "http.request.resend_count").AsInt64())
	require.Len(t, s.Events(), 2)
	first, second := s.Events()[0].Attributes, s.Events()[1].Attributes
	assert.Equal(t, int64(1), attrOf(t, first, string(runpodotel.AttemptNumberKey)).AsInt64())
	assert.Equal(t, int64(503), attrOf(t, first, "http.response.status_code").AsInt64())
	assert.True(t, attrOf(t, first, string(runpodotel.OutcomeUnknownKey)).AsBool())
	assert.Equal(t, int64(2), attrOf(t, second, string(runpodotel.AttemptNumberKey)).AsInt64())
	assert.Equal(t, int64(200), attrOf(t, second, "http.response.status_code").AsInt64())
	assert.False(t, attrOf(t, second, string(runpodotel.OutcomeUnknownKey)).AsBool())

	ms := tl.metrics(t)
	a := histogram[int64](t, ms, "runpod.client.call.attempts")
	assert.Equal(t, uint64(1), a.Count)
	assert.Equal(t, int64(2), a.Sum)
	maxAttempts, _ := a.Max.Value()
	assert.Equal(t, int64(2), maxAttempts)
	assert.NotContains(t, ms, "runpod.job.delay_time", "a job still running has no times")
	tl.noSecrets(t)
}

func TestFailedCalls(t *testing.T) {
	tl := newTelemetry(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, `{"error":"no such endpoint"}`)
	}))
	defer srv.Close()
	svc := serverless.NewFromConfig(config(t, srv, tl.opt))

	_, err := svc.Endpoints.Get(context.Background(), "missing")
	require.ErrorIs(t, err, errs.ErrNotFound)
	spans := tl.spans.Ended()
	require.Len(t, spans, 1)
	assert.Equal(t, codes.Error, spans[0].Status().Code)
	assert.Equal(t, "404", attrOf(t, spans[0].Attributes(), "error.type").AsString())
	assert.Equal(t, int64(404), attrOf(t, spans[0].Attributes(), "http.response.status_code").AsInt64())

	// No response at all: a port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg, err := option.NewConfig(option.WithAPIKey(testKey), option.WithBaseURL(closed), option.WithInferenceURL(closed),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0), tl.opt)
	require.NoError(t, err)
	_, err = serverless.NewFromConfig(cfg).Queue("ep1").Status(context.Background(), "job-1")
	require.Error(t, err)

	spans = tl.spans.Ended()
	require.Len(t, spans, 2)
	s := spans[1]
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Contains(t, s.Status().Description, "connection refused")
	assert.NotContains(t, s.Status().Description, "/v2/", "the description holds no URL")
	assert.NotEmpty(t, attrOf(t, s.Attributes(), "error.type").AsString())
	_, has := attr(s.Attributes(), "http.response.status_code")
	assert.False(t, has)
	require.Len(t, s.Events(), 1)
	e := s.Events()[0].Attributes
	assert.Equal(t, int64(0), attrOf(t, e, "http.response.status_code").AsInt64())
	assert.Contains(t, attrOf(t, e, string(runpodotel.AttemptErrorKey)).AsString(), "connection refused")
	assert.False(t, attrOf(t, e, string(runpodotel.OutcomeUnknownKey)).AsBool(), "a refused dial never reached the platform")
	_, has = attr(e, runpodotel.RateLimitRemainingKey)
	assert.False(t, has)

	d, ok := tl.metrics(t)["runpod.client.call.duration"].Data.(metricdata.Histogram[float64])
	require.True(t, ok)
	require.Len(t, d.DataPoints, 2)
	tl.noSecrets(t)
}

// jobServer answers the job API with the job of body for every job
// route, counting requests.
func jobServer(t *testing.T, n *atomic.Int32, body func(path string) string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authorized(t, r)
		n.Add(1)
		writeJSON(w, http.StatusOK, body(r.URL.Path))
	}))
}

func TestJobTimes(t *testing.T) {
	tl := newTelemetry(t)
	var n atomic.Int32
	srv := jobServer(t, &n, func(path string) string {
		return `{"id":"job-1","status":"COMPLETED","delayTime":1500,"executionTime":250,"workerId":"w1","output":{"text":"done"}}`
	})
	defer srv.Close()
	q := serverless.NewFromConfig(config(t, srv, tl.opt)).Queue("ep1")
	ctx := context.Background()

	j, err := q.RunSync(ctx, serverless.RunParams{Input: map[string]string{"prompt": "hi"}}, serverless.WaitOptions{Hold: 5 * time.Second})
	require.NoError(t, err)
	assert.JSONEq(t, `{"text":"done"}`, string(j.Output), "the SDK reads the body the middleware read")
	assert.Equal(t, 1500*time.Millisecond, j.DelayTime)

	// The same job read again is not recorded again.
	j, err = q.Status(ctx, "job-1")
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, j.Status)
	assert.Equal(t, int32(2), n.Load())

	ms := tl.metrics(t)
	want := attribute.NewSet(runpodotel.EndpointIDKey.String("ep1"), runpodotel.JobStatusKey.String("COMPLETED"))
	delay := histogram[float64](t, ms, "runpod.job.delay_time")
	assert.Equal(t, "s", ms["runpod.job.delay_time"].Unit)
	assert.Equal(t, uint64(1), delay.Count)
	assert.InDelta(t, 1.5, delay.Sum, 1e-9)
	assert.Equal(t, want, delay.Attributes)
	exec := histogram[float64](t, ms, "runpod.job.execution_time")
	assert.Equal(t, uint64(1), exec.Count)
	assert.InDelta(t, 0.25, exec.Sum, 1e-9)
	assert.Equal(t, want, exec.Attributes)

	spans := tl.spans.Ended()
	require.Len(t, spans, 2)
	assert.Equal(t, "runpod POST /v2/{endpointId}/runsync", spans[0].Name())
	assert.Equal(t, "runpod GET /v2/{endpointId}/status/{jobId}", spans[1].Name())
	tl.noSecrets(t)
}

func TestJobTimesOfFailedJobs(t *testing.T) {
	tl := newTelemetry(t)
	var n atomic.Int32
	srv := jobServer(t, &n, func(path string) string {
		return `{"id":"job-2","status":"FAILED","delayTime":20,"executionTime":3000,"error":"boom"}`
	})
	defer srv.Close()
	q := serverless.NewFromConfig(config(t, srv, tl.opt)).Queue("ep-2")

	_, err := q.RunSync(context.Background(), serverless.RunParams{Input: 1}, serverless.WaitOptions{Hold: 5 * time.Second})
	var je *serverless.JobError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, "boom", je.Job.Error)

	ms := tl.metrics(t)
	exec := histogram[float64](t, ms, "runpod.job.execution_time")
	assert.InDelta(t, 3.0, exec.Sum, 1e-9)
	assert.Equal(t, attribute.NewSet(runpodotel.EndpointIDKey.String("ep-2"), runpodotel.JobStatusKey.String("FAILED")), exec.Attributes)
	tl.noSecrets(t)
}

func TestCallOptionAndClientOptionRecordOnce(t *testing.T) {
	tl := newTelemetry(t)
	other := newTelemetry(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"id":"ep1"}`)
	}))
	defer srv.Close()
	svc := serverless.NewFromConfig(config(t, srv, tl.opt))
	ctx := context.Background()

	// The client's option given to the call again: one span.
	_, err := svc.Endpoints.Get(ctx, "ep1", tl.opt)
	require.NoError(t, err)
	require.Len(t, tl.spans.Ended(), 1)
	assert.Len(t, tl.spans.Ended()[0].Events(), 1)

	// Another telemetry given to the call: its own span, each with its
	// own attempt event.
	_, err = svc.Endpoints.Get(ctx, "ep1", other.opt)
	require.NoError(t, err)
	require.Len(t, tl.spans.Ended(), 2)
	require.Len(t, other.spans.Ended(), 1)
	outer, inner := tl.spans.Ended()[1], other.spans.Ended()[0]
	assert.Len(t, outer.Events(), 1)
	assert.Len(t, inner.Events(), 1)
	assert.Equal(t, outer.SpanContext().SpanID(), inner.Parent().SpanID(), "the call's span is the parent of the inner one")
	assert.Equal(t, int64(2), histogram[int64](t, tl.metrics(t), "runpod.client.call.attempts").Sum)
}

func TestOnOneCall(t *testing.T) {
	tl := newTelemetry(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"id":"ep1"}`)
	}))
	defer srv.Close()
	svc := serverless.NewFromConfig(config(t, srv))
	ctx := context.Background()

	_, err := svc.Endpoints.Get(ctx, "ep1")
	require.NoError(t, err)
	_, err = svc.Endpoints.Get(ctx, "ep1", tl.opt)
	require.NoError(t, err)
	assert.Len(t, tl.spans.Ended(), 1)
}

func TestSpanIsChildOfCallersSpan(t *testing.T) {
	tl := newTelemetry(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"id":"ep1"}`)
	}))
	defer srv.Close()
	svc := serverless.NewFromConfig(config(t, srv, tl.opt))
	tp := sdktrace.NewTracerProvider()
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	ctx, parent := tp.Tracer("test").Start(context.Background(), "work")

	_, err := svc.Endpoints.Get(ctx, "ep1")
	require.NoError(t, err)
	parent.End()
	require.Len(t, tl.spans.Ended(), 1)
	assert.Equal(t, parent.SpanContext().TraceID(), tl.spans.Ended()[0].SpanContext().TraceID())
	assert.Equal(t, parent.SpanContext().SpanID(), tl.spans.Ended()[0].Parent().SpanID())
}

func TestStreamSpanEndsWithTheStream(t *testing.T) {
	tl := newTelemetry(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(text string) string {
			b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": text}}}})
			return "data: " + string(b) + "\n\n"
		}
		_, _ = io.WriteString(w, chunk("hel"))
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, chunk("lo")+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	route := openai.NewFromConfig(config(t, srv, tl.opt)).Route("ep1")

	var got []string
	for chunk, err := range route.ChatCompletionStream(context.Background(), openai.ChatCompletionParams{
		Model: "m", Messages: []openai.Message{openai.UserMessage("hi")},
	}) {
		require.NoError(t, err)
		if len(got) == 0 {
			assert.Empty(t, tl.spans.Ended(), "the span lasts as long as the stream")
			close(release)
		}
		for _, c := range chunk.Choices {
			got = append(got, c.Delta.Content)
		}
	}
	assert.Equal(t, []string{"hel", "lo"}, got)
	spans := tl.spans.Ended()
	require.Len(t, spans, 1)
	assert.Equal(t, "runpod POST /v2/{endpointId}/openai/v1/chat/completions", spans[0].Name())
	assert.Equal(t, codes.Unset, spans[0].Status().Code)
	tl.noSecrets(t)
}

// The providers default to the global ones; with none set, the calls
// still work.
func TestGlobalProviders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"id":"job-1","status":"COMPLETED","delayTime":1,"executionTime":2}`)
	}))
	defer srv.Close()
	q := serverless.NewFromConfig(config(t, srv, runpodotel.WithTelemetry(nil))).Queue("ep1")
	j, err := q.Status(context.Background(), "job-1")
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, j.Status)
}

func TestGraphQLQueryKeyIsNeverRecorded(t *testing.T) {
	tl := newTelemetry(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, testKey, r.URL.Query().Get("api_key"))
		writeJSON(w, http.StatusOK, `{"data":null,"errors":[{"message":"no endpoint ep1"}]}`)
	}))
	defer srv.Close()
	svc := graphqlendpoints.NewFromConfig(config(t, srv, tl.opt, option.WithGraphQLQueryKey()))

	_, err := svc.Get(context.Background(), "ep1")
	require.Error(t, err)
	spans := tl.spans.Ended()
	require.Len(t, spans, 1)
	assert.Equal(t, "runpod POST /graphql", spans[0].Name())
	assert.Equal(t, srv.URL+"/graphql", attrOf(t, spans[0].Attributes(), "url.full").AsString())
	tl.noSecrets(t)
}
