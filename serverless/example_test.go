package serverless_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// Create an endpoint, run jobs on it and read their results. Here the fake
// platform runs the endpoint's workers with a handler of the test's own,
// as package serverless/worker runs one inside a real worker.
func Example() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()

	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.EndpointParams{
		Name:       "greeter",
		TemplateID: "tmpl-1",
		GPUs:       []serverless.GPUPool{serverless.Ada24},
		WorkersMin: runpod.Ptr(0),
		WorkersMax: runpod.Ptr(2),
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
	srv := runpodtest.NewServer()
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()

	ep, err := rp.Serverless.Endpoints.Create(context.Background(), serverless.EndpointParams{
		Name:       "my-endpoint",
		TemplateID: "tmpl-1",
		GPUs:       []serverless.GPUPool{serverless.Ada24, serverless.Ampere24},
		WorkersMin: runpod.Ptr(0), // an explicit 0 reaches the platform
		WorkersMax: runpod.Ptr(3),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ep.ID, ep.Name, ep.GPUs, *ep.WorkersMin, *ep.WorkersMax)
	// Output: ep0000000001 my-endpoint [ADA_24 AMPERE_24] 0 3
}

// Update changes one setting; the platform's save replaces everything, so
// Update sends the rest back unchanged.
func ExampleEndpoints_Update() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()
	ep, _ := rp.Serverless.Endpoints.Create(ctx, serverless.EndpointParams{
		Name: "my-endpoint", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.Ada24},
		IdleTimeout: runpod.Ptr(120), Locations: []serverless.Location{serverless.US},
	})

	ep, err := rp.Serverless.Endpoints.Update(ctx, ep.ID, func(s *serverless.EndpointParams) {
		s.WorkersMax = runpod.Ptr(8)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(*ep.WorkersMax, *ep.IdleTimeout, ep.Locations)
	// Output: 8 120 [US]
}

// Delete refuses, before sending, while the endpoint is not scaled to zero.
func ExampleEndpoints_Delete() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, _ := srv.NewClient()
	ctx := context.Background()
	ep, _ := rp.Serverless.Endpoints.Create(ctx, serverless.EndpointParams{
		Name: "my-endpoint", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.Ada24}, WorkersMax: runpod.Ptr(2),
	})

	err := rp.Serverless.Endpoints.Delete(ctx, ep.ID)
	fmt.Println(err)
	_, _ = rp.Serverless.Endpoints.ScaleToZero(ctx, ep.ID)
	fmt.Println(rp.Serverless.Endpoints.Delete(ctx, ep.ID))
	// Output:
	// runpod: endpoint is not scaled down: workersMin and workersMax must both be 0 before it can be deleted (endpoint ep0000000001 has workersMin 0, workersMax 2)
	// <nil>
}

// A load-balancing endpoint's workers serve their own routes; Do reaches
// them through the SDK's transport (key, retries, typed errors).
func ExampleLoadBalancer_Do() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	srv.HandleLoadBalancer("lb-1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q,"got":%s}`, r.URL.Path, body)
	}))
	rp, _ := srv.NewClient()
	ctx := context.Background()

	lb := rp.Serverless.LoadBalancer("lb-1")
	if err := lb.WaitReady(ctx, runpod.Poll[serverless.PingState]{}); err != nil {
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
