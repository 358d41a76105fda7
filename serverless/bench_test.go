package serverless_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

const runsyncAnswer = `{"delayTime":824,"executionTime":3391,"id":"sync-79164ff4-2a1b-4c3d-9e8f-0123456789ab-u1","output":{"text":"hello, world","tokens":12},"status":"COMPLETED","workerId":"w-123"}`

// runsyncServer answers every /runsync at once with a completed job and
// counts the TCP connections clients open.
func runsyncServer(b *testing.B) (*httptest.Server, *atomic.Int64) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, runsyncAnswer)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	b.Cleanup(srv.Close)
	return srv, &conns
}

type benchInput struct {
	Prompt string `json:"prompt"`
}

type benchOutput struct {
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// BenchmarkRunSync puts one /runsync round trip through the SDK beside the
// floor (net/http + encoding/json, a pool sized like the SDK's), against
// the same server, sequentially and with 64 concurrent callers.
// conns/1000 is the number of new TCP connections per 1000 calls.
func BenchmarkRunSync(b *testing.B) {
	for _, parallel := range []bool{false, true} {
		name := "sequential"
		if parallel {
			name = "64-callers"
		}
		b.Run(name+"/floor", func(b *testing.B) {
			srv, conns := runsyncServer(b)
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 256, 256
			hc := &http.Client{Transport: tr}
			defer tr.CloseIdleConnections()
			call := func() {
				body, _ := json.Marshal(map[string]any{"input": benchInput{Prompt: "hi"}})
				req, _ := http.NewRequestWithContext(b.Context(), "POST", srv.URL+"/v2/ep1/runsync", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+benchKey)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json") // as the SDK (and the get floor) sends
				resp, err := hc.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				var job struct {
					ID     string          `json:"id"`
					Status string          `json:"status"`
					Output json.RawMessage `json:"output"`
				}
				err = json.NewDecoder(resp.Body).Decode(&job)
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				var out benchOutput
				if err == nil {
					err = json.Unmarshal(job.Output, &out)
				}
				if err != nil || job.Status != "COMPLETED" || out.Tokens != 12 {
					b.Error(err)
				}
			}
			run(b, parallel, call)
			b.ReportMetric(float64(conns.Load())*1000/float64(b.N), "conns/1000")
		})
		b.Run(name+"/sdk", func(b *testing.B) {
			srv, conns := runsyncServer(b)
			rp, err := runpod.NewClient(option.WithAPIKey(benchKey), option.WithInferenceURL(srv.URL))
			if err != nil {
				b.Fatal(err)
			}
			defer rp.CloseIdleConnections()
			ep := rp.Serverless.Queue("ep1")
			call := func() {
				job, err := ep.RunSync(b.Context(), serverless.RunParams{Input: benchInput{Prompt: "hi"}}, serverless.WaitOptions{})
				var out benchOutput
				if err == nil {
					err = job.Decode(&out)
				}
				if err != nil || out.Tokens != 12 {
					b.Error(err)
				}
			}
			run(b, parallel, call)
			b.ReportMetric(float64(conns.Load())*1000/float64(b.N), "conns/1000")
		})
	}
}

const benchKey = "rpa_0123456789ABCDEF0123456789ABCDEF"

func run(b *testing.B, parallel bool, call func()) {
	b.ReportAllocs()
	if !parallel {
		for b.Loop() {
			call()
		}
		return
	}
	b.SetParallelism(32) // 32 × GOMAXPROCS(2) = 64 callers
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}
