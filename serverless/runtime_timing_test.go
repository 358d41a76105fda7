package serverless_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/serverless"
)

// jobScript answers /runsync with IN_QUEUE and then /status with the
// given statuses in turn (raw wire JSON), recording when each call came.
type jobScript struct {
	mu       sync.Mutex
	statuses []string
	paths    []string
	queries  []string
	at       []time.Time
}

func (s *jobScript) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	s.queries = append(s.queries, r.URL.RawQuery)
	s.at = append(s.at, time.Now())
	body := `{"id":"sync-1-u1","status":"IN_QUEUE"}`
	if strings.Contains(r.URL.Path, "/status/") {
		st := s.statuses[0]
		if len(s.statuses) > 1 {
			s.statuses = s.statuses[1:]
		}
		body = `{"id":"sync-1-u1","status":"` + st + `","delayTime":1200,"executionTime":300,"workerId":"w1"`
		if st == "COMPLETED" {
			body += `,"output":{"ok":true}`
		}
		body += `}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// TestRunSyncPollingCadence: after the platform's wait, RunSync polls
// every PollInterval and reports each status.
func TestRunSyncPollingCadence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &jobScript{statuses: []string{"IN_QUEUE", "IN_PROGRESS", "IN_PROGRESS", "COMPLETED"}}
		rp := scriptedClient(t, rt)
		var seen []serverless.JobStatus
		start := time.Now()
		job, err := rp.Serverless.Endpoint("ep1").RunSync(t.Context(), map[string]int{"a": 1}, serverless.RunOptions{
			PollInterval: 2 * time.Second, OnStatus: func(j *serverless.Job) { seen = append(seen, j.Status) }})
		require.NoError(t, err)
		assert.Equal(t, serverless.Completed, job.Status)
		assert.Equal(t, 1200*time.Millisecond, job.DelayTime)
		assert.Equal(t, []serverless.JobStatus{"IN_QUEUE", "IN_QUEUE", "IN_PROGRESS", "IN_PROGRESS", "COMPLETED"}, seen)
		assert.Equal(t, "POST /v2/ep1/runsync", rt.paths[0])
		for i := 1; i < len(rt.at); i++ {
			assert.Equal(t, "GET /v2/ep1/status/sync-1-u1", rt.paths[i])
			assert.Equal(t, 2*time.Second, rt.at[i].Sub(rt.at[i-1]))
		}
		assert.Equal(t, 8*time.Second, time.Since(start))
	})
}

// TestRunSyncContextEndKeepsID: when ctx ends mid-wait, the error carries
// the job id, at the moment ctx ended.
func TestRunSyncContextEndKeepsID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &jobScript{statuses: []string{"IN_PROGRESS"}}
		rp := scriptedClient(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 7*time.Second)
		defer cancel()
		start := time.Now()
		_, err := rp.Serverless.Endpoint("ep1").RunSync(ctx, 1, serverless.RunOptions{PollInterval: 3 * time.Second})
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, "sync-1-u1", we.JobID)
		assert.Equal(t, serverless.InProgress, we.LastStatus)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 7*time.Second, time.Since(start))
	})
}

// TestDefaultPollInterval: one second when not set.
func TestDefaultPollInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &jobScript{statuses: []string{"IN_PROGRESS", "COMPLETED"}}
		rp := scriptedClient(t, rt)
		start := time.Now()
		_, err := rp.Serverless.Endpoint("ep1").Wait(t.Context(), "sync-1-u1", serverless.RunOptions{})
		require.NoError(t, err)
		assert.Equal(t, time.Second, time.Since(start), "first read at once, the second a second later")
	})
}

// TestRunSyncHoldFitsTheContext: the hold asked of the platform is cut to
// what the context leaves, less a margin, so the platform answers with the
// job's id before the context ends; with under a second to spare the job
// goes through /run, and the id is still returned in the WaitError.
func TestRunSyncHoldFitsTheContext(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		wait    time.Duration
		first   string
		query   string
	}{
		{"no deadline, platform default", 0, 0, "POST /v2/ep1/runsync", ""},
		{"long deadline keeps the default", 5 * time.Minute, 0, "POST /v2/ep1/runsync", ""},
		{"long deadline keeps the asked wait", 5 * time.Minute, 30 * time.Second, "POST /v2/ep1/runsync", "wait=30000"},
		{"10s deadline", 10 * time.Second, 0, "POST /v2/ep1/runsync", "wait=8000"},
		{"10s deadline, 60s asked", 10 * time.Second, time.Minute, "POST /v2/ep1/runsync", "wait=8000"},
		{"3s deadline", 3 * time.Second, 0, "POST /v2/ep1/runsync", "wait=2400"},
		{"1.2s deadline goes through /run", 1200 * time.Millisecond, 0, "POST /v2/ep1/run", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &jobScript{statuses: []string{"IN_PROGRESS"}}
				rp := scriptedClient(t, rt)
				ctx := t.Context()
				if tc.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				ctx, stop := context.WithCancel(ctx)
				defer stop()
				var seen int
				_, err := rp.Serverless.Endpoint("ep1").RunSync(ctx, map[string]int{"a": 1}, serverless.RunOptions{
					Wait: tc.wait,
					OnStatus: func(*serverless.Job) {
						if seen++; seen == 2 {
							stop() // enough: the job is being waited for
						}
					},
				})
				var we *serverless.WaitError
				require.ErrorAs(t, err, &we)
				assert.Equal(t, "sync-1-u1", we.JobID, "the id is never lost")
				rt.mu.Lock()
				defer rt.mu.Unlock()
				assert.Equal(t, tc.first, rt.paths[0])
				assert.Equal(t, tc.query, rt.queries[0])
			})
		})
	}
}
