// Package runpodotel traces and measures the calls of runpod-go with
// OpenTelemetry. It is a module of its own, so the SDK itself keeps no
// OpenTelemetry dependency, and it is built on the SDK's public hooks
// alone: one option.Middleware and one option.AttemptHook, added by one
// option.RequestOption:
//
//	rp, err := runpod.NewClient(runpodotel.WithTelemetry())
//
// WithTelemetry uses the global providers (otel.GetTracerProvider,
// otel.GetMeterProvider) unless WithTracerProvider or WithMeterProvider
// names others. Like every RequestOption it may be given to
// runpod.NewClient, option.NewConfig, a surface's constructor, or a single
// call.
//
// # Traces
//
// Each call is one client span named for its method and route template,
// such as "runpod GET /v2/pods/{podId}", with the HTTP client attributes
// of the semantic conventions: http.request.method, http.route and
// url.template (the template, so IDs stay out of span names and metric
// series), url.full (scheme, host and path: never the query), server.address,
// server.port, http.response.status_code, http.request.resend_count and,
// when the call fails, error.type, with the span's status set to Error. A
// successful response's span ends when its body has been read or closed,
// so a stream's span covers the stream.
//
// Each attempt of the call (the first, and every retry) adds an event
// named "runpod.attempt" (AttemptEvent) to the span, carrying
// http.request.method, http.route, http.response.status_code (0 when no
// response arrived), runpod.attempt.number, runpod.attempt.outcome_unknown,
// runpod.attempt.duration (seconds), runpod.rate_limit.remaining (the
// fewest requests left in any of the response's rate-limit windows, when
// it reported any) and, for an attempt that got no response,
// runpod.attempt.error (the SDK's redacted message) and error.type.
//
// Nothing recorded holds a header value or a URL query: the API key is
// added to each attempt after every middleware, so this package never
// sees it.
//
// # Metrics
//
//	runpod.client.call.duration    histogram, s          one per call, to the end of its body
//	runpod.client.call.attempts    histogram, {attempt}  attempts per call
//	runpod.job.delay_time          histogram, s          a job's time in the queue
//	runpod.job.execution_time      histogram, s          a job's time running
//
// The call metrics carry http.request.method, http.route,
// http.response.status_code (when a response arrived) and error.type (when
// the call failed). The job metrics are read from the job the job API
// answers with (/v2/{endpointId}/runsync, /run, /status/{jobId} and
// /status-sync/{jobId}) once it is in a final status (COMPLETED, FAILED,
// CANCELLED, TIMED_OUT): the platform's delayTime and executionTime, which
// it reports in milliseconds, are recorded in seconds, like every duration
// in OpenTelemetry, with runpod.endpoint.id and runpod.job.status. Each
// job is recorded once, however often it is fetched (the last 4096 job IDs
// are remembered). Only JSON bodies up to 1 MiB are read; the body the
// call then reads is the same.
package runpodotel
