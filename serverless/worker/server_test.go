package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve starts the local API server with h and returns its base URL; the
// server stops when the test ends.
func serve(t *testing.T, h Handler, args []string, opts ...Option) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		done <- Run(ctx, h, append([]Option{WithArgs(append([]string{"--rp_serve_api"}, args...)), WithListener(ln),
			WithOutput(&out), WithEnv(func(string) string { return "" })}, opts...)...)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(15 * time.Second):
			t.Error("the server did not shut down")
		}
		http.DefaultClient.CloseIdleConnections()
	})
	return "http://" + ln.Addr().String()
}

func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return resp.StatusCode, m
}

// TestRefreshWorkerKeepsServing: a handler asking for its worker to be
// replaced, or a worker run WithRefreshWorker, changes nothing on the
// local server: later jobs run (they were answered CANCELLED once the
// first such job had ended).
func TestRefreshWorkerKeepsServing(t *testing.T) {
	refresh := func(_ context.Context, job *Job) (any, error) {
		return map[string]any{"ok": true, "refresh_worker": true}, nil
	}
	for name, base := range map[string]string{
		"refresh_worker":    serve(t, refresh, nil),
		"WithRefreshWorker": serve(t, echo, nil, WithRefreshWorker()),
	} {
		for range 3 {
			for _, route := range []string{"/runsync", "/runsync?wait=5000"} {
				code, m := call(t, "POST", base+route, `{"input":{"prompt":"hello"}}`)
				assert.Equal(t, 200, code, name)
				assert.Equal(t, "COMPLETED", m["status"], name, m)
				assert.NotContains(t, m, "stopPod", name)
			}
		}
		code, m := call(t, "POST", base+"/run", `{"input":{"prompt":"hello"}}`)
		assert.Equal(t, 200, code, name)
		assert.Equal(t, "IN_QUEUE", m["status"], name)
	}
}

func TestRunSyncRoute(t *testing.T) {
	base := serve(t, echo, nil)
	code, m := call(t, "POST", base+"/runsync", `{"input":{"prompt":"hello"}}`)
	assert.Equal(t, 200, code)
	assert.Equal(t, "COMPLETED", m["status"])
	assert.Equal(t, map[string]any{"echo": "hello", "times": float64(0)}, m["output"])
	id, ok := strings.CutPrefix(m["id"].(string), "test-")
	assert.True(t, ok, m["id"])
	u, err := uuid.Parse(id)
	assert.NoError(t, err)
	assert.Equal(t, id, u.String(), "test- and a UUID in its canonical form")
	assert.Equal(t, uuid.Version(4), u.Version())
	assert.Equal(t, uuid.RFC4122, u.Variant())

	code, m = call(t, "POST", base+"/runsync", `{"input":{"prompt":"fail"}}`)
	assert.Equal(t, 200, code)
	assert.Equal(t, "FAILED", m["status"])
	assert.Contains(t, m["error"], "asked to fail")
}

func TestBadRequests(t *testing.T) {
	base := serve(t, echo, nil, WithMaxBodySize(100))
	for _, body := range []string{`{not json`, `{"input":null}`, `{}`, `[]`, `{"INPUT":1}`, `{"Input":1}`} {
		code, m := call(t, "POST", base+"/runsync", body)
		assert.Equal(t, 400, code, body)
		assert.NotEmpty(t, m["error"])
	}
	code, m := call(t, "POST", base+"/run", `{"input":"`+strings.Repeat("x", 200)+`"}`)
	assert.Equal(t, 413, code)
	assert.Contains(t, m["error"], "exceeds 100 bytes")
	// The same body without a declared length (chunked) is refused alike.
	req, err := http.NewRequestWithContext(t.Context(), "POST", base+"/runsync",
		io.MultiReader(strings.NewReader(`{"input":"`), strings.NewReader(strings.Repeat("x", 200)+`"}`)))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, 413, resp.StatusCode)
	code, _ = call(t, "GET", base+"/nowhere", "")
	assert.Equal(t, 404, code)
	code, m = call(t, "GET", base+"/status/test-unknown", "")
	assert.Equal(t, 404, code)
	assert.Equal(t, "Job ID not found", m["error"])
}

// TestRunDoesNotRunTheHandler: /run only queues, as the platform's local
// server does; /status runs.
func TestRunDoesNotRunTheHandler(t *testing.T) {
	var calls atomic.Int32
	h := func(ctx context.Context, job *Job) (any, error) { calls.Add(1); return "ran", nil }
	base := serve(t, h, nil)
	_, m := call(t, "POST", base+"/run", `{"input":{}}`)
	assert.Equal(t, "IN_QUEUE", m["status"])
	id := m["id"].(string)
	_, health := call(t, "GET", base+"/health", "")
	assert.Equal(t, float64(1), health["jobs"].(map[string]any)["inQueue"])
	assert.Zero(t, calls.Load(), "the handler did not run")

	_, m = call(t, "GET", base+"/status/"+id, "")
	assert.Equal(t, "COMPLETED", m["status"])
	assert.Equal(t, "ran", m["output"])
	assert.Equal(t, int32(1), calls.Load())
	_, m = call(t, "POST", base+"/status/"+id, "")
	assert.Equal(t, "COMPLETED", m["status"], "the result is kept")
	assert.Equal(t, int32(1), calls.Load(), "and the job not run again")
}

func TestBackgroundRun(t *testing.T) {
	release := make(chan struct{})
	h := func(ctx context.Context, job *Job) (any, error) {
		_ = job.Stream("first")
		<-release
		_ = job.Stream("second")
		return nil, nil
	}
	ended := make(chan string, 1)
	base := serve(t, h, nil, WithBackgroundRun(), withHooks(&hooks{jobEnded: func(id string) { ended <- id }}))
	_, m := call(t, "POST", base+"/run", `{"input":{}}`)
	id := m["id"].(string)
	_, m = call(t, "GET", base+"/stream/"+id, "")
	assert.Equal(t, "IN_PROGRESS", m["status"])
	assert.Equal(t, []any{map[string]any{"output": "first"}}, m["stream"])
	_, m = call(t, "GET", base+"/status/"+id, "")
	assert.Equal(t, "IN_PROGRESS", m["status"], "runs in the background")
	close(release)
	_, m = call(t, "POST", base+"/stream/"+id, "")
	assert.Equal(t, []any{map[string]any{"output": "second"}}, m["stream"], "each chunk once")
	select {
	case <-ended:
	case <-time.After(guard):
		t.Fatal("the job never ended")
	}
	_, m = call(t, "GET", base+"/status/"+id, "")
	assert.Equal(t, "COMPLETED", m["status"])
	assert.Equal(t, []any{"first", "second"}, m["output"], "a streaming handler's output is its chunks")
}

func TestStreamRunsQueuedJob(t *testing.T) {
	h := func(ctx context.Context, job *Job) (any, error) {
		for i := range 3 {
			_ = job.Stream(i)
		}
		return nil, nil
	}
	base := serve(t, h, nil)
	_, m := call(t, "POST", base+"/run", `{"input":{}}`)
	id := m["id"].(string)
	var got []any
	for {
		_, m = call(t, "GET", base+"/stream/"+id, "")
		for _, c := range m["stream"].([]any) {
			got = append(got, c.(map[string]any)["output"])
		}
		if m["status"] == "COMPLETED" {
			break
		}
	}
	assert.Equal(t, []any{float64(0), float64(1), float64(2)}, got)
}

func TestCancelAndPanicIsolation(t *testing.T) {
	started, returned := make(chan struct{}), make(chan struct{})
	var cancelled atomic.Bool
	h := func(ctx context.Context, job *Job) (any, error) {
		var in string
		_ = job.Decode(&in)
		switch in {
		case "panic":
			panic("handler bug")
		case "block":
			defer close(returned)
			close(started)
			<-ctx.Done()
			cancelled.Store(true)
			return nil, ctx.Err()
		}
		return "ok", nil
	}
	// When the server records the job's end, its slot and counters must
	// be settled already: the hook takes the running count at that moment.
	type end struct {
		id      string
		running int64
	}
	ended := make(chan end, 1)
	var srv atomic.Pointer[localServer]
	base := serve(t, h, []string{"--rp_api_concurrency", "2"}, WithBackgroundRun(), withHooks(&hooks{
		server:   srv.Store,
		jobEnded: func(id string) { ended <- end{id, int64(srv.Load().q.Health().Running)} },
	}))
	code, m := call(t, "POST", base+"/runsync", `{"input":"panic"}`)
	assert.Equal(t, 200, code)
	assert.Equal(t, "FAILED", m["status"])
	assert.Contains(t, m["error"], "handler panicked: handler bug")
	_, m = call(t, "POST", base+"/runsync", `{"input":"fine"}`)
	assert.Equal(t, "COMPLETED", m["status"], "the server keeps serving after a panic")

	_, m = call(t, "POST", base+"/run", `{"input":"block"}`)
	id := m["id"].(string)
	<-started
	_, m = call(t, "POST", base+"/cancel/"+id, "")
	assert.Equal(t, "CANCELLED", m["status"])
	_, m = call(t, "GET", base+"/status/"+id, "")
	assert.Equal(t, "CANCELLED", m["status"])
	// The cancelled handler returns in its own goroutine: wait until the
	// server recorded the job's end (its slot and counters are settled by
	// then), then read the counters once.
	select {
	case got := <-ended:
		require.Equal(t, id, got.id)
		assert.Zero(t, got.running, "the slot was freed before the job was seen as ended")
	case <-time.After(guard):
		t.Fatal("the cancelled job never ended")
	}
	// The job ends as /cancel is answered, which cancels the handler's
	// context; the handler sees that in its own goroutine, possibly after
	// the end was recorded (reading the flag before it returned was the
	// flake of issue 26 item 14): wait for it to return.
	select {
	case <-returned:
	case <-time.After(guard):
		t.Fatal("the cancelled handler never returned")
	}
	_, health := call(t, "GET", base+"/health", "")
	assert.True(t, cancelled.Load(), "the handler's context was cancelled")
	jobs := health["jobs"].(map[string]any)
	assert.Equal(t, float64(1), jobs["completed"])
	assert.Equal(t, float64(1), jobs["failed"])
	workers := health["workers"].(map[string]any)
	assert.Equal(t, float64(2), workers["idle"])
	assert.Equal(t, float64(0), workers["running"])
}

// TestConcurrency: N slow jobs with concurrency N all run at once in one
// process: each waits until all N have started (a barrier), which only
// finishes if they really run in parallel.
func TestConcurrency(t *testing.T) {
	const n = 4
	var mu sync.Mutex
	running, peak := 0, 0
	var barrier sync.WaitGroup
	barrier.Add(n)
	h := func(ctx context.Context, job *Job) (any, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		barrier.Done()
		barrier.Wait()
		mu.Lock()
		running--
		mu.Unlock()
		return "done", nil
	}
	base := serve(t, h, []string{"--rp_api_concurrency", "4"})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, m := call(t, "POST", base+"/runsync", `{"input":{}}`)
			assert.Equal(t, "COMPLETED", m["status"])
		})
	}
	wg.Wait()
	assert.Equal(t, n, peak)
}

// TestConcurrencyLimit: with concurrency 1, a second job waits for the
// first.
func TestConcurrencyLimit(t *testing.T) {
	var running, peak atomic.Int32
	release := make(chan struct{})
	h := func(ctx context.Context, job *Job) (any, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		running.Add(-1)
		return "ok", nil
	}
	base := serve(t, h, nil)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { call(t, "POST", base+"/runsync", `{"input":{}}`) })
	}
	require.Eventually(t, func() bool {
		_, health := call(t, "GET", base+"/health", "")
		return health["jobs"].(map[string]any)["inQueue"] == float64(2)
	}, 5*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	assert.Equal(t, int32(1), peak.Load())
}

// TestLocalStatusSyncAndMethods: the local server serves status-sync as
// the platform does (a queued job is run, and answered once it ends), and
// a known route under another method is 405 with Allow.
func TestLocalStatusSyncAndMethods(t *testing.T) {
	base := serve(t, echo, nil)
	_, m := call(t, "POST", base+"/run", `{"input":{"prompt":"hi"}}`)
	id := m["id"].(string)
	code, m := call(t, "GET", base+"/status-sync/"+id+"?wait=60000", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, "COMPLETED", m["status"])
	assert.Equal(t, map[string]any{"echo": "hi", "times": float64(0)}, m["output"])
	code, m = call(t, "POST", base+"/status-sync/"+id+"?wait=1", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, "COMPLETED", m["status"])
	code, _ = call(t, "GET", base+"/status-sync/"+id+"?wait=0", "")
	assert.Equal(t, 400, code, "wait is 1 ms to 300 s")
	code, _ = call(t, "GET", base+"/status-sync/test-unknown?wait=1", "")
	assert.Equal(t, 404, code)

	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/status/" + id, "GET, POST"},
		{"DELETE", "/status-sync/" + id, "GET, POST"},
		{"GET", "/run", "POST"},
		{"GET", "/cancel/" + id, "POST"},
		{"POST", "/health", "GET"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), tc.method, base+tc.path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, 405, resp.StatusCode, tc.method+" "+tc.path)
		assert.Equal(t, tc.allow, resp.Header.Get("Allow"), tc.method+" "+tc.path)
	}
}

// TestBadBodyMessages: a /run or /runsync body that is not a job is a 400
// saying what a body must be and what came, in JSON's words: never a Go
// type or encoding/json's wording.
func TestBadBodyMessages(t *testing.T) {
	base := serve(t, echo, nil)
	const shape = `body must be a JSON object with an "input" field, got `
	for _, tc := range []struct{ body, want string }{
		{`[]`, shape + "a JSON array"},
		{`[{"input":1}]`, shape + "a JSON array"},
		{`"input"`, shape + "a JSON string"},
		{`5`, shape + "a JSON number"},
		{`true`, shape + "a JSON boolean"},
		{`null`, shape + "null"},
		{``, shape + "nothing"},
		{" \n", shape + "nothing"},
		{`{not json`, shape + "invalid JSON: invalid character 'n' looking for beginning of object key string (at byte 2)"},
		{`{"input":1`, shape + "invalid JSON: unexpected end of JSON input"},
		{`{"input":1} x`, shape + "invalid JSON: invalid character 'x' after top-level value"},
		{`{}`, shape + `an object without "input"`},
		{`{"prompt":"hi"}`, shape + `an object without "input"`},
		{`{"input":null}`, shape + `"input": null`},
		{`{"input":{},"webhook":5}`, `"webhook" must be a string (an http or https URL), got a JSON number`},
		{`{"input":{},"webhook":{"url":"x"}}`, `"webhook" must be a string (an http or https URL), got a JSON object`},
	} {
		for _, path := range []string{"/runsync", "/run", "/v2/local/runsync", "/v2/local/run"} {
			code, m := call(t, "POST", base+path, tc.body)
			assert.Equal(t, 400, code, path+" "+tc.body)
			msg, _ := m["error"].(string)
			assert.Contains(t, msg, tc.want, path+" "+tc.body)
			for _, goWords := range []string{"Go value", "Go struct", "json:", "worker.", "struct {", "unmarshal"} {
				assert.NotContains(t, msg, goWords, path+" "+tc.body)
			}
		}
	}
	// Any JSON value but null is an input, and other keys are left alone,
	// as the platform leaves them.
	for _, body := range []string{`{"input":5}`, `{"input":"hi","id":7,"policy":{"ttl":10000},"webhook":null}`} {
		code, m := call(t, "POST", base+"/runsync", body)
		assert.Equal(t, 200, code, body)
		assert.Equal(t, "FAILED", m["status"], "echo's input is an object: the handler, not the server, refuses %s", body)
	}
}

// TestTestInputBadJob: local test mode words a bad job as the server does.
func TestTestInputBadJob(t *testing.T) {
	out, err := local(t, echo, []string{"--test_input", `[{"input":1}]`}, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, `the job must be a JSON object with an "input" field, got a JSON array`)
	assert.NotContains(t, out, "Go value")
	out, err = local(t, echo, []string{"--test_input", `{"id":7,"input":{}}`}, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, `"id" must be a string, got a JSON number`)
}

// TestV2RoutesMirrorBareRoutes: every job route is served at the root and
// under /v2/{endpoint}/ for any endpoint id, as one job store: a job
// submitted on one is read on the others.
func TestV2RoutesMirrorBareRoutes(t *testing.T) {
	h := func(ctx context.Context, job *Job) (any, error) {
		var in string
		_ = job.Decode(&in)
		_ = job.Stream("chunk-" + in)
		return nil, nil
	}
	base := serve(t, h, nil)
	for _, prefix := range []string{"", "/v2/local", "/v2/abc123xyz"} {
		code, m := call(t, "POST", base+prefix+"/runsync", `{"input":"sync"}`)
		assert.Equal(t, 200, code, prefix)
		assert.Equal(t, "COMPLETED", m["status"], prefix)
		assert.Equal(t, []any{"chunk-sync"}, m["output"], prefix)

		code, m = call(t, "POST", base+prefix+"/runsync?wait=60000", `{"input":"held"}`)
		assert.Equal(t, 200, code, prefix)
		assert.Equal(t, "COMPLETED", m["status"], prefix)
		code, m = call(t, "POST", base+prefix+"/runsync?wait=999", `{"input":"held"}`)
		assert.Equal(t, 400, code, prefix)
		assert.Equal(t, `wait must be 1000 to 300000 milliseconds, got "999"`, m["error"], prefix)

		// Submitted here, read at the root and under another endpoint id.
		_, m = call(t, "POST", base+prefix+"/run", `{"input":"a"}`)
		a := m["id"].(string)
		_, m = call(t, "POST", base+prefix+"/stream/"+a, "")
		assert.Equal(t, []any{map[string]any{"output": "chunk-a"}}, m["stream"], prefix)
		_, m = call(t, "GET", base+prefix+"/status-sync/"+a+"?wait=60000", "") // the stream started it
		assert.Equal(t, "COMPLETED", m["status"], prefix)
		for _, other := range []string{"", "/v2/other"} {
			code, m = call(t, "GET", base+other+"/status/"+a, "")
			assert.Equal(t, 200, code, prefix+" "+other)
			assert.Equal(t, "COMPLETED", m["status"], prefix+" "+other)
		}
		_, m = call(t, "POST", base+prefix+"/run", `{"input":"b"}`)
		b := m["id"].(string)
		code, m = call(t, "GET", base+prefix+"/status-sync/"+b+"?wait=60000", "")
		assert.Equal(t, 200, code, prefix)
		assert.Equal(t, "COMPLETED", m["status"], prefix)

		_, m = call(t, "POST", base+prefix+"/run", `{"input":"c"}`)
		c := m["id"].(string)
		code, m = call(t, "POST", base+prefix+"/cancel/"+c, "")
		assert.Equal(t, 200, code, prefix)
		assert.Equal(t, map[string]any{"id": c, "status": "CANCELLED"}, m, prefix)

		call(t, "POST", base+prefix+"/run", `{"input":"d"}`)
		call(t, "POST", base+prefix+"/run", `{"input":"e"}`)
		code, m = call(t, "POST", base+prefix+"/purge-queue", "")
		assert.Equal(t, 200, code, prefix)
		assert.Equal(t, map[string]any{"removed": float64(2), "status": "completed"}, m, prefix)

		code, m = call(t, "POST", base+prefix+"/retry/"+a, "")
		assert.Equal(t, 501, code, prefix)
		assert.Contains(t, m["error"], "does not retry jobs", prefix)

		code, m = call(t, "GET", base+prefix+"/health", "")
		assert.Equal(t, 200, code, prefix)
		assert.Equal(t, float64(0), m["jobs"].(map[string]any)["inQueue"], prefix)
	}
	_, bare := call(t, "GET", base+"/health", "")
	_, v2 := call(t, "GET", base+"/v2/local/health", "")
	assert.Equal(t, bare, v2, "one job store")
	assert.Equal(t, float64(12), bare["jobs"].(map[string]any)["completed"])

	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/v2/local/status/x", "GET, POST"},
		{"DELETE", "/v2/local/status-sync/x", "GET, POST"},
		{"PATCH", "/v2/local/stream/x", "GET, POST"},
		{"GET", "/v2/local/runsync", "POST"},
		{"GET", "/v2/local/run", "POST"},
		{"GET", "/v2/local/cancel/x", "POST"},
		{"GET", "/v2/local/purge-queue", "POST"},
		{"GET", "/purge-queue", "POST"},
		{"POST", "/v2/local/health", "GET"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), tc.method, base+tc.path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, 405, resp.StatusCode, tc.method+" "+tc.path)
		assert.Equal(t, tc.allow, resp.Header.Get("Allow"), tc.method+" "+tc.path)
	}
	for _, path := range []string{"/v2/local/nowhere", "/v2/runsync", "/v2/local/openai/v1/models", "/v1/local/runsync"} {
		code, m := call(t, "GET", base+path, "")
		assert.Equal(t, 404, code, path)
		assert.Contains(t, m["error"], "no route", path)
	}
}

// TestPurgeAnswersWaitingRunSync: a /runsync waiting for a slot whose job
// is purged is answered CANCELLED at once, not when the slot frees.
func TestPurgeAnswersWaitingRunSync(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := func(ctx context.Context, job *Job) (any, error) {
		close(started)
		<-release
		return "first", nil
	}
	base := serve(t, h, nil)
	first, second := make(chan reply, 1), make(chan reply, 1)
	go func() { first <- post(t.Context(), base+"/runsync", `{"input":1}`) }()
	<-started
	go func() { second <- post(t.Context(), base+"/v2/local/runsync", `{"input":2}`) }()
	require.Eventually(t, func() bool {
		_, health := call(t, "GET", base+"/health", "")
		return health["jobs"].(map[string]any)["inQueue"] == float64(1)
	}, guard, time.Millisecond)
	_, m := call(t, "POST", base+"/v2/local/purge-queue", "")
	assert.Equal(t, float64(1), m["removed"])
	got := <-second // the first job is still running: its slot is not free
	require.NoError(t, got.err)
	assert.Equal(t, "CANCELLED", got.body["status"])
	assert.True(t, strings.HasPrefix(got.body["id"].(string), "test-"))
	close(release)
	got = <-first
	require.NoError(t, got.err)
	assert.Equal(t, "COMPLETED", got.body["status"])
}

// reply is a response read off the test goroutine.
type reply struct {
	code int
	body map[string]any
	err  error
}

// post is call for other goroutines than the test's: it reports errors
// instead of failing the test.
func post(ctx context.Context, url, body string) reply {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return reply{err: err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	a := reply{code: resp.StatusCode}
	a.err = json.NewDecoder(resp.Body).Decode(&a.body)
	return a
}

// TestQueuedBytesBoundary: the local server's /run queue takes inputs up
// to maxQueuedBytes exactly, each body counted once (item 7: the input
// was counted a second time beside the body holding it, so the queue was
// full at half its limit).
func TestQueuedBytesBoundary(t *testing.T) {
	body := func(n int) string { // a /run body of exactly n bytes
		const frame = `{"input":""}`
		return `{"input":"` + strings.Repeat("x", n-len(frame)) + `"}`
	}
	const limit = 300
	base := serve(t, echo, nil, func(c *config) { c.maxQueuedBytes = limit })
	for _, n := range []int{100, 150} { // 250 of 300
		code, m := call(t, "POST", base+"/run", body(n))
		require.Equal(t, 200, code, "a %d-byte job within the limit: %v", n, m)
		require.Equal(t, "IN_QUEUE", m["status"])
	}
	code, m := call(t, "POST", base+"/run", body(51))
	require.Equal(t, 429, code, "one byte over the limit is refused: %v", m)
	code, m = call(t, "POST", base+"/run", body(50))
	require.Equal(t, 200, code, "a job that reaches the limit exactly is queued: %v", m)
	code, m = call(t, "POST", base+"/run", body(12))
	require.Equal(t, 429, code, "the queue is full: %v", m)
	assert.Contains(t, m["error"], "300 bytes")
}

// TestLocalJobIDs: every id is "test-" and a random version 4 UUID in its
// canonical form, and no two are alike.
func TestLocalJobIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := localJobID()
		rest, ok := strings.CutPrefix(id, "test-")
		require.True(t, ok, id)
		u, err := uuid.Parse(rest)
		require.NoError(t, err)
		require.Equal(t, rest, u.String())
		require.Equal(t, uuid.Version(4), u.Version())
		require.Equal(t, uuid.RFC4122, u.Variant())
		require.False(t, seen[id], "repeated %s", id)
		seen[id] = true
	}
}

// TestHotPatternIsTheMuxs: the pattern hotRoutes gives a /run or /runsync
// request is the one the mux would have matched.
func TestHotPatternIsTheMuxs(t *testing.T) {
	mux := (&localServer{}).routes()
	for _, path := range []string{"/run", "/runsync", "/v2/ep-1/run", "/v2/ep-1/runsync"} {
		r := httptest.NewRequest(http.MethodPost, path, nil)
		_, want := mux.Handler(r)
		p, endpoint := path, ""
		if rest, ok := strings.CutPrefix(path, "/v2/"); ok {
			endpoint, p, _ = strings.Cut(rest, "/")
			p = "/" + p
		}
		assert.Equal(t, want, hotPattern(p, endpoint), path)
	}
}
