package errs_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Every failure of a call is one of the types of this package (also
// reachable as runpod.APIError, runpod.ErrNotFound, …): match a class of
// failure with errors.Is, and read the details with errors.As.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	// Refused before anything is sent.
	_, err := rp.Pods.Create(ctx, pods.CreatePodRequest{})
	var invalid *errs.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println(invalid.Field, errors.Is(err, errs.ErrValidation))
	}

	// Answered with an HTTP error.
	_, err = rp.Pods.Get(ctx, "nosuchpod")
	var apiErr *errs.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Method, apiErr.Path, errors.Is(err, errs.ErrNotFound))
	}
	// Output:
	// CreatePodRequest.Name true
	// 404 GET /v2/pods/nosuchpod true
}
