package worker

import (
	"bytes"
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
)

// quietPlatform answers every worker call at once (no job, no stop) and
// records the pings, in a synctest bubble.
type quietPlatform struct {
	mu    sync.Mutex
	pings []time.Time
	query []string
}

func (q *quietPlatform) RoundTrip(r *http.Request) (*http.Response, error) {
	status := http.StatusNoContent
	if strings.Contains(r.URL.Path, "/ping/") {
		q.mu.Lock()
		q.pings = append(q.pings, time.Now())
		q.query = append(q.query, r.URL.RawQuery)
		q.mu.Unlock()
		status = http.StatusOK
	}
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func TestHeartbeatCadence(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
	}{{"3000", 3 * time.Second}, {"200", time.Second}, {"", 10 * time.Second}} {
		t.Run("interval="+c.env, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plat := &quietPlatform{}
				env := map[string]string{
					"RUNPOD_WEBHOOK_GET_JOB":     "https://platform.test/v2/ep/job-take/$ID?gpu=x",
					"RUNPOD_WEBHOOK_POST_OUTPUT": "https://platform.test/v2/ep/job-done/$RUNPOD_POD_ID/$ID?gpu=x",
					"RUNPOD_WEBHOOK_PING":        "https://platform.test/v2/ep/ping/$RUNPOD_POD_ID?gpu=x",
					"RUNPOD_PING_INTERVAL":       c.env,
					"RUNPOD_AI_API_KEY":          "rpa_0123456789ABCDEF0123456789ABCDEF",
					"RUNPOD_POD_ID":              "w1",
				}
				ctx, cancel := context.WithTimeout(t.Context(), 5*c.want+c.want/2)
				defer cancel()
				var out bytes.Buffer
				cfg := WithHTTPClient(&http.Client{Transport: plat})
				require.NoError(t, Run(ctx, echo, WithArgs(nil), WithOutput(&out), WithEnv(func(k string) string { return env[k] }), cfg))
				plat.mu.Lock()
				defer plat.mu.Unlock()
				require.Len(t, plat.pings, 6, "one at once, then one per interval")
				for i := 1; i < len(plat.pings); i++ {
					assert.Equal(t, c.want, plat.pings[i].Sub(plat.pings[i-1]))
				}
				assert.Contains(t, plat.query[0], "gpu=x")
				assert.Contains(t, plat.query[0], "runpod_version=runpod-go")
				assert.NotContains(t, plat.query[0], "job_id", "no job in progress")
			})
		})
	}
}

// busyPlatform hands out one job, answers its first result 429 with
// Retry-After: 7 and then accepts it, and fails every other take with a
// 500, recording when each call came.
type busyPlatform struct {
	mu    sync.Mutex
	taken bool
	takes []time.Time
	posts []time.Time
}

func (b *busyPlatform) RoundTrip(r *http.Request) (*http.Response, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	answer := func(status int, h http.Header, body string) (*http.Response, error) {
		if h == nil {
			h = http.Header{}
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	switch {
	case strings.Contains(r.URL.Path, "/job-take/"):
		b.takes = append(b.takes, time.Now())
		if !b.taken {
			b.taken = true
			return answer(200, http.Header{"Content-Type": {"application/json"}}, `{"id":"job-1","input":{"prompt":"hi"}}`)
		}
		return answer(500, nil, "")
	case strings.Contains(r.URL.Path, "/job-done/"):
		b.posts = append(b.posts, time.Now())
		if len(b.posts) == 1 {
			return answer(429, http.Header{"Retry-After": {"7"}}, "")
		}
		return answer(200, nil, "{}")
	}
	return answer(204, nil, "")
}

// TestWorkerRetriesLikeTheClient: the job loop uses the module's retry
// policy: a result refused with 429 is posted again after the platform's
// Retry-After; failed takes in a row back off (jittered, growing) instead
// of hammering the platform every second.
func TestWorkerRetriesLikeTheClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plat := &busyPlatform{}
		env := map[string]string{
			"RUNPOD_WEBHOOK_GET_JOB":     "https://platform.test/v2/ep/job-take/$ID",
			"RUNPOD_WEBHOOK_POST_OUTPUT": "https://platform.test/v2/ep/job-done/$RUNPOD_POD_ID/$ID",
			"RUNPOD_POD_ID":              "w1",
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cfg := WithHTTPClient(&http.Client{Transport: plat})
		var out bytes.Buffer
		require.NoError(t, Run(ctx, echo, WithArgs(nil), WithOutput(&out), WithEnv(func(k string) string { return env[k] }), cfg))
		plat.mu.Lock()
		defer plat.mu.Unlock()
		require.Len(t, plat.posts, 2, out.String())
		assert.Equal(t, 7*time.Second, plat.posts[1].Sub(plat.posts[0]), "the platform's Retry-After")
		// Two minutes of failing takes at a fixed second would be about
		// 120; backing off towards 30 s, far fewer.
		assert.Less(t, len(plat.takes), 40, "failed takes back off")
		assert.Greater(t, len(plat.takes), 3)
	})
}
