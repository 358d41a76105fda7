// Command jobs runs jobs on a queue-based serverless endpoint: submit one
// and watch its status change, stream a job's chunks as they arrive, and
// run one synchronously.
//
//	go run ./examples/jobs                                   # the fake platform's demo endpoint
//	RUNPOD_API_KEY=… go run ./examples/jobs -endpoint <id> -prompt "hello"
//
// On your account the endpoint's handler gets {"prompt": "..."} as input;
// the stream step needs a streaming handler.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

func main() { demo.Main(run) }

// run parses args and runs three jobs on the endpoint.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("jobs", flag.ContinueOnError)
	endpoint := fs.String("endpoint", demo.DemoQueueEndpoint, "queue-based endpoint id (required with RUNPOD_API_KEY)")
	prompt := fs.String("prompt", "the quick brown fox", "prompt sent as the job input")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	if demo.Online() && !demo.IsSet(fs, "endpoint") {
		return demo.Usagef("-endpoint is required with RUNPOD_API_KEY set: the id of one of your queue-based endpoints")
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-jobs-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	ep := s.Client.Serverless.Queue(*endpoint)
	input := map[string]string{"prompt": *prompt}

	// 1. Submit, then follow the status until the job finishes.
	job, err := ep.Run(ctx, serverless.RunParams{Input: input})
	if err != nil {
		return demo.FlagError(fmt.Errorf("run: %w", err)) // -endpoint
	}
	fmt.Fprintf(w, "1. submitted job %s (%s)\n", job.ID, job.Status)
	last := job.Status
	done, err := ep.Wait(ctx, job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{
		Interval: 50 * time.Millisecond,
		OnCheck: func(j *serverless.Job) {
			if j.Status != last {
				fmt.Fprintf(w, "   %s -> %s\n", last, j.Status)
				last = j.Status
			}
		},
	}})
	if err != nil {
		return fmt.Errorf("wait: %w", err)
	}
	fmt.Fprintf(w, "   done: queued %s, ran %s on %s, output %s\n", done.DelayTime, done.ExecutionTime, done.WorkerID, done.Output)

	// 2. Stream another job's chunks as the handler emits them.
	job, err = ep.Run(ctx, serverless.RunParams{Input: input})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	fmt.Fprintf(w, "2. streaming job %s:", job.ID)
	for chunk, err := range ep.Stream(ctx, job.ID) {
		if err != nil {
			return fmt.Errorf("stream: %w", err)
		}
		var c struct {
			Token string `json:"token"`
		}
		if jsonErr := json.Unmarshal(chunk.Output, &c); jsonErr != nil || c.Token == "" {
			fmt.Fprintf(w, " %s", chunk.Output)
			continue
		}
		fmt.Fprintf(w, " %s", c.Token)
	}
	fmt.Fprintln(w)

	// 3. Run one synchronously: RunSync waits (polling past the platform's
	// wait if need be) and returns the finished job.
	done, err = ep.RunSync(ctx, serverless.RunParams{Input: input}, serverless.WaitOptions{})
	if err != nil {
		return fmt.Errorf("runsync: %w", err)
	}
	out, err := serverless.Output[struct {
		Text   string `json:"text"`
		Tokens int    `json:"tokens"`
	}](done)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "3. runsync job %s: %q (%d tokens)\n", done.ID, out.Text, out.Tokens)
	return nil
}
