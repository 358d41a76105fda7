package serverless_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// routes lists the inference routes the fake received, in order.
func routes(srv *runpodtest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		switch r.Route {
		case runpodtest.RouteRun, runpodtest.RouteRunSync, runpodtest.RouteStatus, runpodtest.RouteStatusSync:
			out = append(out, r.Route)
		}
	}
	return out
}

// running is a handler that reports on started that it runs, then holds
// the job until its own context ends.
func running(started chan<- struct{}) worker.Handler {
	return func(ctx context.Context, _ *worker.Job) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

// TestRunSyncIDFirst (issue 26, item 1): with IDFirst the job is submitted
// with /run and waited for by id (no /runsync), and the result is the
// same.
func TestRunSyncIDFirst(t *testing.T) {
	srv, rp, _ := fake(t)
	release := make(chan struct{})
	srv.HandleQueue("ep1", untilReleased(release))
	var once sync.Once
	var statuses []serverless.JobStatus
	job, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{IDFirst: true,
		Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
			statuses = append(statuses, j.Status)
			once.Do(func() { close(release) })
		}}})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
	assert.JSONEq(t, `"done"`, string(job.Output))
	got := routes(srv)
	require.NotEmpty(t, got)
	assert.Equal(t, runpodtest.RouteRun, got[0], "submitted with /run")
	assert.Zero(t, srv.Count(runpodtest.RouteRunSync), "never /runsync")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun), "submitted once")
	assert.Positive(t, srv.Count(runpodtest.RouteStatusSync), "then waited for by id")
	assert.Equal(t, serverless.JobStatusInQueue, statuses[0], "OnCheck saw /run's answer")
	assert.Equal(t, serverless.JobStatusCompleted, statuses[len(statuses)-1])
}

// TestRunSyncCancelledMidWaitKeepsID (issue 26, item 1): an IDFirst
// RunSync cancelled while it waits for the job returns a *WaitError with
// the job's id, which came from /run.
func TestRunSyncCancelledMidWaitKeepsID(t *testing.T) {
	for _, idFirst := range []bool{true} { // without IDFirst: TestRunSyncContextEndKeepsID
		t.Run("IDFirst="+strconv.FormatBool(idFirst), func(t *testing.T) {
			srv, rp, _ := fake(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			started, answered := make(chan struct{}), make(chan struct{})
			srv.HandleQueue("ep1", running(started))
			go func() {
				// The platform has answered with the id and the job runs:
				// cancel while RunSync waits for it.
				<-answered
				<-started
				cancel()
			}()
			var seen []string
			_, err := rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{IDFirst: idFirst, Hold: time.Second,
				Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
					if seen = append(seen, j.ID); len(seen) == 1 {
						close(answered)
					}
				}}})
			require.ErrorIs(t, err, context.Canceled)
			var we *serverless.WaitError
			require.ErrorAs(t, err, &we, "the job was accepted: its id is kept")
			require.NotEmpty(t, seen)
			assert.Equal(t, seen[0], we.JobID)
			assert.Contains(t, err.Error(), we.JobID)
			assert.NotEmpty(t, we.LastStatus)
			if idFirst {
				assert.Equal(t, runpodtest.RouteRun, routes(srv)[0])
				assert.Zero(t, srv.Count(runpodtest.RouteRunSync))
			}
		})
	}
}

// TestWaitErrorMessage (issue 26, item 17): no "(last status )" when no
// status was read.
func TestWaitErrorMessage(t *testing.T) {
	e := &serverless.WaitError{JobID: "j-1", Err: context.Canceled}
	assert.Equal(t, "runpod: stopped waiting for job j-1: context canceled", e.Error())
	e.LastStatus = serverless.JobStatusInQueue
	assert.Equal(t, "runpod: stopped waiting for job j-1 (last status IN_QUEUE): context canceled", e.Error())
}

// TestWaitByIDReportsLastStatus (issue 26, item 17): Wait by id cancelled
// during its first long poll still reports the job's status: it is read
// with /status before the long poll.
func TestWaitByIDReportsLastStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &jobScript{completeAt: start.Add(time.Hour)}
		rp := scriptedClient(t, rt)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			time.Sleep(5 * time.Second) // inside the first long poll
			cancel()
		}()
		_, err := rp.Serverless.Queue("ep1").Wait(ctx, "sync-1-u1", serverless.WaitOptions{})
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, "sync-1-u1", we.JobID)
		assert.Equal(t, serverless.JobStatusInProgress, we.LastStatus)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}

// statusSyncWaits returns the wait values of the status-sync requests the
// fake received, in milliseconds.
func statusSyncWaits(t *testing.T, srv *runpodtest.Server) []int {
	var out []int
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteStatusSync {
			ms, err := strconv.Atoi(r.Query.Get("wait"))
			require.NoError(t, err, r.RawQuery)
			out = append(out, ms)
		}
	}
	return out
}

// TestStatusSyncWaitRange (issue 26, item 9): status-sync is asked to hold
// 1,000 to 90,000 ms, what the platform's JavaScript client sends: 90 s
// when Hold is zero or longer; with under a second left the status is read
// with plain /status. The waits do not diagnose a queued job
// (QueuedAfter < 0): whether the fake's worker has taken the job by the
// first read is a race, and a queued job's hold is cut to answer when it
// has been queued for QueuedAfter (TestQueuedHoldIsCut).
func TestStatusSyncWaitRange(t *testing.T) {
	for _, hold := range []time.Duration{0, 300 * time.Second, 5 * time.Second} {
		srv, rp, _ := fake(t)
		release := make(chan struct{})
		srv.HandleQueue("ep1", untilReleased(release))
		job, err := rp.Serverless.Queue("ep1").Run(t.Context(), serverless.RunParams{Input: 1})
		require.NoError(t, err)
		var once sync.Once
		_, err = rp.Serverless.Queue("ep1").Wait(t.Context(), job.ID, serverless.WaitOptions{Hold: hold, QueuedAfter: -1,
			Poll: option.Poll[*serverless.Job]{OnCheck: func(*serverless.Job) { once.Do(func() { close(release) }) }}})
		require.NoError(t, err)
		want := 90000
		if hold == 5*time.Second {
			want = 5000
		}
		waits := statusSyncWaits(t, srv)
		require.NotEmpty(t, waits, "Hold %s", hold)
		for _, w := range waits {
			assert.Equal(t, want, w, "Hold %s", hold)
		}
	}

	// Under a second left: no status-sync at all, whatever the deadline
	// leaves (it only shrinks as the test runs).
	srv, rp, _ := fake(t)
	release := make(chan struct{})
	srv.HandleQueue("ep1", untilReleased(release))
	job, err := rp.Serverless.Queue("ep1").Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 1200*time.Millisecond)
	defer cancel()
	checks := 0
	_, err = rp.Serverless.Queue("ep1").Wait(ctx, job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: time.Millisecond,
		OnCheck: func(*serverless.Job) {
			if checks++; checks == 2 {
				close(release)
			}
		}}})
	if err != nil { // a very slow machine may reach the deadline first
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
	}
	assert.Empty(t, statusSyncWaits(t, srv), "no status-sync of under a second")
	assert.Positive(t, srv.Count(runpodtest.RouteStatus))
}

// TestHoldValidation: Hold is 1 s to 300 s, /runsync's range.
func TestHoldValidation(t *testing.T) {
	_, rp, _ := fake(t)
	for _, h := range []time.Duration{time.Millisecond, 999 * time.Millisecond, 301 * time.Second} {
		_, err := rp.Serverless.Queue("ep1").Wait(t.Context(), "j-1", serverless.WaitOptions{Hold: h})
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%s", h)
		assert.Equal(t, "WaitOptions.Hold", ve.Field)
	}
}
