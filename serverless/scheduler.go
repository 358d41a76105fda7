package serverless

import (
	"context"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// WaitBudget is how much of one endpoint's status operation the waits of
// a Service may use. The platform limits an endpoint's /status requests,
// and status-sync counts as status: a held status-sync request is one
// request in progress until it is answered. The waits of a Service on one
// endpoint (Queue.Wait, and Queue.RunSync past the platform's hold) share
// one budget, however many Queue handles they go through. Up to seven
// eighths of Concurrent jobs are long-polled at once, running jobs before
// queued ones and then the oldest waits; the other jobs are read with
// /status in turn, spread evenly over the rate Per10s allows, a job seen
// still queued less and less often (up to every 30 s). A 429 on a status
// request holds back the waits' next requests to the endpoint for a
// second. The endpoint's worker list, read to say why a job stays queued
// (WaitOptions.QueuedAfter), is another operation, outside the budget:
// the waits read it at most once every 15 s, however many jobs they wait
// for.
type WaitBudget struct {
	// Concurrent is how many status requests may be in progress at once:
	// held status-sync requests and /status reads together.
	Concurrent int
	// Per10s is how many status requests may be sent in any 10 seconds.
	// The waits send a twentieth of it at most in one burst, and keep
	// another twentieth back for the time requests take to arrive.
	Per10s int
}

// DefaultWaitBudget returns the platform's documented base limit of an
// endpoint's /status operation: 400 requests in progress at once and
// 2,000 per 10 seconds.
func DefaultWaitBudget() WaitBudget { return WaitBudget{Concurrent: 400, Per10s: 2000} }

// SetWaitBudget sets the budget the service's waits keep to on each
// endpoint (DefaultWaitBudget() until it is set); waits in progress keep to
// it from then on. The platform's limit is the higher of its base and the
// endpoint's running workers times a per-worker rate, and every program
// using the endpoint shares it: raise the budget to what the endpoint
// allows, or lower it to leave room for other callers. A Concurrent or
// Per10s below 1 is a *errs.ValidationError, and nothing changes.
func (s *Service) SetWaitBudget(b WaitBudget) error {
	switch {
	case b.Concurrent < 1:
		return fail.Invalid("WaitBudget.Concurrent", "must be at least 1, got %d", b.Concurrent)
	case b.Per10s < 1:
		return fail.Invalid("WaitBudget.Per10s", "must be at least 1, got %d", b.Per10s)
	}
	s.waits.setBudget(b)
	return nil
}

// waitSchedulers holds a Service's wait schedulers, one per endpoint,
// made when a wait first needs one. A scheduler holds no goroutine while
// no wait uses it, so the ones kept cost a few hundred bytes each.
type waitSchedulers struct {
	mu     sync.Mutex
	budget WaitBudget
	byID   map[string]*waitScheduler
}

func newWaitSchedulers() *waitSchedulers {
	return &waitSchedulers{budget: DefaultWaitBudget(), byID: map[string]*waitScheduler{}}
}

// of returns the scheduler of endpoint id, made on first use.
func (r *waitSchedulers) of(id string) *waitScheduler {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.byID[id]
	if s == nil {
		s = newWaitScheduler(r.budget)
		r.byID[id] = s
	}
	return s
}

func (r *waitSchedulers) setBudget(b WaitBudget) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.budget = b
	for _, s := range r.byID {
		s.setBudget(b)
	}
}

// scheduler returns the wait scheduler of the queue's endpoint, shared by
// the service's queues; a Queue made otherwise than by Service.Queue gets
// one of its own.
func (r *Queue) scheduler() *waitScheduler {
	if r.waits == nil {
		return newWaitScheduler(DefaultWaitBudget())
	}
	return r.waits.of(r.id)
}

// canHold reports whether a wait may long-poll a job last read as status:
// the status is known, the platform serves status-sync, and ctx leaves
// time for a hold.
func (r *Queue) canHold(ctx context.Context, status JobStatus, asked time.Duration) bool {
	return status != "" && (r.noStatusSync == nil || !r.noStatusSync.Load()) && statusSyncHold(ctx, asked) > 0
}
