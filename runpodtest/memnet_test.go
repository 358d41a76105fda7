package runpodtest_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// TestMemoryNetworkRunsOnTheBubblesClock: a fake made inside a synctest
// bubble with WithMemoryNetwork runs on the bubble's clock, over HTTP/1.1
// and over TLS with HTTP/2: a job whose handler takes eight and a half minutes is
// submitted with /runsync, long-polled past the platform's hold, and seen
// the moment it ends, that much of the bubble's time later and no real
// time; Connections counts the in-memory connections.
func TestMemoryNetworkRunsOnTheBubblesClock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []runpodtest.Option
		proto string
	}{
		{"http1", []runpodtest.Option{runpodtest.WithMemoryNetwork()}, "HTTP/1.1"},
		{"tls-http2", []runpodtest.Option{runpodtest.WithMemoryNetwork(), runpodtest.WithTLS()}, "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const run = 8*time.Minute + 30*time.Second
				srv := runpodtest.NewServer(tc.opts...)
				defer srv.Close()
				srv.HandleQueue("ep", func(ctx context.Context, _ *worker.Job) (any, error) {
					select {
					case <-time.After(run):
						return "done", nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				})
				rp, err := srv.NewClient()
				require.NoError(t, err)
				defer rp.CloseIdleConnections()
				start := time.Now()
				job, err := rp.Serverless.Queue("ep").RunSync(t.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{})
				require.NoError(t, err)
				assert.Equal(t, serverless.JobStatusCompleted, job.Status)
				assert.Equal(t, run, time.Since(start), "seen as it ended, on the bubble's clock")
				assert.Equal(t, 1, srv.Count(runpodtest.RouteRunSync))
				assert.Equal(t, 5, srv.Count(runpodtest.RouteStatusSync), "90 s holds after the 90 s /runsync")
				assert.Positive(t, srv.Connections())

				h, err := rp.Serverless.Queue("ep").Health(t.Context())
				require.NoError(t, err)
				assert.Equal(t, 1, h.Jobs.Completed)
				assert.Equal(t, tc.proto, protoOf(t, srv))
			})
		})
	}
}

// protoOf returns the protocol the fake's client speaks to its inference
// host.
func protoOf(t *testing.T, srv *runpodtest.Server) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.InferenceURL+"/v2/ep/health", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.Proto
}
