package templates_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
)

// Create a pod template, read it back, change it and delete it, on the
// fake platform.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	tmpl, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{
		Name:  "pytorch-notebook",
		Image: "runpod/pytorch:2.4.0",
		Disk:  runpod.Ptr(50),
		Ports: []string{"8888/http", "22/tcp"},
		Env:   map[string]string{"JUPYTER_PASSWORD": "s3cr3t-pw"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tmpl.Name, tmpl.Category, tmpl.Serverless, tmpl.StartSSH)

	tmpl, _ = rp.Templates.Update(ctx, tmpl.ID, templates.UpdateTemplateRequest{Disk: runpod.Ptr(80)})
	fmt.Println(tmpl.Disk, tmpl.Ports)

	list, _ := rp.Templates.List(ctx)
	fmt.Println(len(list))
	fmt.Println(rp.Templates.Delete(ctx, tmpl.ID))
	_, err = rp.Templates.Get(ctx, tmpl.ID)
	fmt.Println(errors.Is(err, errs.ErrNotFound))
	// Output:
	// pytorch-notebook NVIDIA false true
	// 80 [8888/http 22/tcp]
	// 1
	// <nil>
	// true
}

// Printing a request or a template shows the names of its environment
// variables, never their values.
func ExampleCreateTemplateRequest_String() {
	req := templates.CreateTemplateRequest{
		Name:  "vllm-worker",
		Image: "runpod/worker-v1-vllm:stable-cuda12.1.0",
		Env:   map[string]string{"HF_TOKEN": "hf_0123456789", "MODEL_NAME": "Qwen/Qwen3-8B"},
	}
	fmt.Println(req)
	fmt.Printf("%+v\n", req)
	// Output:
	// CreateTemplateRequest{Name:"vllm-worker" Image:"runpod/worker-v1-vllm:stable-cuda12.1.0" Env:{"HF_TOKEN":[REDACTED] "MODEL_NAME":[REDACTED]}}
	// CreateTemplateRequest{Name:"vllm-worker" Image:"runpod/worker-v1-vllm:stable-cuda12.1.0" Env:{"HF_TOKEN":[REDACTED] "MODEL_NAME":[REDACTED]}}
}

// A serverless template is what an endpoint runs. While an endpoint uses
// it, it cannot be deleted.
func ExampleService_Delete() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	tmpl, _ := rp.Templates.Create(ctx, templates.CreateTemplateRequest{
		Name: "echo-worker", Image: "runpod/worker-basic:latest", Serverless: runpod.Ptr(true),
	})
	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "echo", Type: serverless.EndpointTypeQueue, TemplateID: &tmpl.ID, Scaling: serverless.ScaleByQueueDelay(4),
		GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = rp.Templates.Delete(ctx, tmpl.ID)
	fmt.Println(errors.Is(err, templates.ErrInUse))

	_, _ = rp.Serverless.Endpoints.ScaleToZero(ctx, ep.ID)
	_ = rp.Serverless.Endpoints.Delete(ctx, ep.ID)
	fmt.Println(rp.Templates.Delete(ctx, tmpl.ID))
	// Output:
	// true
	// <nil>
}
