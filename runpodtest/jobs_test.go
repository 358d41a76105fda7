package runpodtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// call sends a raw request with the key as the platform's curl examples
// send it (the raw Authorization value, no "Bearer"), and decodes the
// JSON answer.
func call(t *testing.T, srv *runpodtest.Server, method, path, body string) (*http.Response, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, srv.InferenceURL+path, r)
	require.NoError(t, err)
	req.Header.Set("Authorization", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &m)
	return resp, m
}

// blocking is a handler that runs until released.
func blocking(release <-chan struct{}) worker.Handler {
	return func(ctx context.Context, job *worker.Job) (any, error) {
		select {
		case <-release:
			return map[string]string{"done": "yes"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TestJavaScriptSDKSequence drives the fake request for request as the
// platform's official JavaScript SDK (runpod-sdk 1.1) does: POST /runsync
// with a wait, and when the job is still running, GET
// /status-sync/{job}?wait= until it ends; the key is the raw
// Authorization value.
func TestJavaScriptSDKSequence(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	srv.HandleQueue("ep", blocking(release))

	resp, m := call(t, srv, "POST", "/v2/ep/runsync?wait=1000", `{"input":{"prompt":"hi"}}`)
	require.Equal(t, 200, resp.StatusCode, m)
	assert.Equal(t, "IN_PROGRESS", m["status"], "the wait ended before the job")
	id := m["id"].(string)

	resp, m = call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=1", "")
	require.Equal(t, 200, resp.StatusCode, m)
	assert.Equal(t, "IN_PROGRESS", m["status"], "still running when the wait ends")

	var wg sync.WaitGroup
	wg.Go(func() {
		resp, m = call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=300000", "")
	})
	for srv.Count(runpodtest.RouteStatusSync) < 2 {
		time.Sleep(time.Millisecond) // the second long poll has arrived
	}
	close(release)
	wg.Wait()
	require.Equal(t, 200, resp.StatusCode, m)
	assert.Equal(t, "COMPLETED", m["status"], "answered as the job ended")
	assert.Equal(t, map[string]any{"done": "yes"}, m["output"])
	assert.Equal(t, id, m["id"])

	_, m = call(t, srv, "POST", "/v2/ep/status-sync/"+id, "")
	assert.Equal(t, "COMPLETED", m["status"], "POST works too; a finished job answers at once")
	resp, _ = call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=0", "")
	assert.Equal(t, 400, resp.StatusCode, "wait is 1 ms to 300 s")
	resp, _ = call(t, srv, "GET", "/v2/ep/status-sync/unknown-u1?wait=1", "")
	assert.Equal(t, 404, resp.StatusCode)
}

// TestJobAPIMethods: status, status-sync and stream take GET and POST; a
// known route with another method is 405 with Allow, on the job API and
// on the REST API; an unknown path is 404.
func TestJobAPIMethods(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) { return "ok", nil })
	_, m := call(t, srv, "POST", "/v2/ep/runsync", `{"input":1}`)
	id := m["id"].(string)
	for _, method := range []string{"GET", "POST"} {
		for _, path := range []string{"/status/", "/stream/", "/status-sync/"} {
			resp, m := call(t, srv, method, "/v2/ep"+path+id, "")
			assert.Equal(t, 200, resp.StatusCode, method+" "+path)
			assert.Equal(t, "COMPLETED", m["status"], method+" "+path)
		}
	}
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/v2/ep/status/" + id, "GET, POST"},
		{"DELETE", "/v2/ep/stream/" + id, "GET, POST"},
		{"GET", "/v2/ep/run", "POST"},
		{"GET", "/v2/ep/cancel/" + id, "POST"},
		{"POST", "/v2/ep/health", "GET"},
	} {
		resp, m := call(t, srv, tc.method, tc.path, "")
		assert.Equal(t, 405, resp.StatusCode, tc.method+" "+tc.path)
		assert.Equal(t, tc.allow, resp.Header.Get("Allow"), tc.method+" "+tc.path)
		assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
		assert.Contains(t, m["detail"], tc.method)
	}
	resp, _ := call(t, srv, "GET", "/v2/ep/nowhere/x", "")
	assert.Equal(t, 404, resp.StatusCode)

	req, err := http.NewRequestWithContext(t.Context(), "DELETE", srv.URL+"/v2/billing", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	r, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = r.Body.Close()
	assert.Equal(t, 405, r.StatusCode, "the REST API too")
	assert.Equal(t, "GET", r.Header.Get("Allow"))
}

// TestHealthShape: /health has every job counter and every worker state
// the platform's clients read.
func TestHealthShape(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	defer close(release)
	srv.HandleQueue("ep", blocking(release), runpodtest.WithWorkers(2))
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":1}`)
	running := m["id"].(string)
	require.Eventually(t, func() bool {
		_, m := call(t, srv, "GET", "/v2/ep/status/"+running, "")
		return m["status"] == "IN_PROGRESS"
	}, 10*time.Second, time.Millisecond)
	resp, m := call(t, srv, "GET", "/v2/ep/health", "")
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, map[string]any{"completed": 0.0, "failed": 0.0, "inProgress": 1.0, "inQueue": 0.0, "retried": 0.0}, m["jobs"])
	assert.Equal(t, map[string]any{"idle": 1.0, "initializing": 0.0, "ready": 1.0, "running": 1.0, "throttled": 0.0, "unhealthy": 0.0}, m["workers"])
}

// TestHandlerProgressAndRefresh: a worker.Handler backs a fake endpoint as
// a deployed worker would: its progress shows as the output on /status
// while it runs, and a job that asks for a refresh retires its worker (the
// next job runs on a fresh one).
func TestHandlerProgressAndRefresh(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		var in string
		_ = job.Decode(&in)
		if in == "refresh" {
			job.RefreshWorker()
			return "bye", nil
		}
		_ = job.Progress(map[string]int{"percent": 40})
		<-release
		return "done", nil
	})
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":"work"}`)
	id := m["id"].(string)
	require.Eventually(t, func() bool {
		_, m = call(t, srv, "GET", "/v2/ep/status/"+id, "")
		return m["output"] != nil
	}, 10*time.Second, time.Millisecond)
	assert.Equal(t, "IN_PROGRESS", m["status"])
	assert.Equal(t, map[string]any{"percent": 40.0}, m["output"], "progress while it runs")
	close(release)
	_, m = call(t, srv, "POST", "/v2/ep/status-sync/"+id+"?wait=300000", "")
	assert.Equal(t, "done", m["output"], "the result replaces the progress")

	_, first := call(t, srv, "POST", "/v2/ep/runsync", `{"input":"refresh"}`)
	assert.Equal(t, "COMPLETED", first["status"])
	_, next := call(t, srv, "POST", "/v2/ep/runsync", `{"input":"refresh"}`)
	assert.Equal(t, "COMPLETED", next["status"])
	assert.NotEqual(t, first["workerId"], next["workerId"], "the refreshed worker was replaced")
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestWorkerQueuePlatformRules: on a queue run by external workers, a job
// past its execution timeout is TIMED_OUT and its worker told to stop
// (its late result ignored); a job not taken within its TTL is never
// handed out; a worker whose result asks for a refresh gets no more jobs.
func TestWorkerQueuePlatformRules(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := newServer(t, runpodtest.WithClock(clock.Now), runpodtest.WithWorkerLongPoll(time.Millisecond))
	srv.HandleWorkerQueue("ep")

	// Execution timeout.
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":"long","policy":{"executionTimeout":5000}}`)
	long := m["id"].(string)
	resp, taken := call(t, srv, "GET", "/v2/ep/job-take/w1", "")
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, long, taken["id"])
	_, _ = call(t, srv, "POST", "/v2/ep/job-done/w1/"+long, `{"status":"IN_PROGRESS","output":{"step":1}}`)
	_, m = call(t, srv, "GET", "/v2/ep/status/"+long, "")
	assert.Equal(t, map[string]any{"step": 1.0}, m["output"], "progress a worker posts shows on /status")
	clock.Add(5 * time.Second)
	_, m = call(t, srv, "GET", "/v2/ep/status/"+long, "")
	assert.Equal(t, "TIMED_OUT", m["status"], "at its execution timeout")
	_, stops := call(t, srv, "GET", "/v2/ep/job-stop/w1", "")
	assert.Equal(t, []any{long}, stops["jobsToStop"], "its worker is told to stop it")
	resp, _ = call(t, srv, "GET", "/v2/ep/job-stop/w1", "")
	assert.Equal(t, 204, resp.StatusCode, "once")
	_, _ = call(t, srv, "POST", "/v2/ep/job-done/w1/"+long, `{"output":"late"}`)
	_, m = call(t, srv, "GET", "/v2/ep/status/"+long, "")
	assert.Equal(t, "TIMED_OUT", m["status"], "a late result changes nothing")
	_, m = call(t, srv, "GET", "/v2/ep/health", "")
	assert.Equal(t, 1.0, m["jobs"].(map[string]any)["failed"])

	// TTL: never handed out once it passed.
	_, m = call(t, srv, "POST", "/v2/ep/run", `{"input":"stale","policy":{"ttl":10000}}`)
	stale := m["id"].(string)
	clock.Add(10 * time.Second)
	resp, _ = call(t, srv, "GET", "/v2/ep/job-take/w1", "")
	assert.Equal(t, 204, resp.StatusCode, "the expired job is not handed out")
	resp, _ = call(t, srv, "GET", "/v2/ep/status/"+stale, "")
	assert.Equal(t, 404, resp.StatusCode, "it is gone")

	// Refresh: the worker that asked to be replaced gets no more jobs.
	_, m = call(t, srv, "POST", "/v2/ep/run", `{"input":"a"}`)
	a := m["id"].(string)
	_, taken = call(t, srv, "GET", "/v2/ep/job-take/w2", "")
	require.Equal(t, a, taken["id"])
	_, _ = call(t, srv, "POST", "/v2/ep/job-done/w2/"+a, `{"output":"x","stopPod":true}`)
	_, m = call(t, srv, "POST", "/v2/ep/run", `{"input":"b"}`)
	b := m["id"].(string)
	resp, _ = call(t, srv, "GET", "/v2/ep/job-take/w2", "")
	assert.Equal(t, 204, resp.StatusCode, "a retired worker is handed nothing")
	_, taken = call(t, srv, "GET", "/v2/ep/job-take/w3", "")
	assert.Equal(t, b, taken["id"], "a fresh worker takes it")
}

// TestInProcessExecutionTimeout: a handler's context ends at its job's
// execution timeout, and the job is TIMED_OUT.
func TestInProcessExecutionTimeout(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := newServer(t, runpodtest.WithClock(clock.Now))
	stopped := make(chan struct{})
	started := make(chan struct{})
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	})
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":1,"policy":{"executionTimeout":5000}}`)
	id := m["id"].(string)
	<-started
	clock.Add(5 * time.Second)
	_, m = call(t, srv, "GET", "/v2/ep/status/"+id, "")
	assert.Equal(t, "TIMED_OUT", m["status"])
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not stopped")
	}
}

// TestQueueHandledAnew: handling an endpoint again replaces its queue; the
// old queue's workers stop (they used to spin on the closed queue), the
// job one of them was running has its ctx ended, and the new handler
// serves the endpoint.
func TestQueueHandledAnew(t *testing.T) {
	srv := newServer(t)
	started, stopped := make(chan struct{}), make(chan struct{})
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return "old", nil
	})
	_, _ = call(t, srv, "POST", "/v2/ep/run", `{"input":1}`)
	<-started
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) { return "new", nil })
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the old queue's job was not stopped")
	}
	_, m := call(t, srv, "POST", "/v2/ep/runsync", `{"input":1}`)
	assert.Equal(t, "new", m["output"])
}

// TestHandlerCancelled: /cancel ends the running handler's ctx (its worker
// is told on job-stop, as on the platform); the job stays CANCELLED, as a
// stopped job's worker posts no result, and the worker takes the next job.
func TestHandlerCancelled(t *testing.T) {
	srv := newServer(t)
	started, stopped := make(chan struct{}, 1), make(chan struct{}, 1)
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		var in string
		_ = job.Decode(&in)
		if in != "block" {
			return "next", nil
		}
		started <- struct{}{}
		<-ctx.Done()
		stopped <- struct{}{}
		return "too late", nil
	})
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":"block"}`)
	id := m["id"].(string)
	<-started
	_, m = call(t, srv, "POST", "/v2/ep/cancel/"+id, "")
	assert.Equal(t, "CANCELLED", m["status"])
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not stopped")
	}
	_, m = call(t, srv, "POST", "/v2/ep/runsync", `{"input":"x"}`)
	assert.Equal(t, "next", m["output"], "the worker goes on")
	_, m = call(t, srv, "GET", "/v2/ep/status/"+id, "")
	assert.Equal(t, "CANCELLED", m["status"])
	assert.Nil(t, m["output"], "no result was posted for the stopped job")
}

// TestCloseStopsHandlers: closing the server ends the ctx of the handlers
// still running, and returns once their workers have stopped.
func TestCloseStopsHandlers(t *testing.T) {
	srv := runpodtest.NewServer()
	started := make(chan struct{}, 2)
	var stopped sync.WaitGroup
	stopped.Add(2)
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		defer stopped.Done()
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}, runpodtest.WithWorkers(2))
	for range 2 {
		_, _ = call(t, srv, "POST", "/v2/ep/run", `{"input":1}`)
	}
	<-started
	<-started
	srv.Close()
	http.DefaultClient.CloseIdleConnections()
	stopped.Wait() // would hang if a handler's ctx had not ended
}

// TestHandlerRunsInTheWorkerRuntime: the handler runs in the worker
// runtime's production loop, and the job is what it posts: a failure is
// the runtime's error object, naming the worker; a streaming handler that
// returns nothing ends with an empty output, its chunks on /stream. The
// workers' own requests reach neither the request log nor the test's
// injected faults.
func TestHandlerRunsInTheWorkerRuntime(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		var in string
		_ = job.Decode(&in)
		if in == "fail" {
			return nil, errors.New("boom")
		}
		_ = job.Stream("a")
		_ = job.Stream("b")
		return nil, nil
	})
	srv.FailNext(runpodtest.RouteJobDone, 5, runpodtest.Fault{Status: 500})
	srv.FailNext(runpodtest.RouteJobTake, 5, runpodtest.Fault{Status: 500})

	_, m := call(t, srv, "POST", "/v2/ep/runsync", `{"input":"fail"}`)
	assert.Equal(t, "FAILED", m["status"])
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(m["error"].(string)), &e), "the error is a JSON object in a string")
	assert.Equal(t, "boom", e["error_message"])
	assert.Equal(t, "ep-worker-1", e["worker_id"])
	assert.Equal(t, "ep-worker-1", m["workerId"])

	_, m = call(t, srv, "POST", "/v2/ep/runsync", `{"input":"stream"}`)
	assert.Equal(t, "COMPLETED", m["status"])
	assert.Equal(t, []any{}, m["output"])
	_, m = call(t, srv, "POST", "/v2/ep/stream/"+m["id"].(string), "")
	assert.Equal(t, []any{map[string]any{"output": "a"}, map[string]any{"output": "b"}}, m["stream"])

	assert.Zero(t, srv.Count(runpodtest.RouteJobTake)+srv.Count(runpodtest.RouteJobDone)+srv.Count(runpodtest.RouteJobStream)+srv.Count(runpodtest.RouteJobStop))
	for _, r := range srv.Requests() {
		assert.NotContains(t, r.Path, "/job-", "only the test's requests are logged")
	}
	assert.Empty(t, srv.Pings())
}
