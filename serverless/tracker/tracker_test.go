package tracker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/tracker"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// gate is a handler whose jobs end once the gate opens (or their worker
// stops them); open it before the server closes.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate() *gate { return &gate{ch: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

func (g *gate) handle(ctx context.Context, job *worker.Job) (any, error) {
	select {
	case <-g.ch:
		return job.Input, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// served is a fake platform whose endpoint "echo" runs h, and a client.
func served(t *testing.T, h worker.Handler) (*runpodtest.Server, *serverless.Queue) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	srv.HandleQueue("echo", h, runpodtest.WithWorkers(4))
	rp, err := srv.NewClient()
	require.NoError(t, err)
	return srv, rp.Serverless.Queue("echo")
}

// collect ranges over Results and returns what it yielded.
func collect(ctx context.Context, tr *tracker.Tracker) (results []tracker.Result, fails []error) {
	for res, err := range tr.Results(ctx) {
		results, fails = append(results, res), append(fails, err)
	}
	return results, fails
}

// TestSubmitStoreFailureBeforeSending: when the submission's record
// cannot be stored before /run, Submit sends nothing and returns a
// *StoreError.
func TestSubmitStoreFailureBeforeSending(t *testing.T) {
	srv, q := served(t, echo)
	store := &flakyStore{Store: tracker.NewMemoryStore()}
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()

	store.failPut.Store(true)
	job, err := tr.Submit(ctx, "paid", serverless.RunParams{Input: "hi"})
	require.Nil(t, job)
	var storeErr *tracker.StoreError
	require.ErrorAs(t, err, &storeErr)
	require.Equal(t, "put", storeErr.Op)
	require.Empty(t, storeErr.Record.JobID)
	require.Zero(t, srv.Count(runpodtest.RouteRun), "nothing was sent")
	for range tr.Results(ctx) {
		t.Fatal("a submission that was not sent is not tracked")
	}
}

// TestSubmitStoreFailureKeepsTheJobID: when the job's id cannot be
// stored, Submit returns the job and a *StoreError holding its id (in the
// message too, with no secret), and this tracker still delivers the job.
func TestSubmitStoreFailureKeepsTheJobID(t *testing.T) {
	_, q := served(t, echo)
	store := &flakyStore{Store: tracker.NewMemoryStore()}
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()

	store.failPut.Store(true)
	store.passPuts.Store(1) // the submission's record, before /run
	job, err := tr.Submit(ctx, "paid", serverless.RunParams{Input: "hi"})
	require.NotNil(t, job, "the job is returned")
	require.NotEmpty(t, job.ID)
	var storeErr *tracker.StoreError
	require.ErrorAs(t, err, &storeErr)
	require.Equal(t, "put", storeErr.Op)
	require.Equal(t, job.ID, storeErr.Record.JobID)
	require.Equal(t, "echo", storeErr.Record.EndpointID)
	require.Equal(t, "paid", storeErr.Record.Label)
	require.ErrorIs(t, err, errStoreDown)
	require.Contains(t, err.Error(), job.ID)
	testkit.NoSecret(t, err, storeErr)
	store.failPut.Store(false)

	results, fails := collect(ctx, tr)
	require.Len(t, results, 1)
	require.NoError(t, fails[0])
	require.Equal(t, job.ID, results[0].Record.JobID)
	require.Equal(t, serverless.JobStatusCompleted, results[0].Job.Status)
}

// TestSubmitRefusedRecordsNothing: a submission refused before it is sent
// is Queue.Run's *errs.ValidationError, and nothing is recorded.
func TestSubmitRefusedRecordsNothing(t *testing.T) {
	srv, q := served(t, echo)
	store := tracker.NewMemoryStore()
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()

	job, err := tr.Submit(ctx, "", serverless.RunParams{})
	require.Nil(t, job)
	require.ErrorIs(t, err, errs.ErrValidation)
	require.Zero(t, srv.Count(runpodtest.RouteRun))
	recs, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, recs)
	results, _ := collect(ctx, tr)
	require.Empty(t, results)
}

// TestSecretsNeverStoredOrShown: the records hold neither the API key nor
// a job's S3 secret (inputs are not recorded), and the tracker's errors
// show neither.
func TestSecretsNeverStoredOrShown(t *testing.T) {
	srv, q := served(t, echo)
	const s3Secret = "S3-secret-value-0123456789"
	testkit.RegisterSecret(s3Secret)
	testkit.RegisterSecret(srv.APIKey)
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	store, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer store.Close()
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()

	job, err := tr.Submit(ctx, "with s3", serverless.RunParams{Input: map[string]string{"prompt": "hi"},
		S3: &serverless.S3Config{AccessID: "id", AccessSecret: s3Secret, BucketName: "b", EndpointURL: "https://s3.example.com"}})
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), job.ID)
	require.Empty(t, testkit.Leak(string(data)), "the file holds a secret")
	require.NotContains(t, string(data), "prompt", "inputs are not recorded")

	_, lostErr := tr.Wait(ctx, "no-such-job")
	storeErr := &tracker.StoreError{Op: "put", Record: tracker.Record{EndpointID: "echo", JobID: job.ID}, Err: errStoreDown}
	testkit.NoSecret(t, lostErr, storeErr)
	results, fails := collect(ctx, tr)
	require.Len(t, results, 1)
	require.NoError(t, fails[0])
	testkit.NoSecret(t, results[0], results[0].Record)
}

// TestWaitEndedKeepsTheJob: a wait whose context ends is Queue.Wait's
// *serverless.WaitError holding the job's id, and the job stays tracked
// and stored; the next Results delivers it.
func TestWaitEndedKeepsTheJob(t *testing.T) {
	g := newGate()
	_, q := served(t, g.handle)
	defer g.open()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := tracker.NewMemoryStore()
	// The wait is cancelled as soon as it has read the job's status.
	tr, err := tracker.New(q, store, tracker.WithWaitOptions(serverless.WaitOptions{
		Poll: option.Poll[*serverless.Job]{OnCheck: func(*serverless.Job) { cancel() }},
	}))
	require.NoError(t, err)

	job, err := tr.Submit(ctx, "", serverless.RunParams{Input: "hi"})
	require.NoError(t, err)
	_, err = tr.Wait(ctx, job.ID)
	var waitErr *serverless.WaitError
	require.ErrorAs(t, err, &waitErr)
	require.Equal(t, job.ID, waitErr.JobID)
	require.ErrorIs(t, err, context.Canceled)
	recs, err := store.List(context.Background(), "echo")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.True(t, recs[0].CompletedAt.IsZero())

	g.open()
	tr2, err := tracker.New(q, store)
	require.NoError(t, err)
	_, err = tr2.Resume(context.Background())
	require.NoError(t, err)
	results, fails := collect(context.Background(), tr2)
	require.Len(t, results, 1)
	require.NoError(t, fails[0])
	require.Equal(t, job.ID, results[0].Record.JobID)
}

// TestResultsCancelledYieldsEachJobOnce: when Results' context ends, each
// job still waited for is yielded once with its *serverless.WaitError, and
// stays stored.
func TestResultsCancelledYieldsEachJobOnce(t *testing.T) {
	g := newGate()
	_, q := served(t, g.handle)
	defer g.open()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var checks sync.WaitGroup
	checks.Add(3)
	var mu sync.Mutex
	seen := map[string]bool{}
	store := tracker.NewMemoryStore()
	tr, err := tracker.New(q, store, tracker.WithWaitOptions(serverless.WaitOptions{
		Poll: option.Poll[*serverless.Job]{OnCheck: func(j *serverless.Job) {
			mu.Lock()
			defer mu.Unlock()
			if !seen[j.ID] {
				seen[j.ID] = true
				checks.Done()
			}
		}},
	}))
	require.NoError(t, err)
	for range 3 {
		_, err := tr.Submit(ctx, "", serverless.RunParams{Input: "hi"})
		require.NoError(t, err)
	}
	go func() { checks.Wait(); cancel() }()
	results, fails := collect(ctx, tr)
	require.Len(t, results, 3)
	ids := map[string]bool{}
	for i, err := range fails {
		var waitErr *serverless.WaitError
		require.ErrorAs(t, err, &waitErr)
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, results[i].Record.JobID, waitErr.JobID)
		ids[waitErr.JobID] = true
	}
	require.Len(t, ids, 3)
	recs, err := store.List(context.Background(), "echo")
	require.NoError(t, err)
	require.Len(t, recs, 3)
}

// TestAlreadyWaiting: a job a Results loop waits for is not delivered to
// a Wait as well.
func TestAlreadyWaiting(t *testing.T) {
	g := newGate()
	_, q := served(t, g.handle)
	defer g.open()
	checked := make(chan struct{})
	var once sync.Once
	tr, err := tracker.New(q, tracker.NewMemoryStore(), tracker.WithWaitOptions(serverless.WaitOptions{
		Poll: option.Poll[*serverless.Job]{OnCheck: func(*serverless.Job) { once.Do(func() { close(checked) }) }},
	}))
	require.NoError(t, err)
	ctx := context.Background()
	job, err := tr.Submit(ctx, "", serverless.RunParams{Input: "hi"})
	require.NoError(t, err)

	done := make(chan []tracker.Result)
	go func() {
		results, fails := collect(ctx, tr)
		for _, err := range fails {
			assert.NoError(t, err)
		}
		done <- results
	}()
	<-checked
	_, err = tr.Wait(ctx, job.ID)
	require.ErrorIs(t, err, tracker.ErrAlreadyWaiting)
	require.Contains(t, err.Error(), job.ID)
	g.open()
	results := <-done
	require.Len(t, results, 1)
	require.Equal(t, job.ID, results[0].Record.JobID)
}

// TestResultsTakesJobsAddedWhileItRuns: a job submitted from inside the
// loop is waited for and yielded by the same loop.
func TestResultsTakesJobsAddedWhileItRuns(t *testing.T) {
	_, q := served(t, echo)
	tr, err := tracker.New(q, tracker.NewMemoryStore())
	require.NoError(t, err)
	ctx := context.Background()
	_, err = tr.Submit(ctx, "first", serverless.RunParams{Input: 1})
	require.NoError(t, err)
	var labels []string
	for res, err := range tr.Results(ctx) {
		require.NoError(t, err)
		labels = append(labels, res.Record.Label)
		if res.Record.Label == "first" {
			_, err := tr.Submit(ctx, "second", serverless.RunParams{Input: 2})
			require.NoError(t, err)
		}
	}
	require.Equal(t, []string{"first", "second"}, labels)
}

// TestBreakingOutOfResultsKeepsTheRest: the job yielded before the break
// is settled; the others stay tracked and stored, and the next Results
// delivers them.
func TestBreakingOutOfResultsKeepsTheRest(t *testing.T) {
	_, q := served(t, echo)
	store := tracker.NewMemoryStore()
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()
	for range 3 {
		_, err := tr.Submit(ctx, "", serverless.RunParams{Input: "hi"})
		require.NoError(t, err)
	}
	var first string
	for res, err := range tr.Results(ctx) {
		require.NoError(t, err)
		first = res.Record.JobID
		break
	}
	recs, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Len(t, recs, 2)
	results, fails := collect(ctx, tr)
	require.Len(t, results, 2)
	for i, res := range results {
		require.NoError(t, fails[i])
		require.NotEqual(t, first, res.Record.JobID)
	}
	recs, err = store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, recs)
}

// TestFailedJobIsSettled: a FAILED job is yielded with its
// *serverless.JobError and the job, and its record goes.
func TestFailedJobIsSettled(t *testing.T) {
	_, q := served(t, func(context.Context, *worker.Job) (any, error) { return nil, errors.New("boom") })
	store := tracker.NewMemoryStore()
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()
	job, err := tr.Submit(ctx, "", serverless.RunParams{Input: "hi"})
	require.NoError(t, err)
	results, fails := collect(ctx, tr)
	require.Len(t, results, 1)
	var jobErr *serverless.JobError
	require.ErrorAs(t, fails[0], &jobErr)
	require.Equal(t, job.ID, jobErr.ID)
	require.Equal(t, serverless.JobStatusFailed, results[0].Job.Status)
	require.False(t, results[0].Record.CompletedAt.IsZero())
	recs, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, recs)
}

// TestWaitFindsAStoredJobWithoutResume: after a restart, Wait finds a job
// the store holds even before Resume, and settles it.
func TestWaitFindsAStoredJobWithoutResume(t *testing.T) {
	_, q := served(t, echo)
	store := tracker.NewMemoryStore()
	first, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()
	job, err := first.Submit(ctx, "", serverless.RunParams{Input: "hi"})
	require.NoError(t, err)

	second, err := tracker.New(q, store)
	require.NoError(t, err)
	got, err := second.Wait(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, serverless.JobStatusCompleted, got.Status)
	recs, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, recs)
}

// TestInvalidArguments: bad arguments are *errs.ValidationError naming
// the field, before any request.
func TestInvalidArguments(t *testing.T) {
	srv, q := served(t, echo)
	store := tracker.NewMemoryStore()
	field := func(t *testing.T, err error, want string) {
		t.Helper()
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v)
		require.Equal(t, want, v.Field)
	}
	_, err := tracker.New(nil, store)
	field(t, err, "q")
	_, err = tracker.New(q, nil)
	field(t, err, "store")
	_, err = tracker.New(q, store, tracker.WithClock(nil))
	field(t, err, "WithClock")
	_, err = tracker.New(q, store, tracker.WithWaitOptions(serverless.WaitOptions{Hold: time.Millisecond}))
	field(t, err, "WaitOptions.Hold")

	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := context.Background()
	now := time.Now()
	field(t, tr.Track(ctx, tracker.Record{EndpointID: "other", JobID: "j", SubmittedAt: now}), "Record.EndpointID")
	field(t, tr.Track(ctx, tracker.Record{JobID: " ", SubmittedAt: now}), "Record.JobID")
	field(t, tr.Track(ctx, tracker.Record{JobID: "j"}), "Record.SubmittedAt")
	_, err = tr.Wait(ctx, "")
	field(t, err, "jobID")
	field(t, store.Put(ctx, tracker.Record{EndpointID: "echo"}), "Record.JobID")
	field(t, store.Put(ctx, tracker.Record{JobID: "j"}), "Record.EndpointID")
	_, err = tracker.NewFileStore(" ")
	field(t, err, "path")
	require.Zero(t, srv.Count("*"))
}

// TestMemoryStore: Put replaces by (endpoint, job), List gives one
// endpoint's records oldest first, Delete of a missing record is fine.
func TestMemoryStore(t *testing.T) {
	testStore(t, tracker.NewMemoryStore())
}

// testStore checks a Store's contract.
func testStore(t *testing.T, s tracker.Store) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, s.Put(ctx, tracker.Record{EndpointID: "a", JobID: "j2", SubmittedAt: at.Add(time.Minute)}))
	require.NoError(t, s.Put(ctx, tracker.Record{EndpointID: "a", JobID: "j1", SubmittedAt: at}))
	require.NoError(t, s.Put(ctx, tracker.Record{EndpointID: "b", JobID: "j1", SubmittedAt: at}))
	require.NoError(t, s.Put(ctx, tracker.Record{EndpointID: "a", JobID: "j1", SubmittedAt: at, Label: "again"}))
	recs, err := s.List(ctx, "a")
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, "j1", recs[0].JobID)
	require.Equal(t, "again", recs[0].Label)
	require.Equal(t, "j2", recs[1].JobID)
	require.NoError(t, s.Delete(ctx, "a", "j1"))
	require.NoError(t, s.Delete(ctx, "a", "missing"))
	recs, err = s.List(ctx, "a")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	recs, err = s.List(ctx, "b")
	require.NoError(t, err)
	require.Len(t, recs, 1)
}
