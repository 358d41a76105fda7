package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guard bounds every wait of these tests; reaching it is a failure (a
// hang), never part of a passing run.
const guard = 20 * time.Second

// shutdownPlatform plays the platform's worker routes on raw wire JSON,
// so a test can hold a job-take answer half-written while it stops the
// worker. The first take hands over job-1; later takes find nothing.
type shutdownPlatform struct {
	srv *httptest.Server

	// holdTake makes the first take write its headers and half its body,
	// then wait for releaseTake.
	holdTake    bool
	takeBegun   chan struct{} // closed when the first take's answer began
	releaseTake chan struct{}

	mu      sync.Mutex
	takes   int
	results map[string][]string // job id → result bodies posted
	posted  chan string         // each result's job id
}

func newShutdownPlatform(t *testing.T, holdTake bool) *shutdownPlatform {
	p := &shutdownPlatform{holdTake: holdTake, takeBegun: make(chan struct{}), releaseTake: make(chan struct{}),
		results: map[string][]string{}, posted: make(chan string, 16)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /job-take/{worker}", p.take)
	mux.HandleFunc("POST /job-done/{worker}/{job}", p.done)
	mux.HandleFunc("GET /job-stop/{worker}", func(w http.ResponseWriter, r *http.Request) {
		select { // a long poll that never stops anything
		case <-r.Context().Done():
		case <-time.After(guard):
		}
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *shutdownPlatform) env() map[string]string {
	return map[string]string{
		"RUNPOD_WEBHOOK_GET_JOB":     p.srv.URL + "/job-take/$ID",
		"RUNPOD_WEBHOOK_POST_OUTPUT": p.srv.URL + "/job-done/$RUNPOD_POD_ID/$ID",
		"RUNPOD_AI_API_KEY":          "rpa_WORKERKEY",
		"RUNPOD_POD_ID":              "worker-1",
		"RUNPOD_ENDPOINT_ID":         "ep1",
	}
}

func (p *shutdownPlatform) take(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.takes++
	first := p.takes == 1
	p.mu.Unlock()
	if !first {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body := `{"id":"job-1","input":{"work":"block"}}`
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	if !p.holdTake {
		_, _ = io.WriteString(w, body)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body[:10])
	w.(http.Flusher).Flush()
	close(p.takeBegun)
	select {
	case <-p.releaseTake:
	case <-time.After(guard):
	}
	_, _ = io.WriteString(w, body[10:])
}

func (p *shutdownPlatform) done(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	id := r.PathValue("job")
	p.mu.Lock()
	p.results[id] = append(p.results[id], string(b))
	p.mu.Unlock()
	p.posted <- id
}

func (p *shutdownPlatform) result(t *testing.T, id string) map[string]any {
	t.Helper()
	select {
	case got := <-p.posted:
		require.Equal(t, id, got)
	case <-time.After(guard):
		t.Fatalf("no result was posted for %s", id)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Len(t, p.results[id], 1, "posted exactly once")
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(p.results[id][0]), &m))
	return m
}

// blockingHandler runs job-1 until release is closed or its context ends.
func blockingHandler(started chan<- struct{}, release <-chan struct{}) Handler {
	return func(ctx context.Context, job *Job) (any, error) {
		close(started)
		select {
		case <-release:
			return map[string]string{"done": "yes"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// startRun runs the worker in this process with a signal channel the test
// controls.
func startRun(t *testing.T, p *shutdownPlatform, h Handler) (chan<- os.Signal, <-chan error, *syncBuffer) {
	sig := make(chan os.Signal, 2)
	done := make(chan error, 1)
	out := &syncBuffer{}
	env := p.env()
	go func() {
		done <- run(context.Background(), h, sig, []Option{WithArgs(nil), WithOutput(out), WithEnv(func(k string) string { return env[k] })})
	}()
	return sig, done, out
}

func waitDone(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(guard):
		t.Fatal("the worker did not stop")
	}
}

// TestSignalDuringTake: SIGTERM while the platform is answering a take (the
// job is handed over) still runs the job and posts its result. It used to
// abandon the half-read answer: the job was neither run nor reported.
func TestSignalDuringTake(t *testing.T) {
	p := newShutdownPlatform(t, true)
	var ran bool
	sig, done, out := startRun(t, p, func(ctx context.Context, job *Job) (any, error) {
		ran = true
		return "ran", nil
	})
	<-p.takeBegun
	sig <- syscall.SIGTERM
	// Let the signal land before the answer completes: the signal goroutine
	// logs it first.
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Signal received") }, guard, time.Millisecond)
	close(p.releaseTake)
	m := p.result(t, "job-1")
	assert.Equal(t, "ran", m["output"])
	waitDone(t, done)
	assert.True(t, ran)
}

// TestSignalDuringHandler: one SIGTERM lets the running job finish and
// post its result, then the worker stops.
func TestSignalDuringHandler(t *testing.T) {
	p := newShutdownPlatform(t, false)
	started, release := make(chan struct{}), make(chan struct{})
	sig, done, out := startRun(t, p, blockingHandler(started, release))
	<-started
	sig <- syscall.SIGTERM
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Signal received") }, guard, time.Millisecond)
	close(release)
	m := p.result(t, "job-1")
	assert.Equal(t, map[string]any{"done": "yes"}, m["output"])
	waitDone(t, done)
}

// TestSecondSignal: a second SIGTERM cancels the running handler, and the
// job's result (an error saying why) is still posted, within a grace, so
// the platform need not wait for the job to time out. It used to post
// nothing: the post ran on the cancelled context.
func TestSecondSignal(t *testing.T) {
	p := newShutdownPlatform(t, false)
	started := make(chan struct{})
	sig, done, out := startRun(t, p, blockingHandler(started, nil))
	<-started
	sig <- syscall.SIGTERM
	sig <- syscall.SIGTERM
	m := p.result(t, "job-1")
	assert.Contains(t, m["error"], "worker shutting down: the job was cancelled")
	waitDone(t, done)
	assert.Contains(t, out.String(), "Second signal")
}

// TestHelperWorkerProcess is not a test: it is the worker main that the
// real-process tests below run, re-executing this test binary.
//
// The test suite's TestMain clears every RUNPOD_* variable, so the parent
// passes the platform's variables prefixed with childEnv, and this puts
// them back before the worker starts.
func TestHelperWorkerProcess(t *testing.T) {
	if os.Getenv("GO_WANT_WORKER_PROCESS") != "1" {
		t.Skip("runs only as the child of the real-process shutdown tests")
	}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, childEnv) {
			_ = os.Setenv(strings.TrimPrefix(k, childEnv), v)
		}
	}
	Start(func(ctx context.Context, job *Job) (any, error) {
		fmt.Fprintln(os.Stderr, "handler started")
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(guard):
			return "finished", nil
		}
	})
}

const childEnv = "CHILD_"

// TestRealProcessShutdown runs the worker as its own process and stops it
// with real signals: SIGTERM during a take, and SIGTERM twice during a
// handler. The job handed over is always reported.
func TestRealProcessShutdown(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX signals")
	}
	for _, tc := range []struct {
		name    string
		hold    bool
		signals int
		want    string // in the posted result
	}{
		{"SIGTERM during take", true, 2, "worker shutting down"},
		{"SIGTERM twice during handler", false, 2, "worker shutting down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newShutdownPlatform(t, tc.hold)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWorkerProcess$", "-test.count=1")
			env := []string{"GO_WANT_WORKER_PROCESS=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
			for k, v := range p.env() {
				env = append(env, childEnv+k+"="+v)
			}
			cmd.Env = env
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			cmd.Stdout = stderr
			require.NoError(t, cmd.Start())
			exited := make(chan struct{})
			var exitErr error
			go func() { exitErr = cmd.Wait(); close(exited) }()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
			})
			if tc.hold {
				select {
				case <-p.takeBegun:
				case <-time.After(guard):
					t.Fatalf("the worker process never took a job; output:\n%s", stderr.String())
				}
				require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
				require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "Signal received") }, guard, time.Millisecond)
				close(p.releaseTake)
			}
			require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "handler started") }, guard, time.Millisecond,
				"the job handed over runs")
			for range tc.signals - map[bool]int{true: 1, false: 0}[tc.hold] {
				require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
				require.Eventually(t, func() bool {
					return strings.Contains(stderr.String(), "Signal received") || strings.Contains(stderr.String(), "Second signal")
				}, guard, time.Millisecond)
			}
			m := p.result(t, "job-1")
			assert.Contains(t, m["error"], tc.want)
			select {
			case <-exited:
				assert.NoError(t, exitErr, "exit code 0 after a drained shutdown; output:\n%s", stderr.String())
			case <-time.After(guard):
				t.Fatalf("the worker process did not exit; output:\n%s", stderr.String())
			}
		})
	}
}
