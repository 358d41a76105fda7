package serverless_test

import (
	"context"
	"encoding/json"
	"flag"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

var tenk = flag.Bool("tenk", false, "run TestTenThousandJobs, the measurement of 10,000 waits on one endpoint (about two minutes per variant)")

// Sizes of TestTenThousandJobs.
const (
	tenkJobs    = 10000
	tenkWorkers = 2000
	// tenkSubmitEvery paces the submissions under /run's limit of 1,000
	// per 10 s.
	tenkSubmitEvery = 11 * time.Millisecond
)

// tenkRun is how long job i runs: 1 s to just under 10 min (the default
// execution timeout), spread evenly over the jobs in a shuffled order.
func tenkRun(i int) time.Duration {
	return time.Second + time.Duration((i*7919)%tenkJobs)*(599*time.Second)/tenkJobs
}

// TestTenThousandJobs measures the waits of 10,000 jobs on one endpoint
// of the fake, which enforces the platform's documented limits (status
// and status-sync together: 400 at once; /status 2,000 per 10 s; /run
// 1,000 per 10 s), over HTTP/1.1 and over TLS with HTTP/2. The fake runs
// in a synctest bubble on an in-memory network, so the half hour of job
// time the test simulates takes about two minutes. Jobs are submitted with
// /run at 90 a second and each waited for with Queue.Wait on its own
// goroutine; 2,000 workers run them for 1 s to 10 min each. It reports
// the 429s, the connections, the peak heap, the requests per job, and
// the time from each job's end to its Wait's return; and the same run
// with the budget lifted, every wait holding its own long poll as waits
// did before the scheduler. Run it with
//
//	go test -run TestTenThousandJobs -tenk -v ./serverless/
func TestTenThousandJobs(t *testing.T) {
	if !*tenk {
		t.Skip("a measurement: run with -tenk")
	}
	memory := runpodtest.WithMemoryNetwork()
	for _, tc := range []struct {
		name string
		opts []runpodtest.Option
		// unbudgeted lifts the budget, so that every wait holds its own
		// long poll, as waits did before the scheduler: the run shows what
		// the platform's limits do to that.
		unbudgeted bool
	}{
		{"http1", []runpodtest.Option{memory}, false},
		{"tls-http2", []runpodtest.Option{memory, runpodtest.WithTLS()}, false},
		{"http1-unbudgeted", []runpodtest.Option{memory}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { tenThousandJobs(t, tc.opts, tc.unbudgeted) })
		})
	}
}

func tenThousandJobs(t *testing.T, opts []runpodtest.Option, unbudgeted bool) {
	srv := runpodtest.NewServer(append([]runpodtest.Option{contract.Check()}, opts...)...)
	defer srv.Close()
	ends := make([]time.Time, tenkJobs)
	var endsMu sync.Mutex
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ I int }
		if err := json.Unmarshal(job.Input, &in); err != nil {
			return nil, err
		}
		select {
		case <-time.After(tenkRun(in.I)):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		endsMu.Lock()
		ends[in.I] = time.Now()
		endsMu.Unlock()
		return map[string]int{"i": in.I}, nil
	}, runpodtest.WithWorkers(tenkWorkers))
	rp, err := srv.NewClient(option.WithPollInterval(option.DefaultPollInterval),
		option.WithBackoff(option.DefaultRetryWaitMin, option.DefaultRetryWaitMax))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	if unbudgeted {
		require.NoError(t, rp.Serverless.SetWaitBudget(serverless.WaitBudget{Concurrent: 1 << 30, Per10s: 1 << 30}))
	}
	q := rp.Serverless.Queue("ep")

	done := make(chan struct{})
	peak := make(chan [2]uint64, 1)
	go samplePeak(done, peak)

	start := time.Now()
	returned := make([]time.Time, tenkJobs)
	var wrong, failed int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range tenkJobs {
		if i > 0 {
			time.Sleep(tenkSubmitEvery)
		}
		job, err := q.Run(t.Context(), serverless.RunParams{Input: map[string]int{"i": i}})
		require.NoError(t, err)
		wg.Go(func() {
			got, err := q.Wait(t.Context(), job.ID, serverless.WaitOptions{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed++
				if !unbudgeted {
					t.Errorf("job %d: %v", i, err)
				}
			case !returned[i].IsZero():
				t.Errorf("job %d returned twice", i)
			default:
				out, err := serverless.Output[map[string]int](got)
				if err != nil || out["i"] != i {
					wrong++
				}
				returned[i] = time.Now()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(done)
	most := <-peak
	runtime.GC()
	after := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(after)

	var late []time.Duration
	for i := range tenkJobs {
		if !returned[i].IsZero() {
			late = append(late, returned[i].Sub(ends[i]))
		}
	}
	slices.Sort(late)
	st := tenkStats(srv, start)
	assert.Zero(t, wrong, "each wait returns its own job")
	if !unbudgeted {
		assert.Zero(t, failed)
		assert.Len(t, late, tenkJobs, "every wait returned its job")
		assert.Zero(t, st.refused, "no 429")
		assert.LessOrEqual(t, st.maxStatusIn10s, 2000)
	}
	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
	t.Logf("%d jobs, %d workers, %s simulated", tenkJobs, tenkWorkers, elapsed.Round(time.Second))
	t.Logf("waits: %d returned their job, %d failed", len(late), failed)
	t.Logf("429s: %d (of which status %d)", st.refused, st.refusedStatus)
	t.Logf("connections opened: %d", srv.Connections())
	t.Logf("peak heap (process: client and fake): %.0f MiB; after the run, the fake's %d-request log and results kept: %.0f MiB; peak goroutine stacks %.0f MiB",
		mib(most[0]), len(srv.Requests()), mib(after[0].Value.Uint64()), mib(most[1]))
	t.Logf("requests: %d status + %d status-sync = %.2f per job (plus 1 /run)", st.status, st.statusSync, float64(st.status+st.statusSync)/tenkJobs)
	t.Logf("most status requests in one fixed 10 s window: %d; in any 10 s: %d", st.maxStatusIn10s, st.maxStatusSliding)
	if len(late) > 0 {
		t.Logf("end to result: median %s, p90 %s, p99 %s, max %s", percentile(late, 50), percentile(late, 90), percentile(late, 99), late[len(late)-1])
	}
}

// percentile returns the p-th percentile of sorted d.
func percentile(d []time.Duration, p int) time.Duration {
	return d[min(len(d)*p/100, len(d)-1)].Round(time.Millisecond)
}

// tenkCounts is what the fake's request log says of a run.
type tenkCounts struct {
	status, statusSync               int
	refused, refusedStatus           int
	maxStatusIn10s, maxStatusSliding int
}

func tenkStats(srv *runpodtest.Server, start time.Time) tenkCounts {
	var c tenkCounts
	windows := map[int64]int{}
	var times []time.Time
	for _, r := range srv.Requests() {
		isStatus := r.Route == runpodtest.RouteStatus || r.Route == runpodtest.RouteStatusSync
		if r.Status == 429 {
			c.refused++
			if isStatus {
				c.refusedStatus++
			}
		}
		if !isStatus {
			continue
		}
		if r.Route == runpodtest.RouteStatus {
			c.status++
		} else {
			c.statusSync++
		}
		w := r.Time.Sub(start.Truncate(10*time.Second)) / (10 * time.Second)
		windows[int64(w)]++
		c.maxStatusIn10s = max(c.maxStatusIn10s, windows[int64(w)])
		times = append(times, r.Time)
	}
	slices.SortFunc(times, time.Time.Compare)
	first := 0
	for i, at := range times {
		for times[first].Add(10*time.Second).Compare(at) <= 0 {
			first++
		}
		c.maxStatusSliding = max(c.maxStatusSliding, i-first+1)
	}
	return c
}

// The runtime's measures of the heap's live objects and of the
// goroutines' stacks.
const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	stacks      = "/memory/classes/heap/stacks:bytes"
)

// samplePeak reads the heap's live bytes and the stacks' every second (of
// the bubble's clock) until done, then sends the most it saw of each.
func samplePeak(done <-chan struct{}, peak chan<- [2]uint64) {
	s := []metrics.Sample{{Name: heapObjects}, {Name: stacks}}
	var most [2]uint64
	for {
		metrics.Read(s)
		most[0], most[1] = max(most[0], s[0].Value.Uint64()), max(most[1], s[1].Value.Uint64())
		select {
		case <-done:
			peak <- most
			return
		case <-time.After(time.Second):
		}
	}
}
