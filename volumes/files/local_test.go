package files_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// snapshot returns every path under root (relative, "/"-separated) with
// its type and, for a file, its content, leaving out the subtree skip.
func snapshot(t *testing.T, root, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[filepath.ToSlash(rel)] = "link " + target
			return err
		case d.IsDir():
			out[filepath.ToSlash(rel)] = "dir"
		default:
			b, err := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = "file " + string(b)
			return err
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// outsideFile makes a directory beside the target with one file in it,
// the file a link planted in the target would point to.
func outsideFile(t *testing.T, base string) (dir, victim string) {
	t.Helper()
	dir = filepath.Join(base, "outside")
	require.NoError(t, os.Mkdir(dir, 0o755))
	victim = filepath.Join(dir, "victim.txt")
	require.NoError(t, os.WriteFile(victim, []byte("keep me"), 0o644))
	return dir, victim
}

// requireOutsideUntouched checks that dir holds the victim alone, with
// its content.
func requireOutsideUntouched(t *testing.T, dir string) {
	t.Helper()
	assert.Equal(t, map[string]string{".": "dir", "victim.txt": "file keep me"}, snapshot(t, dir, ""), "nothing outside the target changed")
}

// requireRegular checks that p is a regular file (not a link) holding
// want.
func requireRegular(t *testing.T, p string, want []byte) {
	t.Helper()
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	require.True(t, fi.Mode().IsRegular(), "%s is a %v", p, fi.Mode())
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "%s has the downloaded content", p)
}

// TestSyncRefusesKeysThatAreNotLocalPaths: a listing whose keys climb out
// of the target (directories and files), or are absolute, makes nothing
// anywhere: each is a failed action with an *errs.UnsafePathError naming
// the key; the other keys are copied.
func TestSyncRefusesKeysThatAreNotLocalPaths(t *testing.T) {
	hostileDirs := []string{"../../escapedir/", "../../../../escapedir2/", "ok/../../../escapedir3/"}
	hostileFiles := []string{"../x", "/abs", "a/../../b", "./dot", "a//b"}
	body := map[string][]byte{"good.txt": []byte("good"), "../x": []byte("x"), "/abs": []byte("abs"), "a/../../b": []byte("b"), "./dot": []byte("d"), "a//b": []byte("ab")}
	keys := append(append([]string{"good.txt", "empty/"}, hostileDirs...), hostileFiles...)
	vol := (&rawS3{listing: listingOf(body, keys...), files: body}).volume(t)

	base := t.TempDir()
	target := filepath.Join(base, "one", "two", "target")
	require.NoError(t, os.MkdirAll(target, 0o755))
	before := snapshot(t, filepath.Dir(base), target)

	for _, dryRun := range []bool{true, false} {
		var opts []files.Option
		if dryRun {
			opts = append(opts, files.DryRun())
		}
		rep, err := vol.Sync(t.Context(), files.DirectionFromVolume, target, "", opts...)
		require.ErrorIs(t, err, errs.ErrUnsafePath)
		require.NotNil(t, rep)
		refused := map[string]files.SyncOp{}
		for _, a := range rep.Actions {
			var unsafe *errs.UnsafePathError
			if !errors.As(a.Err, &unsafe) {
				assert.NoError(t, a.Err, a.Key)
				continue
			}
			assert.Equal(t, a.Key, unsafe.Name, "the error names the key")
			assert.Equal(t, target, unsafe.Dir)
			assert.Contains(t, a.Err.Error(), "refused to write")
			assert.Empty(t, a.Path, "a refused key has no local path")
			refused[a.Key] = a.Op
		}
		for _, k := range hostileDirs {
			assert.Equal(t, files.SyncOpMakeDir, refused[k], k)
		}
		for _, k := range hostileFiles {
			assert.Equal(t, files.SyncOpDownload, refused[k], k)
		}
		assert.Len(t, refused, len(hostileDirs)+len(hostileFiles))
		assert.Equal(t, before, snapshot(t, filepath.Dir(base), target), "nothing was made outside the target (dry run %v)", dryRun)
	}
	got, err := os.ReadFile(filepath.Join(target, "good.txt"))
	require.NoError(t, err)
	assert.Equal(t, "good", string(got))
	assert.DirExists(t, filepath.Join(target, "empty"))
	assert.Equal(t, map[string]string{".": "dir", "good.txt": "file good", "empty": "dir"}, snapshot(t, target, ""))
}

// TestSyncNeverWritesThroughALinkInTheTarget: a link to a directory
// elsewhere, inside the target, is not written through: neither the file
// nor the empty directory the volume has under its name appear where it
// points, and their actions fail with an *errs.UnsafePathError. A link
// standing at a file's own name is replaced by the file.
func TestSyncNeverWritesThroughALinkInTheTarget(t *testing.T) {
	srv, vol := fake(t, files.WithConcurrency(2))
	for k, v := range map[string]string{"set/linkdir/inner.txt": "inner", "set/plain.txt": "plain", "set/filelink.txt": "replaced"} {
		require.NoError(t, srv.WriteVolumeFile(volumeID, k, strings.NewReader(v)))
	}
	require.NoError(t, srv.MakeVolumeDir(volumeID, "set/linkdir/newdir"))

	base := t.TempDir()
	outside, victim := outsideFile(t, base)
	target := filepath.Join(base, "target")
	require.NoError(t, os.Mkdir(target, 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(target, "linkdir")))
	require.NoError(t, os.Symlink(victim, filepath.Join(target, "filelink.txt")))

	rep, err := vol.Sync(t.Context(), files.DirectionFromVolume, target, "set", files.DeleteExtra())
	require.ErrorIs(t, err, errs.ErrUnsafePath)
	failed := map[string]bool{}
	for _, a := range rep.Actions {
		if a.Err != nil {
			require.ErrorIs(t, a.Err, errs.ErrUnsafePath, a.Key)
			failed[a.Key] = true
		}
	}
	assert.Equal(t, map[string]bool{"set/linkdir/inner.txt": true, "set/linkdir/newdir/": true}, failed)
	assert.Equal(t, []string{filepath.Join(target, "linkdir")}, rep.Ignored, "the scan does not follow the link")
	requireOutsideUntouched(t, outside)
	requireRegular(t, filepath.Join(target, "plain.txt"), []byte("plain"))
	requireRegular(t, filepath.Join(target, "filelink.txt"), []byte("replaced"))
	fi, err := os.Lstat(filepath.Join(target, "linkdir"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link itself stays")
}

// downloadLeftovers returns the names of the temporary files and the
// journals beside base in dir, whatever their type.
func downloadLeftovers(t *testing.T, dir, base string) (temps, journals []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "."+base+".runpod-")
		switch {
		case !ok:
		case strings.HasPrefix(rest, "download-") && len(rest) == len("download-")+16:
			temps = append(temps, e.Name())
		case strings.HasPrefix(rest, "journal-") && len(rest) == len("journal-")+16:
			journals = append(journals, e.Name())
		}
	}
	return temps, journals
}

// TestDownloadIgnoresLinksAtPredictableNames: links planted where a
// download's files used to be named (".name.runpod-download" and its
// journals) and at the final name are never written through: the file
// outside keeps its content, the links at the old names stay as they
// were, and the final name holds the downloaded file.
func TestDownloadIgnoresLinksAtPredictableNames(t *testing.T) {
	const part = files.MinPartSize
	srv, vol := fake(t, files.WithPartSize(part), files.WithConcurrency(1))
	body := content(20, 3*part-100)
	require.NoError(t, srv.WriteVolumeFile(volumeID, "d/set.bin", bytes.NewReader(body)))

	base := t.TempDir()
	outside, victim := outsideFile(t, base)
	dir := filepath.Join(base, "shared")
	require.NoError(t, os.Mkdir(dir, 0o755))
	planted := []string{".set.bin.runpod-download", ".set.bin.runpod-download.json", ".set.bin.runpod-download.json.tmp", "set.bin"}
	for _, name := range planted {
		require.NoError(t, os.Symlink(victim, filepath.Join(dir, name)))
	}

	_, err := vol.Download(t.Context(), filepath.Join(dir, "set.bin"), "d/set.bin")
	require.NoError(t, err)
	requireOutsideUntouched(t, outside)
	requireRegular(t, filepath.Join(dir, "set.bin"), body)
	for _, name := range planted[:3] {
		target, err := os.Readlink(filepath.Join(dir, name))
		require.NoError(t, err, "the link at %s is left alone", name)
		assert.Equal(t, victim, target)
	}
	temps, journals := downloadLeftovers(t, dir, "set.bin")
	assert.Empty(t, temps)
	assert.Empty(t, journals)
}

// heldDownload serves body as key through rawS3, holding the GET of its
// second range until the test lets it go.
type heldDownload struct {
	held    chan struct{} // receives when the GET is held
	release chan struct{} // closed by letGo
	letGo   func()        // lets the GET go on
	once    atomic.Bool
	raw     *rawS3
	vol     *files.Volume
}

// holdSecondRange serves body at key, in ranges of part, holding the GET
// of the second range of the first download that asks for it.
func holdSecondRange(t *testing.T, key string, body []byte, part int64) *heldDownload {
	t.Helper()
	h := &heldDownload{held: make(chan struct{}), release: make(chan struct{})}
	second := "bytes=" + strconv.FormatInt(part, 10) + "-"
	h.raw = &rawS3{files: map[string][]byte{key: body}, hold: func(r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Range"), second) && h.once.CompareAndSwap(false, true) {
			h.held <- struct{}{}
			<-h.release
		}
	}}
	h.vol = h.raw.volume(t, files.WithPartSize(part), files.WithConcurrency(1))
	h.letGo = sync.OnceFunc(func() { close(h.release) })
	t.Cleanup(h.letGo)
	return h
}

// download runs Download in a goroutine and returns its result's channel.
func (h *heldDownload) download(ctx context.Context, key, dst string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := h.vol.Download(ctx, dst, key)
		done <- err
	}()
	return done
}

// stopped runs a download of key to dst held at its second range, and
// cancels it there, once the first range is in the journal; it returns
// the names of the temporary file and journal it left.
func (h *heldDownload) stopped(t *testing.T, key, dst string) (temp, journal string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := h.download(ctx, key, dst)
	<-h.held
	cancel()
	h.letGo()
	require.ErrorIs(t, <-done, context.Canceled)
	temps, journals := downloadLeftovers(t, filepath.Dir(dst), filepath.Base(dst))
	require.Len(t, temps, 1)
	require.Len(t, journals, 1)
	return temps[0], journals[0]
}

// plant replaces name in dir by a link to victim.
func plant(t *testing.T, dir, name, victim string) {
	t.Helper()
	require.NoError(t, os.Remove(filepath.Join(dir, name)))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, name)))
}

// threeRanges returns the content of a download of three ranges of
// MinPartSize, a directory outside the target holding the victim a link
// points to, and the download directory, not made yet.
func threeRanges(t *testing.T, seed uint64) (body []byte, outside, victim, dir string) {
	t.Helper()
	body = content(seed, 3*files.MinPartSize-100)
	base := t.TempDir()
	outside, victim = outsideFile(t, base)
	return body, outside, victim, filepath.Join(base, "dl")
}

// TestDownloadNamesTakenOverMidway: while a download is held mid-file,
// its real temporary file and journal (found by listing the directory)
// are replaced by links to a file outside. A link at the journal's name
// is replaced by the next journal, and the download completes; a link at
// the temporary file's name is never renamed into place: the download
// fails with an *errs.UnsafePathError, and the next run starts over and
// completes. The file outside is never written.
func TestDownloadNamesTakenOverMidway(t *testing.T) {
	body, outside, victim, dir := threeRanges(t, 21)

	// The journal's name taken over: the download goes on.
	h := holdSecondRange(t, "set.bin", body, files.MinPartSize)
	done := h.download(t.Context(), "set.bin", filepath.Join(dir, "a.bin"))
	<-h.held
	temps, journals := downloadLeftovers(t, dir, "a.bin")
	require.Len(t, temps, 1, "the content goes to one temporary file")
	require.Len(t, journals, 1, "the first range is in the journal")
	plant(t, dir, journals[0], victim)
	h.letGo()
	require.NoError(t, <-done)
	requireOutsideUntouched(t, outside)
	requireRegular(t, filepath.Join(dir, "a.bin"), body)
	temps, journals = downloadLeftovers(t, dir, "a.bin")
	assert.Empty(t, append(temps, journals...), "the journal written over the link is removed at the end")

	// Both names taken over: the file is not renamed into place.
	h = holdSecondRange(t, "set.bin", body, files.MinPartSize)
	done = h.download(t.Context(), "set.bin", filepath.Join(dir, "b.bin"))
	<-h.held
	temps, journals = downloadLeftovers(t, dir, "b.bin")
	require.Len(t, temps, 1)
	require.Len(t, journals, 1)
	plant(t, dir, temps[0], victim)
	plant(t, dir, journals[0], victim)
	h.letGo()
	err := <-done
	var unsafe *errs.UnsafePathError
	require.ErrorAs(t, err, &unsafe)
	assert.Equal(t, temps[0], unsafe.Name)
	requireOutsideUntouched(t, outside)
	_, err = os.Lstat(filepath.Join(dir, "b.bin"))
	require.ErrorIs(t, err, fs.ErrNotExist, "nothing under the final name")

	// The next run removes the links, starts over and completes.
	_, err = h.vol.Download(t.Context(), filepath.Join(dir, "b.bin"), "set.bin")
	require.NoError(t, err)
	requireOutsideUntouched(t, outside)
	requireRegular(t, filepath.Join(dir, "b.bin"), body)
	assert.Equal(t, map[string]string{".": "dir", "a.bin": "file " + string(body), "b.bin": "file " + string(body)}, snapshot(t, dir, ""),
		"the links planted at the download's names are gone")
}

// TestDownloadResumeNeverFollowsLinks: a stopped download resumes from
// its own journal and temporary file, found by listing the directory; a
// link named as one of its journals, pointing to a file that reads as a
// journal claiming every range done, is neither read nor trusted, and is
// removed. A link planted at the real journal's name makes the next run
// start over. The file outside is never written.
func TestDownloadResumeNeverFollowsLinks(t *testing.T) {
	body, outside, victim, dir := threeRanges(t, 22)
	sum := md5.Sum(body)

	// A link named as a journal, to a journal that lies.
	h := holdSecondRange(t, "set.bin", body, files.MinPartSize)
	dst := filepath.Join(dir, "c.bin")
	temp, _ := h.stopped(t, "set.bin", dst)
	lie := fmt.Sprintf(`{"key":"set.bin","etag":"%x","size":%d,"partSize":%d,"temp":%q,"done":[[0,2]]}`, sum, len(body), files.MinPartSize, temp)
	require.NoError(t, os.WriteFile(victim, []byte(lie), 0o644))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, ".c.bin.runpod-journal-00000000000000ff")))
	gets := h.raw.gets.Load()
	_, err := h.vol.Download(t.Context(), dst, "set.bin")
	require.NoError(t, err)
	assert.Equal(t, int32(2), h.raw.gets.Load()-gets, "the two ranges the real journal lacks")
	requireRegular(t, dst, body)
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, lie, string(got), "the file outside is untouched")
	assert.Equal(t, map[string]string{".": "dir", "c.bin": "file " + string(body)}, snapshot(t, dir, ""), "the link is gone")

	// A link at the real journal's name.
	require.NoError(t, os.WriteFile(victim, []byte("keep me"), 0o644))
	h = holdSecondRange(t, "set.bin", body, files.MinPartSize)
	dst = filepath.Join(dir, "d.bin")
	_, journal := h.stopped(t, "set.bin", dst)
	plant(t, dir, journal, victim)
	gets = h.raw.gets.Load()
	_, err = h.vol.Download(t.Context(), dst, "set.bin")
	require.NoError(t, err)
	assert.Equal(t, int32(3), h.raw.gets.Load()-gets, "started over")
	requireOutsideUntouched(t, outside)
	requireRegular(t, dst, body)
	temps, journals := downloadLeftovers(t, dir, "d.bin")
	assert.Empty(t, append(temps, journals...))
}

// TestAnswerThatDoesNotDecode: a listing holding a NUL byte, or an HTML
// page served with 200 in its place, is an *S3Error that says the answer
// did not decode, and why; Sync with DeleteExtra then changes nothing.
func TestAnswerThatDoesNotDecode(t *testing.T) {
	raw := &rawS3{}
	vol := raw.volume(t)
	for _, c := range []struct {
		name, listing, contentType, why string
	}{
		{"NUL", listingOf(nil, "a\x00b"), "", "illegal character code U+0000"},
		{"HTML", `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Wi-Fi</title></head><body>Sign in<br></body></html>`, "text/html", "XML syntax error"},
		{"XHTML", `<html><head><title>Wi-Fi</title></head><body><p>Sign in</p></body></html>`, "text/html; charset=utf-8", "an HTML page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw.listing, raw.listType = c.listing, c.contentType
			var errs []error
			for e, err := range vol.List(t.Context(), "p/") {
				assert.Zero(t, e)
				errs = append(errs, err)
			}
			require.Len(t, errs, 1)
			var se *files.S3Error
			require.ErrorAs(t, errs[0], &se)
			assert.Equal(t, http.StatusOK, se.StatusCode)
			assert.Empty(t, se.Code)
			var de *smithy.DeserializationError
			require.ErrorAs(t, errs[0], &de, "Unwrap reaches the decode failure")
			assert.Contains(t, errs[0].Error(), "runpod: S3 ListObjectsV2 p/: the 200 answer did not decode: ")
			assert.Contains(t, errs[0].Error(), c.why)

			local := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(local, "keep.txt"), []byte("keep"), 0o644))
			rep, err := vol.Sync(t.Context(), files.DirectionFromVolume, local, "p", files.DeleteExtra())
			require.ErrorAs(t, err, &se)
			assert.Nil(t, rep)
			assert.FileExists(t, filepath.Join(local, "keep.txt"))
		})
	}
}
