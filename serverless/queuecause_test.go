package serverless_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// bubbleFake is a fake made inside a synctest bubble, on its clock, with
// a client at production poll timing.
func bubbleFake(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithMemoryNetwork())
	t.Cleanup(srv.Close)
	srv.AddTemplate("tmpl-1")
	rp, err := srv.NewClient(option.WithPollInterval(option.DefaultPollInterval),
		option.WithBackoff(option.DefaultRetryWaitMin, option.DefaultRetryWaitMax))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

// held is a handler that holds its job until the job's ctx ends.
func held(ctx context.Context, _ *worker.Job) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestWaitSaysWhyQueued (issue 37, item 6): a job that stays IN_QUEUE
// past QueuedAfter (30 s by default) is told apart by the endpoint's
// worker list: workers crash-looping (UNHEALTHY), no capacity (THROTTLED),
// no workers (scaled to zero), every worker busy. The wait's *WaitError
// and the statuses OnCheck gets from 30 s on name the cause, in a typed
// value and in words; none before. One worker-list read serves the wait:
// the reads of an endpoint are at least 15 s apart.
func TestWaitSaysWhyQueued(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, srv *runpodtest.Server, rp *runpod.Client) string
		cause serverless.QueueCause
		words string
	}{
		{"crash-loop", func(t *testing.T, srv *runpodtest.Server, _ *runpod.Client) string {
			id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "crash", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}}, held)
			srv.CrashLoopWorkers(id, true)
			return id
		}, serverless.QueueCauseUnhealthy, "workers unhealthy: 1 of 1 worker failing health checks, likely crash-looping"},
		{"no-capacity", func(t *testing.T, srv *runpodtest.Server, _ *runpod.Client) string {
			id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "full", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}}, held)
			srv.ThrottleWorkers(id, true)
			return id
		}, serverless.QueueCauseThrottled, "no capacity: 1 of 1 worker throttled, waiting for a machine"},
		{"scaled-to-zero", func(t *testing.T, srv *runpodtest.Server, rp *runpod.Client) string {
			// Its workers' runtime never starts: jobs wait for a worker.
			id := srv.AddEndpoint(runpodtest.Endpoint{Name: "zero", Type: serverless.EndpointTypeQueue, TemplateID: "tmpl-1",
				GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 1})
			srv.HandleWorkerQueue(id)
			_, err := rp.Serverless.Endpoints.ScaleToZero(t.Context(), id)
			require.NoError(t, err)
			return id
		}, serverless.QueueCauseNoWorkers, "no workers: the endpoint lists none"},
		{"busy", func(t *testing.T, srv *runpodtest.Server, rp *runpod.Client) string {
			id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "busy", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}}, held)
			// The one worker runs a job that does not end.
			_, err := rp.Serverless.Queue(id).Run(t.Context(), serverless.RunParams{Input: "first"})
			require.NoError(t, err)
			return id
		}, serverless.QueueCauseBusy, "workers busy: 1 of 1 worker running other jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, rp := bubbleFake(t)
				id := tc.setup(t, srv, rp)
				q := rp.Serverless.Queue(id)
				job, err := q.Run(t.Context(), serverless.RunParams{Input: "second"})
				require.NoError(t, err)
				synctest.Wait()
				lists := srv.Count(runpodtest.RouteEndpointWorkers)

				ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
				defer cancel()
				start := time.Now()
				type check struct {
					at     time.Duration
					status serverless.JobStatus
					queued *serverless.QueueDiagnosis
				}
				var checks []check
				_, err = q.Wait(ctx, job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
					checks = append(checks, check{time.Since(start), j.Status, j.Queued})
				}}})

				var we *serverless.WaitError
				require.ErrorAs(t, err, &we)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Equal(t, serverless.JobStatusInQueue, we.LastStatus)
				require.NotNil(t, we.Queued, "the error says why the job was queued")
				assert.Equal(t, tc.cause, we.Queued.Cause)
				assert.Contains(t, we.Queued.String(), tc.words)
				assert.Contains(t, err.Error(), tc.words)
				assert.GreaterOrEqual(t, we.Queued.For, serverless.DefaultQueuedAfter)
				if tc.cause == serverless.QueueCauseNoWorkers {
					assert.Empty(t, we.Queued.WorkerIDs)
				} else {
					assert.Len(t, we.Queued.WorkerIDs, 1, "the worker the cause is about")
				}

				require.NotEmpty(t, checks)
				var told int
				for _, c := range checks {
					assert.Equal(t, serverless.JobStatusInQueue, c.status)
					if c.at < serverless.DefaultQueuedAfter {
						assert.Nil(t, c.queued, "nothing said before %s (check at %s)", serverless.DefaultQueuedAfter, c.at)
						continue
					}
					told++
					require.NotNil(t, c.queued, "check at %s", c.at)
					assert.Equal(t, tc.cause, c.queued.Cause)
				}
				assert.Positive(t, told, "OnCheck was told the cause")
				assert.Equal(t, serverless.DefaultQueuedAfter, checks[1].at, "the hold is cut to read at 30 s")
				assert.Equal(t, 1, srv.Count(runpodtest.RouteEndpointWorkers)-lists, "one worker-list read in 15 s")
			})
		})
	}
}

// TestWaitsShareTheWorkerList (issue 37, item 6): 300 waits on the jobs
// of a crash-looping endpoint, for three minutes, with a budget of 40
// status requests at once, so that most jobs are read with /status every
// few seconds and each read from 30 s on wants the cause: the endpoint's
// worker list is still read at most once per 15 s (6 reads for some
// 3,000 status reads), not once per job or per read, and every wait's
// error says the workers are unhealthy. Turned off, the crash loop lets the workers take the jobs,
// and the waits no longer read the list.
func TestWaitsShareTheWorkerList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, rp := bubbleFake(t)
		require.NoError(t, rp.Serverless.SetWaitBudget(serverless.WaitBudget{Concurrent: 40, Per10s: 2000}))
		id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "crash", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}},
			func(context.Context, *worker.Job) (any, error) { return "done", nil }, runpodtest.WithWorkers(50))
		srv.CrashLoopWorkers(id, true)
		q := rp.Serverless.Queue(id)
		const jobs = 300
		ids := make([]string, jobs)
		for i := range ids {
			job, err := q.Run(t.Context(), serverless.RunParams{Input: i})
			require.NoError(t, err)
			ids[i] = job.ID
		}
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		start := time.Now()
		errs := make([]error, jobs)
		var wg sync.WaitGroup
		for i, jobID := range ids {
			wg.Go(func() {
				_, errs[i] = q.Wait(ctx, jobID, serverless.WaitOptions{})
			})
		}
		wg.Wait()
		elapsed := time.Since(start)

		var reads []time.Time
		for _, r := range srv.Requests() {
			if r.Route == runpodtest.RouteEndpointWorkers {
				reads = append(reads, r.Time)
			}
		}
		bound := int(elapsed/(15*time.Second)) + 1
		assert.LessOrEqual(t, len(reads), bound, "at most one read per 15 s, for %d waits over %s", jobs, elapsed)
		assert.Positive(t, len(reads))
		for i := 1; i < len(reads); i++ {
			assert.GreaterOrEqual(t, reads[i].Sub(reads[i-1]), 15*time.Second, "read %d", i)
		}
		for i, err := range errs {
			var we *serverless.WaitError
			require.ErrorAs(t, err, &we, "job %d", i)
			require.NotNil(t, we.Queued, "job %d", i)
			assert.Equal(t, serverless.QueueCauseUnhealthy, we.Queued.Cause, "job %d", i)
			assert.Equal(t, serverless.EndpointWorkerSummary{Unhealthy: 3, Total: 3}, we.Queued.Workers, "one per job, up to workers.max")
		}
		t.Logf("%d worker-list reads for %d waits over %s; %d status reads; %s", len(reads), jobs, elapsed,
			srv.Count(runpodtest.RouteStatus)+srv.Count(runpodtest.RouteStatusSync), errs[0])

		// The workers recover: the jobs run, and the waits end with them.
		srv.CrashLoopWorkers(id, false)
		before := srv.Count(runpodtest.RouteEndpointWorkers)
		for _, jobID := range ids[:10] {
			job, err := q.Wait(t.Context(), jobID, serverless.WaitOptions{})
			require.NoError(t, err)
			assert.Equal(t, serverless.JobStatusCompleted, job.Status)
			assert.Nil(t, job.Queued)
		}
		assert.Equal(t, before, srv.Count(runpodtest.RouteEndpointWorkers))
	})
}

// TestQueuedAfter (issue 37, item 6): QueuedAfter sets when the wait
// reads the worker list (here 5 s); negative, never.
func TestQueuedAfter(t *testing.T) {
	for _, after := range []time.Duration{5 * time.Second, -1} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, rp := bubbleFake(t)
				id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "crash", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}}, held)
				srv.CrashLoopWorkers(id, true)
				q := rp.Serverless.Queue(id)
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				_, err := q.RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{QueuedAfter: after})
				var we *serverless.WaitError
				require.ErrorAs(t, err, &we)
				if after < 0 {
					assert.Nil(t, we.Queued)
					assert.Zero(t, srv.Count(runpodtest.RouteEndpointWorkers))
					return
				}
				require.NotNil(t, we.Queued)
				assert.Equal(t, serverless.QueueCauseUnhealthy, we.Queued.Cause)
				assert.Equal(t, 1, srv.Count(runpodtest.RouteEndpointWorkers))
			})
		})
	}
}

// TestWaitWithoutWorkerList (issue 37, item 6): an id with no worker list
// the key can read (a public model: 404) leaves the cause unsaid; the
// list is asked for once, not every 15 s.
func TestWaitWithoutWorkerList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, rp := bubbleFake(t)
		srv.HandleQueue("model-x", held)
		srv.CrashLoopWorkers("model-x", true)
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		_, err := rp.Serverless.Queue("model-x").RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{IDFirst: true})
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, serverless.JobStatusInQueue, we.LastStatus)
		assert.Nil(t, we.Queued)
		assert.Equal(t, 1, srv.Count(runpodtest.RouteEndpointWorkers))
	})
}
