package secrets_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/secret"
	"github.com/runpodkit/runpod-go/secrets"
	"github.com/runpodkit/runpod-go/templates"
)

// Store a secret, read it back (its name and description only: the value
// never comes back), list the account's secrets and delete it.
func Example() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	s, err := rp.Secrets.Create(ctx, secrets.CreateSecretRequest{
		Name:        "hf-token",
		Value:       secret.NewString("hf_example"),
		Description: runpod.Ptr("Hugging Face read token"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	got, _ := rp.Secrets.Get(ctx, s.ID)
	fmt.Println(got.Name, *got.Description)

	list, _ := rp.Secrets.List(ctx)
	for _, x := range list {
		fmt.Println(x.ID == s.ID, x.Name)
	}

	fmt.Println(rp.Secrets.Delete(ctx, s.ID))
	_, err = rp.Secrets.Get(ctx, s.ID)
	fmt.Println(errors.Is(err, errs.ErrNotFound))
	// Output:
	// hf-token Hugging Face read token
	// true hf-token
	// <nil>
	// true
}

// A template refers to a secret by name; a pod made from it gets the
// value in its environment when it boots.
func ExampleRef() {
	fmt.Println(secrets.Ref("hf-token"))
	req := templates.CreateTemplateRequest{
		Name:  "vllm",
		Image: "vllm/vllm-openai:latest",
		Env:   map[string]string{"HF_TOKEN": secrets.Ref("hf-token")},
	}
	fmt.Println(req.Env["HF_TOKEN"])
	// Output:
	// {{ RUNPOD_SECRET_hf-token }}
	// {{ RUNPOD_SECRET_hf-token }}
}

func ExampleParseRef() {
	name, ok := secrets.ParseRef("{{ RUNPOD_SECRET_hf-token }}")
	fmt.Println(name, ok)
	_, ok = secrets.ParseRef("plain value")
	fmt.Println(ok)
	// Output:
	// hf-token true
	// false
}

func ExampleCheckName() {
	fmt.Println(secrets.CheckName("hf-token"))
	fmt.Println(secrets.CheckName("RUNPOD_TOKEN"))
	// Output:
	// <nil>
	// runpod: invalid name: names starting with RUNPOD (in any case) are reserved, got "RUNPOD_TOKEN"
}

// A rotated value reaches a pod at its next boot: restart the pods that
// refer to the secret.
func ExampleService_Rotate() {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithPodBoot(0, 0))
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	s, _ := rp.Secrets.Create(ctx, secrets.CreateSecretRequest{Name: "api-key", Value: secret.NewString("old-value")})
	p, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name:  "server",
		Image: runpod.Ptr("python:3.12"),
		GPU:   &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090", Count: runpod.Ptr(1)},
		Env:   map[string]string{"API_KEY": secrets.Ref("api-key")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	env, _ := srv.PodEnv(p.ID) // what the fake pod's container got
	fmt.Println(env["API_KEY"])

	if _, err := rp.Secrets.Rotate(ctx, s.ID, secret.NewString("new-value")); err != nil {
		fmt.Println(err)
		return
	}
	env, _ = srv.PodEnv(p.ID)
	fmt.Println(env["API_KEY"]) // still the value it booted with

	_, _ = rp.Pods.Restart(ctx, p.ID)
	env, _ = srv.PodEnv(p.ID)
	fmt.Println(env["API_KEY"])
	// Output:
	// old-value
	// old-value
	// new-value
}

// After a create whose outcome is unknown (the connection dropped after
// the platform may have acted), Find tells whether the secret exists.
func ExampleService_Find() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	srv.FailNext(runpodtest.RouteCreateSecret, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err := rp.Secrets.Create(ctx, secrets.CreateSecretRequest{Name: "db-password", Value: secret.NewString("pw")})
	fmt.Println(errors.Is(err, errs.ErrOutcomeUnknown))
	s, err := rp.Secrets.Find(ctx, "db-password")
	fmt.Println(s.Name, err)
	// Output:
	// true
	// db-password <nil>
}

func ExampleService_SetDescription() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	s, _ := rp.Secrets.Create(ctx, secrets.CreateSecretRequest{Name: "db-password", Value: secret.NewString("pw")})
	s, err := rp.Secrets.SetDescription(ctx, s.ID, "production database")
	fmt.Println(*s.Description, err)
	// Output:
	// production database <nil>
}

// Printing, logging or marshalling a create request shows no value.
func ExampleCreateSecretRequest() {
	req := secrets.CreateSecretRequest{Name: "hf-token", Value: secret.NewString("hf_example")}
	fmt.Printf("%+v\n", req)
	// Output:
	// {Description:<nil> Name:hf-token Value:[REDACTED]}
}
