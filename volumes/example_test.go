package volumes_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/volumes"
)

// Create a network volume, grow it, list the account's volumes and delete
// it, on the fake platform.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	vol, err := rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{
		Name:       "datasets",
		Size:       50, // GB
		DataCenter: "EU-RO-1",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vol.Name, vol.Size, vol.DataCenter, vol.Type)

	vol, err = rp.Volumes.Update(ctx, vol.ID, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(100)})
	fmt.Println(vol.Size, err)

	list, _ := rp.Volumes.List(ctx)
	fmt.Println(len(list), list[0].ID == vol.ID)

	fmt.Println(rp.Volumes.Delete(ctx, vol.ID))
	_, err = rp.Volumes.Get(ctx, vol.ID)
	fmt.Println(errors.Is(err, errs.ErrNotFound))
	// Output:
	// datasets 50 EU-RO-1 STANDARD
	// 100 <nil>
	// 1 true
	// <nil>
	// true
}

// A volume grows but never shrinks. The SDK checks the document's range
// before sending; a size below the current one reaches the platform, which
// refuses it with status 400 naming size.
func ExampleService_Update() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "models", Size: 200, DataCenter: "US-KS-2"})
	rp, _ := srv.NewClient()
	ctx := context.Background()

	_, err := rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(8192)})
	var invalid *errs.ValidationError
	fmt.Println(errors.As(err, &invalid), invalid.Field)

	_, err = rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(100)})
	var apiErr *errs.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Errors)
	}

	vol, err := rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("models-v2"), Size: runpod.Ptr(300)})
	fmt.Println(vol.Name, vol.Size, err)
	// Output:
	// true UpdateNetworkVolumeRequest.Size
	// 400 [$.size: a network volume cannot shrink: 100 GB is below its current 200 GB]
	// models-v2 300 <nil>
}

// Create is never repeated once it may have reached the platform: after
// an ambiguous failure, List tells whether the volume was made.
func ExampleService_Create() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	// The platform creates the volume, but the answer is lost.
	srv.FailNext(runpodtest.RouteCreateNetworkVolume, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err := rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{
		Name: "scratch", Size: 20, DataCenter: "US-TX-3",
	})
	fmt.Println(errors.Is(err, errs.ErrOutcomeUnknown))

	list, _ := rp.Volumes.List(ctx)
	for _, v := range list {
		fmt.Println(v.Name, v.Size, v.DataCenter)
	}
	// Output:
	// true
	// scratch 20 US-TX-3
}
