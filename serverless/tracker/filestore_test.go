package tracker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/serverless/tracker"
)

// openStore opens the file store at path and closes it when the test ends.
func openStore(t *testing.T, path string) *tracker.FileStore {
	t.Helper()
	s, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// jobIDs lists the job ids of endpoint e in s.
func jobIDs(t *testing.T, s tracker.Store, e string) []string {
	t.Helper()
	recs, err := s.List(context.Background(), e)
	require.NoError(t, err)
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.JobID)
	}
	return ids
}

// record is a record of endpoint "e" submitted n minutes after noon.
func record(id string, n int) tracker.Record {
	return tracker.Record{EndpointID: "e", JobID: id, SubmittedAt: time.Date(2026, 6, 1, 12, n, 0, 0, time.UTC)}
}

// TestFileStoreContract: the file store keeps the Store contract, and a
// reopened file holds the same records, every field kept.
func TestFileStoreContract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	s := openStore(t, path)
	testStore(t, s)
	full := tracker.Record{EndpointID: "c", JobID: "j", SubmittedAt: time.Date(2026, 6, 1, 12, 0, 0, 5, time.FixedZone("x", 3600)),
		Sync: true, TTL: 90 * time.Second, Label: "tag", CompletedAt: time.Date(2026, 6, 1, 12, 3, 0, 0, time.UTC)}
	require.NoError(t, s.Put(context.Background(), full))
	require.NoError(t, s.Close())

	again := openStore(t, path)
	require.Equal(t, []string{"j2"}, jobIDs(t, again, "a"))
	require.Equal(t, []string{"j1"}, jobIDs(t, again, "b"))
	recs, err := again.List(context.Background(), "c")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	got := recs[0]
	require.True(t, got.SubmittedAt.Equal(full.SubmittedAt))
	require.True(t, got.CompletedAt.Equal(full.CompletedAt))
	got.SubmittedAt, got.CompletedAt = full.SubmittedAt, full.CompletedAt
	require.Equal(t, full, got)
	if tracker.FileLocking {
		info, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "only the owner reads the records")
	}
}

// TestFileStoreIgnoresATornLastLine: a change cut short by a crash (the
// last line, without its newline) is ignored, the records before it are
// kept, and the file is whole again once reopened, so that the next
// change is readable.
func TestFileStoreIgnoresATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	s := openStore(t, path)
	ctx := context.Background()
	require.NoError(t, s.Put(ctx, record("j1", 1)))
	require.NoError(t, s.Put(ctx, record("j2", 2)))
	require.NoError(t, s.Close())
	for _, torn := range []string{`{"put":{"endpointId":"e","jobId":"j3","submitt`, `{"delete":{"endpointId":"e","jobId":"j1"}}`, "\x00\x00\x00\x00"} {
		t.Run(fmt.Sprintf("%.12q", torn), func(t *testing.T) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.WriteString(torn)
			require.NoError(t, err)
			require.NoError(t, f.Close())

			s := openStore(t, path)
			require.Equal(t, []string{"j1", "j2"}, jobIDs(t, s, "e"))
			require.NoError(t, s.Put(ctx, record("j9", 9)))
			require.NoError(t, s.Delete(ctx, "e", "j9"))
			require.NoError(t, s.Close())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, bytes.HasSuffix(data, []byte("\n")))
			require.NotContains(t, string(data), torn)
			require.Equal(t, []string{"j1", "j2"}, jobIDs(t, openStore(t, path), "e"))
		})
	}
}

// TestFileStoreIgnoresALeftoverTempFile: a rewrite cut short by a crash
// leaves a temporary file beside the store, which is never read (even
// when it holds records) and is removed at the next open.
func TestFileStoreIgnoresALeftoverTempFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jobs.jsonl")
	s := openStore(t, path)
	require.NoError(t, s.Put(context.Background(), record("j1", 1)))
	require.NoError(t, s.Close())
	partial := filepath.Join(dir, "jobs.jsonl.tmp-12345")
	require.NoError(t, os.WriteFile(partial, []byte("{\"format\":\"runpod-go/tracker\",\"version\":1}\n{\"put\":{\"endpointId\":\"e\",\"jobId\":\"ghost\",\"submittedAt\":\"2026-06-01T12:00:00Z\"}}\n{\"put\":{\"endp"), 0o600))
	other := filepath.Join(dir, "other.jsonl.tmp-1")
	require.NoError(t, os.WriteFile(other, []byte("not ours"), 0o600))

	s = openStore(t, path)
	require.Equal(t, []string{"j1"}, jobIDs(t, s, "e"))
	_, err := os.Stat(partial)
	require.ErrorIs(t, err, os.ErrNotExist, "the leftover is removed")
	_, err = os.Stat(other)
	require.NoError(t, err, "another store's file is left alone")
}

// TestFileStoreRefusesDamage: a file that is not the store's, one of a
// newer format, or one with an undecodable line before its last is
// refused, naming the problem, and left as it is.
func TestFileStoreRefusesDamage(t *testing.T) {
	header := "{\"format\":\"runpod-go/tracker\",\"version\":1}\n"
	good := "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j1\",\"submittedAt\":\"2026-06-01T12:00:00Z\"}}\n"
	for _, c := range []struct{ name, data, want string }{
		{"not a tracker file", "hello\nworld\n", "not a tracker file"},
		{"no header line", "hello", "not a tracker file"},
		{"newer format", "{\"format\":\"runpod-go/tracker\",\"version\":3}\n" + good, "format version 3"},
		{"damaged line", header + good + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j2\",\"submi\n" + good, "line 3"},
		{"empty job id", header + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"\"}}\n" + good, "line 2"},
		{"two changes in a line", header + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j\"},\"delete\":{\"endpointId\":\"e\",\"jobId\":\"j\"}}\n", "line 2"},
		{"unknown field", header + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j\",\"input\":\"secret\"}}\n", "line 2"},
		{"data after the object", header + "{\"delete\":{\"endpointId\":\"e\",\"jobId\":\"j\"}}}\n", "line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jobs.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(c.data), 0o600))
			s, err := tracker.NewFileStore(path)
			require.Nil(t, s)
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, path)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, c.data, string(data), "the file is left as it was")
		})
	}
}

// TestFileStoreLock: while a store holds the file, another cannot open
// it (in this process as in another); once closed, it can.
func TestFileStoreLock(t *testing.T) {
	if !tracker.FileLocking {
		t.Skip("no file lock on this platform")
	}
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	s := openStore(t, path)
	_, err := tracker.NewFileStore(path)
	require.ErrorIs(t, err, tracker.ErrLocked)
	require.NoError(t, s.Close())
	openStore(t, path)
}

// TestFileStoreCompacts: dead lines do not pile up: the file is rewritten
// once they outnumber the live records by the slack (1024, 8 here), and
// holds the same records.
func TestFileStoreCompacts(t *testing.T) {
	defer tracker.SetCompactSlack(8)()
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	s := openStore(t, path)
	ctx := context.Background()
	require.NoError(t, s.Put(ctx, record("live", 0)))
	for i := range 50 {
		id := fmt.Sprintf("j%d", i)
		require.NoError(t, s.Put(ctx, record(id, 1)))
		require.NoError(t, s.Delete(ctx, "e", id))
	}
	require.NoError(t, s.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.LessOrEqual(t, strings.Count(string(data), "\n"), 1+2*1+8+1, "the file was rewritten")
	require.Equal(t, []string{"live"}, jobIDs(t, openStore(t, path), "e"))
}

// TestFileStoreConcurrentUse: puts and deletes from many goroutines end
// in the records expected, in memory and on disk.
func TestFileStoreConcurrentUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	s := openStore(t, path)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf("g%d-%02d", g, i)
				assert.NoError(t, s.Put(ctx, record(id, g)))
				if i%2 == 1 {
					assert.NoError(t, s.Delete(ctx, "e", id))
				}
			}
		})
	}
	wg.Wait()
	want := jobIDs(t, s, "e")
	require.Len(t, want, 80)
	require.NoError(t, s.Close())
	require.Equal(t, want, jobIDs(t, openStore(t, path), "e"))
}

// TestFileStoreClosed: after Close the store refuses changes and lists,
// and closing again is harmless.
func TestFileStoreClosed(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "jobs.jsonl"))
	require.NoError(t, s.Close())
	ctx := context.Background()
	require.Error(t, s.Put(ctx, record("j", 0)))
	_, err := s.List(ctx, "e")
	require.Error(t, err)
	require.NoError(t, s.Close())
}

// TestFileStoreReadsVersion1: a file written before submissions were
// recorded (version 1, deletes by "jobId") is read, and rewritten as
// version 2 when opened.
func TestFileStoreReadsVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	v1 := "{\"format\":\"runpod-go/tracker\",\"version\":1}\n" +
		"{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j1\",\"submittedAt\":\"2026-06-01T12:00:00Z\"}}\n" +
		"{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j2\",\"submittedAt\":\"2026-06-01T12:00:01Z\"}}\n" +
		"{\"delete\":{\"endpointId\":\"e\",\"jobId\":\"j1\"}}\n"
	require.NoError(t, os.WriteFile(path, []byte(v1), 0o600))
	s, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer s.Close()
	recs, err := s.List(t.Context(), "e")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Equal(t, "j2", recs[0].JobID)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), "{\"format\":\"runpod-go/tracker\",\"version\":2}\n"), "%s", data)
	require.NoError(t, s.Delete(t.Context(), "e", "j2"))
}
