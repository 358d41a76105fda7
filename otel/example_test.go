package runpodotel_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/runpodkit/runpod-go"
	runpodotel "github.com/runpodkit/runpod-go/otel"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// A job run against the fake platform, traced and measured in memory: one
// span with one attempt event, and the job's times among the metrics.
func Example() {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(ctx) }()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(ctx) }()

	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("my-endpoint", func(ctx context.Context, job *worker.Job) (any, error) { return job.Input, nil })

	// A program gives runpod.NewClient runpodotel.WithTelemetry() and
	// sets up its providers (and exporters) globally.
	rp, err := srv.NewClient(runpodotel.WithTelemetry(runpodotel.WithTracerProvider(tp), runpodotel.WithMeterProvider(mp)))
	if err != nil {
		log.Fatal(err)
	}
	job, err := rp.Serverless.Queue("my-endpoint").RunSync(ctx, serverless.RunParams{Input: "hello"}, serverless.WaitOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status)

	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), len(s.Events()), "attempt")
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			names = append(names, m.Name+" ("+m.Unit+")")
		}
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Println(n)
	}
	// Output:
	// COMPLETED
	// runpod POST /v2/{endpointId}/runsync 1 attempt
	// runpod.client.call.attempts ({attempt})
	// runpod.client.call.duration (s)
	// runpod.job.delay_time (s)
	// runpod.job.execution_time (s)
}

// Every call of a client, with the providers the program installed
// globally (otel.SetTracerProvider, otel.SetMeterProvider).
func ExampleWithTelemetry() {
	rp, err := runpod.NewClient(runpodotel.WithTelemetry())
	if err != nil {
		log.Fatal(err)
	}
	list, err := rp.Pods.List(context.Background(), pods.ListPodsParams{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(list))
}

// One call only: make the option once and give it to the calls to trace.
func ExampleWithTelemetry_call() {
	traced := runpodotel.WithTelemetry()
	rp, err := runpod.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	job, err := rp.Serverless.Queue("my-endpoint").RunSync(context.Background(), serverless.RunParams{Input: "hello"}, serverless.WaitOptions{}, traced)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status)
}
