package worker_test

import (
	"context"
	"os"

	"github.com/runpodkit/runpod-go/serverless/worker"
)

// A worker's whole program is its handler and one call: here run in local
// test mode on an input given as a flag, as `go run . --test_input …`
// does on a developer's machine. Deployed, the same program takes jobs
// from the platform.
func Example() {
	handle := func(_ context.Context, job *worker.Job) (any, error) {
		var in struct{ Prompt string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return map[string]int{"length": len(in.Prompt)}, nil
	}
	// In a real main: worker.Start(handle).
	_ = worker.Run(context.Background(), handle,
		worker.WithArgs([]string{"--test_input", `{"input":{"prompt":"hello"}}`}),
		worker.WithOutput(os.Stdout), worker.WithEnv(func(string) string { return "" }))
	// Output:
	// INFO   | local_test | Job local_test completed successfully.
	// INFO   | local_test | Job result: {"output":{"length":5}}
	// INFO   | Local testing complete, exiting.
}
