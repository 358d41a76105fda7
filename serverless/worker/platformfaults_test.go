package worker

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// answer is one scripted answer of the hostile platform.
type answer func(w http.ResponseWriter, r *http.Request)

func status(code int) answer {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
}

func jsonBody(body string) answer {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

// cut sends half of body under a Content-Length for all of it, then
// closes the connection.
func cut(body string) answer {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(200)
		_, _ = io.WriteString(w, body[:len(body)/2])
		w.(http.Flusher).Flush()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

func reset(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
	}
}

// huge answers a JSON body of n bytes without holding it.
func huge(n int) answer {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 64<<10))
		_, _ = io.WriteString(w, `{"id":"job-x","input":"`)
		for range n / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `"}`)
	}
}

// hostile plays job-take and job-done from scripts; when a script runs
// out, takes find nothing and results are accepted.
type hostile struct {
	srv         *httptest.Server
	mu          sync.Mutex
	takes, done []answer
	takeCalls   int
	doneCalls   int
	accepted    chan string
}

func newHostile(t *testing.T, takes, done []answer) *hostile {
	h := &hostile{takes: takes, done: done, accepted: make(chan string, 4)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /job-take/{w}", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.takeCalls++
		var a answer = status(http.StatusNoContent)
		if len(h.takes) > 0 {
			a, h.takes = h.takes[0], h.takes[1:]
		}
		h.mu.Unlock()
		a(w, r)
	})
	mux.HandleFunc("POST /job-done/{w}/{job}", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.doneCalls++
		var a answer
		if len(h.done) > 0 {
			a, h.done = h.done[0], h.done[1:]
		}
		h.mu.Unlock()
		if a != nil {
			a(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		h.accepted <- r.PathValue("job")
	})
	mux.HandleFunc("GET /job-stop/{w}", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// TestHostilePlatform: the production loop against a platform that
// fails in each way it can; a job it hands over runs once and its result
// is delivered once, and every failure is logged, never fatal.
func TestHostilePlatform(t *testing.T) {
	job := `{"id":"job-1","input":{"n":1}}`
	for _, tc := range []struct {
		name      string
		takes     []answer
		done      []answer
		doneCalls int
		logged    string
	}{
		{"take 503", []answer{status(503), jsonBody(job)}, nil, 1, "job-take answered 503"},
		{"take 500", []answer{status(500), jsonBody(job)}, nil, 1, "job-take answered 500"},
		{"take cut off", []answer{cut(job), jsonBody(job)}, nil, 1, "Failed to get job"},
		{"take not JSON", []answer{jsonBody(`{"id":"job-1","input":`), jsonBody(job)}, nil, 1, "Ignoring a job without id or input"},
		{"take batch not JSON", []answer{jsonBody(`[{"id":`), jsonBody(job)}, nil, 1, "not JSON"},
		{"take oversized", []answer{huge(70 << 20), jsonBody(job)}, nil, 1, "the job-take answer passes 64 MiB: the jobs in it are dropped"},
		{"take reset", []answer{reset, jsonBody(job)}, nil, 1, "Failed to get job"},
		{"done 503, then accepted", []answer{jsonBody(job)}, []answer{status(503)}, 2, "Posting the result failed (503"},
		{"done reset, then accepted", []answer{jsonBody(job)}, []answer{reset}, 2, "Posting the result failed (connection failed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostile(t, tc.takes, tc.done)
			var mu sync.Mutex
			runs := 0
			handler := func(ctx context.Context, j *Job) (any, error) {
				mu.Lock()
				runs++
				mu.Unlock()
				return "ok", nil
			}
			env := map[string]string{
				"RUNPOD_WEBHOOK_GET_JOB":     h.srv.URL + "/job-take/$ID",
				"RUNPOD_WEBHOOK_POST_OUTPUT": h.srv.URL + "/job-done/$RUNPOD_POD_ID/$ID",
				"RUNPOD_POD_ID":              "worker-1",
			}
			ctx, cancel := context.WithCancel(context.Background())
			out := &testkit.Lines{}
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, handler, WithArgs([]string{"--rp_log_level", "DEBUG"}), WithOutput(out), WithEnv(func(k string) string { return env[k] }))
			}()
			select {
			case id := <-h.accepted:
				assert.Equal(t, "job-1", id)
			case <-time.After(guard):
				t.Fatalf("no result was delivered; log:\n%s", out.String())
			}
			cancel()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(guard):
				t.Fatal("the worker did not stop")
			}
			mu.Lock()
			assert.Equal(t, 1, runs, "the job ran once")
			mu.Unlock()
			h.mu.Lock()
			assert.Equal(t, tc.doneCalls, h.doneCalls, "result posts")
			assert.GreaterOrEqual(t, h.takeCalls, len(tc.takes), "every scripted take answer was served")
			assert.Empty(t, h.done, "every scripted result answer was served")
			h.mu.Unlock()
			assert.Contains(t, out.String(), tc.logged)
		})
	}
}
