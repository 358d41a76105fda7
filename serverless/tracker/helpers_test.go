package tracker_test

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/serverless/tracker"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// newFakeClock returns a clock the test moves by hand, shared by the
// fake platform (runpodtest.WithClock: its rate-limit windows and the
// retention of job results) and the tracker (tracker.WithClock).
func newFakeClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
}

// echo is a handler whose output is its input.
func echo(_ context.Context, job *worker.Job) (any, error) { return job.Input, nil }

// errStoreDown is the error of a flakyStore's failing operations.
var errStoreDown = errors.New("store down")

// flakyStore is a Store whose Put or Delete fails while told to; a Put
// that would fail passes while passPuts is above zero, counting it down.
type flakyStore struct {
	tracker.Store
	failPut, failDelete atomic.Bool
	passPuts            atomic.Int32
}

func (s *flakyStore) Put(ctx context.Context, r tracker.Record) error {
	if s.failPut.Load() && s.passPuts.Add(-1) < 0 {
		return errStoreDown
	}
	return s.Store.Put(ctx, r)
}

func (s *flakyStore) Delete(ctx context.Context, endpointID, jobID string) error {
	if s.failDelete.Load() {
		return errStoreDown
	}
	return s.Store.Delete(ctx, endpointID, jobID)
}
