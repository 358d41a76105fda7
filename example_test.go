package runpod_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// Against the real platform, NewClient reads RUNPOD_API_KEY; here the
// options aim it at an in-process fake.
func ExampleNewClient() {
	srv := runpodtest.NewServer()
	defer srv.Close()

	rp, err := runpod.NewClient(
		runpod.WithAPIKey(srv.APIKey),
		runpod.WithBaseURL(srv.URL),
		runpod.WithUserAgent("example/1.0"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rp)
	// Output: runpod.Client{0.1.0}
}

func ExampleClient_Do() {
	srv := runpodtest.NewServer()
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
	srv := runpodtest.NewServer(runpodtest.WithQuota(runpodtest.Quota{Minute: 60, Hour: 3000, Day: 50000}))
	defer srv.Close()
	rp, _ := srv.NewClient()

	var info runpod.ResponseInfo
	_ = rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil, runpod.WithResponseInto(&info))
	minute, _ := info.RateLimit.Window("minute")
	fmt.Println(info.StatusCode, minute.Remaining, minute.Quota)
	day, _ := rp.RateLimit().Window("day")
	fmt.Println(day.Remaining)
	// Output:
	// 200 59 60
	// 49999
}

func ExampleAPIError() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient(runpod.WithAPIKey(srv.NewKey(runpodtest.BillingRead)))

	err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil)
	var apiErr *runpod.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Title, apiErr.Detail)
	}
	fmt.Println(errors.Is(err, runpod.ErrForbidden))
	// Output:
	// 403 Forbidden access denied
	// true
}
