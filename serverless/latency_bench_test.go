package serverless_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// BenchmarkResultLatency: a job that ends 2.5 s after it starts, RunSync
// with a 1 s platform wait. "longpoll" waits on status-sync, as RunSync
// does; "poll1s" is the same client on a platform without status-sync, so
// it polls /status every second (the SDK's earlier behaviour). Reported:
// the median time from the job's end to RunSync returning, and requests
// sent per job.
func BenchmarkResultLatency(b *testing.B) {
	for _, mode := range []string{"longpoll", "poll1s"} {
		b.Run(mode, func(b *testing.B) {
			srv := runpodtest.NewServer(contract.Check(), contract.Check())
			defer srv.Close()
			var mu sync.Mutex
			var ended time.Time
			srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
				select {
				case <-time.After(2500 * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				mu.Lock()
				ended = time.Now()
				mu.Unlock()
				return "done", nil
			})
			opts := []option.RequestOption{}
			if mode == "poll1s" {
				opts = append(opts, option.WithHTTPClient(&http.Client{Transport: noStatusSync{srv.Client().Transport}}))
			}
			rp, err := srv.NewClient(opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer rp.CloseIdleConnections()
			rt := rp.Serverless.Queue("ep")
			var late []time.Duration
			before := srv.Count("*")
			for b.Loop() {
				job, err := rt.RunSync(b.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{Hold: time.Second, Poll: option.Poll[*serverless.Job]{Interval: time.Second}})
				returned := time.Now()
				if err != nil || job.Status != serverless.JobStatusCompleted {
					b.Fatal(err)
				}
				mu.Lock()
				late = append(late, returned.Sub(ended))
				mu.Unlock()
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds())/1000, "ms-late(median)")
			b.ReportMetric(float64(srv.Count("*")-before)/float64(len(late)), "requests/op")
		})
	}
}

// noStatusSync answers status-sync 404 without sending it: a platform
// without the route.
type noStatusSync struct{ next http.RoundTripper }

func (n noStatusSync) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/status-sync/") {
		return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{"Content-Type": {"application/json"}},
			Body: http.NoBody, Request: r}, nil
	}
	return n.next.RoundTrip(r)
}
