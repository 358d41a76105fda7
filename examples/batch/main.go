// Command batch runs a batch job on a queue-based serverless endpoint:
// it creates a batch of prompts, finalizes it, waits with a progress line
// until every request has ended, then pages through the results and
// shows the requests that failed.
//
//	go run ./examples/batch                         # the fake platform's demo endpoint
//	RUNPOD_API_KEY=… go run ./examples/batch -confirm -endpoint <id> -n 20
//
// Each request's input is {"prompt": "..."}; one of them has an empty
// prompt, which the demo endpoint's handler refuses, so that a failed
// request shows (your handler may take it). On your account every request
// is a job billed as your endpoint's worker time, and batch workers start
// when the platform has capacity, which may take hours: the example runs
// there only with -confirm, and cancels the batch if it is interrupted
// (Ctrl-C) while it waits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

func main() { demo.Main(run) }

// run parses args and takes a batch from creation to its results.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	endpoint := fs.String("endpoint", demo.DemoQueueEndpoint, "queue-based endpoint id (required with RUNPOD_API_KEY)")
	n := fs.Int("n", 20, "number of requests in the batch (1 to 5000)")
	page := fs.Int("page", 8, "requests per page of results")
	interval := fs.Duration("interval", 0, "pause between progress checks (0: the client's, 2s on your account)")
	confirm := fs.Bool("confirm", false, "run a (billed) batch on your account")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	switch {
	case *n < 1:
		return demo.Usagef("-n must be at least 1, got %d", *n)
	case *page < 1:
		return demo.Usagef("-page must be at least 1, got %d", *page)
	case *interval < 0:
		return demo.Usagef("-interval must not be negative, got %s", *interval)
	case demo.Online() && !demo.IsSet(fs, "endpoint"):
		return demo.Usagef("-endpoint is required with RUNPOD_API_KEY set: the id of one of your queue-based endpoints")
	case demo.Online() && !*confirm:
		return demo.Usagef("this runs %d billed jobs on your endpoint; run again with -confirm", *n)
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-batch-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	b := s.Client.Serverless.Queue(*endpoint).Batches()

	// 1. Create the batch: Create splits the requests into calls that fit
	// the platform's 10 MiB per call, and checks them before sending.
	inputs := make([]any, *n)
	bad := *n * 2 / 3 // the request with an empty prompt
	for i := range inputs {
		prompt := fmt.Sprintf("summarise item %d", i+1)
		if i == bad {
			prompt = ""
		}
		inputs[i] = map[string]string{"prompt": prompt}
	}
	batch, err := b.Create(ctx, serverless.BatchParams{Name: "runpod-go-batch-example", Inputs: inputs})
	if err != nil {
		if batch != nil { // made, but not filled: do not leave it behind
			cancelBatch(ctx, b, batch.ID, w)
		}
		return demo.FlagError(fmt.Errorf("create: %w", err)) // -endpoint, -n
	}
	fmt.Fprintf(w, "1. created batch %s %q (%s) with %d requests\n", batch.ID, batch.Name, batch.Status, batch.RequestTotal)

	// 2. Finalize: the batch is locked and its requests start.
	fin, err := b.Finalize(ctx, batch.ID)
	if err != nil {
		cancelBatch(ctx, b, batch.ID, w)
		return fmt.Errorf("finalize: %w", err)
	}
	fmt.Fprintf(w, "2. finalized: %s\n", fin.Status)

	// 3. Wait until the counts say every request has ended, printing the
	// progress when it changes (redrawn in place on a terminal).
	fmt.Fprintln(w, "3. waiting for the requests:")
	inPlace := demo.IsTerminal(w)
	last := ""
	done, err := b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{Interval: *interval, OnCheck: func(cur *serverless.Batch) {
		line := progress(cur)
		if line == last {
			return
		}
		last = line
		if inPlace {
			fmt.Fprintf(w, "\r   %s", line)
			return
		}
		fmt.Fprintf(w, "   %s\n", line)
	}})
	if inPlace {
		fmt.Fprintln(w)
	}
	if err != nil {
		var we *serverless.BatchWaitError
		if errors.As(err, &we) && ctx.Err() != nil {
			cancelBatch(ctx, b, batch.ID, w)
		}
		return fmt.Errorf("wait: %w", err)
	}
	fmt.Fprintf(w, "   done: %d completed, %d failed of %d\n", done.RequestCompleted, done.RequestFailed, done.RequestTotal)

	// 4. Page through the results; show a few outputs and every failure.
	fmt.Fprintf(w, "4. results, %d a page:\n", *page)
	var read, shown int
	var failed []serverless.BatchRequest
	for req, err := range b.Results(ctx, batch.ID, serverless.BatchResultsParams{Limit: *page}) {
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		read++
		switch {
		case req.Err() != nil:
			failed = append(failed, req)
		case shown < 3:
			shown++
			fmt.Fprintf(w, "   %s %s in %s: %s\n", req.ID, req.Status, req.CompletedAt.Sub(req.StartedAt).Round(time.Millisecond), req.Output)
		}
	}
	fmt.Fprintf(w, "   … %d requests read\n", read)
	if len(failed) == 0 {
		fmt.Fprintln(w, "   no request failed")
	}
	for _, req := range failed {
		var je *serverless.JobError
		if errors.As(req.Err(), &je) {
			fmt.Fprintf(w, "   failed request %s (%s): %s\n", req.ID, req.Status, je.Message)
		}
	}
	return nil
}

// progress describes a batch's counts in one line.
func progress(b *serverless.Batch) string {
	ended := b.RequestCompleted + b.RequestFailed
	return fmt.Sprintf("%d/%d ended (%d completed, %d failed), %d running", ended, b.RequestTotal, b.RequestCompleted, b.RequestFailed, b.RequestInProgress)
}

// cancelBatch cancels the batch, even once ctx has ended (Ctrl-C), so
// that no billed work is left queued.
func cancelBatch(ctx context.Context, b *serverless.Batches, id string, w io.Writer) {
	cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := b.Cancel(cleanup, id); err != nil {
		fmt.Fprintf(w, "   could not cancel batch %s: %v\n", id, err)
		return
	}
	fmt.Fprintf(w, "   cancelled batch %s\n", id)
}
