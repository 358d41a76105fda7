package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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

// withHooks and withHandlerGrace set the config's test-only fields.
func withHooks(h *hooks) Option               { return func(c *config) { c.hooks = h } }
func withHandlerGrace(d time.Duration) Option { return func(c *config) { c.handlerGrace = d } }

// lineWatch is a worker's output that a test can wait on, instead of
// polling it: seen returns a channel closed once the text was written.
type lineWatch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waiters []lineWaiter
}

type lineWaiter struct {
	text string
	ch   chan struct{}
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	out := w.buf.String()
	left := w.waiters[:0]
	for _, wt := range w.waiters {
		if strings.Contains(out, wt.text) {
			close(wt.ch)
		} else {
			left = append(left, wt)
		}
	}
	w.waiters = left
	return len(p), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func (w *lineWatch) seen(text string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	if strings.Contains(w.buf.String(), text) {
		close(ch)
	} else {
		w.waiters = append(w.waiters, lineWaiter{text, ch})
	}
	return ch
}

// waitLine waits until the worker wrote text.
func waitLine(t *testing.T, w *lineWatch, text string) {
	t.Helper()
	select {
	case <-w.seen(text):
	case <-time.After(guard):
		t.Fatalf("the worker never wrote %q; output:\n%s", text, w.String())
	}
}

// waitFor waits for ch to close or deliver.
func waitFor[T any](t *testing.T, ch <-chan T, what string, out fmt.Stringer) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(guard):
		t.Fatalf("%s never happened; output:\n%s", what, out)
	}
}

// How the first job-take of a shutdownPlatform answers.
const (
	takeAnswers = iota // at once, with job-1
	takeHeld           // headers and part of job-1, then the rest once releaseTake is closed
	takeSilent         // never: it waits for the worker to give it up, then closes takeGone
)

// shutdownPlatform plays the platform's worker routes on raw wire JSON,
// so a test can hold a job-take answer half-written, or not answer at all,
// while it stops the worker. The first take answers as its mode says;
// later takes find nothing.
//
// job-1's input names two routes of this server for controlledHandler:
// /started/job-1, which closes started, and /release/job-1, which answers
// once the test closes release (or the handler's request ends).
type shutdownPlatform struct {
	srv *httptest.Server

	mode        int
	takeBegun   chan struct{}
	releaseTake chan struct{}
	takeGone    chan struct{}

	started chan struct{}
	release chan struct{}

	mu      sync.Mutex
	takes   int
	results map[string][]string // job id → result bodies posted
	posted  chan string         // each result's job id
}

func newShutdownPlatform(t *testing.T, mode int) *shutdownPlatform {
	p := &shutdownPlatform{mode: mode, takeBegun: make(chan struct{}), releaseTake: make(chan struct{}),
		takeGone: make(chan struct{}), started: make(chan struct{}), release: make(chan struct{}),
		results: map[string][]string{}, posted: make(chan string, 16)}
	var startOnce sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /job-take/{worker}", p.take)
	mux.HandleFunc("POST /job-done/{worker}/{job}", p.done)
	mux.HandleFunc("GET /job-stop/{worker}", func(w http.ResponseWriter, r *http.Request) {
		select { // a long poll that never stops anything
		case <-r.Context().Done():
		case <-time.After(guard):
		}
	})
	mux.HandleFunc("GET /started/{job}", func(w http.ResponseWriter, r *http.Request) { startOnce.Do(func() { close(p.started) }) })
	mux.HandleFunc("GET /release/{job}", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-p.release:
		case <-r.Context().Done():
		case <-time.After(guard):
		}
	})
	p.srv = httptest.NewUnstartedServer(mux)
	p.srv.Start() // after p is complete: its handlers read it
	t.Cleanup(p.srv.Close)
	return p
}

// env is the platform's variables for a worker.
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
	if p.mode == takeSilent {
		close(p.takeBegun)
		select {
		case <-r.Context().Done():
			close(p.takeGone)
		case <-time.After(guard):
		}
		return // the worker gave up: no job was handed over
	}
	input, _ := json.Marshal(map[string]string{"started": p.srv.URL + "/started/job-1", "release": p.srv.URL + "/release/job-1"})
	body := `{"id":"job-1","input":` + string(input) + `}`
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	if p.mode == takeAnswers {
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

// result waits for id's result and returns it.
func (p *shutdownPlatform) result(t *testing.T, id string, out fmt.Stringer) map[string]any {
	t.Helper()
	select {
	case got := <-p.posted:
		require.Equal(t, id, got)
	case <-time.After(guard):
		t.Fatalf("no result was posted for %s; output:\n%s", id, out)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Len(t, p.results[id], 1, "posted exactly once")
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(p.results[id][0]), &m))
	return m
}

// posts counts the results posted for id and the takes served.
func (p *shutdownPlatform) counts(id string) (posts, takes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.results[id]), p.takes
}

// noClient is the controlled handler's HTTP client: no kept connections,
// so no goroutine outlives a test.
var noClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// controlledHandler runs a shutdownPlatform job: it calls the job's
// started URL, then waits for its release URL to answer, and returns
// {"done": "yes"}; it fails with its context's error when the context
// ends first.
func controlledHandler(ctx context.Context, job *Job) (any, error) {
	var in struct{ Started, Release string }
	if err := job.Decode(&in); err != nil {
		return nil, err
	}
	for _, u := range []string{in.Started, in.Release} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := noClient.Do(req)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		_ = resp.Body.Close()
	}
	return map[string]string{"done": "yes"}, nil
}

// startRun runs the worker in this process with a signal channel the test
// controls.
func startRun(t *testing.T, p *shutdownPlatform, h Handler, opts ...Option) (chan<- os.Signal, <-chan error, *lineWatch) {
	sig := make(chan os.Signal, 2)
	done := make(chan error, 1)
	out := &lineWatch{}
	env := p.env()
	go func() {
		done <- run(context.Background(), h, sig, append([]Option{WithArgs(nil), WithOutput(out), WithEnv(func(k string) string { return env[k] })}, opts...))
	}()
	return sig, done, out
}

func waitDone(t *testing.T, done <-chan error, out fmt.Stringer) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(guard):
		t.Fatalf("the worker did not stop; output:\n%s", out)
	}
}

// debugArgs runs a worker at DEBUG level, which logs answering.
var debugArgs = []string{"--rp_log_level", "DEBUG"}

// answering is logged when the platform's answer to a take begins to
// arrive: from then on the worker holds the jobs in it.
const answering = "The platform is answering the job take."

// TestSignalDuringTake: SIGTERM while the platform is answering a take (the
// job is handed over) still runs the job and posts its result. It used to
// abandon the half-read answer: the job was neither run nor reported.
func TestSignalDuringTake(t *testing.T) {
	p := newShutdownPlatform(t, takeHeld)
	sig, done, out := startRun(t, p, controlledHandler, WithArgs(debugArgs))
	waitFor(t, p.takeBegun, "the take", out)
	waitLine(t, out, answering) // the answer reached the worker: the job is handed over
	sig <- syscall.SIGTERM
	waitLine(t, out, "Signal received") // the signal landed before the answer completes
	close(p.releaseTake)
	waitFor(t, p.started, "the handler's start", out)
	close(p.release)
	m := p.result(t, "job-1", out)
	assert.Equal(t, map[string]any{"done": "yes"}, m["output"])
	waitDone(t, done, out)
	posts, takes := p.counts("job-1")
	assert.Equal(t, 1, posts)
	assert.Equal(t, 1, takes, "no take after the signal")
}

// TestSignalDuringIdleTake: SIGTERM while the take long-polls and the
// platform has not answered: the worker gives the poll up (after
// takeGrace) and stops, with nothing handed over and nothing posted.
func TestSignalDuringIdleTake(t *testing.T) {
	p := newShutdownPlatform(t, takeSilent)
	sig, done, out := startRun(t, p, controlledHandler, WithArgs(debugArgs))
	waitFor(t, p.takeBegun, "the take", out)
	sig <- syscall.SIGTERM
	waitFor(t, p.takeGone, "the worker giving the take up", out)
	waitDone(t, done, out)
	assert.Contains(t, out.String(), "Stopped waiting for jobs: shutting down.")
	posts, takes := p.counts("job-1")
	assert.Zero(t, posts)
	assert.Equal(t, 1, takes)
}

// TestSignalDuringHandler: one SIGTERM lets the running job finish and
// post its result, then the worker stops.
func TestSignalDuringHandler(t *testing.T) {
	p := newShutdownPlatform(t, takeAnswers)
	sig, done, out := startRun(t, p, controlledHandler)
	waitFor(t, p.started, "the handler's start", out)
	sig <- syscall.SIGTERM
	waitLine(t, out, "Signal received")
	close(p.release)
	m := p.result(t, "job-1", out)
	assert.Equal(t, map[string]any{"done": "yes"}, m["output"])
	waitDone(t, done, out)
}

// TestSecondSignal: a second SIGTERM cancels the running handler, and the
// job's result (an error saying why) is still posted, within a grace, so
// the platform need not wait for the job to time out. It used to post
// nothing: the post ran on the cancelled context.
func TestSecondSignal(t *testing.T) {
	p := newShutdownPlatform(t, takeAnswers)
	sig, done, out := startRun(t, p, controlledHandler)
	waitFor(t, p.started, "the handler's start", out)
	sig <- syscall.SIGTERM
	sig <- syscall.SIGTERM
	m := p.result(t, "job-1", out)
	assert.Contains(t, m["error"], "worker shutting down: the job was cancelled")
	waitDone(t, done, out)
	assert.Contains(t, out.String(), "Second signal")
	assert.Contains(t, out.String(), "Cancelled by the forced shutdown; posting its error result.")
}

// TestSecondSignalDuringTake: the hard stop while a take's answer arrives
// does not cut it off: the job handed over is reported (as not run),
// instead of being lost with the half-read answer.
func TestSecondSignalDuringTake(t *testing.T) {
	p := newShutdownPlatform(t, takeHeld)
	sig, done, out := startRun(t, p, controlledHandler, WithArgs(debugArgs))
	waitFor(t, p.takeBegun, "the take", out)
	waitLine(t, out, answering) // the answer reached the worker: the job is handed over
	sig <- syscall.SIGTERM
	waitLine(t, out, "Signal received")
	sig <- syscall.SIGTERM
	waitLine(t, out, "Second signal")
	close(p.releaseTake)
	m := p.result(t, "job-1", out)
	assert.Contains(t, m["error"], "worker shutting down: the job arrived as the worker was stopped and did not run")
	waitDone(t, done, out)
	select {
	case <-p.started:
		t.Error("the handler ran after the hard stop")
	default:
	}
}

// TestStuckHandlerAfterSecondSignal: a handler that ignores its cancelled
// context does not keep the job unreported, nor the worker from stopping:
// after handlerGrace the job's error result is posted without it.
func TestStuckHandlerAfterSecondSignal(t *testing.T) {
	p := newShutdownPlatform(t, takeAnswers)
	started, unstick := make(chan struct{}), make(chan struct{})
	returned := make(chan struct{})
	t.Cleanup(func() {
		close(unstick)
		<-returned // no goroutine outlives the test
	})
	stuck := func(ctx context.Context, job *Job) (any, error) {
		defer close(returned)
		close(started)
		<-unstick
		return "too late", nil
	}
	sig, done, out := startRun(t, p, stuck, withHandlerGrace(50*time.Millisecond))
	waitFor(t, started, "the handler's start", out)
	sig <- syscall.SIGTERM
	sig <- syscall.SIGTERM
	m := p.result(t, "job-1", out)
	assert.Contains(t, m["error"], "the handler did not return within 50ms of being cancelled")
	waitDone(t, done, out)
	assert.Contains(t, out.String(), "reporting the job without it")
}

// workerEnvVars is every environment variable the worker reads (a test
// below keeps the list complete): the child process gets each one set or
// cleared explicitly, never inherited.
var workerEnvVars = []string{
	"RUNPOD_AI_API_KEY", "RUNPOD_ENDPOINT_ID", "RUNPOD_PING_INTERVAL", "RUNPOD_POD_HOSTNAME", "RUNPOD_POD_ID",
	"RUNPOD_UA_INTEGRATION", "RUNPOD_WEBHOOK_GET_JOB", "RUNPOD_WEBHOOK_PING", "RUNPOD_WEBHOOK_POST_OUTPUT",
	"RUNPOD_WEBHOOK_POST_STREAM",
}

// TestWorkerEnvVarsListed: workerEnvVars names every variable the
// worker's sources read.
func TestWorkerEnvVarsListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	read := regexp.MustCompile(`env\("([A-Z0-9_]+)"\)`)
	var found []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range read.FindAllSubmatch(b, -1) {
			found = append(found, string(m[1]))
		}
	}
	require.NotEmpty(t, found)
	for _, name := range found {
		assert.Contains(t, workerEnvVars, name, "the real-process tests must set or clear it")
	}
}

// childEnv prefixes the worker's variables in the child's environment:
// the test binary's TestMain clears every RUNPOD_* variable, so the child
// puts them back from these once it runs.
const childEnv = "CHILD_"

// TestHelperWorkerProcess is not a test: it is the worker main that the
// real-process tests below run, re-executing this test binary.
func TestHelperWorkerProcess(t *testing.T) {
	if os.Getenv("GO_WANT_WORKER_PROCESS") != "1" {
		t.Skip("runs only as the child of the real-process tests")
	}
	for _, name := range workerEnvVars {
		if v := os.Getenv(childEnv + name); v != "" {
			_ = os.Setenv(name, v)
		}
	}
	var args []string
	_ = json.Unmarshal([]byte(os.Getenv("WORKER_ARGS")), &args)
	Start(controlledHandler, WithArgs(args))
}

// worker is a worker process started by startProcess.
type worker struct {
	cmd    *exec.Cmd
	out    *lineWatch
	exited chan struct{}
	err    error
}

// startProcess runs TestHelperWorkerProcess as a worker main, with the
// given worker arguments and exactly the given RUNPOD_* variables (every
// other one the worker reads is cleared).
func startProcess(t *testing.T, vars map[string]string, args ...string) *worker {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWorkerProcess$", "-test.count=1")
	a, _ := json.Marshal(args)
	env := []string{"GO_WANT_WORKER_PROCESS=1", "WORKER_ARGS=" + string(a)}
	for _, name := range workerEnvVars {
		env = append(env, childEnv+name+"="+vars[name])
	}
	for name := range vars {
		require.Contains(t, workerEnvVars, name)
	}
	cmd.Env = env
	w := &worker{cmd: cmd, out: &lineWatch{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.out, w.out
	require.NoError(t, cmd.Start())
	go func() { w.err = cmd.Wait(); close(w.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-w.exited
	})
	return w
}

func (w *worker) signal(t *testing.T) {
	t.Helper()
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
}

// exitCode waits for the process to end and returns its exit code.
func (w *worker) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-w.exited:
	case <-time.After(guard):
		t.Fatalf("the worker process did not exit; output:\n%s", w.out)
	}
	var ee *exec.ExitError
	if errors.As(w.err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, w.err)
	return 0
}

// TestRealProcessShutdown runs the worker as its own process and stops it
// with real signals: SIGTERM during a take, SIGTERM during a handler, and
// SIGTERM twice during a handler. The job handed over is always run or
// cancelled, and reported; the process exits 0, as Start documents.
func TestRealProcessShutdown(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX signals")
	}
	for _, tc := range []struct {
		name   string
		during string // "take" or "handler"
		twice  bool
		output any    // the result's output, when it succeeds
		error  string // in the result's error, when it fails
	}{
		{name: "SIGTERM during take", during: "take", output: map[string]any{"done": "yes"}},
		{name: "SIGTERM during handler", during: "handler", output: map[string]any{"done": "yes"}},
		{name: "SIGTERM twice during handler", during: "handler", twice: true, error: "worker shutting down: the job was cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mode := takeAnswers
			if tc.during == "take" {
				mode = takeHeld
			}
			p := newShutdownPlatform(t, mode)
			w := startProcess(t, p.env(), debugArgs...)
			if tc.during == "take" {
				waitFor(t, p.takeBegun, "the take", w.out)
				waitLine(t, w.out, answering)
				w.signal(t)
				waitLine(t, w.out, "Signal received")
				close(p.releaseTake)
			}
			waitFor(t, p.started, "the handler's start (the job handed over runs)", w.out)
			if tc.during == "handler" {
				w.signal(t)
				waitLine(t, w.out, "Signal received")
			}
			if tc.twice {
				w.signal(t)
				waitLine(t, w.out, "Second signal")
			} else {
				close(p.release)
			}
			m := p.result(t, "job-1", w.out)
			if tc.error != "" {
				assert.Contains(t, m["error"], tc.error)
			} else {
				assert.Equal(t, tc.output, m["output"])
			}
			assert.Equal(t, 0, w.exitCode(t), "output:\n%s", w.out)
			posts, takes := p.counts("job-1")
			assert.Equal(t, 1, posts)
			assert.Equal(t, 1, takes, "no take after the signal")
			assert.Contains(t, w.out.String(), "Worker stopped.")
		})
	}
}

// TestRealProcessUnknownWorkerFlag: a misspelt worker flag ends the
// process with exit code 2 and a message naming it, before anything runs.
func TestRealProcessUnknownWorkerFlag(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exit codes of a re-executed test binary")
	}
	w := startProcess(t, nil, "--rp_serve_apii", "--model", "x")
	assert.Equal(t, 2, w.exitCode(t))
	assert.Contains(t, w.out.String(), "unknown worker flag --rp_serve_apii")
	assert.False(t, slices.ContainsFunc(strings.Split(w.out.String(), "\n"), func(l string) bool {
		return strings.Contains(l, "Local API server listening") || strings.Contains(l, "test_input.json")
	}), "nothing ran")
}
