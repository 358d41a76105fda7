package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkLocalRunSync: POST /runsync of the local API server with a
// trivial handler, beside the floor: a bare net/http handler that decodes
// the same body and answers the same JSON. Same client, same machine,
// sequentially and with 32 concurrent clients.
func BenchmarkLocalRunSync(b *testing.B) {
	floor := httptest.NewUnstartedServer(http.HandlerFunc(floorRunSync))
	floor.Config.ReadHeaderTimeout = floorReadHeaderTimeout
	floor.Start()
	defer floor.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serveWorker(ctx, ln)
	}()
	defer func() { cancel(); <-done }()
	benchTargets(b, []target{{"floor", floor.URL}, {"worker", "http://" + ln.Addr().String()}})
}

// BenchmarkLocalRunSyncProcess is BenchmarkLocalRunSync with each server
// in a process of its own (this test binary, started again as a server),
// so the client's work and the server's do not share a process: the
// figure a developer calling `go run . --rp_serve_api` sees. B/op and
// allocs/op count the client only.
func BenchmarkLocalRunSyncProcess(b *testing.B) {
	var targets []target
	for _, side := range []string{"floor", "worker"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), benchServeVar+"="+side)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = stdin.Close(); _ = cmd.Wait() }() // closing stdin stops the server
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			b.Fatal(side, err)
		}
		targets = append(targets, target{side, "http://" + strings.TrimSpace(line)})
	}
	benchTargets(b, targets)
	b.Run("32-clients/interleaved", func(b *testing.B) { benchInterleaved(b, targets[0], targets[1]) })
}

// benchInterleaved runs rounds of 1,600 /runsync calls from 32 clients
// against floor and against worker, back to back (the order alternating
// by round), and reports the median over the rounds of worker's time over
// floor's ("worker/floor"), with the quartiles: slices this short put
// both servers under the same state of a shared machine, whose speed
// drifts by 10% and more from one second to the next, far more than
// between the runs of separate processes that .ci/bench alternates.
func benchInterleaved(b *testing.B, floor, worker target) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	round := func(url string) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for range 50 {
					resp, err := client.Post(url+"/runsync", "application/json", strings.NewReader(`{"input":{"text":"hello"}}`))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	round(floor.url) // connections made, both servers warm
	round(worker.url)
	interleave(b, func() time.Duration { return round(floor.url) }, func() time.Duration { return round(worker.url) })
}

// interleave runs rounds of floor and worker back to back, the order
// alternating, for b's loop, and reports the median over the rounds of
// worker's time over floor's ("worker/floor"), with the quartiles ("p25",
// "p75").
func interleave(b *testing.B, floor, worker func() time.Duration) {
	var ratios []float64
	for i := 0; b.Loop(); i++ {
		var f, w time.Duration
		if i%2 == 0 {
			f, w = floor(), worker()
		} else {
			w, f = worker(), floor()
		}
		ratios = append(ratios, float64(w)/float64(f))
	}
	slices.Sort(ratios)
	q := func(p float64) float64 { return ratios[int(p*float64(len(ratios)-1))] }
	b.ReportMetric(q(0.5), "worker/floor")
	b.ReportMetric(q(0.25), "p25")
	b.ReportMetric(q(0.75), "p75")
}

// benchServeVar names the server a re-started test binary runs.
const benchServeVar = "RUNPODGO_BENCH_SERVE"

// benchProfileVar, when set, is the path (plus ".floor" or ".worker") a
// server started by BenchmarkLocalRunSyncProcess writes its CPU profile to.
const benchProfileVar = "RUNPODGO_BENCH_SERVER_CPUPROFILE"

// benchServe runs the server side ("floor" or "worker") on a loopback
// port, prints its address, and serves until its stdin closes.
func benchServe(side string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	if path := os.Getenv(benchProfileVar); path != "" {
		// The server's own CPU profile, which the client's -test.cpuprofile
		// does not see.
		f, err := os.Create(path + "." + side)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Println(ln.Addr().String())
	if side == "floor" {
		srv := &http.Server{Handler: http.HandlerFunc(floorRunSync), ReadHeaderTimeout: floorReadHeaderTimeout}
		go func() { <-ctx.Done(); _ = srv.Close() }()
		_ = srv.Serve(ln)
		return 0
	}
	if err := serveWorker(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// trivial is the handler both benchmarks run: decode the input, return
// an object.
func trivial(_ context.Context, job *Job) (any, error) {
	var in struct{ Text string }
	if err := job.Decode(&in); err != nil {
		return nil, err
	}
	return map[string]string{"echo": in.Text}, nil
}

// serveWorker runs the local API server with trivial on ln, 32 handlers
// at once, and extra options, until ctx ends.
func serveWorker(ctx context.Context, ln net.Listener, extra ...Option) error {
	opts := []Option{WithArgs([]string{"--rp_serve_api", "--rp_api_concurrency", "32", "--rp_log_level", "ERROR"}),
		WithListener(ln), WithOutput(io.Discard), WithEnv(func(string) string { return "" })}
	return Run(ctx, trivial, append(opts, extra...)...)
}

// floorReadHeaderTimeout bounds the floor server's reading of a request's
// header, as the local API server's is bounded (a server on a port that
// does not is open to a client that never finishes one): what that costs
// per request (a deadline set and cleared) is the server's, on both sides.
const floorReadHeaderTimeout = 10 * time.Second

// floorRunSync is the floor: a bare net/http handler that decodes the
// same body and answers the same JSON as the local API's /runsync (the
// same fields in the same order, the time the job took measured), through
// encoding/json.
func floorRunSync(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var body struct {
		Input struct{ Text string } `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	out := map[string]string{"echo": body.Input.Text}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		ID            string            `json:"id"`
		Status        string            `json:"status"`
		DelayTime     int64             `json:"delayTime"`
		ExecutionTime int64             `json:"executionTime"`
		WorkerID      string            `json:"workerId"`
		Output        map[string]string `json:"output"`
	}{"test-" + uuid.NewString(), "COMPLETED", 0, time.Since(start).Milliseconds(), "local", out})
}

type target struct{ name, url string }

// benchTargets runs /runsync against each target, sequentially and with
// 32 clients, from one client (a pool of 64 connections).
func benchTargets(b *testing.B, targets []target) {
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
	for _, target := range targets {
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
