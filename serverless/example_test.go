package serverless_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// Create an endpoint, run jobs on it and read their results. Here the fake
// platform runs the endpoint's workers with a handler of the test's own,
// as package serverless/worker runs one inside a real worker.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()

	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name:       "greeter",
		Type:       serverless.EndpointTypeQueue,
		TemplateID: runpod.Ptr("tmpl-1"),
		GPU:        &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling:    serverless.ScaleByQueueDelay(4),
		Workers:    &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(2)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.HandleQueue(ep.ID, func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct {
			Name string `json:"name"`
		}
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		if in.Name == "" {
			return nil, errors.New("name is required")
		}
		return map[string]string{"greeting": "Hello, " + in.Name + "!"}, nil
	})

	// Submit, then wait for the result.
	q := rp.Serverless.Queue(ep.ID)
	job, err := q.Run(ctx, serverless.RunParams{Input: map[string]string{"name": "Ada"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	job, err = q.Wait(ctx, job.ID, serverless.WaitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := serverless.Output[struct {
		Greeting string `json:"greeting"`
	}](job)
	fmt.Println(job.Status, out.Greeting)

	// A job that fails is a *JobError.
	_, err = q.RunSync(ctx, serverless.RunParams{Input: map[string]string{}}, serverless.WaitOptions{})
	var failed *serverless.JobError
	if errors.As(err, &failed) {
		fmt.Println(failed.Status, failed.Message)
	}

	health, _ := q.Health(ctx)
	fmt.Println(health.Jobs.Completed, health.Jobs.Failed)
	// Output:
	// COMPLETED Hello, Ada!
	// FAILED name is required
	// 1 1
}

func ExampleEndpoints_Create() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()

	ep, err := rp.Serverless.Endpoints.Create(context.Background(), serverless.CreateEndpointRequest{
		Name:       "my-endpoint",
		Type:       serverless.EndpointTypeQueue,
		TemplateID: runpod.Ptr("tmpl-1"), // or an inline Image
		GPU:        &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere24}},
		Scaling:    serverless.ScaleByQueueDelay(4),
		Workers:    &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(3)}, // an explicit 0 reaches the platform
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ep.ID, ep.Name, ep.GPU.Pools, *ep.Workers.Min, *ep.Workers.Max, ep.Scaling)
	// Output: ep0000000001 my-endpoint [ADA_24 AMPERE_24] 0 3 QUEUE_DELAY 4s
}

// Update sends only what it changes (PATCH): every other setting stays,
// with nothing read first. A pointer to an empty list clears a list.
func ExampleEndpoints_Update() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()
	ep, _ := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "my-endpoint", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr("tmpl-1"),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4), DataCenterIDs: []string{"EU-RO-1"},
		Workers: &serverless.EndpointWorkers{IdleTimeout: runpod.Ptr(120)},
	})

	ep, err := rp.Serverless.Endpoints.Update(ctx, ep.ID, serverless.UpdateEndpointRequest{
		Workers:       &serverless.EndpointWorkers{Max: runpod.Ptr(8)},
		DataCenterIDs: &[]string{}, // any data center
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(*ep.Workers.Max, *ep.Workers.IdleTimeout, ep.DataCenterIDs)
	// Output: 8 120 []
}

// Apply makes the endpoint named in the spec match it: it creates it,
// then changes only what differs, and says what it changed.
func ExampleEndpoints_Apply() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()
	spec := serverless.CreateEndpointRequest{
		Name: "sdxl", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr("tmpl-1"),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4),
		Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(2)},
	}
	res, err := rp.Serverless.Endpoints.Apply(ctx, spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created:", res.Created)

	spec.Workers.Max = runpod.Ptr(5)
	res, _ = rp.Serverless.Endpoints.Apply(ctx, spec)
	fmt.Println("changes:", res.Changes)

	res, _ = rp.Serverless.Endpoints.Apply(ctx, spec)
	fmt.Println("changes:", res.Changes)
	// Output:
	// created: true
	// changes: [workers.max: 2 -> 5]
	// changes: []
}

// Delete refuses, before sending the delete, while the endpoint is not
// scaled to zero; DeleteNow deletes a serving endpoint at once.
func ExampleEndpoints_Delete() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()
	ep, _ := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "my-endpoint", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr("tmpl-1"),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4), Workers: &serverless.EndpointWorkers{Max: runpod.Ptr(2)},
	})

	err := rp.Serverless.Endpoints.Delete(ctx, ep.ID)
	fmt.Println(err)
	_, _ = rp.Serverless.Endpoints.ScaleToZero(ctx, ep.ID)
	fmt.Println(rp.Serverless.Endpoints.Delete(ctx, ep.ID))

	// An endpoint you mean to stop now, its queued and running jobs
	// cancelled:
	live, _ := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "serving", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr("tmpl-1"),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4), Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(1), Max: runpod.Ptr(2)},
	})
	fmt.Println(rp.Serverless.Endpoints.DeleteNow(ctx, live.ID))
	// Output:
	// runpod: endpoint is not scaled down: workers min and max must both be 0 before it can be deleted (endpoint ep0000000001 has workers min 0, max 2; ScaleDownAndDelete drains it, DeleteNow deletes it at once)
	// <nil>
	// <nil>
}

// A load-balancing endpoint's workers serve their own routes; Do reaches
// them through the SDK's transport (key, retries, typed errors).
func ExampleLoadBalancer_Do() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleLoadBalancer("lb-1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q,"got":%s}`, r.URL.Path, body)
	}))
	rp, _ := srv.NewClient()
	ctx := context.Background()

	lb := rp.Serverless.LoadBalancer("lb-1")
	if err := lb.WaitReady(ctx, option.Poll[serverless.PingState]{}); err != nil {
		fmt.Println(err)
		return
	}
	resp, err := lb.Do(ctx, serverless.LBParams{Method: http.MethodPost, Path: "/generate", Body: []byte(`{"prompt":"hi"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, string(resp.Body), resp.WorkerID != "")
	// Output: 200 {"path":"/generate","got":{"prompt":"hi"}} true
}
