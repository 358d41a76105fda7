package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// platform is a fake platform with a worker queue, and an SDK client to
// submit jobs to it.
type platform struct {
	srv *runpodtest.Server
	rp  *runpod.Client
	ep  *serverless.Queue
	env map[string]string
}

func newPlatform(t *testing.T) *platform {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithWorkerLongPoll(50*time.Millisecond))
	t.Cleanup(srv.Close)
	srv.HandleWorkerQueue("ep1")
	rp, err := srv.NewClient(option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return &platform{srv: srv, rp: rp, ep: rp.Serverless.Queue("ep1"), env: srv.WorkerEnv("ep1", "worker-1", time.Second)}
}

// start runs the production loop until the returned stop is called (which
// waits for it to return).
func (p *platform) start(t *testing.T, h worker.Handler, opts ...worker.Option) (stop func() string) {
	ctx, cancel := context.WithCancel(context.Background())
	var out testkit.Lines
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, h, append([]worker.Option{worker.WithArgs(nil), worker.WithOutput(&out), worker.WithEnv(func(k string) string { return p.env[k] })}, opts...)...)
	}()
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				assert.NoError(t, err)
			case <-time.After(20 * time.Second):
				t.Error("the worker did not stop")
			}
		})
		return out.String()
	}
	t.Cleanup(func() { stop() })
	return stop
}

func (p *platform) wait(t *testing.T, id string) *serverless.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	job, err := p.ep.Wait(ctx, id, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 10 * time.Millisecond}})
	var je *serverless.JobError
	if err != nil && !errors.As(err, &je) {
		require.NoError(t, err)
	}
	return job
}

func TestProductionEndToEnd(t *testing.T) {
	p := newPlatform(t)
	h := func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ N int }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		if in.N < 0 {
			return nil, fmt.Errorf("negative")
		}
		if err := job.Progress(map[string]int{"step": 1}); err != nil {
			return nil, err
		}
		return map[string]int{"square": in.N * in.N}, nil
	}
	stop := p.start(t, h, worker.WithConcurrency(3))
	var ids []string
	for i := range 6 {
		job, err := p.ep.Run(t.Context(), serverless.RunParams{Input: map[string]int{"n": i}})
		require.NoError(t, err)
		ids = append(ids, job.ID)
	}
	bad, err := p.ep.Run(t.Context(), serverless.RunParams{Input: map[string]int{"n": -1}})
	require.NoError(t, err)
	for i, id := range ids {
		job := p.wait(t, id)
		require.Equal(t, serverless.JobStatusCompleted, job.Status)
		assert.JSONEq(t, fmt.Sprintf(`{"square":%d}`, i*i), string(job.Output))
		assert.Equal(t, "worker-1", job.WorkerID)
		posts, progress := p.srv.JobResults("ep1", id)
		assert.Equal(t, 1, posts)
		assert.JSONEq(t, `{"step":1}`, string(progress), "progress arrived, before the result")
	}
	failed := p.wait(t, bad.ID)
	assert.Equal(t, serverless.JobStatusFailed, failed.Status)
	assert.Contains(t, failed.Error, `"error_message":"negative"`)

	out := stop()
	assert.Contains(t, out, `"requestId":`, "JSON log lines on the platform (RUNPOD_ENDPOINT_ID is set)")
	pings := p.srv.Pings()
	require.NotEmpty(t, pings, "the first heartbeat goes out at once")
	assert.Equal(t, "worker-1", pings[0].Worker)
	assert.Contains(t, pings[0].Version, "runpod-go/")
	for _, r := range p.srv.Requests() {
		if r.Route == runpodtest.RouteJobDone {
			assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
			assert.Equal(t, "raw", r.Auth, "the key as the raw Authorization value")
			assert.Equal(t, r.Path[len(r.Path)-len(r.Header.Get("X-Request-Id")):], r.Header.Get("X-Request-Id"), "X-Request-ID is this request's job")
			assert.Equal(t, "false", r.Query.Get("isStream"))
			assert.Equal(t, "NVIDIA L4", r.Query.Get("gpu"), "the platform's own parameters are kept")
		}
		if r.Route == runpodtest.RouteJobTake || r.Route == runpodtest.RouteJobTakeBatch {
			assert.Contains(t, []string{"0", "1"}, r.Query.Get("job_in_progress"))
		}
	}
	assert.Positive(t, p.srv.Count(runpodtest.RouteJobTakeBatch), "batch take with free slots > 1")
}

func TestProductionStreaming(t *testing.T) {
	p := newPlatform(t)
	h := func(ctx context.Context, job *worker.Job) (any, error) {
		for _, w := range []string{"alpha", "beta", "gamma"} {
			if err := job.Stream(map[string]string{"token": w}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	p.start(t, h, worker.WithAggregateStream())
	job, err := p.ep.Run(t.Context(), serverless.RunParams{Input: map[string]int{}})
	require.NoError(t, err)
	var tokens []string
	for chunk, err := range p.ep.Stream(t.Context(), job.ID) {
		require.NoError(t, err)
		var c struct{ Token string }
		require.NoError(t, json.Unmarshal(chunk.Output, &c))
		tokens = append(tokens, c.Token)
	}
	assert.Equal(t, []string{"alpha", "beta", "gamma"}, tokens)
	done := p.wait(t, job.ID)
	assert.JSONEq(t, `[{"token":"alpha"},{"token":"beta"},{"token":"gamma"}]`, string(done.Output), "aggregate stream")
	for _, r := range p.srv.Requests() {
		switch r.Route {
		case runpodtest.RouteJobStream:
			assert.Equal(t, "false", r.Query.Get("isStream"), "chunk posts carry isStream=false, as the platform expects")
		case runpodtest.RouteJobDone:
			assert.Equal(t, "true", r.Query.Get("isStream"))
		}
	}
}

// TestProductionUnderFaults: 5xx and dropped connections on job-done;
// every taken job's result is delivered, and applied exactly once.
func TestProductionUnderFaults(t *testing.T) {
	p := newPlatform(t)
	p.srv.FailNext(runpodtest.RouteJobDone, 2, runpodtest.Fault{Status: 503})
	p.srv.FailNext(runpodtest.RouteJobDone, 1, runpodtest.Fault{Drop: runpodtest.DropBefore})
	p.srv.FailNext(runpodtest.RouteJobDone, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	p.srv.FailNext(runpodtest.RouteJobTake, 1, runpodtest.Fault{Status: 500})
	var runs atomic.Int32
	p.start(t, func(ctx context.Context, job *worker.Job) (any, error) { runs.Add(1); return "ok", nil }, worker.WithConcurrency(2))
	var ids []string
	for range 4 {
		job, err := p.ep.Run(t.Context(), serverless.RunParams{Input: 1})
		require.NoError(t, err)
		ids = append(ids, job.ID)
	}
	for _, id := range ids {
		job := p.wait(t, id)
		assert.Equal(t, serverless.JobStatusCompleted, job.Status)
		posts, _ := p.srv.JobResults("ep1", id)
		assert.GreaterOrEqual(t, posts, 1)
	}
	assert.Equal(t, int32(4), runs.Load(), "each job ran once")
	assert.Equal(t, 4, p.srv.Acted(runpodtest.RouteJobDone)-dropAfterExtra(p.srv), "one applied result per job")
}

// dropAfterExtra counts results the fake received twice (the first post's
// answer was lost, so the worker posted again).
func dropAfterExtra(srv *runpodtest.Server) int {
	extra := 0
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteJobDone && r.Acted {
			if seen[r.Path] {
				extra++
			}
			seen[r.Path] = true
		}
	}
	return extra
}

// TestStopChannel: a job the platform cancels is stopped through the stop
// channel; its handler's context ends and no result is posted.
func TestStopChannel(t *testing.T) {
	p := newPlatform(t)
	started := make(chan struct{})
	sawCancel := make(chan struct{})
	stop := p.start(t, func(ctx context.Context, job *worker.Job) (any, error) {
		close(started)
		<-ctx.Done()
		close(sawCancel)
		return nil, ctx.Err()
	})
	job, err := p.ep.Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	<-started
	_, err = p.ep.Cancel(t.Context(), job.ID)
	require.NoError(t, err)
	select {
	case <-sawCancel:
	case <-time.After(worker.Guard):
		t.Fatal("the handler's context was never cancelled")
	}
	stop() // waits for the worker to finish everything it started
	posts, _ := p.srv.JobResults("ep1", job.ID)
	assert.Zero(t, posts, "no result for a stopped job")
	st, err := p.ep.Status(t.Context(), job.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCancelled, st.Status)
}

// TestDrainOnSignal: the first signal stops taking jobs and lets the
// running one finish and post its result; a second cancels what still
// runs.
func TestDrainOnSignal(t *testing.T) {
	p := newPlatform(t)
	started := make(chan string, 2)
	release := make(chan struct{})
	var cancelled atomic.Bool
	h := func(ctx context.Context, job *worker.Job) (any, error) {
		var in string
		_ = job.Decode(&in)
		started <- in
		if in == "stubborn" {
			<-ctx.Done()
			cancelled.Store(true)
			return nil, ctx.Err()
		}
		<-release
		return "finished", nil
	}
	sig := make(chan os.Signal, 2)
	done := make(chan error, 1)
	out := &worker.LineWatch{}
	go func() {
		done <- worker.RunWithSignals(context.Background(), h, sig, []worker.Option{worker.WithArgs(nil), worker.WithOutput(out), worker.WithConcurrency(2),
			worker.WithEnv(func(k string) string { return p.env[k] })})
	}()
	first, err := p.ep.Run(t.Context(), serverless.RunParams{Input: "graceful"})
	require.NoError(t, err)
	require.Equal(t, "graceful", <-started)
	sig <- os.Interrupt
	worker.WaitLine(t, out, "No longer taking jobs")
	later, err := p.ep.Run(t.Context(), serverless.RunParams{Input: "later"})
	require.NoError(t, err)
	close(release)
	job := p.wait(t, first.ID)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status, "the running job finished and its result was posted")
	require.NoError(t, <-done)
	st, err := p.ep.Status(t.Context(), later.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusInQueue, st.Status, "no job was taken after the signal")

	// A second signal cancels the jobs still running.
	p2 := newPlatform(t)
	done2 := make(chan error, 1)
	sig2 := make(chan os.Signal, 2)
	go func() {
		done2 <- worker.RunWithSignals(context.Background(), h, sig2, []worker.Option{worker.WithArgs(nil), worker.WithOutput(&testkit.Lines{}),
			worker.WithEnv(func(k string) string { return p2.env[k] })})
	}()
	_, err = p2.ep.Run(t.Context(), serverless.RunParams{Input: "stubborn"})
	require.NoError(t, err)
	require.Equal(t, "stubborn", <-started)
	sig2 <- os.Interrupt
	sig2 <- os.Interrupt
	require.NoError(t, <-done2)
	assert.True(t, cancelled.Load())
}

// TestRefreshWorker: with worker.WithRefreshWorker the loop ends by itself after
// its first job, whose result asks the platform to stop the pod.
func TestRefreshWorker(t *testing.T) {
	p := newPlatform(t)
	var runs atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(context.Background(), func(ctx context.Context, job *worker.Job) (any, error) { runs.Add(1); return "x", nil },
			worker.WithArgs(nil), worker.WithOutput(&testkit.Lines{}), worker.WithRefreshWorker(), worker.WithEnv(func(k string) string { return p.env[k] }))
	}()
	a, err := p.ep.Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	p.wait(t, a.ID)
	select {
	case err := <-done:
		require.NoError(t, err, "the worker stopped after its first job, without being asked")
	case <-time.After(15 * time.Second):
		t.Fatal("the worker kept running")
	}
	assert.Equal(t, int32(1), runs.Load())
	for _, r := range p.srv.Requests() {
		if r.Route == runpodtest.RouteJobDone {
			assert.JSONEq(t, `{"output":"x","stopPod":true}`, string(r.Body))
		}
	}
}

func TestProductionConfigErrors(t *testing.T) {
	env := map[string]string{"RUNPOD_WEBHOOK_GET_JOB": "http://127.0.0.1:1/v2/ep/job-take/$ID"}
	err := worker.Run(t.Context(), worker.Echo, worker.WithArgs(nil), worker.WithOutput(&bytes.Buffer{}), worker.WithEnv(func(k string) string { return env[k] }))
	var ee *worker.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "RUNPOD_WEBHOOK_POST_OUTPUT is not set")
	env["RUNPOD_WEBHOOK_POST_OUTPUT"] = "http://127.0.0.1:1/done/$ID"
	env["RUNPOD_PING_INTERVAL"] = "soon"
	err = worker.Run(t.Context(), worker.Echo, worker.WithArgs(nil), worker.WithOutput(&bytes.Buffer{}), worker.WithEnv(func(k string) string { return env[k] }))
	require.ErrorContains(t, err, "RUNPOD_PING_INTERVAL")
}
