package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newStore is a local server with no listener, for driving its job store
// directly.
func newStore(h Handler, concurrency int, opts ...Option) *localServer {
	c := newConfig(append([]Option{WithOutput(io.Discard)}, opts...))
	return &localServer{h: h, c: c, f: &flags{concurrency: concurrency}, log: newLogger(io.Discard, levelError, false),
		slots: make(chan struct{}, concurrency), base: context.Background(), jobs: map[string]*localJob{}}
}

func queuedJob(id string, input string) *Job {
	raw := `{"input":` + input + `}`
	return &Job{ID: id, Input: json.RawMessage(input), Raw: []byte(raw)}
}

// TestCancelledAsSlotFrees: a job cancelled after it was claimed, whose
// wait for a slot ends by getting the slot rather than by its context,
// still ends: /status and /stream waiting on it return. (It used to return
// without recording the end, so they waited forever.)
func TestCancelledAsSlotFrees(t *testing.T) {
	s := newStore(func(context.Context, *Job) (any, error) { return "ran", nil }, 1)
	lj := s.add(queuedJob("test-1", `"x"`))
	require.NotNil(t, lj)
	ctx, ok := s.claim(lj, context.Background())
	require.True(t, ok)
	// What cancelJob does first, before its cancel() reaches the context.
	s.mu.Lock()
	lj.status = statusCancelled
	s.queued.Add(-1)
	s.mu.Unlock()
	s.execute(ctx, lj) // the slot is free, so it is taken
	select {
	case <-lj.done:
	default:
		t.Fatal("the job never ended: anyone waiting on it hangs")
	}
	assert.Equal(t, statusCancelled, s.view(lj).Status)
	assert.Empty(t, s.slots, "the slot was given back")
	assert.Zero(t, s.running.Load())
}

// TestStoreForgetsFinishedJobs: finished /run jobs are kept for the
// retention, then forgotten (404); their inputs are dropped as soon as
// they run, and the store holds no more than its bounds.
func TestStoreForgetsFinishedJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(func(_ context.Context, j *Job) (any, error) { return strings.Repeat("o", 100), nil }, 1,
			WithResultRetention(time.Minute, 3))
		var jobs []*localJob
		for i := range 5 {
			lj := s.add(queuedJob(fmt.Sprintf("test-%d", i), `"`+strings.Repeat("i", 1000)+`"`))
			require.NotNil(t, lj)
			jobs = append(jobs, lj)
		}
		assert.Equal(t, int64(5*(1000+2+1000+2+10)), s.queuedBytes, "queued inputs are counted")
		for _, lj := range jobs[:4] {
			require.True(t, s.start(lj))
			<-lj.done
			time.Sleep(10 * time.Second)
		}
		s.wg.Wait()
		s.mu.Lock()
		assert.Nil(t, jobs[0].job.Input, "a finished job's input is dropped")
		assert.Len(t, s.ended, 3, "at most 3 finished jobs are kept")
		assert.NotContains(t, s.jobs, "test-0", "the oldest went first")
		assert.Contains(t, s.jobs, "test-4", "a queued job is never forgotten")
		assert.Equal(t, int64(1000+2+1000+2+10), s.queuedBytes, "only the queued input is left")
		assert.Equal(t, int64(3*102), s.kept)
		s.mu.Unlock()

		time.Sleep(31 * time.Second) // test-1 finished 61 s ago
		s.mu.Lock()
		s.evictLocked()
		assert.NotContains(t, s.jobs, "test-1")
		assert.Contains(t, s.jobs, "test-2")
		s.mu.Unlock()

		time.Sleep(time.Hour)
		s.mu.Lock()
		s.evictLocked()
		assert.Empty(t, s.ended)
		assert.Zero(t, s.kept)
		assert.Len(t, s.jobs, 1, "only the queued job is left")
		s.mu.Unlock()
	})
}

// TestStoreBoundsQueuedInputs: /run refuses a job whose input would take
// the queued inputs past their bound, instead of holding it.
func TestStoreBoundsQueuedInputs(t *testing.T) {
	s := newStore(echo, 1)
	s.c.maxQueuedBytes = 5000
	require.NotNil(t, s.add(queuedJob("test-a", `"`+strings.Repeat("i", 1000)+`"`)))
	require.NotNil(t, s.add(queuedJob("test-b", `"`+strings.Repeat("i", 1000)+`"`)))
	assert.Nil(t, s.add(queuedJob("test-c", `"`+strings.Repeat("i", 1000)+`"`)))
	assert.Len(t, s.jobs, 2)
}

// TestStoreBoundsBytes: results are forgotten, oldest first, once together
// they pass the byte bound.
func TestStoreBoundsBytes(t *testing.T) {
	s := newStore(func(context.Context, *Job) (any, error) { return strings.Repeat("o", 998), nil }, 1)
	s.c.maxKeptBytes = 2500
	for i := range 4 {
		lj := s.add(queuedJob(fmt.Sprintf("test-%d", i), `1`))
		require.True(t, s.start(lj))
		<-lj.done
	}
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.LessOrEqual(t, s.kept, int64(2500))
	assert.Len(t, s.ended, 2)
	assert.Contains(t, s.jobs, "test-3")
	assert.NotContains(t, s.jobs, "test-1")
}
