package worker

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// BenchmarkLocalRunSync: POST /runsync of the local API server with a
// trivial handler, beside the floor: a bare net/http handler that decodes
// the same body and answers the same JSON. Same client, same machine,
// sequentially and with 32 concurrent clients.
func BenchmarkLocalRunSync(b *testing.B) {
	trivial := func(ctx context.Context, job *Job) (any, error) {
		var in struct{ Text string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return map[string]string{"echo": in.Text}, nil
	}
	floor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Input struct{ Text string } `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "test-" + uuid.NewString(), "status": "COMPLETED", "output": map[string]string{"echo": body.Input.Text}})
	}))
	defer floor.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, trivial, WithArgs([]string{"--rp_serve_api", "--rp_api_concurrency", "32", "--rp_log_level", "ERROR"}),
			WithListener(ln), WithOutput(io.Discard), WithEnv(func(string) string { return "" }))
	}()
	defer func() { cancel(); <-done }()

	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	call := func(b *testing.B, url string) {
		resp, err := client.Post(url+"/runsync", "application/json", strings.NewReader(`{"input":{"text":"hello"}}`))
		if err != nil {
			b.Error(err)
			return
		}
		var out struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&out)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err != nil || out.Status != "COMPLETED" {
			b.Error(err, out.Status)
		}
	}
	for _, target := range []struct{ name, url string }{{"floor", floor.URL}, {"worker", "http://" + ln.Addr().String()}} {
		b.Run("sequential/"+target.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				call(b, target.url)
			}
		})
		b.Run("32-clients/"+target.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(16) // 16 × GOMAXPROCS(2) = 32 clients
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					call(b, target.url)
				}
			})
		})
	}
}
