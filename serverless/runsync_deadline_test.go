package serverless_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// TestRunSyncShortDeadlineReadsStatus (issue 37, item 7): with 900 ms,
// 1.1 s or 1.3 s left, RunSync gets the result of a job that ends in
// 20 ms, with the production poll interval and backoff. Under about
// 1.25 s the hold would be under the platform's minimum, so the job is
// submitted with /run: the wait then reads the status before the
// deadline instead of sleeping the 2 s poll interval past it. The fake
// runs on the bubble's clock, so no wall-clock time is involved.
func TestRunSyncShortDeadlineReadsStatus(t *testing.T) {
	for left, want := range map[time.Duration][]string{
		// /run, then one plain /status read at the last moment that leaves
		// its answer the margin (deadline less 250 ms).
		900 * time.Millisecond:  {runpodtest.RouteRun, runpodtest.RouteStatus},
		1100 * time.Millisecond: {runpodtest.RouteRun, runpodtest.RouteStatus},
		// A hold of 1.04 s: /runsync answers with the result.
		1300 * time.Millisecond: {runpodtest.RouteRunSync},
	} {
		t.Run(left.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, rp := bubbleFake(t) // the production poll interval (2 s) and backoff
				srv.HandleQueue("ep1", func(ctx context.Context, _ *worker.Job) (any, error) {
					select {
					case <-time.After(20 * time.Millisecond):
						return "done", nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				})

				ctx, cancel := context.WithTimeout(t.Context(), left)
				defer cancel()
				start := time.Now()
				job, err := rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: 1}, serverless.WaitOptions{})
				require.NoError(t, err, "the job ended 20 ms in: its result is read before the deadline")
				require.Equal(t, serverless.JobStatusCompleted, job.Status)
				require.JSONEq(t, `"done"`, string(job.Output))
				require.Equal(t, want, routes(srv), "one read, no more")
				require.Less(t, time.Since(start), left)
			})
		})
	}
}
