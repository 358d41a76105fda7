package runpodtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// A test aims the SDK at the fake and checks what reached the platform:
// here two injected 503s are retried away, and the request log shows
// three requests of which the handler acted on one.
func Example() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient() // test-speed backoff: 1 to 10 ms

	srv.FailNext(runpodtest.RouteSSHKeys, 2, runpodtest.Fault{Status: 503})
	err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil)
	fmt.Println(err, srv.Count(runpodtest.RouteSSHKeys), srv.Acted(runpodtest.RouteSSHKeys))
	// Output: <nil> 3 1
}

// Keys carry permissions: a key without PermissionAccountRead gets a 403.
func ExampleServer_NewKey() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionBillingRead)))

	err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil)
	fmt.Println(errors.Is(err, errs.ErrForbidden))
	// Output: true
}

// A test of code that creates an endpoint and runs a job on it: the
// template is registered with the worker its endpoints run, so the
// endpoint the code creates takes jobs at once.
func ExampleServer_HandleTemplate() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	srv.HandleTemplate("tmpl123", func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ Prompt string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return strings.ToUpper(in.Prompt), nil
	})

	ep, _ := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "my-endpoint", Type: serverless.EndpointTypeQueue, Scaling: serverless.ScaleByQueueDelay(4),
		TemplateID: runpod.Ptr("tmpl123"), GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
	})
	job, _ := rp.Serverless.Queue(ep.ID).RunSync(ctx, serverless.RunParams{Input: map[string]string{"prompt": "hello"}}, serverless.WaitOptions{})
	out, _ := serverless.Output[string](job)
	fmt.Println(job.Status, out)
	// Output: COMPLETED HELLO
}

// One call adds a listed endpoint and the worker behind it.
func ExampleServer_AddQueueEndpoint() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "echo", TemplateID: "tmpl-echo", GPUs: []serverless.GPUPool{serverless.GPUPoolAmpere16}},
		func(ctx context.Context, job *worker.Job) (any, error) { return job.Input, nil })

	list, _ := rp.Serverless.Endpoints.List(ctx)
	job, _ := rp.Serverless.Queue(id).RunSync(ctx, serverless.RunParams{Input: []int{1, 2}}, serverless.WaitOptions{})
	fmt.Println(len(list), list[0].Name, *list[0].Type, string(job.Output))
	// Output: 1 echo QUEUE [1,2]
}

// Billing reports are computed from a ledger a test fills.
func ExampleServer_AddServerlessUsage() {
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	srv := runpodtest.NewServer(runpodtest.WithClock(func() time.Time { return day.Add(36 * time.Hour) }))
	defer srv.Close()
	rp, _ := srv.NewClient()

	srv.AddServerlessUsage(
		runpodtest.ServerlessUsage{ServerlessID: "ep1", At: day.Add(2 * time.Hour), GPU: 1.25, Disk: 0.05},
		runpodtest.ServerlessUsage{ServerlessID: "ep1", At: day.Add(26 * time.Hour), GPU: 0.75},
	)
	rep, _ := rp.Billing.Serverless(context.Background(), billing.Params{LastN: 2, Bucket: billing.BillingBucketSizeDay})
	fmt.Println(rep.Metadata.RecordCount, rep.Metadata.Totals.TotalAmount)
	// Output: 2 $2.05
}
