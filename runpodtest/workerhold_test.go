package runpodtest_test

import (
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// heldEndpoint makes, inside a synctest bubble, a fake with queue-based
// endpoint e whose workers run h, and a client of it: the fake runs on
// the bubble's clock, so that "no worker took it" is checked once every
// goroutine is blocked (synctest.Wait).
func heldEndpoint(t *testing.T, e runpodtest.Endpoint, h worker.Handler, opts ...runpodtest.QueueOption) (*runpodtest.Server, *runpod.Client, string) {
	t.Helper()
	srv := runpodtest.NewServer(runpodtest.WithMemoryNetwork())
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	e.TemplateID, e.GPUs = "t", []serverless.GPUPool{serverless.GPUPoolAda24}
	return srv, rp, srv.AddQueueEndpoint(e, h, opts...)
}

// requireQueued requires the job to be IN_QUEUE once every goroutine is
// blocked: no worker took it.
func requireQueued(t *testing.T, q *serverless.Queue, jobID string) {
	t.Helper()
	synctest.Wait()
	j, err := q.Status(t.Context(), jobID)
	require.NoError(t, err)
	require.Equal(t, serverless.JobStatusInQueue, j.Status)
}

// TestCrashLoopWorkers: while an endpoint's workers crash-loop, no job is
// taken (a job in progress goes on), its own idle workers show UNHEALTHY
// and, for its queued jobs, as many more as workers.max allows; turned
// off, the workers take the queued jobs and the list is as before.
func TestCrashLoopWorkers(t *testing.T) {
	synctest.Test(t, crashLoopWorkers)
}

func crashLoopWorkers(t *testing.T) {
	release := make(chan struct{})
	srv, rp, id := heldEndpoint(t, runpodtest.Endpoint{Name: "crash", WorkersMin: 1, WorkersMax: 3}, blocking(release), runpodtest.WithWorkers(5))
	ctx := t.Context()
	q := rp.Serverless.Queue(id)
	first, err := q.Run(ctx, serverless.RunParams{Input: 0})
	require.NoError(t, err)
	synctest.Wait()
	j, err := q.Status(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, serverless.JobStatusInProgress, j.Status)

	srv.CrashLoopWorkers(id, true)
	var queued []string
	for i := 1; i <= 4; i++ {
		j, err := q.Run(ctx, serverless.RunParams{Input: i})
		require.NoError(t, err)
		queued = append(queued, j.ID)
	}
	for _, jobID := range queued {
		requireQueued(t, q, jobID) // no crash-looping worker takes a job
	}
	list, err := rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, serverless.EndpointWorkerSummary{Running: 1, Unhealthy: 2, Total: 3}, list.Summary,
		"the job in progress goes on; workers up to workers.max for the queued ones, UNHEALTHY")
	assert.NotNil(t, list.Workers[2].StartedAt, "a crash-looping worker is placed and started")

	srv.CrashLoopWorkers(id, false)
	synctest.Wait()
	h, err := q.Health(ctx)
	require.NoError(t, err)
	assert.Zero(t, h.Jobs.InQueue, "the workers take the queued jobs")
	assert.Equal(t, 5, h.Jobs.InProgress)
	close(release)
	for _, jobID := range append(queued, first.ID) {
		j, err := q.Wait(ctx, jobID, serverless.WaitOptions{})
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusCompleted, j.Status)
	}
	list, err = rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, serverless.EndpointWorkerSummary{Idle: 1, Total: 1}, list.Summary)
}

// TestThrottleWorkers: out of capacity, an endpoint's workers take no job
// and show THROTTLED, unplaced; one scaled to zero lists none, held or
// not; the capacity back, the job runs. It works for external workers
// (HandleWorkerQueue) too.
func TestThrottleWorkers(t *testing.T) {
	synctest.Test(t, throttleWorkers)
}

func throttleWorkers(t *testing.T) {
	srv, rp, id := heldEndpoint(t, runpodtest.Endpoint{Name: "full"}, echoHandler)
	ctx := t.Context()
	srv.ThrottleWorkers(id, true)
	srv.CrashLoopWorkers(id, true) // THROTTLED wins
	q := rp.Serverless.Queue(id)
	job, err := q.Run(ctx, serverless.RunParams{Input: 1})
	require.NoError(t, err)
	requireQueued(t, q, job.ID)
	list, err := rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, serverless.EndpointWorkerSummary{Throttled: 1, Total: 1}, list.Summary)
	w := list.Workers[0]
	assert.Nil(t, w.GPUTypeID, "a throttled worker is not placed")
	assert.Nil(t, w.StartedAt)

	_, err = rp.Serverless.Endpoints.ScaleToZero(ctx, id)
	require.NoError(t, err)
	list, err = rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, list.Workers, "scaled to zero: no worker is started for the queue")

	srv.ThrottleWorkers(id, false)
	srv.CrashLoopWorkers(id, false)
	j, err := q.Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, j.Status)

	// An external worker's take is held back likewise.
	ext := srv.AddEndpoint(runpodtest.Endpoint{Name: "ext", TemplateID: "t", Type: serverless.EndpointTypeQueue, GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	srv.HandleWorkerQueue(ext)
	srv.ThrottleWorkers(ext, true)
	_, err = rp.Serverless.Queue(ext).Run(ctx, serverless.RunParams{Input: 1})
	require.NoError(t, err)
	take := func() (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.InferenceURL+"/v2/"+ext+"/job-take/wk1", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", srv.APIKey)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, _ := take()
	assert.Equal(t, http.StatusNoContent, code, "nothing handed out")
	srv.ThrottleWorkers(ext, false)
	code, body := take()
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"id"`)
}
