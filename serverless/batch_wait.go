package serverless

import (
	"context"
	"fmt"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// BatchError reports a batch that ended FAILED or CANCELLED: Wait returns
// it with the batch. Requests that failed in a batch that finished are
// not an error; Batch.RequestFailed counts them, and Results shows why.
type BatchError struct {
	// BatchID is the batch's id.
	BatchID string
	// Status is how the batch ended: BatchStatusFailed or BatchStatusCancelled.
	Status BatchStatus
	// Batch is the batch as the platform last reported it, never nil.
	Batch *Batch
}

// Error names the batch, how it ended and how far its requests got.
func (e *BatchError) Error() string {
	b := e.Batch
	return fmt.Sprintf("runpod: batch %s %s (%d of %d requests completed, %d failed)", e.BatchID, e.Status,
		b.RequestCompleted, b.RequestTotal, b.RequestFailed)
}

// BatchWaitError reports that Wait ended before the batch finished: the
// context ended, or its summary could not be read (an unknown batch
// matches errs.ErrNotFound). BatchID is the batch to come back to.
type BatchWaitError struct {
	// BatchID is the batch that was being waited for; it may still run.
	BatchID string
	// Last is the last summary read before the wait ended; nil when none
	// was read.
	Last *Batch
	// Err is why the wait ended: the context's error, or the error of the
	// read that failed.
	Err error
}

// Error names the batch so it is never lost, and its last counts when
// they were read.
func (e *BatchWaitError) Error() string {
	if e.Last == nil {
		return fmt.Sprintf("runpod: stopped waiting for batch %s: %v", e.BatchID, e.Err)
	}
	l := e.Last
	return fmt.Sprintf("runpod: stopped waiting for batch %s (last %s, %d of %d requests finished): %v", e.BatchID, l.Status,
		l.RequestCompleted+l.RequestFailed, l.RequestTotal, e.Err)
}

// Unwrap returns the cause (context.DeadlineExceeded, a *errs.APIError, …).
func (e *BatchWaitError) Unwrap() error { return e.Err }

// Wait waits until every request of the batch has finished (Batch.Done),
// or the batch is FAILED or CANCELLED (the batch and a *BatchError), or
// ctx ends (a *BatchWaitError). It reads the batch's summary at once, then
// every o.Interval (the client's poll interval when zero; a batch may run
// for hours, so an interval of a minute suits a long one), and passes
// each summary to o.OnCheck, for progress. A DRAFT batch does not run:
// Finalize it first.
func (b *Batches) Wait(ctx context.Context, batchID string, o option.Poll[*Batch], opts ...option.RequestOption) (*Batch, error) {
	if _, err := b.batchURL(batchID, "", nil); err != nil {
		return nil, err
	}
	interval := b.q.t.PollInterval(o.Interval)
	var last *Batch
	for {
		u, _ := b.batchURL(batchID, "", nil) // checked above
		var w wireBatch
		if err := b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Route: routeBatch, Idempotent: true}, &w, opts...); err != nil {
			return nil, &BatchWaitError{BatchID: batchID, Last: last, Err: err}
		}
		cur := w.batch()
		wait.Saw(o, cur)
		switch {
		case cur.Status.Terminal():
			return cur, &BatchError{BatchID: batchID, Status: cur.Status, Batch: cur}
		case cur.Done():
			return cur, nil
		}
		last = cur
		if err := wait.Sleep(ctx, interval); err != nil {
			return nil, &BatchWaitError{BatchID: batchID, Last: last, Err: err}
		}
	}
}
