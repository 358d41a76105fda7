package serverless_test

import (
	"context"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// BenchmarkRunSyncIDFirst (issue 26, item 1) prices WaitOptions.IDFirst:
// RunSync of a job that ends at once, on runpodtest, submitted with
// /runsync (one round trip) or with /run and then waited for by id (/run,
// then status-sync). "loopback" adds no latency; "rtt-20ms" delays every
// inference response by 20 ms (runpodtest.SetLatency), as a distant
// region would. Run with -count 8 or more: the two modes alternate.
func BenchmarkRunSyncIDFirst(b *testing.B) {
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		name := "loopback"
		if latency > 0 {
			name = "rtt-20ms"
		}
		for _, idFirst := range []bool{false, true} {
			mode := "runsync"
			if idFirst {
				mode = "id-first"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				srv := runpodtest.NewServer(contract.Check(), contract.Check())
				defer srv.Close()
				srv.HandleQueue("ep1", func(context.Context, *worker.Job) (any, error) { return "ok", nil })
				if latency > 0 {
					srv.SetLatency("*", latency)
				}
				rp, err := srv.NewClient()
				if err != nil {
					b.Fatal(err)
				}
				defer rp.CloseIdleConnections()
				q := rp.Serverless.Queue("ep1")
				b.ReportAllocs()
				for b.Loop() {
					job, err := q.RunSync(b.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{IDFirst: idFirst})
					if err != nil || job.Status != serverless.JobStatusCompleted {
						b.Fatal(job, err)
					}
				}
				b.ReportMetric(float64(len(srv.Requests()))/float64(b.N), "requests/op")
			})
		}
	}
}
