package runpodotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/runpodkit/runpod-go/option"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/runpodkit/runpod-go/otel"

// AttemptEvent is the name of the span event each attempt adds.
const AttemptEvent = "runpod.attempt"

// Attributes of this package's own, beside the semantic conventions'.
const (
	// AttemptNumberKey counts a call's attempts, from 1.
	AttemptNumberKey = attribute.Key("runpod.attempt.number")
	// OutcomeUnknownKey reports that the attempt may have reached the
	// platform without an answer saying what it did (option.Attempt).
	OutcomeUnknownKey = attribute.Key("runpod.attempt.outcome_unknown")
	// AttemptDurationKey is how long the attempt took to its response's
	// header, in seconds.
	AttemptDurationKey = attribute.Key("runpod.attempt.duration")
	// AttemptErrorKey is why an attempt got no response, as the SDK
	// reports it (redacted).
	AttemptErrorKey = attribute.Key("runpod.attempt.error")
	// RateLimitRemainingKey is the fewest requests left in any rate-limit
	// window the attempt's response reported.
	RateLimitRemainingKey = attribute.Key("runpod.rate_limit.remaining")
	// EndpointIDKey is the serverless endpoint (or public model) of a job.
	EndpointIDKey = attribute.Key("runpod.endpoint.id")
	// JobStatusKey is a job's final status, such as "COMPLETED".
	JobStatusKey = attribute.Key("runpod.job.status")
)

// Option configures WithTelemetry.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	tp trace.TracerProvider
	mp metric.MeterProvider
}

// WithTracerProvider sets the provider of the tracer; nil, or no
// WithTracerProvider, means otel.GetTracerProvider().
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tp = tp })
}

// WithMeterProvider sets the provider of the meter; nil, or no
// WithMeterProvider, means otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.mp = mp })
}

// WithTelemetry returns a RequestOption that traces and measures every
// call it applies to: given to runpod.NewClient, option.NewConfig or a
// surface's constructor, every call of the client; given to a call, that
// call. It adds one option.Middleware and one option.AttemptHook to the
// Config. The tracer and the instruments are made once, here, so keep the
// option and reuse it rather than calling WithTelemetry per call.
//
// The same option given to a client and again to one of its calls
// records the call once.
func WithTelemetry(opts ...Option) option.RequestOption {
	var c config
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	t := newTelemetry(c)
	return func(cfg *option.Config) error {
		in := &install{t: t}
		if err := option.WithMiddleware(in.middleware)(cfg); err != nil {
			return err
		}
		return option.WithAttemptHook(in.hook)(cfg)
	}
}

// telemetry is what one WithTelemetry made: the tracer and instruments.
type telemetry struct {
	tracer                     trace.Tracer
	duration, delay, execution metric.Float64Histogram
	attempts                   metric.Int64Histogram
	jobs                       *jobSet // jobs already recorded
	maxJobBody                 int64   // the largest job body read
}

// Bucket boundaries: seconds for call durations (the HTTP conventions'
// boundaries, extended for long polls), attempts, seconds for jobs.
var (
	callBuckets    = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120, 300}
	attemptBuckets = []float64{1, 2, 3, 4, 5, 6, 8, 10}
	jobBuckets     = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
)

func newTelemetry(c config) *telemetry {
	tp, mp := c.tp, c.mp
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	t := &telemetry{
		tracer:     tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)),
		jobs:       newJobSet(4096),
		maxJobBody: 1 << 20,
	}
	meter := mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	fallback := noop.NewMeterProvider().Meter(ScopeName)
	float := func(name, unit, desc string, buckets []float64) metric.Float64Histogram {
		h, err := meter.Float64Histogram(name, metric.WithUnit(unit), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
		if err != nil {
			otel.Handle(err)
			h, _ = fallback.Float64Histogram(name)
		}
		return h
	}
	t.duration = float("runpod.client.call.duration", "s", "Duration of RunPod API calls, retries included.", callBuckets)
	t.delay = float("runpod.job.delay_time", "s", "Time RunPod serverless jobs waited in the queue.", jobBuckets)
	t.execution = float("runpod.job.execution_time", "s", "Time RunPod serverless jobs ran on a worker.", jobBuckets)
	a, err := meter.Int64Histogram("runpod.client.call.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts of RunPod API calls: 1, or more when retried."), metric.WithExplicitBucketBoundaries(attemptBuckets...))
	if err != nil {
		otel.Handle(err)
		a, _ = fallback.Int64Histogram("runpod.client.call.attempts")
	}
	t.attempts = a
	return t
}
