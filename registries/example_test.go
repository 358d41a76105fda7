package registries_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Store a registry credential, read it back (its id and name only: the
// username and password never come back) and delete it.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	reg, err := rp.Registries.Create(ctx, registries.CreateRegistryRequest{
		Name:     "dockerhub-private",
		Username: "me",
		Password: "an-access-token",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reg.Name)

	list, _ := rp.Registries.List(ctx)
	for _, r := range list {
		fmt.Println(r.ID == reg.ID, r.Name)
	}

	fmt.Println(rp.Registries.Delete(ctx, reg.ID))
	_, err = rp.Registries.Get(ctx, reg.ID)
	fmt.Println(errors.Is(err, errs.ErrNotFound))
	// Output:
	// dockerhub-private
	// true dockerhub-private
	// <nil>
	// true
}

// Printing a create request, with any verb, hides its password.
func ExampleCreateRegistryRequest_String() {
	req := registries.CreateRegistryRequest{Name: "ghcr", Username: "me", Password: "ghp_secret"}
	fmt.Println(req)
	fmt.Printf("%#v\n", req)
	// Output:
	// CreateRegistryRequest{Name:ghcr Username:me Password:[REDACTED]}
	// CreateRegistryRequest{Name:ghcr Username:me Password:[REDACTED]}
}

func ExampleService_CreateDelegation() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	d, err := rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{
		Resource: "arn:aws:ecr:us-east-2:123456789012:repository/team/app",
		Name:     runpod.Ptr("team-app"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(*d.Name, d.Repository, d.AWSRegion)
	fmt.Println(*d.DockerRegistryURI)

	_, err = rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{Resource: "team/app"})
	fmt.Println(errors.Is(err, errs.ErrValidation))

	fmt.Println(rp.Registries.RevokeDelegation(ctx, d.ID))
	// Output:
	// team-app team/app us-east-2
	// 123456789012.dkr.ecr.us-east-2.amazonaws.com
	// true
	// <nil>
}
