package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// tree writes files (relative path → content) under dir.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// ops returns each action as "op key reason".
func ops(r *files.SyncReport) []string {
	var out []string
	for _, a := range r.Actions {
		out = append(out, string(a.Op)+" "+a.Key+" "+a.Reason)
	}
	return out
}

func TestSyncToVolumeAndBack(t *testing.T) {
	srv, vol := fake(t, files.WithConcurrency(2))
	up := t.TempDir()
	tree(t, up, map[string]string{"a.txt": "alpha", "d/b.txt": "bravo", "d/e/c.txt": "charlie"})

	plan, err := vol.Sync(t.Context(), files.DirectionToVolume, up, "set", files.DryRun())
	require.NoError(t, err)
	assert.Equal(t, []string{"upload set/a.txt missing", "upload set/d/b.txt missing", "upload set/d/e/c.txt missing"}, ops(plan))
	assert.Equal(t, int64(17), plan.Bytes)
	assert.Zero(t, fakes3.Count(srv, "PutObject"), "a dry run changes nothing")

	rep, err := vol.Sync(t.Context(), files.DirectionToVolume, up, "set")
	require.NoError(t, err)
	assert.Equal(t, ops(plan), ops(rep))
	assert.Equal(t, 3, fakes3.Count(srv, "PutObject"))

	again, err := vol.Sync(t.Context(), files.DirectionToVolume, up, "set/")
	require.NoError(t, err)
	assert.Empty(t, again.Actions, "nothing changed")
	assert.Equal(t, 3, again.Skipped)

	// A changed size, and a newer file of the same size.
	tree(t, up, map[string]string{"a.txt": "alpha2", "d/b.txt": "BRAVO"})
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(up, "d", "b.txt"), future, future))
	rep, err = vol.Sync(t.Context(), files.DirectionToVolume, up, "set")
	require.NoError(t, err)
	assert.Equal(t, []string{"upload set/a.txt size", "upload set/d/b.txt newer"}, ops(rep))

	down := filepath.Join(t.TempDir(), "down")
	rep, err = vol.Sync(t.Context(), files.DirectionFromVolume, down, "set")
	require.NoError(t, err)
	assert.Len(t, rep.Actions, 3)
	for name, want := range map[string]string{"a.txt": "alpha2", "d/b.txt": "BRAVO", "d/e/c.txt": "charlie"} {
		got, err := os.ReadFile(filepath.Join(down, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	again, err = vol.Sync(t.Context(), files.DirectionFromVolume, down, "set", files.DryRun())
	require.NoError(t, err)
	assert.Empty(t, again.Actions, "a download has the volume's time: nothing to do")
}

func TestSyncChecksumsAndDeleteExtra(t *testing.T) {
	srv, vol := fake(t)
	up := t.TempDir()
	tree(t, up, map[string]string{"a.txt": "same", "b.txt": "diff"})
	require.NoError(t, srv.WriteVolumeFile(volumeID, "m/a.txt", strings.NewReader("same")))
	require.NoError(t, srv.WriteVolumeFile(volumeID, "m/b.txt", strings.NewReader("DIFF")))
	require.NoError(t, srv.WriteVolumeFile(volumeID, "m/old.txt", strings.NewReader("stale")))
	// The local files are older than the volume's: by time, nothing changed.
	past := time.Now().Add(-time.Hour)
	for _, n := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.Chtimes(filepath.Join(up, n), past, past))
	}
	rep, err := vol.Sync(t.Context(), files.DirectionToVolume, up, "m", files.DryRun())
	require.NoError(t, err)
	assert.Empty(t, rep.Actions)

	rep, err = vol.Sync(t.Context(), files.DirectionToVolume, up, "m", files.CompareChecksums(), files.DeleteExtra())
	require.NoError(t, err)
	assert.Equal(t, []string{"upload m/b.txt checksum", "delete m/old.txt extra"}, ops(rep))
	assert.Equal(t, 1, rep.Skipped)
	assert.Equal(t, []string{"m/a.txt", "m/b.txt"}, keys(list(t, vol, "m/")))

	// DirectionFromVolume with DeleteExtra removes local files and emptied dirs.
	down := t.TempDir()
	tree(t, down, map[string]string{"a.txt": "same", "x/y.txt": "extra"})
	rep, err = vol.Sync(t.Context(), files.DirectionFromVolume, down, "m", files.DeleteExtra(), files.CompareChecksums())
	require.NoError(t, err)
	assert.Equal(t, []string{"download m/b.txt missing", "delete m/x/ extra", "delete m/x/y.txt extra"}, ops(rep))
	assert.NoDirExists(t, filepath.Join(down, "x"))
}

// TestSyncFailuresDoNotStopOthers: a file that fails is reported and the
// others are copied.
func TestSyncFailuresDoNotStopOthers(t *testing.T) {
	srv, vol := fake(t, files.WithConcurrency(1))
	up := t.TempDir()
	tree(t, up, map[string]string{"1.txt": "1", "2.txt": "2", "3.txt": "3"})
	fakes3.Fail(srv, fakes3.Fault{Op: "PutObject", Key: "s/2.txt", Status: 400})
	rep, err := vol.Sync(t.Context(), files.DirectionToVolume, up, "s")
	require.Error(t, err)
	require.Len(t, rep.Actions, 3)
	assert.NoError(t, rep.Actions[0].Err)
	assert.Error(t, rep.Actions[1].Err)
	assert.NoError(t, rep.Actions[2].Err)
	assert.Equal(t, []string{"s/1.txt", "s/3.txt"}, keys(list(t, vol, "s/")))
}
