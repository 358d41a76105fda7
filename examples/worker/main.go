// Command worker is a serverless handler written with runpod-go's worker
// runtime. It counts the words of a text, streaming each word it reads.
//
//	go run ./examples/worker                          # local test mode: runs test_input.json once
//	go run ./examples/worker --test_input '{"input":{"text":"hi there"}}'
//	go run ./examples/worker --rp_serve_api           # local API on http://localhost:8000
//	curl -s localhost:8000/runsync -d '{"input":{"text":"to be or not to be"}}'
//
// Deployed on the platform (RUNPOD_WEBHOOK_GET_JOB set), the same binary
// runs the production job loop.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/runpodkit/runpod-go/serverless/worker"
)

// Input is the handler's input.
type Input struct {
	Text string `json:"text" required:"true"`
	// Top is how many of the most frequent words to return.
	Top int `json:"top"`
}

// Validate checks the input beyond its types.
func (in *Input) Validate() error {
	if in.Top < 0 || in.Top > 100 {
		return errors.New("top must be 0 to 100")
	}
	return nil
}

// Output is the handler's result.
type Output struct {
	Words  int            `json:"words"`
	Unique int            `json:"unique"`
	Top    map[string]int `json:"top,omitempty"`
}

// countWords streams each word as it reads it and returns the counts.
func countWords(ctx context.Context, in Input, job *worker.Job) (Output, error) {
	counts := map[string]int{}
	words := strings.Fields(strings.ToLower(in.Text))
	for i, w := range words {
		if err := ctx.Err(); err != nil {
			return Output{}, err // stopped by the platform
		}
		w = strings.Trim(w, ".,;:!?\"'()")
		counts[w]++
		if err := job.Stream(map[string]any{"word": w, "index": i}); err != nil {
			return Output{}, err
		}
	}
	out := Output{Words: len(words), Unique: len(counts)}
	if in.Top > 0 {
		out.Top = map[string]int{}
		for len(out.Top) < min(in.Top, len(counts)) {
			best, n := "", -1
			for w, c := range counts {
				if _, taken := out.Top[w]; !taken && (c > n || (c == n && w < best)) {
					best, n = w, c
				}
			}
			out.Top[best] = n
		}
	}
	return out, nil
}

// Handler is the worker's handler: the input decoded and validated.
var Handler = worker.Typed(countWords)

func main() {
	if help(os.Args[1:], os.Stdout) {
		return // -h prints the usage; it does not run the test job
	}
	worker.Start(Handler, worker.WithTestInputFile(testInputFile()))
}

// help writes the usage to w and reports true when args ask for it (-h,
// -help, --h or --help, before any "--").
func help(args []string, w io.Writer) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return false
		case a == "-h", a == "-help", a == "--h", a == "--help":
			fmt.Fprint(w, usage)
			return true
		case takesValue[strings.TrimLeft(a, "-")]:
			i++ // the flag's value, such as a --test_input of "-h"
		}
	}
	return false
}

// takesValue lists the worker's flags that take the next argument as
// their value.
var takesValue = map[string]bool{"test_input": true, "rp_api_port": true, "rp_api_host": true, "rp_api_concurrency": true, "rp_log_level": true}

// usage is what -h prints.
const usage = `Usage of worker: a serverless worker that counts words.

On the platform it takes jobs from the queue. Locally:
  worker                                   run test_input.json once and print the result
  worker --test_input '{"input":{"text":"…"}}'   run this input once
  worker --rp_serve_api [--rp_api_port 8000] [--rp_api_host localhost]
                                           serve /run, /runsync, /status… for curl and the SDK
  --rp_api_concurrency N                   jobs run at once by the local server
  --rp_log_level LEVEL                     DEBUG, INFO, WARN or ERROR
  --rp_debugger                            add timings to each result
`

// testInputFile is test_input.json in the working directory, as the
// platform's runtime reads it, or else the one beside this example's
// source, so that `go run ./examples/worker` works from anywhere.
func testInputFile() string {
	if _, err := os.Stat("test_input.json"); err == nil {
		return "test_input.json"
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "test_input.json")
}
