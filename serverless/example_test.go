package serverless_test

import (
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

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
