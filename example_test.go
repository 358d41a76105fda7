package runpod_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
)

// One client serves every surface of the platform. Against the real
// platform, runpod.NewClient() reads RUNPOD_API_KEY; here the client is
// aimed at an in-process fake.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, err := srv.NewClient()
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	// Serverless: manage endpoints (and run jobs: rp.Serverless.Queue).
	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name:       "my-endpoint",
		Type:       serverless.EndpointTypeQueue,
		TemplateID: runpod.Ptr("tmpl-1"),
		GPU:        &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling:    serverless.ScaleByQueueDelay(4),
		Workers:    &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(2)}, // an explicit 0 is sent
	})
	fmt.Println(ep.Name, *ep.Workers.Max, err)

	// Pods, with the HTTP metadata of the call.
	var info option.ResponseInfo
	list, err := rp.Pods.List(ctx, pods.ListPodsParams{}, option.WithResponseInto(&info))
	fmt.Println(len(list), err, info.StatusCode, info.Attempts)

	// The OpenAI-compatible route of an endpoint.
	chat, err := rp.OpenAI.Route(openai.PublicQwen3).ChatCompletion(ctx, openai.ChatCompletionParams{
		Model:    openai.Qwen3Model,
		Messages: []openai.Message{openai.UserMessage("Hello!")},
	})
	if err == nil {
		fmt.Println(chat.Choices[0].Message.Content)
	}

	// Billing history, here of spend the fake was told about.
	srv.AddServerlessUsage(runpodtest.ServerlessUsage{At: time.Now().Add(-time.Hour), ServerlessID: ep.ID, GPU: 1.25})
	report, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 7, Bucket: billing.BillingBucketSizeDay})
	if err == nil {
		fmt.Println(report.Metadata.Totals.TotalAmount)
	}

	// Every error is typed: match it with errors.Is and errors.As.
	_, err = rp.Pods.Get(ctx, "nosuchpod")
	var apiErr *errs.APIError
	fmt.Println(errors.Is(err, errs.ErrNotFound), errors.As(err, &apiErr), apiErr.StatusCode)
	_, err = rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{Name: "x"})
	var invalid *errs.ValidationError
	fmt.Println(errors.As(err, &invalid), invalid.Field)
	// Output:
	// my-endpoint 2 <nil>
	// 0 <nil> 200 1
	// You said: Hello!
	// $1.25
	// true true 404
	// true CreateEndpointRequest.Type
}

// Against the real platform, NewClient reads RUNPOD_API_KEY; here the
// options aim it at an in-process fake.
func ExampleNewClient() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()

	rp, err := runpod.NewClient(
		option.WithAPIKey(srv.APIKey),
		option.WithBaseURL(srv.URL),
		option.WithUserAgent("example/1.0"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rp)
	// Output: runpod.Client{0.1.0}
}

func ExampleClient_Do() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.SetSSHKeys("ssh-ed25519 AAAAC3Nza me@example.com")
	rp, _ := srv.NewClient()

	var out struct {
		Keys []string `json:"keys"`
	}
	if err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, &out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Keys)
	// Output: [ssh-ed25519 AAAAC3Nza me@example.com]
}

// Every call takes WithResponseInto to see the response's rate limits;
// Client.RateLimit keeps the latest view.
func ExampleWithResponseInto() {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithQuota(runpodtest.Quota{Minute: 60, Hour: 3000, Day: 50000}))
	defer srv.Close()
	rp, _ := srv.NewClient()

	var info option.ResponseInfo
	_ = rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil, option.WithResponseInto(&info))
	minute, _ := info.RateLimit.Window("minute")
	fmt.Println(info.StatusCode, minute.Remaining, minute.Quota)
	day, _ := rp.RateLimit().Window("day")
	fmt.Println(day.Remaining)
	// Output:
	// 200 59 60
	// 49999
}

func ExampleAPIError() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionBillingRead)))

	err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil)
	var apiErr *errs.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Title, apiErr.Detail)
	}
	fmt.Println(errors.Is(err, errs.ErrForbidden))
	// Output:
	// 403 Forbidden access denied
	// true
}
