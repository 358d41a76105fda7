package runpodtest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// Fault injection proves what a client does when the platform fails: here
// two 503s are retried away, and the log shows the handler ran once.
func ExampleServer_FailNext() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient(runpod.WithBackoff(1, 1))

	srv.FailNext(runpodtest.RouteSSHKeys, 2, runpodtest.Fault{Status: 503})
	err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil)
	fmt.Println(err, srv.Count(runpodtest.RouteSSHKeys), srv.Acted(runpodtest.RouteSSHKeys))
	// Output: <nil> 3 1
}

// Keys carry permissions: a key without AccountRead gets a 403.
func ExampleServer_NewKey() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, _ := srv.NewClient(runpod.WithAPIKey(srv.NewKey(runpodtest.BillingRead)))

	err := rp.Do(context.Background(), "GET", "/v2/account/ssh-keys", nil, nil)
	fmt.Println(errors.Is(err, runpod.ErrForbidden))
	// Output: true
}
