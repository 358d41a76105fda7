package option_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
)

// Every wait of the SDK takes a Poll: here, waiting for a load-balancing
// endpoint whose worker is still starting. OnCheck sees each state.
func ExamplePoll() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	fake := srv.HandleLoadBalancer("lb-1", http.NotFoundHandler())
	fake.SetPing(serverless.PingStateInitializing)
	rp, _ := srv.NewClient()

	err := rp.Serverless.LoadBalancer("lb-1").WaitReady(context.Background(), option.Poll[serverless.PingState]{
		Interval: 10 * time.Millisecond,
		OnCheck: func(s serverless.PingState) {
			fmt.Println(s)
			fake.SetPing(serverless.PingStateReady) // the worker is up by the next check
		},
	})
	fmt.Println(err)
	// Output:
	// initializing
	// ready
	// <nil>
}

// A middleware times every call of a client by its route, and one call
// turns retries off for itself.
func ExampleWithMiddleware() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	timing := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		start := time.Now()
		resp, err := next(req)
		_ = time.Since(start) // record it somewhere
		fmt.Println(req.Method, option.Route(req.Context()), req.Header.Get("Authorization") == "")
		return resp, err
	}
	rp, err := srv.NewClient(option.WithMiddleware(timing))
	if err != nil {
		panic(err)
	}
	defer rp.CloseIdleConnections()
	list, err := rp.Pods.List(context.Background(), pods.ListPodsParams{}, option.WithMaxRetries(0))
	fmt.Println(len(list), err)
	// Output:
	// GET /v2/pods true
	// 0 <nil>
}

// A surface on its own, from the one public configuration type.
func ExampleNewConfig() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	cfg, err := option.NewConfig(srv.ClientOptions()...) // the fake's key, hosts and HTTP client
	if err != nil {
		panic(err)
	}
	list, err := pods.NewFromConfig(cfg).List(context.Background(), pods.ListPodsParams{})
	fmt.Println(len(list), err)
	// Output: 0 <nil>
}
