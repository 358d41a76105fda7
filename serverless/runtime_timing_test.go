package serverless_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

// jobScript plays the job API over fake time, recording when each call
// came. Without completeAt, /runsync answers IN_QUEUE at once and /status
// the given statuses in turn (raw wire JSON), and status-sync is answered
// syncStatus (a platform without that route). With completeAt, the job
// ends then: /runsync and status-sync hold for their wait or until then,
// as the platform does.
type jobScript struct {
	mu         sync.Mutex
	statuses   []string
	syncStatus int
	completeAt time.Time
	paths      []string
	queries    []string
	at         []time.Time
}

func (s *jobScript) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	s.mu.Lock()
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	s.queries = append(s.queries, r.URL.RawQuery)
	s.at = append(s.at, time.Now())
	completeAt, syncStatus := s.completeAt, s.syncStatus
	s.mu.Unlock()
	answer := func(status int, body string) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	held := strings.HasSuffix(r.URL.Path, "/runsync") || strings.Contains(r.URL.Path, "/status-sync/")
	switch {
	case !completeAt.IsZero() && held:
		ms, _ := strconv.Atoi(r.URL.Query().Get("wait"))
		hold := time.Duration(ms) * time.Millisecond
		if until := time.Until(completeAt); until < hold {
			hold = until
		}
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
		if !time.Now().Before(completeAt) {
			return answer(200, `{"id":"sync-1-u1","status":"COMPLETED","output":{"ok":true}}`)
		}
		return answer(200, `{"id":"sync-1-u1","status":"IN_PROGRESS"}`)
	case strings.Contains(r.URL.Path, "/status-sync/"):
		return answer(syncStatus, `{"error":"no such route"}`)
	case strings.Contains(r.URL.Path, "/status/"):
		s.mu.Lock()
		var st string
		switch {
		case len(s.statuses) > 0:
			st = s.statuses[0]
			if len(s.statuses) > 1 {
				s.statuses = s.statuses[1:]
			}
		case time.Now().Before(completeAt):
			st = "IN_PROGRESS"
		default:
			st = "COMPLETED"
		}
		s.mu.Unlock()
		body := `{"id":"sync-1-u1","status":"` + st + `","delayTime":1200,"executionTime":300,"workerId":"w1"`
		if st == "COMPLETED" {
			body += `,"output":{"ok":true}`
		}
		return answer(200, body+`}`)
	}
	return answer(200, `{"id":"sync-1-u1","status":"IN_QUEUE"}`)
}

// TestResultSeenAtOnce: a job that ends 2.5 s after submission, RunSync
// with a 1 s hold: the platform holds /runsync for 1 s, then status-sync
// for 1 s, then status-sync until the job ends. RunSync returns the moment
// it ends; polling /status every second would return up to a second later.
func TestResultSeenAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &jobScript{completeAt: start.Add(2500 * time.Millisecond)}
		rp := scriptedClient(t, rt)
		job, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{Hold: time.Second})
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusCompleted, job.Status)
		assert.Equal(t, 2500*time.Millisecond, time.Since(start), "returned as the job ended")
		assert.Equal(t, []string{"POST /v2/ep1/runsync", "GET /v2/ep1/status-sync/sync-1-u1", "GET /v2/ep1/status-sync/sync-1-u1"}, rt.paths)
		assert.Equal(t, []string{"wait=1000", "wait=1000", "wait=1000"}, rt.queries, "every request held for WaitOptions.Hold")
	})
}

// TestWaitHold: Wait reads /status first, then asks status-sync for
// WaitOptions.Hold, 90 s (the most the platform's own client asks for)
// when zero or longer.
func TestWaitHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &jobScript{completeAt: start.Add(12 * time.Second)}
		rp := scriptedClient(t, rt)
		job, err := rp.Serverless.Queue("ep1").Wait(t.Context(), "sync-1-u1", serverless.WaitOptions{Hold: 5 * time.Second})
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusCompleted, job.Status)
		assert.Equal(t, 12*time.Second, time.Since(start))
		assert.Equal(t, []string{"", "wait=5000", "wait=5000", "wait=5000"}, rt.queries)
		assert.Equal(t, "GET /v2/ep1/status/sync-1-u1", rt.paths[0])

		for _, hold := range []time.Duration{0, 300 * time.Second} {
			start = time.Now()
			rt = &jobScript{completeAt: start.Add(200 * time.Second)}
			rp = scriptedClient(t, rt)
			_, err = rp.Serverless.Queue("ep1").Wait(t.Context(), "sync-1-u1", serverless.WaitOptions{Hold: hold})
			require.NoError(t, err)
			assert.Equal(t, []string{"", "wait=90000", "wait=90000", "wait=90000"}, rt.queries, "Hold %s", hold)
			assert.Equal(t, 200*time.Second, time.Since(start))
		}
	})
}

// TestStatusSyncHoldFitsTheContext: status-sync is asked to hold no longer
// than the context allows, less a margin, so its answer arrives in time.
func TestStatusSyncHoldFitsTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &jobScript{completeAt: start.Add(time.Hour)}
		rp := scriptedClient(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, err := rp.Serverless.Queue("ep1").Wait(ctx, "sync-1-u1", serverless.WaitOptions{})
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, "wait=8000", rt.queries[1], "10 s left, less a fifth")
		assert.Equal(t, serverless.JobStatusInProgress, we.LastStatus)
		assert.LessOrEqual(t, time.Since(start), 10*time.Second)
	})
}

// TestStatusSyncThatDoesNotHold: a server that answers status-sync at
// once, the job still running, cannot make the wait spin: the next
// request waits Poll.Interval.
func TestStatusSyncThatDoesNotHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &jobScript{completeAt: start.Add(5 * time.Second)}
		rp := scriptedClient(t, &noHold{rt})
		job, err := rp.Serverless.Queue("ep1").Wait(t.Context(), "sync-1-u1", serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: time.Second}})
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusCompleted, job.Status)
		assert.Len(t, rt.paths, 7, "the first /status read and long poll at once, then one request a second")
	})
}

// noHold passes requests to a jobScript with their wait cut to zero.
type noHold struct{ s *jobScript }

func (n *noHold) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	q := r.URL.Query()
	q.Set("wait", "0")
	r.URL.RawQuery = q.Encode()
	return n.s.RoundTrip(r)
}

// TestRunSyncPollingCadence: after the platform's wait, RunSync polls
// every Poll.Interval and reports each status.
func TestRunSyncPollingCadence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &jobScript{statuses: []string{"IN_QUEUE", "IN_PROGRESS", "IN_PROGRESS", "COMPLETED"}, syncStatus: http.StatusMethodNotAllowed}
		rp := scriptedClient(t, rt)
		var seen []serverless.JobStatus
		start := time.Now()
		job, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: map[string]int{"a": 1}}, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 2 * time.Second, OnCheck: func(j *serverless.Job) { seen = append(seen, j.Status) }}})
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusCompleted, job.Status)
		assert.Equal(t, 1200*time.Millisecond, job.DelayTime)
		assert.Equal(t, []serverless.JobStatus{"IN_QUEUE", "IN_QUEUE", "IN_PROGRESS", "IN_PROGRESS", "COMPLETED"}, seen)
		assert.Equal(t, "POST /v2/ep1/runsync", rt.paths[0])
		assert.Equal(t, "GET /v2/ep1/status-sync/sync-1-u1", rt.paths[1], "tried once; 405: no such route here")
		assert.Equal(t, "GET /v2/ep1/status/sync-1-u1", rt.paths[2], "read at once")
		for i := 3; i < len(rt.at); i++ {
			assert.Equal(t, "GET /v2/ep1/status/sync-1-u1", rt.paths[i])
			assert.Equal(t, 2*time.Second, rt.at[i].Sub(rt.at[i-1]))
		}
		assert.Equal(t, 6*time.Second, time.Since(start))
	})
}

// TestRunSyncContextEndKeepsID: when ctx ends mid-wait, the error carries
// the job id, at the moment ctx ended.
func TestRunSyncContextEndKeepsID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &jobScript{statuses: []string{"IN_PROGRESS"}, syncStatus: http.StatusNotFound}
		rp := scriptedClient(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 7*time.Second)
		defer cancel()
		start := time.Now()
		_, err := rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: 3 * time.Second}})
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, "sync-1-u1", we.JobID)
		assert.Equal(t, serverless.JobStatusInProgress, we.LastStatus)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 7*time.Second, time.Since(start))
	})
}

// TestDefaultPollInterval: option.DefaultPollInterval (2 s) when not set.
func TestDefaultPollInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &jobScript{statuses: []string{"IN_PROGRESS", "IN_PROGRESS", "COMPLETED"}, syncStatus: http.StatusMethodNotAllowed}
		rp := scriptedClient(t, rt)
		start := time.Now()
		_, err := rp.Serverless.Queue("ep1").Wait(t.Context(), "sync-1-u1", serverless.WaitOptions{})
		require.NoError(t, err)
		assert.Equal(t, option.DefaultPollInterval, time.Since(start), "first read at once, the second one interval later")
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
				rt := &jobScript{statuses: []string{"IN_PROGRESS"}, syncStatus: http.StatusMethodNotAllowed}
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
				_, err := rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: map[string]int{"a": 1}}, serverless.WaitOptions{Hold: tc.wait, Poll: option.Poll[*serverless.Job]{OnCheck: func(*serverless.Job) {
					if seen++; seen == 2 {
						stop() // enough: the job is being waited for
					}
				}}})
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

// busyOnce answers the first request (or, with only, the first whose path
// holds only) 429 with Retry-After: 3, then passes requests to a
// jobScript.
type busyOnce struct {
	s     *jobScript
	only  string
	mu    sync.Mutex
	calls int    // requests counted (those whose path holds only)
	query string // the refused request's query
}

func (b *busyOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.Contains(r.URL.Path, b.only) {
		return b.s.RoundTrip(r)
	}
	b.mu.Lock()
	b.calls++
	first := b.calls == 1
	if first {
		b.query = r.URL.RawQuery
	}
	b.mu.Unlock()
	if first {
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
		}
		return &http.Response{StatusCode: http.StatusTooManyRequests, Request: r,
			Header: http.Header{"Retry-After": {"3"}, "Content-Type": {"application/problem+json"}},
			Body:   io.NopCloser(strings.NewReader(`{"title":"Too Many Requests","status":429}`))}, nil
	}
	return b.s.RoundTrip(r)
}

// TestRunSyncRetryFitsTheContext: a /runsync refused with 429 is retried
// with the hold that still fits in the context after the wait the platform
// asked for, so the retry's answer, and the job's id, come back in time;
// when no hold of a second fits, the 429 is returned (nothing was
// submitted) rather than a retry that would outlast the context.
func TestRunSyncRetryFitsTheContext(t *testing.T) {
	t.Run("the hold shrinks", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			script := &jobScript{completeAt: start.Add(time.Hour)}
			rt := &busyOnce{s: script}
			rp := scriptedClient(t, rt)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{})
			var we *serverless.WaitError
			require.ErrorAs(t, err, &we, "the job outlives ctx")
			assert.Equal(t, "sync-1-u1", we.JobID, "but its id came back")
			assert.Equal(t, "wait=8000", rt.query, "the first asked for 8 s of 10")
			assert.Equal(t, "wait=5600", script.queries[0], "retried after 3 s with what is left, less a fifth")
			assert.Equal(t, 3*time.Second, script.at[0].Sub(start))
		})
	})
	t.Run("no hold fits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			rt := &busyOnce{s: &jobScript{completeAt: start.Add(time.Hour)}}
			rp := scriptedClient(t, rt)
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
			defer cancel()
			_, err := rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{})
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr, "after 3 s, 1 s is left: no hold of a second fits")
			assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
			assert.Equal(t, 3*time.Second, apiErr.RetryAfter)
			assert.ErrorIs(t, err, context.DeadlineExceeded, "the deadline is why it stopped")
			assert.ErrorIs(t, err, errs.ErrRateLimited)
			assert.Equal(t, 1, rt.calls, "not retried, nothing submitted")
			assert.Zero(t, time.Since(start), "returned at once")
		})
	})
	t.Run("no deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			script := &jobScript{completeAt: start.Add(5 * time.Second)}
			rt := &busyOnce{s: script}
			rp := scriptedClient(t, rt)
			job, err := rp.Serverless.Queue("ep1").RunSync(t.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{Hold: 10 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, serverless.JobStatusCompleted, job.Status)
			assert.Equal(t, "wait=10000", script.queries[0], "the hold asked for, unchanged")
			assert.Equal(t, 5*time.Second, time.Since(start))
		})
	})
}

// TestStatusSyncRetryFitsTheContext: a status-sync refused with 429 is
// retried with the hold that still fits in the context after the wait the
// platform asked for; when no hold of a second fits, the wait ends with
// the 429 and the job's id rather than with a retry that would outlast
// the context.
func TestStatusSyncRetryFitsTheContext(t *testing.T) {
	t.Run("the hold shrinks", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			script := &jobScript{completeAt: start.Add(time.Hour)}
			rt := &busyOnce{s: script, only: "/status-sync/"}
			rp := scriptedClient(t, rt)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := rp.Serverless.Queue("ep1").Wait(ctx, "sync-1-u1", serverless.WaitOptions{})
			var we *serverless.WaitError
			require.ErrorAs(t, err, &we)
			assert.Equal(t, "sync-1-u1", we.JobID)
			assert.Equal(t, "wait=8000", rt.query, "the first asked for 8 s of 10")
			require.GreaterOrEqual(t, len(script.queries), 2, "the /status read, then the retried status-sync")
			assert.Equal(t, "wait=5600", script.queries[1], "retried after 3 s with what is left, less a fifth")
			assert.Equal(t, 3*time.Second, script.at[1].Sub(start))
		})
	})
	t.Run("no hold fits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			rt := &busyOnce{s: &jobScript{completeAt: start.Add(time.Hour)}, only: "/status-sync/"}
			rp := scriptedClient(t, rt)
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
			defer cancel()
			_, err := rp.Serverless.Queue("ep1").Wait(ctx, "sync-1-u1", serverless.WaitOptions{})
			var we *serverless.WaitError
			require.ErrorAs(t, err, &we)
			assert.Equal(t, "sync-1-u1", we.JobID)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr, "after 3 s, 1 s is left: no hold of a second fits")
			assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
			assert.Equal(t, "wait=3200", rt.query)
			assert.Equal(t, 1, rt.calls, "not retried")
			assert.Zero(t, time.Since(start), "returned at once")
		})
	})
}

// silentSync never answers the first status-sync (it holds until the
// request is given up), then passes requests to a jobScript.
type silentSync struct {
	s    *jobScript
	mu   sync.Mutex
	seen int
}

func (q *silentSync) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/status-sync/") {
		q.mu.Lock()
		q.seen++
		first := q.seen == 1
		q.mu.Unlock()
		if first {
			<-r.Context().Done()
			return nil, r.Context().Err()
		}
	}
	return q.s.RoundTrip(r)
}

// TestStatusSyncThatNeverAnswers: a status-sync held past its wait is
// given up 30 s after its hold (90 s); the job's status is read with /status and
// the wait goes on, without a context deadline to end it.
func TestStatusSyncThatNeverAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		script := &jobScript{completeAt: start.Add(time.Hour), statuses: []string{"IN_PROGRESS"}}
		rp := scriptedClient(t, &silentSync{s: script})
		job, err := rp.Serverless.Queue("ep1").Wait(t.Context(), "sync-1-u1", serverless.WaitOptions{})
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusCompleted, job.Status)
		assert.Equal(t, time.Hour, time.Since(start), "it waited on, and saw the job end")
		require.GreaterOrEqual(t, len(script.paths), 2)
		assert.Equal(t, "GET /v2/ep1/status/sync-1-u1", script.paths[0], "the first read")
		assert.Zero(t, script.at[0].Sub(start))
		assert.Equal(t, "GET /v2/ep1/status/sync-1-u1", script.paths[1], "read at once when the hold was given up")
		assert.Equal(t, 120*time.Second, script.at[1].Sub(start), "90 s of hold, 30 s of grace")
	})
}
