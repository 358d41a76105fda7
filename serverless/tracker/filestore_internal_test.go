package tracker

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFileStoreRepairsAfterAFailedWrite: a change whose write fails is
// reported, is not kept, and leaves the file whole: the store is
// rewritten from the records known to be stored, and the changes after it
// are kept.
func TestFileStoreRepairsAfterAFailedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	s, err := NewFileStore(path)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, s.Put(ctx, Record{EndpointID: "e", JobID: "kept", SubmittedAt: at}))

	s.mu.Lock()
	require.NoError(t, s.f.Close()) // the next write fails
	s.mu.Unlock()
	require.Error(t, s.Put(ctx, Record{EndpointID: "e", JobID: "failed", SubmittedAt: at.Add(time.Minute)}))
	require.NoError(t, s.Put(ctx, Record{EndpointID: "e", JobID: "after", SubmittedAt: at.Add(2 * time.Minute)}))
	require.NoError(t, s.Close())

	again, err := NewFileStore(path)
	require.NoError(t, err)
	defer again.Close()
	recs, err := again.List(ctx, "e")
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, "kept", recs[0].JobID)
	require.Equal(t, "after", recs[1].JobID)
}
