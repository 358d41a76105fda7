package option_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

// Every wait of the SDK takes a Poll: here, waiting for a load-balancing
// endpoint whose worker is still starting. OnCheck sees each state.
func ExamplePoll() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	fake := srv.HandleLoadBalancer("lb-1", http.NotFoundHandler())
	fake.SetPing(serverless.PingInitializing)
	rp, _ := srv.NewClient()

	err := rp.Serverless.LoadBalancer("lb-1").WaitReady(context.Background(), option.Poll[serverless.PingState]{
		Interval: 10 * time.Millisecond,
		OnCheck: func(s serverless.PingState) {
			fmt.Println(s)
			fake.SetPing(serverless.PingReady) // the worker is up by the next check
		},
	})
	fmt.Println(err)
	// Output:
	// initializing
	// ready
	// <nil>
}
