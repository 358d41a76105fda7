package serverless_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// batchNumbers are the inputs {"n": 0} … {"n": count-1}.
func batchNumbers(count int) []any {
	in := make([]any, count)
	for i := range in {
		in[i] = map[string]int{"n": i}
	}
	return in
}

// squares answers {"square": n*n} for input {"n": n}, and fails for
// multiples of 5.
func squares(_ context.Context, job *worker.Job) (any, error) {
	var in struct{ N int }
	if err := json.Unmarshal(job.Input, &in); err != nil {
		return nil, err
	}
	if in.N%5 == 0 {
		return nil, errors.New("multiples of five are refused")
	}
	return map[string]int{"square": in.N * in.N}, nil
}

// batchBodies returns the bodies the fake received on route.
func batchBodies(srv *runpodtest.Server, route string) [][]byte {
	var out [][]byte
	for _, r := range srv.Requests() {
		if r.Route == route {
			out = append(out, r.Body)
		}
	}
	return out
}

// TestBatchEndToEnd: create (named), finalize, wait until the counts say
// every request ended, some failing, then page through the results; the
// wire format is the documented one.
func TestBatchEndToEnd(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares, runpodtest.WithWorkers(3))
	b := rp.Serverless.Queue("ep1").Batches()
	ctx := t.Context()

	batch, err := b.Create(ctx, serverless.BatchParams{Name: "squares", Inputs: batchNumbers(20)})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(batch.ID, "batch_"), batch.ID)
	assert.Equal(t, serverless.BatchStatusDraft, batch.Status)
	assert.Equal(t, "ep1", batch.EndpointID)
	assert.Equal(t, "squares", batch.Name)
	assert.Equal(t, 20, batch.RequestTotal)
	create := batchBodies(srv, runpodtest.RouteBatchCreate)
	require.Len(t, create, 1)
	assert.True(t, strings.HasPrefix(string(create[0]), `[{"input":{"n":0}},{"input":{"n":1}},`), "a top-level array: %.60s", create[0])
	assert.Equal(t, [][]byte{[]byte(`{"name":"squares"}`)}, batchBodies(srv, runpodtest.RouteBatchUpdate))
	assert.Zero(t, srv.Count(runpodtest.RouteBatchAdd), "all fit the create call")

	got, err := b.Get(ctx, batch.ID)
	require.NoError(t, err)
	assert.Equal(t, "squares", got.Name)
	assert.WithinDuration(t, time.Now(), got.CreatedAt, time.Hour, "createdAt read from epoch milliseconds")
	assert.False(t, got.Done(), "a DRAFT is not done")

	fin, err := b.Finalize(ctx, batch.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.BatchStatusFinalized, fin.Status)
	var checks []serverless.Batch
	done, err := b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{OnCheck: func(b *serverless.Batch) { checks = append(checks, *b) }})
	require.NoError(t, err, "failed requests do not fail the batch")
	assert.Equal(t, serverless.BatchStatusFinalized, done.Status)
	assert.Equal(t, []int{20, 16, 4, 0}, []int{done.RequestTotal, done.RequestCompleted, done.RequestFailed, done.RequestInProgress})
	assert.True(t, done.Done())
	require.NotEmpty(t, checks)
	assert.Equal(t, *done, checks[len(checks)-1], "OnCheck saw the last read")
	for i := 1; i < len(checks); i++ {
		assert.GreaterOrEqual(t, checks[i].RequestCompleted+checks[i].RequestFailed, checks[i-1].RequestCompleted+checks[i-1].RequestFailed)
	}

	var n int
	for req, err := range b.Results(ctx, batch.ID, serverless.BatchResultsParams{Limit: 7}) {
		require.NoError(t, err)
		if n%5 == 0 {
			assert.Equal(t, serverless.JobStatusFailed, req.Status)
			assert.Contains(t, req.Error, "multiples of five are refused")
			assert.Error(t, req.Decode(new(any)))
			var je *serverless.JobError
			require.ErrorAs(t, req.Err(), &je)
			assert.Equal(t, []any{req.ID, serverless.JobStatusFailed, "multiples of five are refused"}, []any{je.ID, je.Status, je.Message})
		} else {
			assert.Equal(t, serverless.JobStatusCompleted, req.Status)
			var out struct{ Square int }
			require.NoError(t, req.Decode(&out))
			assert.NoError(t, req.Err())
			assert.Equal(t, n*n, out.Square, "in the order added")
		}
		assert.False(t, req.StartedAt.IsZero())
		assert.False(t, req.CompletedAt.Before(req.StartedAt))
		n++
	}
	assert.Equal(t, 20, n)
	assert.Equal(t, 3, srv.Count(runpodtest.RouteBatchResults), "pages of 7, 7 and 6")

	list, err := b.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, *done, list[0])
}

// TestBatchChunksUnderTheBodyLimit: requests that do not fit one 10 MiB
// body are sent in several, in order: the create call carries as many as
// fit (two of 2.5 MiB, not a third of 5.5 MiB), the rest go through the
// add route in calls that fit (5.5 MiB each, as two would not), each
// body at most MaxBatchBody.
func TestBatchChunksUnderTheBodyLimit(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	sized := func(c string, size int) string { return strings.Repeat(c, size) }
	small, large := 5<<19, 11<<19
	batch, err := b.Create(t.Context(), serverless.BatchParams{Inputs: []any{sized("a", small), sized("b", small), sized("c", large), sized("d", large)}})
	require.NoError(t, err)
	assert.Equal(t, 4, batch.RequestTotal)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteBatchCreate))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteBatchAdd), "create + 2 adds")
	create := batchBodies(srv, runpodtest.RouteBatchCreate)[0]
	adds := batchBodies(srv, runpodtest.RouteBatchAdd)
	assert.True(t, strings.HasPrefix(string(create), `[{"input":"aaa`))
	assert.True(t, strings.HasSuffix(string(create), `bbb"}]`), "two in the create call")
	assert.True(t, strings.HasPrefix(string(adds[0]), `{"requests":[{"input":"ccc`))
	assert.True(t, strings.HasSuffix(string(adds[0]), `ccc"}]}`))
	assert.True(t, strings.HasPrefix(string(adds[1]), `{"requests":[{"input":"ddd`))
	for _, body := range append(adds, create) {
		assert.LessOrEqual(t, len(body), serverless.MaxBatchBody)
	}
	got, err := b.Get(t.Context(), batch.ID)
	require.NoError(t, err)
	assert.Equal(t, 4, got.RequestTotal)
}

// TestBatchAddStopsMidway: a call that fails part way returns an
// *IncompleteBatchError with the batch's id and how many requests were
// added; an add answered 503 is not repeated (its outcome is unknown).
func TestBatchAddStopsMidway(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	srv.FailNext(runpodtest.RouteBatchAdd, 1, runpodtest.Fault{Status: http.StatusServiceUnavailable})
	big := strings.Repeat("z", 11<<19) // two do not fit one body
	batch, err := b.Create(t.Context(), serverless.BatchParams{Inputs: []any{big, big}})
	var inc *serverless.IncompleteBatchError
	require.ErrorAs(t, err, &inc)
	require.NotNil(t, batch, "the batch is not lost")
	assert.Equal(t, batch.ID, inc.BatchID)
	assert.Equal(t, []int{1, 2}, []int{inc.Added, inc.Requested})
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Contains(t, err.Error(), batch.ID)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteBatchAdd), "not retried")
	got, err := b.Get(t.Context(), batch.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.RequestTotal)

	// Add, to an existing batch, past the platform's 5,000: the
	// platform refuses it (400), nothing was added.
	id := batch.ID
	err = b.Add(t.Context(), id, make([]any, 0))
	require.NoError(t, err, "nothing to add")
	err = b.Add(t.Context(), id, batchNumbers(serverless.MaxBatchRequests))
	require.ErrorAs(t, err, &inc)
	assert.Equal(t, []int{0, serverless.MaxBatchRequests}, []int{inc.Added, inc.Requested})
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	require.NoError(t, b.Add(t.Context(), id, batchNumbers(serverless.MaxBatchRequests-1)))
	got, err = b.Get(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, serverless.MaxBatchRequests, got.RequestTotal)
}

// TestBatchCreateOutcomeUnknown: a create answered 502 is not repeated,
// and says the batch may exist.
func TestBatchCreateOutcomeUnknown(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	srv.FailNext(runpodtest.RouteBatchCreate, 1, runpodtest.Fault{Status: http.StatusBadGateway})
	batch, err := rp.Serverless.Queue("ep1").Batches().Create(t.Context(), serverless.BatchParams{Inputs: batchNumbers(2)})
	assert.Nil(t, batch)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteBatchCreate))

	srv.FailNext(runpodtest.RouteBatchFinalize, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	batch, err = rp.Serverless.Queue("ep1").Batches().Create(t.Context(), serverless.BatchParams{})
	require.NoError(t, err)
	_, err = rp.Serverless.Queue("ep1").Batches().Finalize(t.Context(), batch.ID)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteBatchFinalize), "a finalize is not repeated")
}

// TestBatchRefusedBeforeSending: bad input is a *errs.ValidationError
// naming the field, and nothing is sent.
func TestBatchRefusedBeforeSending(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	ctx := t.Context()
	tooBig := strings.Repeat("x", serverless.MaxBatchBody)
	for _, c := range []struct {
		field string
		call  func() error
	}{
		{"BatchParams.Inputs", func() error {
			_, err := b.Create(ctx, serverless.BatchParams{Inputs: batchNumbers(serverless.MaxBatchRequests + 1)})
			return err
		}},
		{"BatchParams.Inputs[2]", func() error {
			_, err := b.Create(ctx, serverless.BatchParams{Inputs: []any{1, 2, nil}})
			return err
		}},
		{"BatchParams.Inputs[1]", func() error {
			_, err := b.Create(ctx, serverless.BatchParams{Inputs: []any{1, math.Inf(1)}})
			return err
		}},
		{"BatchParams.Inputs[1]", func() error {
			_, err := b.Create(ctx, serverless.BatchParams{Inputs: []any{1, tooBig}})
			return err
		}},
		{"BatchParams.Name", func() error {
			_, err := b.Create(ctx, serverless.BatchParams{Name: "  ", Inputs: []any{1}})
			return err
		}},
		{"endpoint id", func() error {
			_, err := rp.Serverless.Queue(" ").Batches().Create(ctx, serverless.BatchParams{})
			return err
		}},
		{"endpoint id", func() error { _, err := rp.Serverless.Queue("a/b").Batches().List(ctx); return err }},
		{"inputs", func() error { return b.Add(ctx, "batch_1", batchNumbers(serverless.MaxBatchRequests+1)) }},
		{"inputs[0]", func() error { return b.Add(ctx, "batch_1", []any{make(chan int)}) }},
		{"batchID", func() error { return b.Add(ctx, "", []any{1}) }},
		{"batchID", func() error { _, err := b.Get(ctx, ""); return err }},
		{"batchID", func() error { _, err := b.Get(ctx, "a/b"); return err }},
		{"batchID", func() error { _, err := b.Finalize(ctx, " "); return err }},
		{"batchID", func() error { _, err := b.Cancel(ctx, ".."); return err }},
		{"batchID", func() error { return b.Rename(ctx, "", "x") }},
		{"name", func() error { return b.Rename(ctx, "batch_1", "") }},
		{"batchID", func() error { return b.RemoveRequest(ctx, "", "req_1") }},
		{"requestID", func() error { return b.RemoveRequest(ctx, "batch_1", "") }},
		{"batchID", func() error {
			_, err := b.Wait(ctx, "", option.Poll[*serverless.Batch]{})
			return err
		}},
		{"batchID", func() error {
			for _, err := range b.Results(ctx, "", serverless.BatchResultsParams{}) {
				return err
			}
			return nil
		}},
		{"BatchResultsParams.Offset", func() error {
			for _, err := range b.Results(ctx, "batch_1", serverless.BatchResultsParams{Offset: -1}) {
				return err
			}
			return nil
		}},
		{"BatchResultsParams.Limit", func() error {
			for _, err := range b.Results(ctx, "batch_1", serverless.BatchResultsParams{Limit: -1}) {
				return err
			}
			return nil
		}},
	} {
		err := c.call()
		var ve *errs.ValidationError
		if assert.ErrorAs(t, err, &ve, c.field) {
			assert.Equal(t, c.field, ve.Field, "%v", err)
		}
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}

// TestBatchActiveLimitFromThePlatform: the SDK cannot know how many
// batches an endpoint has; the platform's refusal of an 11th active one
// (409) comes back typed, at once.
func TestBatchActiveLimitFromThePlatform(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	for range 10 {
		_, err := b.Create(t.Context(), serverless.BatchParams{Inputs: []any{1}})
		require.NoError(t, err)
	}
	batch, err := b.Create(t.Context(), serverless.BatchParams{Inputs: []any{1}})
	assert.Nil(t, batch)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	assert.Contains(t, apiErr.Detail, "10 active batches")
	assert.False(t, errors.Is(err, errs.ErrOutcomeUnknown), "refused: nothing was made")
	assert.Equal(t, 11, srv.Count(runpodtest.RouteBatchCreate), "not retried")
}

// TestBatchCancelDrains: a batch cancelled while one request runs and the
// others wait: the waiting ones are cancelled and never run, the running
// one completes, and the wait ends on CANCELLED with a *BatchError.
func TestBatchCancelDrains(t *testing.T) {
	srv, rp, _ := fake(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var ran []string
	srv.HandleQueue("ep1", func(ctx context.Context, job *worker.Job) (any, error) {
		mu.Lock()
		ran = append(ran, string(job.Input))
		mu.Unlock()
		return untilReleased(release)(ctx, job)
	})
	b := rp.Serverless.Queue("ep1").Batches()
	ctx := t.Context()
	batch, err := b.Create(ctx, serverless.BatchParams{Inputs: batchNumbers(4)})
	require.NoError(t, err)
	_, err = b.Finalize(ctx, batch.ID)
	require.NoError(t, err)
	var cancelled *serverless.Batch
	_, err = b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{OnCheck: func(cur *serverless.Batch) {
		if cur.RequestInProgress == 1 && cancelled == nil {
			var err error
			cancelled, err = b.Cancel(ctx, batch.ID)
			require.NoError(t, err)
			close(release)
		}
	}})
	var be *serverless.BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, serverless.BatchStatusCancelled, be.Status)
	assert.Equal(t, batch.ID, be.BatchID)
	assert.Equal(t, []int{4, 1, 3, 0}, []int{be.Batch.RequestTotal, be.Batch.RequestCompleted, be.Batch.RequestFailed, be.Batch.RequestInProgress})
	assert.Contains(t, err.Error(), "CANCELLED (1 of 4 requests completed, 3 failed)")
	require.NotNil(t, cancelled)
	assert.Equal(t, serverless.BatchStatusFinalized, cancelled.Status, "draining while the running request finishes")
	assert.Equal(t, 1, cancelled.RequestInProgress)

	var statuses []serverless.JobStatus
	for req, err := range b.Results(ctx, batch.ID, serverless.BatchResultsParams{}) {
		require.NoError(t, err)
		statuses = append(statuses, req.Status)
	}
	assert.Equal(t, []serverless.JobStatus{serverless.JobStatusCompleted, serverless.JobStatusCancelled, serverless.JobStatusCancelled, serverless.JobStatusCancelled}, statuses)
	mu.Lock()
	assert.Equal(t, []string{`{"n":0}`}, ran, "the cancelled requests never ran")
	mu.Unlock()
}

// TestBatchUnknown: an unknown batch is a 404 matching errs.ErrNotFound
// from every call; Wait's error carries the batch id.
func TestBatchUnknown(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	ctx := t.Context()
	_, err := b.Get(ctx, "batch_nope")
	assert.ErrorIs(t, err, errs.ErrNotFound)
	_, err = b.Finalize(ctx, "batch_nope")
	assert.ErrorIs(t, err, errs.ErrNotFound)
	_, err = b.Cancel(ctx, "batch_nope")
	assert.ErrorIs(t, err, errs.ErrNotFound)
	assert.ErrorIs(t, b.Rename(ctx, "batch_nope", "x"), errs.ErrNotFound)
	assert.ErrorIs(t, b.RemoveRequest(ctx, "batch_nope", "req_1"), errs.ErrNotFound)
	err = b.Add(ctx, "batch_nope", []any{1})
	assert.ErrorIs(t, err, errs.ErrNotFound)
	_, err = b.Wait(ctx, "batch_nope", option.Poll[*serverless.Batch]{})
	var we *serverless.BatchWaitError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "batch_nope", we.BatchID)
	assert.Nil(t, we.Last)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	n := 0
	for _, err := range b.Results(ctx, "batch_nope", serverless.BatchResultsParams{}) {
		assert.ErrorIs(t, err, errs.ErrNotFound)
		n++
	}
	assert.Equal(t, 1, n, "yielded once")
}

// TestBatchDraftEditing: requests can be removed and the batch renamed
// while it is a DRAFT; the platform refuses both once it is finalized.
// A remove whose answer was lost and whose retry finds the request gone
// counts as done.
func TestBatchDraftEditing(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	ctx := t.Context()
	batch, err := b.Create(ctx, serverless.BatchParams{Inputs: batchNumbers(3)})
	require.NoError(t, err)
	var ids []string
	for req, err := range b.Results(ctx, batch.ID, serverless.BatchResultsParams{}) {
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusInQueue, req.Status)
		ids = append(ids, req.ID)
	}
	require.Len(t, ids, 3)
	require.NoError(t, b.RemoveRequest(ctx, batch.ID, ids[0]))
	srv.FailNext(runpodtest.RouteBatchRemove, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	require.NoError(t, b.RemoveRequest(ctx, batch.ID, ids[1]), "the retry's 404 is the first attempt's success")
	assert.Equal(t, 3, srv.Count(runpodtest.RouteBatchRemove), "the first remove, the one whose answer was lost, its retry")
	assert.ErrorIs(t, b.RemoveRequest(ctx, batch.ID, ids[1]), errs.ErrNotFound, "without a lost answer, a 404 is an error")
	require.NoError(t, b.Rename(ctx, batch.ID, "renamed"))
	got, err := b.Get(ctx, batch.ID)
	require.NoError(t, err)
	assert.Equal(t, []any{"renamed", 1}, []any{got.Name, got.RequestTotal})

	_, err = b.Finalize(ctx, batch.ID)
	require.NoError(t, err)
	var apiErr *errs.APIError
	require.ErrorAs(t, b.RemoveRequest(ctx, batch.ID, ids[2]), &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	require.ErrorAs(t, b.Add(ctx, batch.ID, []any{1}), &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	_, err = b.Finalize(ctx, batch.ID)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
}

// TestBatchResultsPaging: Results follows hasMore, page by page, and
// asks for a page only when the loop needs it.
func TestBatchResultsPaging(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	batch, err := b.Create(t.Context(), serverless.BatchParams{Inputs: batchNumbers(250)})
	require.NoError(t, err)
	var ids []string
	for req, err := range b.Results(t.Context(), batch.ID, serverless.BatchResultsParams{Limit: 100}) {
		require.NoError(t, err)
		ids = append(ids, req.ID)
	}
	assert.Len(t, ids, 250)
	var queries []string
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteBatchResults {
			queries = append(queries, r.RawQuery)
		}
	}
	assert.Equal(t, []string{"limit=100&offset=0", "limit=100&offset=100", "limit=100&offset=200"}, queries)

	n := 0
	for _, err := range b.Results(t.Context(), batch.ID, serverless.BatchResultsParams{Offset: 240}) {
		require.NoError(t, err)
		n++
		if n == 3 {
			break
		}
	}
	assert.Equal(t, 4, srv.Count(runpodtest.RouteBatchResults), "one page read for three requests")
}

// TestBatchWaitPolls: Wait reads the summary at once, then every
// Interval, ends the moment the counts say every request ended, and
// respects the context's deadline, returning the last read.
func TestBatchWaitPolls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := &batchScript{doneAt: start.Add(35 * time.Second)}
		rp := scriptedClient(t, rt)
		b := rp.Serverless.Queue("ep1").Batches()
		var seen []int
		batch, err := b.Wait(t.Context(), "batch_1", option.Poll[*serverless.Batch]{Interval: 10 * time.Second,
			OnCheck: func(b *serverless.Batch) { seen = append(seen, b.RequestCompleted) }})
		require.NoError(t, err)
		assert.True(t, batch.Done())
		assert.Equal(t, 40*time.Second, time.Since(start), "checks at 0, 10, 20, 30 and 40 s")
		assert.Equal(t, []int{0, 1, 2, 3, 9}, seen)
		for i, at := range rt.at {
			assert.Equal(t, time.Duration(i)*10*time.Second, at.Sub(start))
		}

		start = time.Now()
		rt = &batchScript{doneAt: start.Add(time.Hour)}
		rp = scriptedClient(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
		defer cancel()
		batch, err = rp.Serverless.Queue("ep1").Batches().Wait(ctx, "batch_1", option.Poll[*serverless.Batch]{Interval: 10 * time.Second})
		assert.Nil(t, batch)
		var we *serverless.BatchWaitError
		require.ErrorAs(t, err, &we)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotNil(t, we.Last)
		assert.Equal(t, 2, we.Last.RequestCompleted)
		assert.Contains(t, err.Error(), "batch batch_1 (last FINALIZED, 2 of 10 requests finished)")
		assert.Equal(t, 25*time.Second, time.Since(start), "ended with the context")

		rt = &batchScript{status: "FAILED"}
		_, err = scriptedClient(t, rt).Serverless.Queue("ep1").Batches().Wait(t.Context(), "batch_1", option.Poll[*serverless.Batch]{})
		var be *serverless.BatchError
		require.ErrorAs(t, err, &be)
		assert.Equal(t, serverless.BatchStatusFailed, be.Status)
		assert.Len(t, rt.at, 1)

		rt = &batchScript{status: "FINALIZED", total: new(int)}
		batch, err = scriptedClient(t, rt).Serverless.Queue("ep1").Batches().Wait(t.Context(), "batch_1", option.Poll[*serverless.Batch]{})
		require.NoError(t, err, "a finalized batch of no request is done")
		assert.Zero(t, batch.RequestTotal)
	})
}

// batchScript answers GET /v2/ep1/batch/batch_1 from raw wire JSON in a
// synctest bubble: a FINALIZED batch of 10 requests, one more completed
// at each read until doneAt, when all are; or, with status, that status.
type batchScript struct {
	mu     sync.Mutex
	doneAt time.Time
	status string
	total  *int
	at     []time.Time
}

func (s *batchScript) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reads := len(s.at)
	s.at = append(s.at, time.Now())
	body := `{"id":"batch_1","endpointId":"ep1","status":"FINALIZED","requestTotal":10,"requestInProgress":1,"requestCompleted":` +
		strconv.Itoa(min(reads, 9)) + `,"requestFailed":0,"createdAt":1783584000000}`
	switch {
	case s.total != nil:
		body = `{"id":"batch_1","status":"` + s.status + `","requestTotal":` + strconv.Itoa(*s.total) + `}`
	case s.status != "":
		body = `{"id":"batch_1","status":"` + s.status + `","requestTotal":10,"requestCompleted":2,"requestFailed":1}`
	case !time.Now().Before(s.doneAt):
		body = `{"id":"batch_1","status":"FINALIZED","requestTotal":10,"requestCompleted":9,"requestFailed":1}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// TestBatchDecodesTolerantly: the SDK reads what the documents show and
// what they leave open: unknown statuses, times as epoch milliseconds or
// RFC 3339 text, an error object, a list as an array or an object, a
// page without hasMore.
func TestBatchDecodesTolerantly(t *testing.T) {
	var b serverless.Batch
	require.NoError(t, json.Unmarshal([]byte(`{"id":"batch_01j9abc123","endpointId":"abc123xyz","status":"PAUSED","requestTotal":1000,
		"requestInProgress":8,"requestCompleted":244,"requestFailed":6,"createdAt":1783584000000,"extra":true}`), &b))
	assert.Equal(t, serverless.Batch{ID: "batch_01j9abc123", EndpointID: "abc123xyz", Status: "PAUSED", RequestTotal: 1000, RequestInProgress: 8,
		RequestCompleted: 244, RequestFailed: 6, CreatedAt: time.UnixMilli(1783584000000).UTC()}, b)
	assert.False(t, b.Status.Terminal())
	for _, at := range []string{`"2026-07-09T08:00:00Z"`, `1783584000000`, `"1783584000000"`} {
		require.NoError(t, json.Unmarshal([]byte(`{"createdAt":`+at+`}`), &b), at)
		assert.False(t, b.CreatedAt.IsZero(), at)
	}
	for _, at := range []string{`null`, `""`, `0`} {
		require.NoError(t, json.Unmarshal([]byte(`{"createdAt":`+at+`}`), &b), at)
		assert.True(t, b.CreatedAt.IsZero(), at)
	}
	assert.Error(t, json.Unmarshal([]byte(`{"createdAt":"yesterday"}`), &b))

	var r serverless.BatchRequest
	require.NoError(t, json.Unmarshal([]byte(`{"id":"req_abc002","status":"FAILED","error":"Handler raised an exception: timeout exceeded",
		"startedAt":"2026-07-09T09:15:01Z","completedAt":"2026-07-09T09:15:10Z"}`), &r))
	assert.Equal(t, serverless.BatchRequest{ID: "req_abc002", Status: serverless.JobStatusFailed, Error: "Handler raised an exception: timeout exceeded",
		StartedAt: time.Date(2026, 7, 9, 9, 15, 1, 0, time.UTC), CompletedAt: time.Date(2026, 7, 9, 9, 15, 10, 0, time.UTC)}, r)
	require.NoError(t, json.Unmarshal([]byte(`{"id":"r","status":"FAILED","error":{"error_type":"ValueError"},"output":null,"startedAt":1783584000000}`), &r))
	assert.JSONEq(t, `{"error_type":"ValueError"}`, r.Error)
	assert.Nil(t, r.Output)
	assert.Equal(t, int64(1783584000000), r.StartedAt.UnixMilli())

	for _, list := range []string{`[{"id":"b2"},{"id":"b1"}]`, `{"batches":[{"id":"b2"},{"id":"b1"}]}`} {
		rp := scriptedClient(t, rawAnswer(list))
		got, err := rp.Serverless.Queue("ep1").Batches().List(t.Context())
		require.NoError(t, err, list)
		assert.Equal(t, []string{"b2", "b1"}, []string{got[0].ID, got[1].ID})
	}
	rp := scriptedClient(t, rawAnswer(`{"requests":[{"id":"r1","status":"IN_QUEUE"}],"total":1}`))
	n := 0
	for req, err := range rp.Serverless.Queue("ep1").Batches().Results(t.Context(), "b1", serverless.BatchResultsParams{}) {
		require.NoError(t, err)
		assert.Equal(t, serverless.JobStatusInQueue, req.Status)
		n++
	}
	assert.Equal(t, 1, n, "total ends the pages when hasMore is missing")
	rp = scriptedClient(t, rawAnswer(`{"requests":[],"hasMore":true}`))
	for _, err := range rp.Serverless.Queue("ep1").Batches().Results(t.Context(), "b1", serverless.BatchResultsParams{}) {
		var re *errs.ResponseError
		require.ErrorAs(t, err, &re, "an empty page that says more follow is not asked for again")
	}
	rp = scriptedClient(t, rawAnswer(``))
	got, err := rp.Serverless.Queue("ep1").Batches().Cancel(t.Context(), "b1")
	require.NoError(t, err, "an empty answer is the batch as known")
	assert.Equal(t, "b1", got.ID)
}

// rawAnswer answers every request 200 with body.
type rawAnswer string

func (a rawAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(string(a))), Request: r}, nil
}

// TestBatchRoutesNamed: every batch call names its route template.
func TestBatchRoutesNamed(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv, rp, _ := fake(t, option.WithAttemptHook(func(_ context.Context, a option.Attempt) {
		mu.Lock()
		seen[a.Method+" "+a.Route] = true
		mu.Unlock()
	}))
	srv.HandleQueue("ep1", squares)
	b := rp.Serverless.Queue("ep1").Batches()
	ctx := t.Context()
	batch, err := b.Create(ctx, serverless.BatchParams{Name: "n", Inputs: []any{1, 2}})
	require.NoError(t, err)
	require.NoError(t, b.Add(ctx, batch.ID, []any{3}))
	callTheRest(t, b, batch.ID)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]bool{
		"POST /v2/{endpointId}/batch":                                  true,
		"GET /v2/{endpointId}/batch":                                   true,
		"PUT /v2/{endpointId}/batch/{batchId}":                         true,
		"GET /v2/{endpointId}/batch/{batchId}":                         true,
		"POST /v2/{endpointId}/batch/{batchId}/requests":               true,
		"GET /v2/{endpointId}/batch/{batchId}/requests":                true,
		"DELETE /v2/{endpointId}/batch/{batchId}/requests/{requestId}": true,
		"POST /v2/{endpointId}/batch/{batchId}/finalize":               true,
		"POST /v2/{endpointId}/batch/{batchId}/cancel":                 true,
	}, seen)
}

// FuzzBatchJSON: the batch API's answers, whatever they hold, decode or
// fail without panicking.
func FuzzBatchJSON(f *testing.F) {
	for _, seed := range []string{
		`{"id":"batch_1","status":"DRAFT"}`,
		`{"id":"b","endpointId":"e","status":"FINALIZED","requestTotal":3,"requestCompleted":1,"createdAt":1783584000000}`,
		`{"createdAt":"2026-07-09T08:00:00Z"}`, `{"createdAt":"1e3"}`, `{"createdAt":1e300}`, `{"createdAt":-5}`, `{"createdAt":[]}`,
		`{"id":"r","status":"FAILED","error":{"error_message":"x"},"startedAt":"2026-07-09T09:15:01Z","completedAt":0}`,
		`{"requests":[{"id":"r"}],"total":1,"hasMore":false}`, `[{"id":"b"}]`, `{"batches":null}`, `null`, `"`, `{"startedAt":"\u0000"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b serverless.Batch
		if json.Unmarshal(data, &b) == nil {
			_ = b.Done()
			_ = b.Status.Terminal()
		}
		var r serverless.BatchRequest
		if json.Unmarshal(data, &r) == nil {
			_ = r.Decode(new(any))
		}
		rp := scriptedClient(t, rawAnswer(string(data)))
		_, _ = rp.Serverless.Queue("ep1").Batches().List(t.Context())
		n := 0
		for _, err := range rp.Serverless.Queue("ep1").Batches().Results(t.Context(), "b1", serverless.BatchResultsParams{}) {
			n++
			if err != nil || n > 1000 {
				break
			}
		}
	})
}

// callTheRest makes, on a draft batch that has requests, every batch call
// a test has not made yet: Results, RemoveRequest (of its last request),
// Finalize, Wait and List, then Create and Cancel of an empty batch.
func callTheRest(t *testing.T, b *serverless.Batches, batchID string) {
	t.Helper()
	ctx := t.Context()
	var reqID string
	for req, err := range b.Results(ctx, batchID, serverless.BatchResultsParams{}) {
		require.NoError(t, err)
		reqID = req.ID
	}
	require.NoError(t, b.RemoveRequest(ctx, batchID, reqID))
	_, err := b.Finalize(ctx, batchID)
	require.NoError(t, err)
	_, err = b.Wait(ctx, batchID, option.Poll[*serverless.Batch]{})
	require.NoError(t, err)
	_, err = b.List(ctx)
	require.NoError(t, err)
	empty, err := b.Create(ctx, serverless.BatchParams{})
	require.NoError(t, err)
	_, err = b.Cancel(ctx, empty.ID)
	require.NoError(t, err)
}

// TestBatchStackDepth: every batch call, the adds of a chunked Create
// and the reads of Wait and Results included, goes from the exported
// method to the base RoundTripper through at most maxSDKFrames frames of
// the SDK's code.
func TestBatchStackDepth(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	srv.HandleQueue("ep1", squares)
	rec := &depthRecorder{base: srv.Client().Transport, depth: map[string]int{}, stack: map[string][]string{}}
	cfg, err := option.NewConfig(append(srv.ClientOptions(), option.WithHTTPClient(&http.Client{Transport: rec}))...)
	require.NoError(t, err)
	b := serverless.NewFromConfig(cfg).Queue("ep1").Batches()
	ctx := t.Context()

	big := strings.Repeat("x", 11<<19) // two calls
	batch, err := b.Create(ctx, serverless.BatchParams{Name: "depth", Inputs: []any{big, big}})
	require.NoError(t, err)
	require.NoError(t, b.Add(ctx, batch.ID, []any{1}))
	callTheRest(t, b, batch.ID)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Len(t, rec.depth, 9, "%v", rec.depth)
	for route, n := range rec.depth {
		assert.LessOrEqual(t, n, maxSDKFrames, "%s: %v", route, rec.stack[route])
	}
}
