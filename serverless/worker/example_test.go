package worker_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	runpod "github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// A handler run once in local test mode, as `go run . --test_input …`
// does.
func ExampleRun() {
	handler := func(_ context.Context, job *worker.Job) (any, error) {
		var in struct{ Name string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return map[string]string{"greeting": "hello, " + in.Name}, nil
	}
	_ = worker.Run(context.Background(), handler,
		worker.WithArgs([]string{"--test_input", `{"input":{"name":"gopher"}}`}),
		worker.WithOutput(os.Stdout), worker.WithEnv(func(string) string { return "" }))
	// Output:
	// INFO   | local_test | Job local_test completed successfully.
	// INFO   | local_test | Job result: {"output":{"greeting":"hello, gopher"}}
	// INFO   | Local testing complete, exiting.
}

// Typed handlers get their input decoded and validated first.
func ExampleTyped() {
	type input struct {
		Text string `json:"text" required:"true"`
	}
	handler := worker.Typed(func(_ context.Context, in input, _ *worker.Job) (int, error) {
		return len(in.Text), nil
	})
	_ = worker.Run(context.Background(), handler,
		worker.WithArgs([]string{"--test_input", `{"input":{"txt":"typo"}}`, "--rp_log_level", "ERROR"}),
		worker.WithOutput(os.Stdout), worker.WithEnv(func(string) string { return "" }))
	// Output:
	// ERROR  | local_test | Job local_test failed with error: {"error_message":"invalid input: text is a required input; txt is not a valid input option","error_type":"InputError","errors":["text is a required input","txt is not a valid input option"],"hostname":"unknown","runpod_version":"runpod-go/0.1.0","worker_id":"unknown"}
}

// The SDK runs jobs on the local API server (--rp_serve_api) once its
// inference URL points there. Here the server runs in-process on a port
// the system chose; from a shell, run `go run . --rp_serve_api` and use
// option.WithInferenceURL("http://localhost:8000").
func Example_localServerWithSDK() {
	handler := func(_ context.Context, job *worker.Job) (any, error) {
		var in struct{ Name string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return map[string]string{"greeting": "hello, " + in.Name}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, handler, worker.WithArgs([]string{"--rp_serve_api"}), worker.WithListener(ln),
			worker.WithOutput(io.Discard), worker.WithEnv(func(string) string { return "" }))
	}()
	defer func() { stop(); <-done }()

	rp, err := runpod.NewClient(option.WithInferenceURL("http://"+ln.Addr().String()), option.WithAPIKey("local"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rp.CloseIdleConnections()
	job, err := rp.Serverless.Queue("local").RunSync(ctx, serverless.RunParams{Input: map[string]string{"name": "gopher"}}, serverless.WaitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(job.Status, string(job.Output))
	// Output: COMPLETED {"greeting":"hello, gopher"}
}
