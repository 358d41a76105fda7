// Command hello makes sure a serverless endpoint exists, runs one job on
// it and prints the job's output.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/serverless"
)

// image is the worker the endpoint runs: replace it with yours (a handler
// written with serverless/worker, or any RunPod worker image).
const image = "ghcr.io/your-org/echo-worker:1.0"

func main() {
	ctx := context.Background()
	rp, err := runpod.NewClient() // the API key comes from RUNPOD_API_KEY
	if err != nil {
		log.Fatal(err)
	}

	// Create the endpoint, or change it to match: safe to run again.
	res, err := rp.Serverless.Endpoints.Apply(ctx, serverless.CreateEndpointRequest{
		Name:    "hello-runpod-go",
		Type:    serverless.EndpointTypeQueue,
		Image:   runpod.Ptr(image),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4),
		Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(1)},
	})
	if err != nil {
		log.Fatal(err)
	}

	// Run a job and wait for its output.
	job, err := rp.Serverless.Queue(res.Endpoint.ID).RunSync(ctx,
		serverless.RunParams{Input: map[string]string{"prompt": "Hello, RunPod!"}}, serverless.WaitOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status, string(job.Output))
}
