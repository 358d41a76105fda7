package jobqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func submit(t *testing.T, q *Queue, s Spec) string {
	t.Helper()
	v, err := q.Submit(s)
	require.NoError(t, err)
	return v.ID
}

func status(t *testing.T, q *Queue, id string) Status {
	t.Helper()
	v, err := q.Get(id)
	require.NoError(t, err)
	return v.Status
}

// TestLifecycle: the state machine and its counters: queued, taken,
// progress shown while running, completed; failed and retried under the
// same id with its input; cancelled while queued; purged.
func TestLifecycle(t *testing.T) {
	var ended []View
	q := New(Config{OnEnd: func(v View) { ended = append(ended, v) }})
	defer q.Close()
	a := submit(t, q, Spec{Input: json.RawMessage(`"a"`), Webhook: "http://127.0.0.1/hook"})
	b := submit(t, q, Spec{Input: json.RawMessage(`"b"`)})
	assert.True(t, strings.HasSuffix(a, "-u1"))
	assert.Equal(t, 2, q.Health().InQueue)

	taken := q.Take("w1", 1)
	require.Len(t, taken, 1)
	assert.Equal(t, a, taken[0].ID, "oldest first")
	assert.Equal(t, "w1", taken[0].Worker)
	require.NoError(t, q.Progress(a, json.RawMessage(`{"p":1}`)))
	v, _ := q.Get(a)
	assert.Equal(t, InProgress, v.Status)
	assert.JSONEq(t, `{"p":1}`, string(v.Output), "progress shows as output while running")
	first, err := q.Finish(a, Result{Output: json.RawMessage(`"done"`)})
	require.NoError(t, err)
	assert.True(t, first)
	again, _ := q.Finish(a, Result{Output: json.RawMessage(`"dup"`)})
	assert.False(t, again, "a repeated result is ignored")
	v, _ = q.Get(a)
	assert.JSONEq(t, `"done"`, string(v.Output))
	posts, _ := q.Posts(a)
	assert.Equal(t, 2, posts)
	select {
	case <-taken[0].Stopped.Done():
	default:
		t.Fatal("Stop is closed once the job left the worker")
	}
	require.Len(t, ended, 1)
	assert.Equal(t, "http://127.0.0.1/hook", ended[0].Webhook)

	tb := q.Take("w1", 5)
	require.Len(t, tb, 1)
	_, _ = q.Finish(b, Result{Error: "boom"})
	assert.Equal(t, Failed, status(t, q, b))
	_, err = q.Retry(a)
	assert.ErrorIs(t, err, ErrNotRetryable)
	v, err = q.Retry(b)
	require.NoError(t, err)
	assert.Equal(t, InQueue, v.Status)
	assert.Empty(t, v.Error, "the old result is cleared")
	retaken := q.Take("w2", 1)
	require.Len(t, retaken, 1)
	assert.JSONEq(t, `"b"`, string(retaken[0].Input), "same input")

	c := submit(t, q, Spec{Input: json.RawMessage(`1`)})
	v, err = q.Cancel(c)
	require.NoError(t, err)
	assert.Equal(t, Cancelled, v.Status)
	submit(t, q, Spec{Input: json.RawMessage(`1`)})
	submit(t, q, Spec{Input: json.RawMessage(`1`)})
	assert.Equal(t, 2, q.Purge())
	h := q.Health()
	assert.Equal(t, Health{Completed: 1, Failed: 1, InProgress: 1, InQueue: 0, Retried: 1, Idle: 1, Running: 1}, h,
		"two workers seen, one busy")
}

// TestExecutionTimeout: a running job past its execution timeout is
// TIMED_OUT the moment it passes (waiters wake), its Stop is closed and
// its worker told to stop it once; its late result is ignored.
func TestExecutionTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{})
		defer q.Close()
		id := submit(t, q, Spec{Input: json.RawMessage(`1`), ExecutionTimeout: 5 * time.Second})
		taken := q.Take("w1", 1)
		require.Len(t, taken, 1)
		start := time.Now()
		v, err := q.Wait(t.Context(), id, time.Minute, func(v View) bool { return v.Status.Terminal() })
		require.NoError(t, err)
		assert.Equal(t, TimedOut, v.Status)
		assert.Equal(t, 5*time.Second, time.Since(start), "woken at the deadline")
		<-taken[0].Stopped.Done()
		assert.Equal(t, []string{id}, q.WaitStops(t.Context(), "w1", time.Second))
		assert.Empty(t, q.WaitStops(t.Context(), "w1", time.Second), "told once")
		first, _ := q.Finish(id, Result{Output: json.RawMessage(`"late"`)})
		assert.False(t, first)
		assert.Equal(t, 1, q.Health().Failed)
	})
}

// TestTTL: the TTL counts from submission over queue and run time: a job
// not taken in time is never handed out, and a running one is deleted
// under its worker, who is told to stop.
func TestTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{})
		defer q.Close()
		stale := submit(t, q, Spec{Input: json.RawMessage(`1`), TTL: 10 * time.Second})
		time.Sleep(10 * time.Second)
		assert.Empty(t, q.Take("w1", 1), "never handed out")
		_, err := q.Get(stale)
		assert.ErrorIs(t, err, ErrNotFound)
		assert.Zero(t, q.Health().InQueue)

		running := submit(t, q, Spec{Input: json.RawMessage(`1`), TTL: 10 * time.Second})
		taken := q.Take("w1", 1)
		require.Len(t, taken, 1)
		time.Sleep(10 * time.Second)
		_, err = q.Get(running)
		assert.ErrorIs(t, err, ErrNotFound, "deleted even while running")
		<-taken[0].Stopped.Done()
		assert.Equal(t, []string{running}, q.WaitStops(t.Context(), "w1", time.Second))
	})
}

// TestDeadlinesAfterEarlierOnesLeave: the queue skips its sweep until the
// earliest deadline it knows of; every later deadline still applies once
// the earlier jobs are gone, including TTLs shortened, jobs retried and
// execution timeouts that start when a job is taken.
func TestDeadlinesAfterEarlierOnesLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{})
		defer q.Close()
		early := submit(t, q, Spec{Input: json.RawMessage(`1`), TTL: 10 * time.Second})
		late := submit(t, q, Spec{Input: json.RawMessage(`2`), TTL: 30 * time.Second})
		shortened := submit(t, q, Spec{Input: json.RawMessage(`3`), TTL: time.Hour})
		require.NoError(t, q.SetTTL(shortened, 5*time.Second))

		time.Sleep(6 * time.Second)
		_, err := q.Get(shortened)
		assert.ErrorIs(t, err, ErrNotFound, "a shortened TTL counts")
		assert.Equal(t, 2, q.Health().InQueue)
		time.Sleep(5 * time.Second)
		_, err = q.Get(early)
		assert.ErrorIs(t, err, ErrNotFound)
		assert.Equal(t, 1, q.Health().InQueue)

		slow := submit(t, q, Spec{Input: json.RawMessage(`4`), ExecutionTimeout: 5 * time.Second})
		_, ok := q.TakeID(t.Context(), slow, "w1")
		require.True(t, ok)
		time.Sleep(6 * time.Second)
		assert.Equal(t, TimedOut, status(t, q, slow), "an execution timeout starts when a job is taken")
		time.Sleep(14 * time.Second)
		_, err = q.Get(late)
		assert.ErrorIs(t, err, ErrNotFound, "the later TTL still applies")

		// Running jobs keep their deadlines when an earlier one passes.
		timesOut := submit(t, q, Spec{Input: json.RawMessage(`7`), ExecutionTimeout: 20 * time.Second})
		expires := submit(t, q, Spec{Input: json.RawMessage(`8`), TTL: 30 * time.Second, ExecutionTimeout: -1})
		require.Len(t, q.Take("w1", 2), 2)
		submit(t, q, Spec{Input: json.RawMessage(`9`), TTL: 5 * time.Second})
		time.Sleep(6 * time.Second)
		assert.Zero(t, q.Health().InQueue)
		time.Sleep(15 * time.Second)
		assert.Equal(t, TimedOut, status(t, q, timesOut))
		time.Sleep(10 * time.Second)
		_, err = q.Get(expires)
		assert.ErrorIs(t, err, ErrNotFound, "a running job's TTL")

		// With no job left to expire, a retried one brings its TTL back.
		failed := submit(t, q, Spec{Input: json.RawMessage(`5`), TTL: 10 * time.Minute})
		taken, ok := q.TakeID(t.Context(), failed, "w1")
		require.True(t, ok)
		_, _ = q.Finish(taken.ID, Result{Error: "boom"})
		submit(t, q, Spec{Input: json.RawMessage(`6`), TTL: time.Second})
		time.Sleep(2 * time.Second)
		assert.Zero(t, q.Health().InQueue, "swept, with nothing queued or running left")
		_, err = q.Retry(failed)
		require.NoError(t, err)
		time.Sleep(10 * time.Minute)
		_, err = q.Get(failed)
		assert.ErrorIs(t, err, ErrNotFound, "the retried job's TTL, counted from its retry")
	})
}

// TestTakeIDStoppedEndsWithItsContext: a job taken by id under a context
// has its Stopped end with that context, and not before.
func TestTakeIDStoppedEndsWithItsContext(t *testing.T) {
	q := New(Config{})
	defer q.Close()
	id := submit(t, q, Spec{Input: json.RawMessage(`1`)})
	ctx, cancel := context.WithCancel(t.Context())
	taken, ok := q.TakeID(ctx, id, "w1")
	require.True(t, ok)
	assert.NoError(t, taken.Stopped.Err())
	_, ok = q.TakeID(t.Context(), id, "w1")
	assert.False(t, ok, "taken once")
	cancel()
	<-taken.Stopped.Done()
	assert.Equal(t, InProgress, status(t, q, id), "the job is the worker's to end")
}

// TestSubmitTake: a job submitted and taken at once is never queued: it
// is IN_PROGRESS on its worker, counted so, and ends as any taken job;
// a closed queue or a retired worker gets none.
func TestSubmitTake(t *testing.T) {
	q := New(Config{MaxQueuedBytes: 10})
	defer q.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	taken, err := q.SubmitTake(ctx, Spec{Input: json.RawMessage(`"hi"`), Sync: true}, "w1")
	require.NoError(t, err)
	assert.Equal(t, "w1", taken.Worker)
	assert.JSONEq(t, `"hi"`, string(taken.Input))
	v, err := q.Get(taken.ID)
	require.NoError(t, err)
	assert.Equal(t, InProgress, v.Status)
	assert.Equal(t, Health{InProgress: 1, Running: 1}, q.Health())
	assert.Empty(t, q.Take("w2", 1), "never queued")
	_, _, queuedBytes := q.Retained()
	assert.Zero(t, queuedBytes)

	_, err = q.SubmitTake(ctx, Spec{Input: json.RawMessage(`"far too long"`)}, "w1")
	assert.ErrorIs(t, err, ErrQueueFull, "bounded as Submit is")
	v, first, err := q.FinishView(taken.ID, Result{Output: json.RawMessage(`1`), StopPod: true})
	require.NoError(t, err)
	assert.True(t, first)
	assert.Equal(t, Completed, v.Status)
	<-taken.Stopped.Done()
	_, err = q.SubmitTake(ctx, Spec{Input: json.RawMessage(`1`)}, "w1")
	assert.ErrorIs(t, err, ErrClosed, "a retired worker takes nothing")
	q.Close()
	_, err = q.SubmitTake(ctx, Spec{Input: json.RawMessage(`1`)}, "w2")
	assert.ErrorIs(t, err, ErrClosed)
}

// TestWaitTakeWakesOnSubmit: a long-polling worker gets a job the moment
// it is submitted.
func TestWaitTakeWakesOnSubmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{})
		defer q.Close()
		got := make(chan []Taken)
		go func() { got <- q.WaitTake(context.Background(), "w1", 1, time.Hour) }()
		time.Sleep(time.Second)
		id := submit(t, q, Spec{Input: json.RawMessage(`1`)})
		taken := <-got
		require.Len(t, taken, 1)
		assert.Equal(t, id, taken[0].ID)
	})
}

// TestChunks: stream chunks are read once each; a reader waits for the
// next or for the end.
func TestChunks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{})
		defer q.Close()
		id := submit(t, q, Spec{Input: json.RawMessage(`1`)})
		q.Take("w1", 1)
		require.NoError(t, q.Stream(id, json.RawMessage(`1`)))
		require.NoError(t, q.Stream(id, json.RawMessage(`2`)))
		chunks, _, err := q.Chunks(t.Context(), id, time.Second)
		require.NoError(t, err)
		assert.Len(t, chunks, 2)
		go func() {
			time.Sleep(3 * time.Second)
			_ = q.Stream(id, json.RawMessage(`3`))
		}()
		start := time.Now()
		chunks, v, err := q.Chunks(t.Context(), id, 10*time.Second)
		require.NoError(t, err)
		assert.Equal(t, []json.RawMessage{json.RawMessage(`3`)}, chunks)
		assert.Equal(t, InProgress, v.Status)
		assert.Equal(t, 3*time.Second, time.Since(start))
		_, _ = q.Finish(id, Result{})
		chunks, v, _ = q.Chunks(t.Context(), id, 10*time.Second)
		assert.Empty(t, chunks)
		assert.Equal(t, Completed, v.Status)
		require.NoError(t, q.Stream(id, json.RawMessage(`4`)), "after the end: ignored")
		chunks, _, _ = q.Chunks(t.Context(), id, time.Second)
		assert.Empty(t, chunks)
	})
}

// TestForgetsFinishedJobs: finished jobs are kept for their retention (a
// /runsync result a minute, a /run result RunRetention), within the count
// and byte bounds, oldest first; queued inputs count against their bound;
// inputs are dropped once taken.
func TestForgetsFinishedJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{RunRetention: time.Minute, MaxKeptJobs: 3, DropInputs: true})
		defer q.Close()
		var ids []string
		for i := range 5 {
			ids = append(ids, submit(t, q, Spec{ID: fmt.Sprintf("test-%d", i), Input: json.RawMessage(`"` + strings.Repeat("i", 1000) + `"`)}))
		}
		_, _, queued := q.Retained()
		assert.Equal(t, int64(5*1002), queued, "queued inputs are counted")
		for _, id := range ids[:4] {
			taken, ok := q.TakeID(t.Context(), id, "w")
			require.True(t, ok)
			assert.NotEmpty(t, taken.Input)
			_, _ = q.Finish(id, Result{Output: json.RawMessage(strings.Repeat("o", 100))})
			time.Sleep(10 * time.Second)
		}
		kept, resultBytes, queued := q.Retained()
		assert.Equal(t, 3, kept, "at most 3 finished jobs are kept")
		assert.Equal(t, int64(1002), queued, "only the queued input is left")
		assert.Equal(t, int64(300), resultBytes)
		_, err := q.Get("test-0")
		assert.ErrorIs(t, err, ErrNotFound, "the oldest went first")

		time.Sleep(31 * time.Second) // test-1 finished 61 s ago
		_, err = q.Get("test-1")
		assert.ErrorIs(t, err, ErrNotFound)
		assert.Equal(t, Completed, status(t, q, "test-2"))

		time.Sleep(time.Hour)
		kept, resultBytes, _ = q.Retained()
		assert.Zero(t, kept)
		assert.Zero(t, resultBytes)
		assert.Equal(t, InQueue, status(t, q, "test-4"), "a queued job is kept until its TTL")

		sync := submit(t, q, Spec{Input: json.RawMessage(`1`), Sync: true})
		_, ok := q.TakeID(t.Context(), sync, "w")
		require.True(t, ok)
		_, _ = q.Finish(sync, Result{Output: json.RawMessage(`1`)})
		time.Sleep(SyncRetention)
		_, err = q.Get(sync)
		assert.ErrorIs(t, err, ErrNotFound, "a /runsync result is kept a minute")
	})
}

// TestBounds: a Submit past the queued-bytes bound is refused; results
// past the byte bound are forgotten oldest first.
func TestBounds(t *testing.T) {
	q := New(Config{MaxQueuedBytes: 2500, MaxKeptBytes: 2500})
	defer q.Close()
	submit(t, q, Spec{Input: json.RawMessage(strings.Repeat("1", 1000))})
	submit(t, q, Spec{Input: json.RawMessage(strings.Repeat("1", 1000))})
	_, err := q.Submit(Spec{Input: json.RawMessage(strings.Repeat("1", 1000))})
	assert.ErrorIs(t, err, ErrQueueFull)
	q.Purge()
	var ids []string
	for range 4 {
		id := submit(t, q, Spec{Input: json.RawMessage(`1`)})
		q.Take("w", 1)
		_, _ = q.Finish(id, Result{Output: json.RawMessage(strings.Repeat("o", 1000))})
		ids = append(ids, id)
	}
	_, resultBytes, _ := q.Retained()
	assert.LessOrEqual(t, resultBytes, int64(2500))
	_, err = q.Get(ids[3])
	require.NoError(t, err)
	_, err = q.Get(ids[0])
	assert.ErrorIs(t, err, ErrNotFound)
}

// TestForgottenJobIsReleased: a job the queue forgets, with its result,
// can be collected: nothing the queue keeps still points to it.
func TestForgottenJobIsReleased(t *testing.T) {
	q := New(Config{MaxKeptJobs: 2})
	defer q.Close()
	var first weak.Pointer[job]
	for i := range 3 {
		id := submit(t, q, Spec{Input: json.RawMessage(`1`)})
		if i == 0 {
			q.mu.Lock()
			first = weak.Make(q.jobs[id])
			q.mu.Unlock()
		}
		q.Take("w", 1)
		_, _ = q.Finish(id, Result{Output: json.RawMessage(`"` + strings.Repeat("o", 1<<20) + `"`)})
	}
	runtime.GC()
	assert.Nil(t, first.Value(), "the forgotten job (and its 1 MiB result) was collected")
	runtime.KeepAlive(q)
}

// TestCloseEndsWaits: Close answers every waiter at once.
func TestCloseEndsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{})
		id := submit(t, q, Spec{Input: json.RawMessage(`1`)})
		done := make(chan struct{})
		go func() {
			_, _ = q.Wait(context.Background(), id, time.Hour, func(View) bool { return false })
			q.WaitTake(context.Background(), "w", 1, time.Hour)
			close(done)
		}()
		synctest.Wait()
		q.Close()
		<-done
		_, err := q.Submit(Spec{Input: json.RawMessage(`1`)})
		assert.ErrorIs(t, err, ErrClosed)
	})
}

// TestStopOnClose: closing a queue whose workers go with it stops its
// running jobs: their Stopped ends, and a worker long-polling for stops
// is told at once, as is one that asks after the close; the jobs are left
// as they were, and a queue without the setting stops nothing.
func TestStopOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config{StopOnClose: true})
		a := submit(t, q, Spec{Input: json.RawMessage(`1`)})
		b := submit(t, q, Spec{Input: json.RawMessage(`2`)})
		ta, tb := q.Take("w1", 1), q.Take("w2", 1)
		require.Len(t, ta, 1)
		require.Len(t, tb, 1)
		var told []string
		done := make(chan struct{})
		go func() {
			told = q.WaitStops(context.Background(), "w1", time.Hour)
			close(done)
		}()
		synctest.Wait()
		start := time.Now()
		q.Close()
		<-done
		assert.Equal(t, []string{a}, told)
		assert.Zero(t, time.Since(start), "told at once")
		assert.Equal(t, []string{b}, q.WaitStops(context.Background(), "w2", time.Hour), "asked after the close")
		assert.Empty(t, q.WaitStops(context.Background(), "w2", time.Hour), "told once, and a closed queue does not hold")
		<-ta[0].Stopped.Done()
		<-tb[0].Stopped.Done()
		assert.Equal(t, InProgress, status(t, q, a))
		assert.Empty(t, q.WaitTake(context.Background(), "w3", 1, time.Hour))

		plain := New(Config{})
		submit(t, plain, Spec{Input: json.RawMessage(`1`)})
		tp := plain.Take("w1", 1)
		require.Len(t, tp, 1)
		plain.Close()
		assert.Empty(t, plain.WaitStops(context.Background(), "w1", time.Hour))
		assert.NoError(t, tp[0].Stopped.Err())
	})
}

// TestCancelAll: the jobs of a deleted endpoint: every queued and running
// job ends CANCELLED and is still readable, a running one's Stopped ends
// and its worker is told once, finished jobs stay as they were, OnEnd
// hears each cancel, and the queue is closed (nothing more is submitted).
func TestCancelAll(t *testing.T) {
	var ended []Status
	q := New(Config{OnEnd: func(v View) { ended = append(ended, v.Status) }})
	done := submit(t, q, Spec{Input: json.RawMessage(`0`)})
	taken := q.Take("w", 1)
	require.Len(t, taken, 1)
	_, err := q.Finish(done, Result{Output: json.RawMessage(`"ok"`)})
	require.NoError(t, err)
	running := submit(t, q, Spec{Input: json.RawMessage(`1`)})
	taken = q.Take("w", 1)
	require.Len(t, taken, 1)
	queued := submit(t, q, Spec{Input: json.RawMessage(`2`)})

	assert.Equal(t, 2, q.CancelAll())
	assert.Equal(t, Cancelled, status(t, q, running))
	assert.Equal(t, Cancelled, status(t, q, queued))
	assert.Equal(t, Completed, status(t, q, done))
	assert.Error(t, taken[0].Stopped.Err(), "the running job was stopped")
	assert.Equal(t, []string{running}, q.WaitStops(context.Background(), "w", time.Hour))
	assert.Empty(t, q.WaitStops(context.Background(), "w", time.Hour), "told once")
	assert.Equal(t, []Status{Completed, Cancelled, Cancelled}, ended)
	h := q.Health()
	assert.Zero(t, h.InQueue)
	assert.Zero(t, h.InProgress)
	_, err = q.Submit(Spec{Input: json.RawMessage(`3`)})
	assert.ErrorIs(t, err, ErrClosed)
	assert.Zero(t, q.CancelAll(), "nothing left to cancel")
}

// TestFinishedJobKeepsOnlyItsResult: with DropInputs and DropProgress, a
// finished job keeps its result and stream chunks (what MaxKeptBytes
// counts) and nothing else: its input, its last progress and the context
// it was taken under can be collected while the job is still kept. Without
// DropProgress, Posts still reports the last progress after the end.
func TestFinishedJobKeepsOnlyItsResult(t *testing.T) {
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprintf("DropProgress=%v", drop), func(t *testing.T) {
			q := New(Config{DropInputs: true, DropProgress: drop})
			defer q.Close()
			// runOne runs a job of 1 MiB of input and 1 MiB of progress
			// under a context of its own, and keeps nothing of them.
			var id string
			var input, progress weak.Pointer[byte]
			var taken weak.Pointer[heldContext]
			runOne := func() {
				in, p := make(json.RawMessage, 1<<20), make(json.RawMessage, 1<<20)
				ctx := &heldContext{Context: context.Background()}
				input, progress, taken = weak.Make(&in[0]), weak.Make(&p[0]), weak.Make(ctx)
				id = submit(t, q, Spec{Input: in})
				_, ok := q.TakeID(ctx, id, "w")
				require.True(t, ok)
				require.NoError(t, q.Progress(id, p))
				require.NoError(t, q.Stream(id, json.RawMessage(`"chunk"`)))
				_, err := q.Finish(id, Result{Output: json.RawMessage(`"done"`)})
				require.NoError(t, err)
			}
			runOne()
			runtime.GC()
			v, err := q.Get(id)
			require.NoError(t, err)
			assert.Equal(t, Completed, v.Status)
			assert.JSONEq(t, `"done"`, string(v.Output))
			_, resultBytes, _ := q.Retained()
			assert.Equal(t, int64(len(`"done"`)+len(`"chunk"`)), resultBytes)
			assert.Nil(t, input.Value(), "the input was collected")
			assert.Nil(t, taken.Value(), "the context the job was taken under was collected")
			_, last := q.Posts(id)
			if drop {
				assert.Nil(t, progress.Value(), "the last progress was collected")
				assert.Equal(t, 0, len(last), "Posts reports no progress")
			} else {
				assert.NotNil(t, progress.Value(), "the last progress is kept for Posts")
				assert.Equal(t, 1<<20, len(last))
			}
		})
	}
}

// heldContext is a context whose collection a test can watch.
type heldContext struct{ context.Context }

// BenchmarkSubmitTakeFinish is a job's whole way through the queue on the
// local API server's /runsync path: submitted and taken at once under a
// request's context, finished, forgotten (its result goes to the
// request).
func BenchmarkSubmitTakeFinish(b *testing.B) {
	q := New(Config{SyncRetention: -1, ExecutionTimeout: -1, DropInputs: true, DropProgress: true, MaxKeptJobs: 1000,
		MaxKeptBytes: 256 << 20, MaxQueuedBytes: 512 << 20, Slots: func() int { return 32 }})
	defer q.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	input := json.RawMessage(`{"text":"hello"}`)
	ids := make([]string, 1<<16) // made beforehand: the server makes its own
	for i := range ids {
		ids[i] = fmt.Sprintf("test-%d", i)
	}
	var next atomic.Uint32
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := ids[next.Add(1)%uint32(len(ids))]
			t, err := q.SubmitTake(ctx, Spec{ID: id, Input: input, Raw: input, Sync: true}, "local")
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := q.FinishView(t.ID, Result{Output: input}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestForgottenJobLeavesNothing: a /runsync job not kept is made again
// for the next one (see freeJobs); nothing of the first (its progress,
// chunks, result, posts, worker) shows on the next.
func TestForgottenJobLeavesNothing(t *testing.T) {
	q := New(Config{SyncRetention: -1, ExecutionTimeout: -1})
	defer q.Close()
	for i := range 50 {
		id := fmt.Sprintf("sync-%d", i)
		tk, err := q.SubmitTake(context.Background(), Spec{ID: id, Input: json.RawMessage(`1`), Sync: true}, fmt.Sprintf("w%d", i))
		require.NoError(t, err)
		v, err := q.Get(id)
		require.NoError(t, err)
		require.Equal(t, InProgress, v.Status)
		require.Empty(t, v.Output, "job %d shows another's progress or result", i)
		posts, progress := q.Posts(id)
		require.Zero(t, posts)
		require.Nil(t, progress)
		chunks, _, err := q.Chunks(context.Background(), id, 0)
		require.NoError(t, err)
		require.Empty(t, chunks)
		require.Equal(t, fmt.Sprintf("w%d", i), v.WorkerID)
		require.NoError(t, q.Progress(id, json.RawMessage(`{"p":1}`)))
		require.NoError(t, q.Stream(id, json.RawMessage(`"c"`)))
		end, first, err := q.FinishView(tk.ID, Result{Output: json.RawMessage(`{"done":true}`)})
		require.NoError(t, err)
		require.True(t, first)
		require.Equal(t, Completed, end.Status)
		require.JSONEq(t, `{"done":true}`, string(end.Output))
		_, err = q.Get(id)
		require.ErrorIs(t, err, ErrNotFound, "not kept")
		_, _, err = q.FinishView(tk.ID, Result{})
		require.ErrorIs(t, err, ErrNotFound, "a second post finds nothing")
	}
}
