package serverless_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

type echoIn struct {
	Prompt string `json:"prompt"`
	N      int    `json:"n"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// echo answers {"echo": prompt}, or fails when the prompt is "fail".
func echo(_ context.Context, job *worker.Job) (any, error) {
	var in echoIn
	if err := json.Unmarshal(job.Input, &in); err != nil {
		return nil, err
	}
	if in.Prompt == "fail" {
		return nil, errors.New("the model refused")
	}
	return echoOut{Echo: in.Prompt}, nil
}

func lastInference(srv *runpodtest.Server, route string) runpodtest.Request {
	var last runpodtest.Request
	for _, r := range srv.Requests() {
		if r.Route == route {
			last = r
		}
	}
	return last
}

func TestRunWireFormat(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", echo)
	job, err := rp.Serverless.Queue("ep1").Run(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "hi", N: 0}, Webhook: "https://example.com/hook", Policy: &serverless.Policy{ExecutionTimeout: 15 * time.Minute, TTL: 2 * time.Hour, LowPriority: true}, S3: &serverless.S3Config{AccessID: "AKIA", AccessSecret: "s3-secret-value", BucketName: "b", EndpointURL: "https://s3.example.com"}})
	require.NoError(t, err)
	assert.NotEmpty(t, job.ID)
	assert.Equal(t, serverless.JobStatusInQueue, job.Status)

	r := lastInference(srv, runpodtest.RouteRun)
	assert.Equal(t, "/v2/ep1/run", r.Path)
	assert.Equal(t, "[REDACTED]", r.Header.Get("Authorization"))
	assert.Equal(t, "bearer", r.Auth)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"input":{"prompt":"hi","n":0},"webhook":"https://example.com/hook",
		"policy":{"executionTimeout":900000,"lowPriority":true,"ttl":7200000},
		"s3Config":{"accessId":"AKIA","accessSecret":"s3-secret-value","bucketName":"b","endpointUrl":"https://s3.example.com"}}`, string(r.Body))
	s3 := serverless.S3Config{AccessSecret: "s3-secret-value"}
	for _, form := range []string{fmt.Sprint(s3), fmt.Sprintf("%+v", s3), fmt.Sprintf("%#v", s3), fmt.Sprintf("%+v", serverless.RunParams{S3: &s3})} {
		assert.NotContains(t, form, "s3-secret-value")
	}

	done, err := rp.Serverless.Queue("ep1").Wait(t.Context(), job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
	require.NoError(t, err)
	out, err := serverless.Output[echoOut](done)
	require.NoError(t, err)
	assert.Equal(t, "hi", out.Echo)
	assert.NotEmpty(t, done.WorkerID)
}

func TestRunSyncCompletes(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", echo)
	var statuses []serverless.JobStatus
	job, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: map[string]string{"prompt": "hello"}}, serverless.WaitOptions{Hold: 30 * time.Second, Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) { statuses = append(statuses, j.Status) }}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(job.ID, "sync-"))
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
	var out echoOut
	require.NoError(t, job.Decode(&out))
	assert.Equal(t, "hello", out.Echo)
	assert.Equal(t, []serverless.JobStatus{serverless.JobStatusCompleted}, statuses)
	assert.Equal(t, "wait=30000", lastInference(srv, runpodtest.RouteRunSync).RawQuery)
}

// untilReleased is a handler that returns "done" once release is closed.
func untilReleased(release <-chan struct{}) worker.Handler {
	return func(ctx context.Context, job *worker.Job) (any, error) {
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TestRunSyncLongPollsStatusSync: when the platform's hold ends with the
// job still running, RunSync long-polls status-sync, which answers the
// moment the job ends: no /status polling, one request after /runsync.
func TestRunSyncLongPollsStatusSync(t *testing.T) {
	srv, rp, _ := fake(t)
	release := make(chan struct{})
	srv.HandleQueue("slow", untilReleased(release))
	var statuses []serverless.JobStatus
	job, err := rp.Serverless.Queue("slow").RunSync(t.Context(), serverless.RunParams{Input: map[string]int{"x": 1}}, serverless.WaitOptions{Hold: time.Second, Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
		statuses = append(statuses, j.Status)
		if len(statuses) == 1 {
			close(release) // while status-sync holds
		}
	}}})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
	assert.JSONEq(t, `"done"`, string(job.Output))
	assert.Equal(t, []serverless.JobStatus{serverless.JobStatusInProgress, serverless.JobStatusCompleted}, statuses, "OnCheck saw each change")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRunSync), "submitted once")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteStatusSync), "one long poll")
	assert.Zero(t, srv.Count(runpodtest.RouteStatus), "no polling")
}

// TestWaitFallsBackToPolling: where status-sync is answered 404 (the route
// missing: /status still knows the job) or 405, the client polls /status,
// and remembers it: its later waits do not try status-sync again.
func TestWaitFallsBackToPolling(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv, rp, _ := fake(t)
			release := make(chan struct{})
			srv.HandleQueue("slow", untilReleased(release))
			srv.FailNext(runpodtest.RouteStatusSync, 1, runpodtest.Fault{Status: status})
			rt := rp.Serverless.Queue("slow")
			first, err := rt.Run(t.Context(), serverless.RunParams{Input: 1})
			require.NoError(t, err)
			var n int
			job, err := rt.Wait(t.Context(), first.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond,
				OnCheck: func(*serverless.Job) {
					if n++; n == 2 {
						close(release)
					}
				}}})
			require.NoError(t, err)
			assert.Equal(t, serverless.JobStatusCompleted, job.Status)
			assert.Equal(t, 1, srv.Count(runpodtest.RouteStatusSync), "tried once")
			assert.GreaterOrEqual(t, srv.Count(runpodtest.RouteStatus), 2, "then polled")

			second, err := rt.Run(t.Context(), serverless.RunParams{Input: 2})
			require.NoError(t, err)
			_, err = rp.Serverless.Queue("slow").Wait(t.Context(), second.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
			require.NoError(t, err)
			assert.Equal(t, 1, srv.Count(runpodtest.RouteStatusSync), "remembered for the client")
		})
	}
}

// TestWaitForAJobThatIsGone: /status 404s for a job the platform no
// longer knows: the wait ends with ErrNotFound, and status-sync is not
// written off for the client.
func TestWaitForAJobThatIsGone(t *testing.T) {
	srv, rp, _ := fake(t)
	release := make(chan struct{})
	srv.HandleQueue("ep1", untilReleased(release))
	rt := rp.Serverless.Queue("ep1")
	_, err := rt.Wait(t.Context(), "gone-u1", serverless.WaitOptions{})
	var we *serverless.WaitError
	require.ErrorAs(t, err, &we)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	assert.Equal(t, "gone-u1", we.JobID)
	job, err := rt.Run(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "x"}})
	require.NoError(t, err)
	_, err = rt.Wait(t.Context(), job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
		if !j.Status.Terminal() {
			select {
			case <-release:
			default:
				close(release)
			}
		}
	}}})
	require.NoError(t, err)
	assert.Positive(t, srv.Count(runpodtest.RouteStatusSync), "still long-polled after a missing job")
}

func TestFailedJobIsJobError(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", echo)
	_, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "fail"}}, serverless.WaitOptions{})
	var je *serverless.JobError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, serverless.JobStatusFailed, je.Status)
	assert.Equal(t, "the model refused", je.Message, "the worker's error_message")
	assert.Equal(t, "*errors.errorString", je.Type, "the worker's error_type")
	assert.Contains(t, je.Job.Error, `"error_message":"the model refused"`, "the whole text is kept")
	assert.NotEmpty(t, je.ID)
	assert.Equal(t, "runpod: job "+je.ID+" FAILED: the model refused", err.Error())

	// Public models answer a failure with HTTP 400 and the FAILED job.
	srv.FailNext(runpodtest.RouteRunSync, 1, runpodtest.Fault{Status: 400, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"id":"sync-123-u1","status":"FAILED","error":"invalid image URL"}`})
	job, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "x"}}, serverless.WaitOptions{})
	require.ErrorAs(t, err, &je)
	assert.Equal(t, "sync-123-u1", je.ID)
	assert.Equal(t, "invalid image URL", je.Message)
	assert.Equal(t, serverless.JobStatusFailed, job.Status)

	// Any other 400 stays an APIError.
	srv.FailNext(runpodtest.RouteRunSync, 1, runpodtest.Fault{Status: 400})
	_, err = rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "x"}}, serverless.WaitOptions{})
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
}

func TestWaitKeepsJobIDWhenContextEnds(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("slow", func(ctx context.Context, job *worker.Job) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	job, err := rp.Serverless.Queue("slow").Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = rp.Serverless.Queue("slow").Wait(ctx, job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
	var we *serverless.WaitError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, job.ID, we.JobID)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), job.ID)
}

func TestStatusAfterTTLIsNotFound(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	defer srv.Close()
	release := make(chan struct{})
	defer close(release)
	srv.HandleQueue("ep1", func(ctx context.Context, job *worker.Job) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	})
	rp, err := srv.NewClient()
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	job, err := rp.Serverless.Queue("ep1").Run(t.Context(), serverless.RunParams{Input: 1, Policy: &serverless.Policy{TTL: time.Minute}})
	require.NoError(t, err)
	_, err = rp.Serverless.Queue("ep1").Status(t.Context(), job.ID)
	require.NoError(t, err)
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	_, err = rp.Serverless.Queue("ep1").Status(t.Context(), job.ID)
	require.ErrorIs(t, err, errs.ErrNotFound, "deleted at its TTL, even while running")
}

func TestStream(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("stream", func(ctx context.Context, job *worker.Job) (any, error) {
		for i := range 5 {
			_ = job.Stream(map[string]int{"token": i})
		}
		return "end", nil
	})
	job, err := rp.Serverless.Queue("stream").Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	var got []int
	for chunk, err := range rp.Serverless.Queue("stream").Stream(t.Context(), job.ID) {
		require.NoError(t, err)
		var c struct{ Token int }
		require.NoError(t, json.Unmarshal(chunk.Output, &c))
		got = append(got, c.Token)
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4}, got)
}

// TestStreamStopsEarly: breaking out of the loop stops reading; the job
// goes on, and no goroutine is left behind (goleak checks at the end).
func TestStreamStopsEarly(t *testing.T) {
	srv, rp, _ := fake(t)
	proceed := make(chan struct{})
	srv.HandleQueue("stream", func(ctx context.Context, job *worker.Job) (any, error) {
		_ = job.Stream("first")
		select {
		case <-proceed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		_ = job.Stream("second")
		return "end", nil
	})
	rt := rp.Serverless.Queue("stream")
	job, err := rt.Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	n := 0
	for chunk, err := range rt.Stream(t.Context(), job.ID) {
		require.NoError(t, err)
		assert.JSONEq(t, `"first"`, string(chunk.Output))
		n++
		break
	}
	assert.Equal(t, 1, n)
	close(proceed)
	done, err := rt.Wait(t.Context(), job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, done.Status)
}

func TestStreamOfFailedJob(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("stream", func(ctx context.Context, job *worker.Job) (any, error) {
		_ = job.Stream("partial")
		return nil, errors.New("out of memory")
	})
	rt := rp.Serverless.Queue("stream")
	job, err := rt.Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	var chunks int
	var last error
	for _, err := range rt.Stream(t.Context(), job.ID) {
		if err != nil {
			last = err
			continue
		}
		chunks++
	}
	var je *serverless.JobError
	require.ErrorAs(t, last, &je)
	assert.Equal(t, "out of memory", je.Message)
	assert.LessOrEqual(t, chunks, 1)
}

func TestCancelRetryPurgeHealth(t *testing.T) {
	srv, rp, _ := fake(t)
	var attempts atomic.Int32
	block := make(chan struct{})
	srv.HandleQueue("ep1", func(ctx context.Context, job *worker.Job) (any, error) {
		var in string
		_ = json.Unmarshal(job.Input, &in)
		switch in {
		case "block":
			select {
			case <-block:
				return "unblocked", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case "flaky":
			if attempts.Add(1) == 1 {
				return nil, errors.New("transient")
			}
		}
		return "ok:" + in, nil
	}, runpodtest.WithWorkers(1))
	rt := rp.Serverless.Queue("ep1")
	ctx := t.Context()

	// A failed job is retried under the same id.
	_, err := rt.RunSync(ctx, serverless.RunParams{Input: "flaky"}, serverless.WaitOptions{})
	var je *serverless.JobError
	require.ErrorAs(t, err, &je)
	retried, err := rt.Retry(ctx, je.ID)
	require.NoError(t, err)
	assert.Equal(t, je.ID, retried.ID)
	assert.Equal(t, serverless.JobStatusInQueue, retried.Status)
	done, err := rt.Wait(ctx, je.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
	require.NoError(t, err)
	assert.JSONEq(t, `"ok:flaky"`, string(done.Output))
	_, err = rt.Retry(ctx, je.ID)
	require.Error(t, err, "only FAILED or TIMED_OUT jobs can be retried")

	// One worker: the first job blocks it, the rest queue.
	running, err := rt.Run(ctx, serverless.RunParams{Input: "block"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		j, err := rt.Status(ctx, running.ID)
		return err == nil && j.Status == serverless.JobStatusInProgress
	}, 5*time.Second, 5*time.Millisecond)
	var queued []string
	for range 3 {
		j, err := rt.Run(ctx, serverless.RunParams{Input: "later"})
		require.NoError(t, err)
		queued = append(queued, j.ID)
	}
	h, err := rt.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, h.Jobs.InQueue)
	assert.Equal(t, 1, h.Jobs.InProgress)
	assert.Equal(t, 1, h.Jobs.Completed)
	assert.Equal(t, 1, h.Jobs.Failed)
	assert.Equal(t, 1, h.Jobs.Retried)
	assert.Equal(t, 1, h.Workers["running"])

	cancelled, err := rt.Cancel(ctx, queued[0])
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCancelled, cancelled.Status)
	removed, err := rt.Purge(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, removed, "queued jobs only; the running one continues")

	cancelled, err = rt.Cancel(ctx, running.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCancelled, cancelled.Status)
	_, err = rt.Wait(ctx, running.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
	require.ErrorAs(t, err, &je)
	assert.Equal(t, serverless.JobStatusCancelled, je.Status)
	close(block)
}

// TestSubmissionsNeverTwice: under injected faults /run and /runsync are
// sent once, and the caller learns the outcome is unknown.
func TestSubmissionsNeverTwice(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", echo)
	rt := rp.Serverless.Queue("ep1")
	for _, route := range []string{runpodtest.RouteRun, runpodtest.RouteRunSync} {
		for _, f := range []runpodtest.Fault{{Drop: runpodtest.DropAfter}, {Drop: runpodtest.DropBefore}, {Status: 502}, {Status: 500}} {
			before, acted := srv.Count(route), srv.Acted(route)
			srv.FailNext(route, 1, f)
			var err error
			if route == runpodtest.RouteRun {
				_, err = rt.Run(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "x"}})
			} else {
				_, err = rt.RunSync(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "x"}}, serverless.WaitOptions{})
			}
			require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "%s %+v", route, f)
			assert.Equal(t, before+1, srv.Count(route), "%s sent once under %+v", route, f)
			if f.Drop == runpodtest.DropAfter {
				assert.Equal(t, acted+1, srv.Acted(route), "the job was submitted, once")
			} else {
				assert.Equal(t, acted, srv.Acted(route))
			}
		}
	}
	srv.FailNext(runpodtest.RouteStatus, 2, runpodtest.Fault{Status: 503})
	job, err := rt.Run(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "y"}})
	require.NoError(t, err)
	_, err = rt.Wait(t.Context(), job.ID, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 5 * time.Millisecond}})
	require.NoError(t, err, "status reads are retried")
}

func TestRuntimeValidation(t *testing.T) {
	srv, rp, _ := fake(t)
	rt := rp.Serverless.Queue("ep1")
	ctx := t.Context()
	check := func(field string, err error) {
		t.Helper()
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, field, ve.Field)
	}
	_, err := rt.Run(ctx, serverless.RunParams{Input: nil})
	check("RunParams.Input", err)
	_, err = rt.Run(ctx, serverless.RunParams{Input: func() {}})
	check("RunParams.Input", err)
	_, err = rt.Run(ctx, serverless.RunParams{Input: 1, Webhook: "ftp://x"})
	check("RunParams.Webhook", err)
	_, err = rt.Run(ctx, serverless.RunParams{Input: 1, Policy: &serverless.Policy{ExecutionTimeout: time.Second}})
	check("Policy.ExecutionTimeout", err)
	_, err = rt.Run(ctx, serverless.RunParams{Input: 1, Policy: &serverless.Policy{TTL: 8 * 24 * time.Hour}})
	check("Policy.TTL", err)
	_, err = rt.RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{Hold: 301 * time.Second})
	check("WaitOptions.Hold", err)
	_, err = rt.Wait(ctx, "job-1", serverless.WaitOptions{Hold: 500 * time.Millisecond})
	check("WaitOptions.Hold", err)
	_, err = rt.Status(ctx, "")
	check("jobID", err)
	_, err = rt.Cancel(ctx, " ")
	check("jobID", err)
	_, err = rp.Serverless.Queue("").Run(ctx, serverless.RunParams{Input: 1})
	check("endpoint id", err)
	for _, err := range rt.Stream(ctx, "") {
		check("jobID", err)
	}
	assert.Zero(t, srv.Count("*"))
}

func TestJobStatusDecoding(t *testing.T) {
	var j serverless.Job
	require.NoError(t, json.Unmarshal([]byte(`{"id":"a","status":"PAUSED","delayTime":824,"executionTime":3391,"workerId":"w","output":[1,2],"error":{"code":7}}`), &j))
	assert.Equal(t, serverless.JobStatus("PAUSED"), j.Status)
	assert.False(t, j.Status.Terminal())
	assert.Equal(t, 824*time.Millisecond, j.DelayTime)
	assert.Equal(t, 3391*time.Millisecond, j.ExecutionTime)
	assert.Equal(t, `{"code":7}`, j.Error)
	out, err := serverless.Output[[]int](&j)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2}, out)
	for _, s := range []serverless.JobStatus{serverless.JobStatusCompleted, serverless.JobStatusFailed, serverless.JobStatusCancelled, serverless.JobStatusTimedOut} {
		assert.True(t, s.Terminal())
	}
	_, err = serverless.Output[int](&serverless.Job{ID: "x"})
	require.Error(t, err)
}

func TestWebhookDelivery(t *testing.T) {
	var mu sync.Mutex
	var received []*serverless.Job
	calls := 0
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the platform tries again
			return
		}
		job, err := serverless.ReadWebhook(w, r, 0)
		if !assert.NoError(t, err) {
			http.Error(w, err.Error(), 400)
			return
		}
		received = append(received, job)
	}))
	defer receiver.Close()

	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithWebhookRetryDelay(10*time.Millisecond))
	defer srv.Close()
	srv.HandleQueue("ep1", echo)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	job, err := rp.Serverless.Queue("ep1").Run(t.Context(), serverless.RunParams{Input: echoIn{Prompt: "hook"}, Webhook: receiver.URL + "/done"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(received) == 1 }, 5*time.Second, 5*time.Millisecond)
	mu.Lock()
	got := received[0]
	mu.Unlock()
	assert.Equal(t, job.ID, got.ID)
	assert.Equal(t, serverless.JobStatusCompleted, got.Status)
	assert.JSONEq(t, `{"echo":"hook"}`, string(got.Output))
	require.Eventually(t, func() bool { return len(srv.WebhookDeliveries()) == 2 }, 5*time.Second, 5*time.Millisecond,
		"the fake records an attempt once the receiver has answered")
	deliveries := srv.WebhookDeliveries()
	assert.Equal(t, 503, deliveries[0].Status)
	assert.Equal(t, 200, deliveries[1].Status)
	assert.Equal(t, 2, deliveries[1].Attempt)
}

func TestReadWebhookRejects(t *testing.T) {
	cases := map[string]*http.Request{
		"method":   httptest.NewRequest("GET", "/hook", nil),
		"not json": httptest.NewRequest("POST", "/hook", strings.NewReader("<xml/>")),
		"no id":    httptest.NewRequest("POST", "/hook", strings.NewReader(`{"status":"COMPLETED"}`)),
		"too big":  httptest.NewRequest("POST", "/hook", strings.NewReader(`{"id":"a","status":"COMPLETED","output":"`+strings.Repeat("x", 2000)+`"}`)),
	}
	for name, r := range cases {
		_, err := serverless.ReadWebhook(httptest.NewRecorder(), r, 1000)
		require.Error(t, err, name)
	}
	job, err := serverless.ReadWebhook(httptest.NewRecorder(), httptest.NewRequest("POST", "/hook", strings.NewReader(`{"id":"a","status":"FAILED","error":"boom"}`)), 0)
	require.NoError(t, err)
	assert.Equal(t, "boom", job.Error)
	_ = testkit.Leak
}
