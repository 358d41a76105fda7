package serverless_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/serverless"
)

// fleet plays one endpoint's job API for many jobs, inside a synctest
// bubble, as a RoundTripper: each job starts (IN_PROGRESS) and ends
// (COMPLETED, with output {"id": <its id>}) at set times; status-sync
// holds until the job ends or its wait passes; /status answers at once.
// It enforces the platform's status limits as a server would (status-sync
// counting as status), answering 429 with Retry-After, and records every
// request with what was in progress when it came. The endpoint's worker
// list (REST, another limit) is answered apart: two workers, both running
// a job; its reads are only counted.
type fleet struct {
	mu       sync.Mutex
	budget   serverless.WaitBudget // the limits it enforces
	starts   map[string]time.Time
	ends     map[string]time.Time
	refuse   map[string]int // status-sync requests to refuse with 429 per job, Retry-After 2
	open     int            // requests in progress
	holding  map[string]int // status-sync requests in progress per job
	maxOpen  int
	maxHeld  int
	reqs     []fleetRequest
	refused  int
	windowAt time.Time // start of the current fixed 10 s window
	inWindow int
	lists    []time.Time // when the worker list was read
}

type fleetRequest struct {
	at   time.Time
	id   string
	sync bool
	held []string // jobs long-polled when it came, itself included
}

func newFleet(b serverless.WaitBudget) *fleet {
	return &fleet{budget: b, starts: map[string]time.Time{}, ends: map[string]time.Time{}, refuse: map[string]int{}, holding: map[string]int{}}
}

// add adds a job that starts after start and ends after end, from now.
func (f *fleet) add(id string, start, end time.Duration) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts[id], f.ends[id] = now.Add(start), now.Add(end)
}

func (f *fleet) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/v2/serverless/ep/workers" {
		f.mu.Lock()
		f.lists = append(f.lists, time.Now())
		f.mu.Unlock()
		return &http.Response{StatusCode: 200, Request: r, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"summary":{"running":2,"total":2},"workers":[{"id":"w1","status":"RUNNING"},{"id":"w2","status":"RUNNING"}]}`))}, nil
	}
	path := strings.TrimPrefix(r.URL.Path, "/v2/ep/")
	kind, id, _ := strings.Cut(path, "/")
	sync := kind == "status-sync"
	now := time.Now()
	f.mu.Lock()
	if start := now.Truncate(10 * time.Second); !start.Equal(f.windowAt) {
		f.windowAt, f.inWindow = start, 0
	}
	refuse := f.open >= f.budget.Concurrent || f.inWindow >= f.budget.Per10s
	if sync && f.refuse[id] > 0 {
		f.refuse[id]--
		refuse = true
	}
	var held []string
	if !refuse {
		f.open++
		f.inWindow++
		f.maxOpen = max(f.maxOpen, f.open)
		if sync {
			f.holding[id]++
			f.maxHeld = max(f.maxHeld, len(f.holding))
		}
		for h := range f.holding {
			held = append(held, h)
		}
		sort.Strings(held)
	} else {
		f.refused++
	}
	f.reqs = append(f.reqs, fleetRequest{at: now, id: id, sync: sync, held: held})
	start, end := f.starts[id], f.ends[id]
	f.mu.Unlock()
	if refuse {
		return &http.Response{StatusCode: http.StatusTooManyRequests, Request: r,
			Header: http.Header{"Retry-After": {"2"}, "Content-Type": {"application/problem+json"}},
			Body:   io.NopCloser(strings.NewReader(`{"title":"Too Many Requests","status":429}`))}, nil
	}
	defer func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.open--
		if sync {
			if f.holding[id]--; f.holding[id] == 0 {
				delete(f.holding, id)
			}
		}
	}()
	if sync {
		ms, _ := strconv.Atoi(r.URL.Query().Get("wait"))
		hold := min(time.Duration(ms)*time.Millisecond, max(time.Until(end), 0))
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	now = time.Now()
	body := `{"id":"` + id + `","status":"IN_QUEUE"}`
	switch {
	case !now.Before(end):
		body = `{"id":"` + id + `","status":"COMPLETED","executionTime":1000,"output":{"id":"` + id + `"}}`
	case !now.Before(start):
		body = `{"id":"` + id + `","status":"IN_PROGRESS","delayTime":10}`
	}
	return &http.Response{StatusCode: 200, Request: r, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body))}, nil
}

// requests returns a copy of the request log.
func (f *fleet) requests() []fleetRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fleetRequest(nil), f.reqs...)
}

// maxIn returns the most requests sent in any span of d (a sliding
// window: each request's own and the ones before it within d).
func (f *fleet) maxIn(d time.Duration) int {
	reqs := f.requests()
	most, first := 0, 0
	for i, r := range reqs {
		for reqs[first].at.Add(d).Compare(r.at) <= 0 {
			first++
		}
		most = max(most, i-first+1)
	}
	return most
}

// fleetClient is a client whose waits go to f, within budget.
func fleetClient(t *testing.T, f *fleet, budget serverless.WaitBudget) *runpod.Client {
	rp := scriptedClient(t, f)
	require.NoError(t, rp.Serverless.SetWaitBudget(budget))
	return rp
}

// waitResult is how one Wait ended.
type waitResult struct {
	job *serverless.Job
	err error
	at  time.Time
}

// waitAll waits for each job on its own goroutine, with ctxs[id] when
// set, and returns how each wait ended, once every one has. The waits
// begin at the same instant, in the order of ids.
func waitAll(t *testing.T, q *serverless.Queue, ids []string, ctxs map[string]context.Context) map[string]waitResult {
	t.Helper()
	var mu sync.Mutex
	out := map[string]waitResult{}
	var wg sync.WaitGroup
	for _, id := range ids {
		ctx := ctxs[id]
		if ctx == nil {
			ctx = t.Context()
		}
		wg.Go(func() {
			job, err := q.Wait(ctx, id, serverless.WaitOptions{})
			mu.Lock()
			defer mu.Unlock()
			_, twice := out[id]
			assert.False(t, twice, "%s returned twice", id)
			out[id] = waitResult{job: job, err: err, at: time.Now()}
		})
		synctest.Wait()
	}
	wg.Wait()
	return out
}

// jobIDs returns n job ids, job-000 and on.
func jobIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("job-%03d", i)
	}
	return ids
}
