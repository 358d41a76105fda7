package tracker

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

// Result is a tracked job's outcome, as Results yields it with the job's
// error.
type Result struct {
	// Record is the job's record; CompletedAt is set once the tracker saw
	// the job end.
	Record Record
	// Job is the job as last read: COMPLETED with its output, or FAILED,
	// CANCELLED or TIMED_OUT (with a *serverless.JobError). nil when the
	// job is lost or the wait ended before a status was read.
	Job *serverless.Job
}

// outcome is how one wait for a job ended.
type outcome struct {
	rec     Record
	tracked bool
	job     *serverless.Job
	err     error
	// final is set when the job's outcome is settled (it ended, or the
	// platform no longer has it): once delivered, its record goes.
	final bool
}

// waitFor waits for the job of rec (Queue.Wait) and reads how the wait
// ended: a job that ended has its record's CompletedAt stored (at once,
// before its delivery), and a 404 becomes a *LostJobError.
func (t *Tracker) waitFor(ctx context.Context, rec Record, tracked bool, opts []option.RequestOption) outcome {
	job, err := t.q.Wait(ctx, rec.JobID, t.wait, opts...)
	o := outcome{rec: rec, tracked: tracked, job: job, err: err}
	var jobErr *serverless.JobError
	switch {
	case err == nil || errors.As(err, &jobErr):
		o.final = true
		if tracked && rec.CompletedAt.IsZero() {
			// Best effort: the record then tells, after a crash before the
			// delivery, that the result is gone once its retention has
			// passed. Without it a later 404 reads "may have expired".
			o.rec.CompletedAt = t.clock()
			sctx, cancel := storeContext(ctx)
			_ = t.store.Put(sctx, o.rec)
			cancel()
		}
	case errors.Is(err, errs.ErrNotFound):
		o.final = true
		o.err = classify(t.q.ID(), rec.JobID, rec, tracked, t.clock(), err)
	}
	return o
}

// settle forgets a job whose final outcome was delivered: the tracker
// stops tracking it and its record is removed from the store.
func (t *Tracker) settle(ctx context.Context, o outcome) error {
	if !o.tracked {
		return nil
	}
	t.forget(o.rec.Key())
	sctx, cancel := storeContext(ctx)
	defer cancel()
	if err := t.store.Delete(sctx, o.rec.EndpointID, o.rec.Key()); err != nil {
		return &StoreError{Op: "delete", Record: o.rec, Err: err}
	}
	return nil
}

// Wait waits for a job until it ends or ctx does, as Queue.Wait does, and
// returns its outcome once: the job (COMPLETED), the job and its
// *serverless.JobError (FAILED, CANCELLED, TIMED_OUT), or a *LostJobError
// when the platform answers 404. Each of these settles the job: its
// record is removed before Wait returns (a failure to remove it is a
// *StoreError joined to the outcome, with the job still returned). A
// program that must not lose a result to a crash between Wait's return
// and its own handling uses Results, which removes the record after the
// loop's body has run.
//
// When the wait ends otherwise (ctx ended, or the status could not be
// read: a *serverless.WaitError), the job stays tracked. A job this
// Tracker does not track is looked for in the store first (as after a
// restart without Resume); one that is not there is waited for as well,
// but a 404 for it is ReasonUnknown. A job another Wait or a Results loop is
// waiting for is ErrAlreadyWaiting.
func (t *Tracker) Wait(ctx context.Context, jobID string, opts ...option.RequestOption) (*serverless.Job, error) {
	if strings.TrimSpace(jobID) == "" {
		return nil, fail.Invalid("jobID", "is empty")
	}
	rec, tracked, err := t.claim(ctx, jobID)
	if err != nil {
		return nil, err
	}
	o := t.waitFor(ctx, rec, tracked, opts)
	if !o.final {
		t.release(rec.Key())
		return o.job, o.err
	}
	if err := t.settle(ctx, o); err != nil {
		if o.err == nil {
			return o.job, err
		}
		return o.job, errors.Join(o.err, err)
	}
	return o.job, o.err
}

// claim takes the job jobID for a Wait: its record, and whether it is
// tracked (looked for in the store when the tracker does not know it).
func (t *Tracker) claim(ctx context.Context, jobID string) (Record, bool, error) {
	t.mu.Lock()
	known := t.jobLocked(jobID) != nil
	t.mu.Unlock()
	if !known {
		if _, err := t.adopt(ctx, func(r Record) bool { return r.JobID == jobID }); err != nil {
			return Record{}, false, err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.jobLocked(jobID)
	switch {
	case e == nil:
		return Record{EndpointID: t.q.ID(), JobID: jobID}, false, nil
	case e.busy:
		return Record{}, false, fmt.Errorf("runpod: job %s: %w", jobID, ErrAlreadyWaiting)
	}
	e.busy = true
	return e.rec, true, nil
}

// jobLocked returns the entry of the job jobID, nil when none has it.
func (t *Tracker) jobLocked(jobID string) *entry {
	if e := t.jobs[jobID]; e != nil && e.rec.JobID == jobID {
		return e
	}
	for _, e := range t.jobs {
		if e.rec.JobID == jobID {
			return e
		}
	}
	return nil
}

// release hands a job or submission whose outcome is not settled back to
// the tracker, for the next Wait or Results; k is its record's Key.
func (t *Tracker) release(k string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.jobs[k]; e != nil {
		e.busy = false
	}
}

// Results waits for every job the tracker tracks, those added while it
// runs included, all at once (one Queue.Wait each), and yields each job's
// outcome once, as it comes, with the job's error:
//
//   - nil: the job COMPLETED; Result.Job holds its output.
//   - a *serverless.JobError: it FAILED, was CANCELLED or TIMED_OUT.
//   - a *LostJobError: the platform answers 404 for it.
//   - a *serverless.WaitError: the wait ended first (ctx ended, or the
//     status could not be read); the job stays tracked, for the next
//     Results or Wait.
//
// The first three settle the job: its record is removed from the store
// once the loop's body has run for it, so a crash before then delivers it
// again after a restart. A record that could not be removed is yielded
// next as a *StoreError, with the same Record. A job another Wait or
// Results is waiting for is left to it.
//
// The loop ends when every job has been yielded. Breaking out of it stops
// the waits still running; their jobs stay tracked. When ctx ends, each
// job still waited for is yielded with its *serverless.WaitError.
func (t *Tracker) Results(ctx context.Context, opts ...option.RequestOption) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		wctx, cancel := context.WithCancel(ctx)
		outcomes := make(chan outcome)
		var wg sync.WaitGroup
		running := 0
		started := map[string]bool{}
		defer func() {
			// The waits still running stop; their jobs were not delivered.
			cancel()
			for ; running > 0; running-- {
				t.release((<-outcomes).rec.Key())
			}
			wg.Wait()
		}()
		for {
			var changedC <-chan struct{}
			if ctx.Err() == nil {
				claimed, changed := t.claimAll(started)
				changedC = changed
				for _, c := range claimed {
					running++
					if c.rec.JobID != "" {
						wg.Go(func() { outcomes <- t.waitFor(wctx, c.rec, true, opts) })
					} else {
						wg.Go(func() { outcomes <- t.waitSubmission(wctx, c.e, c.rec, opts) })
					}
				}
			}
			if running == 0 {
				return
			}
			select {
			case o := <-outcomes:
				running--
				if !t.deliver(ctx, o, yield) {
					return
				}
			case <-changedC:
			}
		}
	}
}

// claimed is a job or a submission a Results loop took.
type claimed struct {
	e   *entry
	rec Record
}

// claimAll takes every tracked job and submission no one waits for, whose
// /run is not being sent, and that this Results has not started, and
// returns a channel closed when one is added.
func (t *Tracker) claimAll(started map[string]bool) ([]claimed, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var recs []claimed
	for k, e := range t.jobs {
		if !e.busy && !e.inflight && !started[k] {
			e.busy, started[k] = true, true
			recs = append(recs, claimed{e, e.rec})
		}
	}
	if t.changed == nil {
		t.changed = make(chan struct{})
	}
	return recs, t.changed
}

// deliver yields an outcome, then settles its job when it is final; it
// reports whether the loop goes on.
func (t *Tracker) deliver(ctx context.Context, o outcome, yield func(Result, error) bool) bool {
	if !o.final {
		t.release(o.rec.Key())
		return yield(Result{Record: o.rec, Job: o.job}, o.err)
	}
	more := yield(Result{Record: o.rec, Job: o.job}, o.err)
	if err := t.settle(ctx, o); err != nil && more {
		more = yield(Result{Record: o.rec}, err)
	}
	return more
}
