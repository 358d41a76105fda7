package worker

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	runpod "github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

// sdkQueue returns the SDK's handle of endpoint id on the local server at
// base, as a user points it there: WithInferenceURL and any API key.
func sdkQueue(t *testing.T, base, id string) *serverless.Queue {
	t.Helper()
	// NewClient reads these; the local server must work whatever they say,
	// and a test must not depend on the shell's.
	for _, name := range []string{option.EnvAPIKey, option.EnvBaseURL, option.EnvInferenceURL, option.EnvProxyHost} {
		t.Setenv(name, "")
	}
	rp, err := runpod.NewClient(option.WithInferenceURL(base), option.WithAPIKey("local"))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return rp.Serverless.Queue(id)
}

// sawRequests records each request the local server answers: the route
// it matched, its path, its Authorization header and whether it asked for
// a hold (wait=).
type sawRequests struct {
	mu    sync.Mutex
	seen  []string
	paths []string
}

func (s *sawRequests) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r) // the mux sets r.Pattern
		line := r.Pattern + " auth=" + r.Header.Get("Authorization")
		if r.URL.Query().Has("wait") {
			line += " wait"
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.seen = append(s.seen, line)
		s.paths = append(s.paths, r.URL.Path)
	})
}

func (s *sawRequests) lines() (lines, paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...), append([]string(nil), s.paths...)
}

// TestSDKRunsJobsOnLocalServer: the SDK's serverless.Queue, pointed at the
// local server with WithInferenceURL, runs jobs there as on the platform:
// RunSync answers the handler's output, Run then Status or Wait reads the
// job, and the rest of the job API answers in the platform's shapes.
func TestSDKRunsJobsOnLocalServer(t *testing.T) {
	var saw sawRequests
	base := serve(t, echo, nil, withHooks(&hooks{handler: saw.wrap}))
	q := sdkQueue(t, base, "local")
	ctx := t.Context()

	job, err := q.RunSync(ctx, serverless.RunParams{Input: map[string]any{"prompt": "hello", "times": 2}}, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
	assert.JSONEq(t, `{"echo":"hello","times":2}`, string(job.Output))
	assert.True(t, strings.HasPrefix(job.ID, "test-"), job.ID)

	_, err = q.RunSync(ctx, serverless.RunParams{Input: map[string]any{"prompt": "fail"}}, serverless.WaitOptions{})
	var je *serverless.JobError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, serverless.JobStatusFailed, je.Status)
	assert.Contains(t, je.Message, "asked to fail")

	// Run queues; Status runs the queued job and reads its result.
	job, err = q.Run(ctx, serverless.RunParams{Input: map[string]any{"prompt": "queued"}})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusInQueue, job.Status)
	got, err := q.Status(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, got.Status)
	assert.JSONEq(t, `{"echo":"queued","times":0}`, string(got.Output))
	got, err = q.Status(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, got.Status, "the result is kept")

	// Run then Wait (the job is done by then: Wait reads /status once and
	// needs no status-sync; TestSDKRunSyncHold follows a running job).
	job, err = q.Run(ctx, serverless.RunParams{Input: map[string]any{"prompt": "waited"}})
	require.NoError(t, err)
	got, err = q.Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, got.Status)
	assert.JSONEq(t, `{"echo":"waited","times":0}`, string(got.Output))

	_, err = q.Status(ctx, "test-unknown")
	assert.ErrorIs(t, err, errs.ErrNotFound)

	// Cancel and Purge act on queued jobs; Health counts them.
	a, err := q.Run(ctx, serverless.RunParams{Input: map[string]any{"prompt": "a"}})
	require.NoError(t, err)
	_, err = q.Run(ctx, serverless.RunParams{Input: map[string]any{"prompt": "b"}})
	require.NoError(t, err)
	_, err = q.Run(ctx, serverless.RunParams{Input: map[string]any{"prompt": "c"}})
	require.NoError(t, err)
	h, err := q.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, h.Jobs.InQueue)
	assert.Equal(t, 1, h.Workers["idle"])
	cancelled, err := q.Cancel(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCancelled, cancelled.Status)
	removed, err := q.Purge(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, removed)
	h, err = q.Health(ctx)
	require.NoError(t, err)
	assert.Zero(t, h.Jobs.InQueue)
	assert.Equal(t, 3, h.Jobs.Completed)
	assert.Equal(t, 1, h.Jobs.Failed)

	// The local server cannot retry (it forgets inputs), and says so.
	_, err = q.Retry(ctx, job.ID)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotImplemented, apiErr.StatusCode)

	// What the SDK sent: its routes under /v2/local/ and its Bearer key,
	// taken as they are.
	lines, paths := saw.lines()
	for _, route := range []string{"POST /v2/{endpoint}/runsync", "POST /v2/{endpoint}/run", "GET /v2/{endpoint}/status/{id}",
		"POST /v2/{endpoint}/cancel/{id}",
		"POST /v2/{endpoint}/purge-queue", "GET /v2/{endpoint}/health", "POST /v2/{endpoint}/retry/{id}"} {
		if !strings.Contains(route, "auth=") {
			route += " auth=Bearer local"
		}
		assert.Contains(t, lines, route)
	}
	for _, p := range paths {
		assert.True(t, strings.HasPrefix(p, "/v2/local/"), p)
	}
}

// TestSDKRunSyncHold: a RunSync that asks for a hold (?wait=, as the SDK
// does when its context has a deadline, or for WaitOptions.Hold) is
// answered with the job still running once the hold passes, as the
// platform answers it; the SDK then follows the job with status-sync to its
// result, which the local server kept.
func TestSDKRunSyncHold(t *testing.T) {
	release := make(chan struct{})
	h := func(ctx context.Context, job *Job) (any, error) {
		select {
		case <-release:
			return "released", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var saw sawRequests
	base := serve(t, h, nil, withHooks(&hooks{handler: saw.wrap}))
	q := sdkQueue(t, base, "ep-hold")

	var once sync.Once
	var statuses []serverless.JobStatus // OnCheck runs on the calling goroutine
	o := serverless.WaitOptions{Hold: time.Second, Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
		statuses = append(statuses, j.Status)
		if j.Status == serverless.JobStatusInProgress {
			once.Do(func() { close(release) })
		}
	}}}
	job, err := q.RunSync(t.Context(), serverless.RunParams{Input: "x"}, o)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
	assert.Equal(t, `"released"`, string(job.Output))
	require.NotEmpty(t, statuses)
	assert.Equal(t, serverless.JobStatusInProgress, statuses[0], "the runsync hold passed with the job running")
	lines, paths := saw.lines()
	assert.Contains(t, lines, "POST /v2/{endpoint}/runsync auth=Bearer local wait")
	assert.Contains(t, paths, "/v2/ep-hold/runsync")
}
