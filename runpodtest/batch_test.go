package runpodtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// rawCall sends a raw request to the inference host, as the platform's
// curl examples do, and returns the status and the body.
func rawCall(t testing.TB, srv *runpodtest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, srv.InferenceURL+path, r)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// summary is a batch as the fake answers it.
type summary struct {
	ID                string `json:"id"`
	EndpointID        string `json:"endpointId"`
	Name              string `json:"name"`
	Status            string `json:"status"`
	RequestTotal      int    `json:"requestTotal"`
	RequestInProgress int    `json:"requestInProgress"`
	RequestCompleted  int    `json:"requestCompleted"`
	RequestFailed     int    `json:"requestFailed"`
	CreatedAt         int64  `json:"createdAt"`
}

type item struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	Output      json.RawMessage `json:"output"`
	Error       string          `json:"error"`
	StartedAt   string          `json:"startedAt"`
	CompletedAt string          `json:"completedAt"`
}

type page struct {
	Requests []item `json:"requests"`
	Total    int    `json:"total"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
	HasMore  bool   `json:"hasMore"`
}

// decoded calls and decodes a 200 answer into a T.
func decoded[T any](t testing.TB, srv *runpodtest.Server, method, path, body string) T {
	t.Helper()
	status, b := rawCall(t, srv, method, path, body)
	require.Equal(t, http.StatusOK, status, "%s %s: %s", method, path, b)
	var v T
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	return v
}

// requests returns a create body of n requests whose inputs are {"n": i}.
func requests(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"input":{"n":%d}}`, i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// until polls f (on the wall clock, asserting nothing about time) until it
// holds.
func until(t testing.TB, f func() bool) {
	t.Helper()
	for !f() {
		select {
		case <-t.Context().Done():
			t.Fatal("gave up waiting")
		case <-time.After(time.Millisecond):
		}
	}
}

// numbered answers {"n": n} for input {"n": n}, and fails when n is 3.
func numbered(_ context.Context, job *worker.Job) (any, error) {
	var in struct{ N int }
	if err := json.Unmarshal(job.Input, &in); err != nil {
		return nil, err
	}
	if in.N == 3 {
		return nil, errors.New("three is refused")
	}
	return map[string]int{"n": in.N}, nil
}

// TestBatchLifecycle: a batch goes DRAFT → FINALIZED; while a DRAFT its
// requests can be added, removed and listed, and it can be renamed; once
// finalized its requests run on the endpoint's handler, a failed one
// counts as failed without failing the batch, and the counts add up.
func TestBatchLifecycle(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered, runpodtest.WithWorkers(2))

	status, body := rawCall(t, srv, "POST", "/v2/ep/batch", requests(2))
	require.Equal(t, http.StatusOK, status, "%s", body)
	var created map[string]any
	require.NoError(t, json.Unmarshal(body, &created))
	assert.Len(t, created, 2, "create answers id and status: %s", body)
	id := created["id"].(string)
	assert.True(t, strings.HasPrefix(id, "batch_"), id)
	assert.Equal(t, "DRAFT", created["status"])

	s := decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/requests", `{"requests":[{"input":{"n":2}},{"input":{"n":3}},{"input":{"n":4}}]}`)
	assert.Equal(t, 5, s.RequestTotal)
	p := decoded[page](t, srv, "GET", "/v2/ep/batch/"+id+"/requests", "")
	require.Len(t, p.Requests, 5)
	for _, r := range p.Requests {
		assert.Equal(t, "IN_QUEUE", r.Status, "a draft's requests wait")
		assert.Empty(t, r.StartedAt)
	}
	s = decoded[summary](t, srv, "DELETE", "/v2/ep/batch/"+id+"/requests/"+p.Requests[4].ID, "")
	assert.Equal(t, 4, s.RequestTotal)
	s = decoded[summary](t, srv, "PUT", "/v2/ep/batch/"+id, `{"name":"nightly"}`)
	assert.Equal(t, "nightly", s.Name)
	assert.Equal(t, "DRAFT", s.Status)

	s = decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/finalize", "")
	assert.Equal(t, "FINALIZED", s.Status)
	until(t, func() bool {
		s = decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "")
		return s.RequestCompleted+s.RequestFailed == s.RequestTotal
	})
	assert.Equal(t, summary{ID: id, EndpointID: "ep", Name: "nightly", Status: "FINALIZED", RequestTotal: 4, RequestCompleted: 3, RequestFailed: 1, CreatedAt: s.CreatedAt}, s,
		"a failed request does not fail the batch; there is no COMPLETED status")
	assert.InDelta(t, time.Now().UnixMilli(), s.CreatedAt, float64(time.Hour.Milliseconds()), "createdAt is epoch milliseconds")

	p = decoded[page](t, srv, "GET", "/v2/ep/batch/"+id+"/requests", "")
	require.Len(t, p.Requests, 4)
	for i, r := range p.Requests {
		if i == 3 {
			assert.Equal(t, "FAILED", r.Status)
			assert.Contains(t, r.Error, "three is refused")
			assert.Empty(t, r.Output)
		} else {
			assert.Equal(t, "COMPLETED", r.Status)
			assert.JSONEq(t, fmt.Sprintf(`{"n":%d}`, i), string(r.Output), "in the order added")
			assert.Empty(t, r.Error)
		}
		started, err := time.Parse(time.RFC3339Nano, r.StartedAt)
		require.NoError(t, err, "startedAt is RFC 3339, as documented")
		completed, err := time.Parse(time.RFC3339Nano, r.CompletedAt)
		require.NoError(t, err)
		assert.False(t, completed.Before(started))
	}
	// A request is a job of the endpoint.
	_, job := call(t, srv, "GET", "/v2/ep/status/"+p.Requests[0].ID, "")
	assert.Equal(t, "COMPLETED", job["status"])

	// Locked once finalized.
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/requests", `{"requests":[{"input":1}]}`},
		{"DELETE", "/requests/" + p.Requests[0].ID, ""},
		{"POST", "/finalize", ""},
		{"POST", "/cancel", ""}, // nothing left to cancel
	} {
		status, body := rawCall(t, srv, c.method, "/v2/ep/batch/"+id+c.path, c.body)
		assert.Equal(t, http.StatusConflict, status, "%s %s: %s", c.method, c.path, body)
	}
	s = decoded[summary](t, srv, "PUT", "/v2/ep/batch/"+id, `{"name":"renamed"}`)
	assert.Equal(t, "renamed", s.Name, "the name can change in any state")
}

// TestBatchListNewestFirst: the endpoint's batches, newest first, and no
// other endpoint's.
func TestBatchListNewestFirst(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	srv.HandleQueue("other", numbered)
	var ids []string
	for range 3 {
		ids = append(ids, decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", "[]")["id"])
	}
	decoded[map[string]string](t, srv, "POST", "/v2/other/batch", "[]")
	list := decoded[struct{ Batches []summary }](t, srv, "GET", "/v2/ep/batch", "")
	require.Len(t, list.Batches, 3)
	for i, b := range list.Batches {
		assert.Equal(t, ids[2-i], b.ID)
		assert.Equal(t, "ep", b.EndpointID)
	}
}

// TestBatchRequestLimit: 5,000 requests per batch, counted over create
// and adds (400).
func TestBatchRequestLimit(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	status, body := rawCall(t, srv, "POST", "/v2/ep/batch", requests(5001))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), "at most 5000 requests")

	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(4999))["id"]
	status, body = rawCall(t, srv, "POST", "/v2/ep/batch/"+id+"/requests", `{"requests":[{"input":1},{"input":2}]}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), "it has 4999, and 2 more")
	s := decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/requests", `{"requests":[{"input":1}]}`)
	assert.Equal(t, 5000, s.RequestTotal)
}

// TestBatchActiveLimit: an endpoint has at most 10 active batches (DRAFT,
// or FINALIZED with requests left); the 11th create is 409 Conflict, and
// a batch that finishes makes room.
func TestBatchActiveLimit(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	srv.HandleQueue("other", numbered)
	var ids []string
	for range 10 {
		ids = append(ids, decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(1))["id"])
	}
	status, body := rawCall(t, srv, "POST", "/v2/ep/batch", "[]")
	assert.Equal(t, http.StatusConflict, status)
	assert.Contains(t, string(body), "10 active batches")
	decoded[map[string]string](t, srv, "POST", "/v2/other/batch", "[]") // per endpoint

	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+ids[0]+"/finalize", "")
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+ids[0], "").RequestCompleted == 1 })
	decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", "[]") // a finished batch is not active
	status, _ = rawCall(t, srv, "POST", "/v2/ep/batch", "[]")
	assert.Equal(t, http.StatusConflict, status)

	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+ids[1]+"/cancel", "")
	decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", "[]") // nor a cancelled one
}

// TestBatchBodyLimit: a create or add body past 10 MiB is 413; a body of
// the limit itself is taken (shown with a lowered limit).
func TestBatchBodyLimit(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	big := `"` + strings.Repeat("x", 10<<20) + `"`
	status, _ := rawCall(t, srv, "POST", "/v2/ep/batch", `[{"input":`+big+`}]`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", "[]")["id"]
	status, _ = rawCall(t, srv, "POST", "/v2/ep/batch/"+id+"/requests", `{"requests":[{"input":`+big+`}]}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	assert.Equal(t, 0, decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").RequestTotal)

	small := newServer(t, runpodtest.WithBatchLimits(runpodtest.BatchLimits{BodyBytes: 1024}))
	small.HandleQueue("ep", numbered)
	id = decoded[map[string]string](t, small, "POST", "/v2/ep/batch", "[]")["id"]
	body := func(size int) string {
		const frame = `{"requests":[{"input":""}]}`
		return `{"requests":[{"input":"` + strings.Repeat("x", size-len(frame)) + `"}]}`
	}
	status, _ = rawCall(t, small, "POST", "/v2/ep/batch/"+id+"/requests", body(1025))
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	s := decoded[summary](t, small, "POST", "/v2/ep/batch/"+id+"/requests", body(1024))
	assert.Equal(t, 1, s.RequestTotal, "the limit itself fits")
}

// TestBatchQueuedLimit: a finalize that would put more requests in the
// endpoint's queue than allowed is 429, and the batch stays a DRAFT;
// with lowered limits (the platform's 50,000 queued requests cannot be
// reached with 10 batches of 5,000).
func TestBatchQueuedLimit(t *testing.T) {
	srv := newServer(t, runpodtest.WithBatchLimits(runpodtest.BatchLimits{ActiveBatches: 10, RequestsPerBatch: 5, QueuedRequests: 6}))
	release := make(chan struct{})
	defer close(release)
	srv.HandleQueue("ep", blocking(release))
	first := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(5))["id"]
	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+first+"/finalize", "")
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+first, "").RequestInProgress == 1 })

	second := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(3))["id"]
	status, body := rawCall(t, srv, "POST", "/v2/ep/batch/"+second+"/finalize", "")
	assert.Equal(t, http.StatusTooManyRequests, status, "4 queued + 3 > 6")
	assert.Contains(t, string(body), "4 queued batch requests")
	assert.Equal(t, "DRAFT", decoded[summary](t, srv, "GET", "/v2/ep/batch/"+second, "").Status)
	decoded[summary](t, srv, "DELETE", "/v2/ep/batch/"+second+"/requests/"+decoded[page](t, srv, "GET", "/v2/ep/batch/"+second+"/requests", "").Requests[0].ID, "")
	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+second+"/finalize", "") // 4 + 2
}

// TestBatchPaging: offset and limit page through a batch's requests in
// the order they were added; 50 a page by default, at most 100, hasMore
// until the last.
func TestBatchPaging(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(250))["id"]
	base := "/v2/ep/batch/" + id + "/requests"

	p := decoded[page](t, srv, "GET", base, "")
	assert.Equal(t, []any{50, 0, 50, 250, true}, []any{len(p.Requests), p.Offset, p.Limit, p.Total, p.HasMore})
	var seen []string
	for offset := 0; ; {
		p = decoded[page](t, srv, "GET", fmt.Sprintf("%s?offset=%d&limit=100", base, offset), "")
		for _, r := range p.Requests {
			seen = append(seen, r.ID)
		}
		offset += len(p.Requests)
		if !p.HasMore {
			break
		}
	}
	assert.Len(t, seen, 250)
	assert.Equal(t, 3, srv.Count(runpodtest.RouteBatchResults)-1, "three pages of 100, 100 and 50")

	p = decoded[page](t, srv, "GET", base+"?limit=1000", "")
	assert.Equal(t, 100, p.Limit, "cut to the most a page holds")
	assert.Len(t, p.Requests, 100)
	p = decoded[page](t, srv, "GET", base+"?offset=300", "")
	assert.Empty(t, p.Requests)
	assert.False(t, p.HasMore)
	for _, q := range []string{"?limit=0", "?limit=x", "?offset=-1", "?offset=1.5"} {
		status, _ := rawCall(t, srv, "GET", base+q, "")
		assert.Equal(t, http.StatusBadRequest, status, q)
	}
}

// TestBatchCancelDrains: cancelling a running batch cancels its queued
// requests at once (they never run), lets the running one finish, and
// the batch is CANCELLED once it has.
func TestBatchCancelDrains(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	var calls atomic.Int32
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		calls.Add(1)
		return blocking(release)(ctx, job)
	})
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(3))["id"]
	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/finalize", "")
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").RequestInProgress == 1 })

	s := decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/cancel", "")
	assert.Equal(t, summary{ID: id, EndpointID: "ep", Status: "FINALIZED", RequestTotal: 3, RequestInProgress: 1, RequestFailed: 2, CreatedAt: s.CreatedAt}, s,
		"draining: the queued requests are cancelled, the running one goes on")
	p := decoded[page](t, srv, "GET", "/v2/ep/batch/"+id+"/requests", "")
	assert.Equal(t, []string{"IN_PROGRESS", "CANCELLED", "CANCELLED"}, []string{p.Requests[0].Status, p.Requests[1].Status, p.Requests[2].Status})
	assert.Empty(t, p.Requests[1].StartedAt, "never started")
	assert.Equal(t, "FINALIZED", decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/cancel", "").Status, "a second cancel is harmless")

	close(release)
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").Status == "CANCELLED" })
	p = decoded[page](t, srv, "GET", "/v2/ep/batch/"+id+"/requests", "")
	assert.Equal(t, "COMPLETED", p.Requests[0].Status, "the running request finished")
	assert.JSONEq(t, `{"done":"yes"}`, string(p.Requests[0].Output))
	assert.Equal(t, int32(1), calls.Load(), "the cancelled requests never ran")
	s = decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "")
	assert.Equal(t, []int{1, 2, 0}, []int{s.RequestCompleted, s.RequestFailed, s.RequestInProgress})
}

// TestBatchCancelDraft: a DRAFT batch is CANCELLED at once, its requests
// with it; a cancelled batch can be cancelled again.
func TestBatchCancelDraft(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(2))["id"]
	s := decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/cancel", "")
	assert.Equal(t, "CANCELLED", s.Status)
	assert.Equal(t, 2, s.RequestFailed)
	assert.Equal(t, "CANCELLED", decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/cancel", "").Status)
	status, _ := rawCall(t, srv, "POST", "/v2/ep/batch/"+id+"/finalize", "")
	assert.Equal(t, http.StatusConflict, status)
}

// TestBatchConcurrency: a batch's requests run at the endpoint's worker
// concurrency, no more.
func TestBatchConcurrency(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	var running, most atomic.Int32
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		return blocking(release)(ctx, job)
	}, runpodtest.WithWorkers(3))
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(8))["id"]
	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/finalize", "")
	until(t, func() bool { return running.Load() == 3 })
	assert.Equal(t, 3, decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").RequestInProgress)
	close(release)
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").RequestCompleted == 8 })
	assert.Equal(t, int32(3), most.Load())
}

// TestBatchFailsWithItsQueue: a batch whose endpoint's queue goes away
// under it (the endpoint handled anew) is FAILED, its unfinished
// requests with it.
func TestBatchFailsWithItsQueue(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	defer close(release)
	srv.HandleQueue("ep", blocking(release))
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(3))["id"]
	decoded[summary](t, srv, "POST", "/v2/ep/batch/"+id+"/finalize", "")
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").RequestInProgress == 1 })
	srv.HandleQueue("ep", numbered)
	until(t, func() bool { return decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").Status == "FAILED" })
	s := decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "")
	assert.Equal(t, 3, s.RequestFailed)
	status, _ := rawCall(t, srv, "POST", "/v2/ep/batch/"+id+"/cancel", "")
	assert.Equal(t, http.StatusConflict, status)
}

// TestBatchNotFound: an unknown endpoint, batch or request is 404; a
// batch is reached through its own endpoint only.
func TestBatchNotFound(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	srv.HandleQueue("other", numbered)
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", requests(1))["id"]
	for _, c := range []struct{ method, path string }{
		{"GET", "/v2/nope/batch"},
		{"POST", "/v2/nope/batch"},
		{"GET", "/v2/ep/batch/batch_unknown"},
		{"GET", "/v2/ep/batch/batch_unknown/requests"},
		{"POST", "/v2/ep/batch/batch_unknown/finalize"},
		{"POST", "/v2/ep/batch/batch_unknown/cancel"},
		{"PUT", "/v2/ep/batch/batch_unknown"},
		{"GET", "/v2/other/batch/" + id},
		{"DELETE", "/v2/ep/batch/" + id + "/requests/req_unknown"},
	} {
		status, body := rawCall(t, srv, c.method, c.path, `{"name":"x"}`)
		assert.Equal(t, http.StatusNotFound, status, "%s %s: %s", c.method, c.path, body)
		assert.Contains(t, string(body), `"status":404`, "problem+json")
	}
}

// TestBatchBadBodies: bodies that are not what the routes take are 400,
// naming what is wrong.
func TestBatchBadBodies(t *testing.T) {
	srv := newServer(t)
	srv.HandleQueue("ep", numbered)
	id := decoded[map[string]string](t, srv, "POST", "/v2/ep/batch", "[]")["id"]
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/v2/ep/batch", `{"requests":[]}`, "JSON array"},
		{"POST", "/v2/ep/batch", ``, "JSON array"},
		{"POST", "/v2/ep/batch", `[{"input":1},{"prompt":"x"}]`, "[1].input is required"},
		{"POST", "/v2/ep/batch", `[{"input":1},{"input":null}]`, "[1].input is required"},
		{"POST", "/v2/ep/batch", `[1]`, "[0] must be a JSON object"},
		{"POST", "/v2/ep/batch/" + id + "/requests", `[{"input":1}]`, `{\"requests\"`},
		{"POST", "/v2/ep/batch/" + id + "/requests", `{"requests":[{}]}`, "requests[0].input is required"},
		{"PUT", "/v2/ep/batch/" + id, `{"title":"x"}`, `{\"name\"`},
	} {
		status, body := rawCall(t, srv, c.method, c.path, c.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s", c.method, c.body)
		assert.Contains(t, string(body), c.want, "%s %s", c.method, c.body)
	}
	assert.Equal(t, 0, decoded[summary](t, srv, "GET", "/v2/ep/batch/"+id, "").RequestTotal, "nothing was added")
}

// FuzzBatchBodies: whatever a client sends to the create, add and rename
// routes, and as a page's offset and limit, the fake answers with a
// status it documents, never a 500, and stays consistent.
func FuzzBatchBodies(f *testing.F) {
	for _, seed := range []string{`[]`, `[{"input":1}]`, `{"requests":[{"input":{"a":[1,2]}}]}`, `{"name":"x"}`, `[{"input":null}]`,
		`null`, `[1,"a",{}]`, `{"requests":null}`, `{"name":7}`, `5`, `"`, `[{"input":"\u0000"}]`} {
		f.Add(seed, "0", "10")
	}
	srv := runpodtest.NewServer(runpodtest.WithBatchLimits(runpodtest.BatchLimits{RequestsPerBatch: 5000, BodyBytes: 1 << 20}))
	defer srv.Close()
	srv.HandleQueue("ep", numbered)
	id := decoded[map[string]string](f, srv, "POST", "/v2/ep/batch", "[]")["id"]
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, body, offset, limit string) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range []struct{ method, path string }{
			{"POST", "/v2/ep/batch"},
			{"POST", "/v2/ep/batch/" + id + "/requests"},
			{"PUT", "/v2/ep/batch/" + id},
		} {
			status, _ := rawCall(t, srv, c.method, c.path, body)
			assert.Contains(t, []int{200, 400}, status, "%s %s %q", c.method, c.path, body)
		}
		q := "?offset=" + urlQuery(offset) + "&limit=" + urlQuery(limit)
		status, b := rawCall(t, srv, "GET", "/v2/ep/batch/"+id+"/requests"+q, "")
		assert.Contains(t, []int{200, 400}, status, q)
		if status == 200 {
			var p page
			require.NoError(t, json.Unmarshal(b, &p))
			assert.LessOrEqual(t, len(p.Requests), runpodtest.BatchPageMax)
		}
	})
}

func urlQuery(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
