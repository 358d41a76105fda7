package globalvolumes_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/globalvolumes"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
)

// Create a global volume, read it back, rename it, and delete it.
func Example() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	v, err := rp.GlobalVolumes.Create(ctx, globalvolumes.CreateGlobalVolumeRequest{Name: "weights"})
	if err != nil {
		fmt.Println(err)
		return
	}
	got, _ := rp.GlobalVolumes.Get(ctx, v.ID)
	fmt.Println(got.Name)

	v, _ = rp.GlobalVolumes.Rename(ctx, v.ID, "model-weights")
	fmt.Println(v.Name)

	fmt.Println(rp.GlobalVolumes.Delete(ctx, v.ID))
	_, err = rp.GlobalVolumes.Get(ctx, v.ID)
	fmt.Println(errors.Is(err, errs.ErrNotFound))
	// Output:
	// weights
	// model-weights
	// <nil>
	// true
}

// List reads every page; All gives the volumes one at a time.
func ExampleService_All() {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithPageSize(2))
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		srv.AddGlobalVolume(runpodtest.GlobalVolume{Name: n})
	}

	list, _ := rp.GlobalVolumes.List(ctx)
	fmt.Println(len(list))
	n := 0
	for _, err := range rp.GlobalVolumes.All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Println(n)
	// Output:
	// 3
	// 3
}

// A GPU endpoint's workers mount one global volume at /runpod-volume,
// wherever they run; network volumes cannot sit beside it.
func ExampleService_Create() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	v, _ := rp.GlobalVolumes.Create(ctx, globalvolumes.CreateGlobalVolumeRequest{Name: "weights"})
	e, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name:          "llm",
		Type:          serverless.EndpointTypeQueue,
		Image:         runpod.Ptr("vllm/vllm-openai:latest"),
		GPU:           &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling:       serverless.ScaleByQueueDelay(4),
		GlobalVolumes: []string{v.ID},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.GlobalVolumes[0] == v.ID)

	_, err = rp.Serverless.Endpoints.Update(ctx, e.ID, serverless.UpdateEndpointRequest{NetworkVolumes: &[]string{"vol1"}, GlobalVolumes: &[]string{v.ID}})
	fmt.Println(err)
	// Output:
	// true
	// runpod: invalid UpdateEndpointRequest.GlobalVolumes: an endpoint mounts a global volume or network volumes (NetworkVolumes), not both
}
