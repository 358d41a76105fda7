package serverless_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// A batch of requests: create it, finalize it, wait until every request
// has ended, then read the results, a failed request among them.
func ExampleBatches() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("squares", func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ N int }
		_ = json.Unmarshal(job.Input, &in)
		if in.N < 0 {
			return nil, errors.New("negative input")
		}
		return in.N * in.N, nil
	})
	rp, _ := srv.NewClient()
	ctx := context.Background()
	b := rp.Serverless.Queue("squares").Batches()

	batch, err := b.Create(ctx, serverless.BatchParams{Name: "squares", Inputs: []any{
		map[string]int{"n": 2}, map[string]int{"n": -1}, map[string]int{"n": 3},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := b.Finalize(ctx, batch.ID); err != nil {
		fmt.Println(err)
		return
	}
	batch, err = b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d completed, %d failed of %d\n", batch.Status, batch.RequestCompleted, batch.RequestFailed, batch.RequestTotal)
	for req, err := range b.Results(ctx, batch.ID, serverless.BatchResultsParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		var je *serverless.JobError
		if errors.As(req.Err(), &je) {
			fmt.Println(req.Status, je.Message)
			continue
		}
		fmt.Println(req.Status, string(req.Output))
	}
	// Output:
	// FINALIZED: 2 completed, 1 failed of 3
	// COMPLETED 4
	// FAILED negative input
	// COMPLETED 9
}

// Cancelling a batch: the requests still queued are cancelled; the batch
// is CANCELLED once those running have finished, and Wait says so.
func ExampleBatches_Cancel() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("slow", func(ctx context.Context, job *worker.Job) (any, error) {
		<-ctx.Done() // never ends by itself
		return nil, ctx.Err()
	})
	rp, _ := srv.NewClient()
	ctx := context.Background()
	b := rp.Serverless.Queue("slow").Batches()

	batch, _ := b.Create(ctx, serverless.BatchParams{Inputs: []any{1, 2, 3}})
	_, _ = b.Cancel(ctx, batch.ID) // a DRAFT: nothing runs
	_, err := b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{})
	var be *serverless.BatchError
	if errors.As(err, &be) {
		fmt.Println(be.Status, be.Batch.RequestFailed, "requests cancelled")
	}
	// Output: CANCELLED 3 requests cancelled
}
