package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"weak"

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
		_, _, queued := s.retained()
		assert.Equal(t, int64(5*(1000+2+1000+2+10)), queued, "queued inputs are counted")
		for _, lj := range jobs[:4] {
			require.True(t, s.start(lj))
			<-lj.done
			time.Sleep(10 * time.Second)
		}
		s.wg.Wait()
		kept, resultBytes, queued := s.retained()
		assert.Equal(t, 3, kept, "at most 3 finished jobs are kept")
		assert.Equal(t, int64(1000+2+1000+2+10), queued, "only the queued input is left")
		assert.Equal(t, int64(3*102), resultBytes)
		s.mu.Lock()
		assert.Nil(t, jobs[0].job.Input, "a finished job's input is dropped")
		assert.NotContains(t, s.jobs, "test-0", "the oldest went first")
		assert.Contains(t, s.jobs, "test-4", "a queued job is never forgotten")
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
		assert.Len(t, s.jobs, 1, "only the queued job is left")
		s.mu.Unlock()
		kept, resultBytes, _ = s.retained()
		assert.Zero(t, kept)
		assert.Zero(t, resultBytes)
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
	kept, resultBytes, _ := s.retained()
	assert.LessOrEqual(t, resultBytes, int64(2500))
	assert.Equal(t, 2, kept)
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Contains(t, s.jobs, "test-3")
	assert.NotContains(t, s.jobs, "test-1")
}

// TestEvictedJobIsReleased: a job the store forgets, with its result, can
// be collected: nothing the store keeps still points to it. (The list of
// finished jobs used to keep forgotten ones in its backing array.)
func TestEvictedJobIsReleased(t *testing.T) {
	s := newStore(func(context.Context, *Job) (any, error) { return strings.Repeat("o", 1<<20), nil }, 1,
		WithResultRetention(time.Hour, 2))
	var first weak.Pointer[localJob]
	for i := range 3 {
		lj := s.add(queuedJob(fmt.Sprintf("test-%d", i), `1`))
		require.NotNil(t, lj)
		if i == 0 {
			first = weak.Make(lj)
		}
		require.True(t, s.start(lj))
		<-lj.done
	}
	s.wg.Wait()
	kept, resultBytes, queued := s.retained()
	assert.Equal(t, 2, kept)
	assert.Equal(t, int64(2*(1<<20+2)), resultBytes, "only the kept results are counted")
	assert.Zero(t, queued)
	runtime.GC()
	assert.Nil(t, first.Value(), "the forgotten job (and its 1 MiB result) was collected")
	runtime.KeepAlive(s) // the store lives on: only what it forgot may go
}

// TestRunJobsForgottenOverHTTP: many large /run jobs, run by /status, leave
// only the bounded results behind: inputs are gone once run, the oldest
// results are forgotten past the bound and answer 404 like unknown ids.
func TestRunJobsForgottenOverHTTP(t *testing.T) {
	const jobs, keep, size = 6, 2, 1 << 20
	srvc := make(chan *localServer, 1)
	h := func(_ context.Context, job *Job) (any, error) { return len(job.Input), nil } // a small result
	base := serve(t, h, nil, WithResultRetention(time.Hour, keep), withHooks(&hooks{server: func(s *localServer) { srvc <- s }}))
	var s *localServer
	select {
	case s = <-srvc:
	case <-time.After(guard):
		t.Fatal("the local server never started")
	}
	var ids []string
	for range jobs {
		_, m := call(t, "POST", base+"/run", `{"input":"`+strings.Repeat("i", size)+`"}`)
		ids = append(ids, m["id"].(string))
	}
	_, _, queued := s.retained()
	assert.GreaterOrEqual(t, queued, int64(jobs*size), "queued inputs are held until run")
	for _, id := range ids {
		_, m := call(t, "GET", base+"/status/"+id, "")
		require.Equal(t, "COMPLETED", m["status"])
		assert.Equal(t, float64(size+2), m["output"])
	}
	kept, resultBytes, queued := s.retained()
	assert.Equal(t, keep, kept)
	assert.Equal(t, int64(keep*len("1048578")), resultBytes, "only the kept results are held")
	assert.Zero(t, queued, "no input is held once its job ran")
	for i, id := range ids {
		code, m := call(t, "GET", base+"/status/"+id, "")
		if i < jobs-keep {
			assert.Equal(t, 404, code, "forgotten: %s", id)
			assert.Equal(t, "Job ID not found", m["error"])
		} else {
			assert.Equal(t, 200, code)
			assert.Equal(t, "COMPLETED", m["status"])
		}
	}
}
