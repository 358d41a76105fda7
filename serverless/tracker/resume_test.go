package tracker_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/tracker"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// TestResumeAfterRestartDeliversEveryJobOnce: a program submits 100 jobs
// and stops (its store closed, its client's connections dropped, no
// wait made); a new program opens the same file, resumes, and gets all
// 100 results, each once and each its own, with no job submitted twice;
// the file is empty afterwards.
func TestResumeAfterRestartDeliversEveryJobOnce(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	// The jobs run only once the second program waits for them, so that
	// it takes up jobs queued and running, not only finished ones.
	release := make(chan struct{})
	var once sync.Once
	start := func() { once.Do(func() { close(release) }) }
	defer start() // before srv.Close: the handlers must return
	srv.HandleQueue("echo", func(ctx context.Context, job *worker.Job) (any, error) {
		select {
		case <-release:
			return job.Input, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, runpodtest.WithWorkers(8))
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	ctx := context.Background()

	// The first program.
	func() {
		rp, err := srv.NewClient()
		require.NoError(t, err)
		store, err := tracker.NewFileStore(path)
		require.NoError(t, err)
		tr, err := tracker.New(rp.Serverless.Queue("echo"), store)
		require.NoError(t, err)
		for i := range 100 {
			_, err := tr.Submit(ctx, strconv.Itoa(i), serverless.RunParams{Input: map[string]int{"n": i}})
			require.NoError(t, err)
		}
		require.NoError(t, store.Close())
		srv.Client().CloseIdleConnections()
	}()
	require.Equal(t, 100, srv.Count(runpodtest.RouteRun))

	// The second program.
	rp, err := srv.NewClient()
	require.NoError(t, err)
	store, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer store.Close()
	tr, err := tracker.New(rp.Serverless.Queue("echo"), store)
	require.NoError(t, err)
	resumed, err := tr.Resume(ctx)
	require.NoError(t, err)
	require.Len(t, resumed, 100)
	start()

	delivered := map[string]int{}
	labels := map[string]bool{}
	for res, err := range tr.Results(ctx) {
		require.NoError(t, err)
		testkit.NoSecret(t, res)
		delivered[res.Record.JobID]++
		out, err := serverless.Output[struct{ N int }](res.Job)
		require.NoError(t, err)
		require.Equal(t, res.Record.Label, strconv.Itoa(out.N), "job %s", res.Record.JobID)
		require.False(t, res.Record.CompletedAt.IsZero())
		labels[res.Record.Label] = true
	}
	require.Len(t, delivered, 100)
	for id, n := range delivered {
		require.Equal(t, 1, n, "job %s", id)
	}
	require.Len(t, labels, 100)
	require.Equal(t, 100, srv.Count(runpodtest.RouteRun), "no job was submitted again")

	left, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, left)
	require.NoError(t, store.Close())
	reopened, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer reopened.Close()
	left, err = reopened.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, left)

	// Nothing is left to wait for.
	for range tr.Results(ctx) {
		t.Fatal("a delivered job was delivered again")
	}
}
