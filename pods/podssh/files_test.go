package podssh_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// info is a listing entry a server makes up.
type info struct {
	name string
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return int64(len(payload)) }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Unix(1_700_000_000, 0) }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

// payload is every file a hostile server serves.
const payload = "pwned\n"

// hostile is an SFTP server's file system that lists, in /evil, the
// entries it is given, as a pod's sshd controlled by someone else could:
// every other directory holds one file, every file is payload.
type hostile struct{ entries []os.FileInfo }

func (h hostile) handlers() sftp.Handlers {
	return sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
}

func (h hostile) Fileread(*sftp.Request) (io.ReaderAt, error) {
	return strings.NewReader(payload), nil
}

func (h hostile) Filewrite(*sftp.Request) (io.WriterAt, error) {
	return nil, sftp.ErrSSHFxPermissionDenied
}
func (h hostile) Filecmd(*sftp.Request) error { return sftp.ErrSSHFxPermissionDenied }

func (h hostile) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	switch {
	case r.Method == "List" && r.Filepath == "/evil":
		return lister(h.entries), nil
	case r.Method == "List":
		return lister{info{"payload", 0o644}}, nil
	case r.Filepath == "/evil" || strings.HasSuffix(r.Filepath, ".."):
		return lister{info{"evil", fs.ModeDir | 0o777}}, nil
	}
	return lister{info{"file", 0o777}}, nil
}

type lister []os.FileInfo

func (l lister) ListAt(dst []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(dst, l[off:])
	if n < len(dst) {
		return n, io.EOF
	}
	return n, nil
}

// dialHostile serves entries in /evil from a server of the test's and
// returns a connection to it.
func dialHostile(t *testing.T, entries ...os.FileInfo) *podssh.Conn {
	t.Helper()
	hostKey := rootKey(t)
	client := rootKey(t)
	srv := startTestServer(t, hostKey, client.PublicKey(), hostile{entries}.handlers())
	key, err := podssh.NewKey(client)
	require.NoError(t, err)
	conn, err := podssh.NewFromConfig(option.Config{}).DialAddr(t.Context(), srv.addr,
		podssh.DialOptions{Key: key, HostKeys: new(podssh.MemoryHostKeys)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// arena is a parent directory holding a target and, beside it, a
// directory outside the target, with modes that a write or chmod would
// change.
type arena struct{ base, target, outside string }

func newArena(t *testing.T) arena {
	t.Helper()
	base := filepath.Join(t.TempDir(), "base")
	a := arena{base: base, target: filepath.Join(base, "target"), outside: filepath.Join(base, "outside")}
	require.NoError(t, os.MkdirAll(a.outside, 0o750))
	require.NoError(t, os.Chmod(a.outside, 0o750))
	require.NoError(t, os.Chmod(base, 0o750))
	return a
}

// untouched checks that nothing was written, made or chmodded outside
// the target.
func (a arena) untouched(t *testing.T) {
	t.Helper()
	for _, d := range []string{a.base, a.outside} {
		st, err := os.Stat(d)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o750), st.Mode().Perm(), "%s not chmodded", d)
	}
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	assert.ElementsMatch(t, []string{"target", "outside"}, names(a.base), "nothing new beside the target")
	assert.Empty(t, names(a.outside), "nothing written outside")
	_ = filepath.WalkDir(a.target, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			assert.NotEqual(t, payload, string(b), "%s written from a refused entry", p)
		}
		return nil
	})
}

// TestDownloadRefusesUnsafeNames: a listing entry that is not one plain
// name, however the server spells it, fails the download with an
// *errs.UnsafePathError naming the remote path; nothing is written,
// made or chmodded outside the target, and it is not mapped to another
// name (pkg/sftp's client would have read "/abs" as "abs", "a/../../b" as
// "b" and "x/.." as "..").
func TestDownloadRefusesUnsafeNames(t *testing.T) {
	for _, e := range []info{
		{"x/..", fs.ModeDir | 0o777},
		{"..", 0o644}, // a ".." that is no directory: not the parent's entry
		{"/abs", 0o644},
		{"/etc", fs.ModeDir | 0o777},
		{"a/../../b", 0o644},
		{"sub/file", 0o644},
		{"nul\x00byte", 0o644},
		{"", 0o644},
		{".", 0o644},
	} {
		t.Run(strings.ReplaceAll(e.name, "/", "_"), func(t *testing.T) {
			conn := dialHostile(t, e)
			a := newArena(t)
			err := conn.Download(t.Context(), a.target, "/evil")
			var unsafe *errs.UnsafePathError
			require.ErrorAs(t, err, &unsafe)
			assert.ErrorIs(t, err, errs.ErrUnsafePath)
			assert.Equal(t, "/evil/"+e.name, unsafe.Name, "the remote path, as the server sent it")
			a.untouched(t)
			entries, err := os.ReadDir(a.target)
			require.NoError(t, err)
			assert.Empty(t, entries)
		})
	}
}

// TestDownloadStandardListing: the "." and ".." entries servers list
// (directories) are skipped, and the rest copied.
func TestDownloadStandardListing(t *testing.T) {
	conn := dialHostile(t, info{".", fs.ModeDir | 0o755}, info{"..", fs.ModeDir | 0o755}, info{"ok.txt", 0o640}, info{"link", fs.ModeSymlink | 0o777})
	a := newArena(t)
	require.NoError(t, conn.Download(t.Context(), a.target, "/evil"))
	b, err := os.ReadFile(filepath.Join(a.target, "ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, payload, string(b))
	entries, err := os.ReadDir(a.target)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the link skipped, no temporary file left")
	st, err := os.Stat(filepath.Join(a.target, "ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())
}

// TestDownloadDoesNotFollowLocalLinks: a link in the target where the
// copy needs a directory fails the download for that entry, writing and
// chmodding nothing outside; a link where a file goes is replaced by the
// file, its target untouched.
func TestDownloadDoesNotFollowLocalLinks(t *testing.T) {
	f := setup(t)
	conn := f.dial(t, podssh.DialOptions{})
	require.NoError(t, fakessh.WritePodFile(f.srv, f.pod, "/root/data/sub/file.txt", []byte("from the pod")))
	require.NoError(t, fakessh.WritePodFile(f.srv, f.pod, "/root/data/top.txt", []byte("top")))

	a := newArena(t)
	require.NoError(t, os.MkdirAll(filepath.Join(a.target, "data"), 0o755))
	require.NoError(t, os.Symlink(a.outside, filepath.Join(a.target, "data", "sub")))
	err := conn.Download(t.Context(), a.target, "/root/data") // into target/data
	var unsafe *errs.UnsafePathError
	require.ErrorAs(t, err, &unsafe)
	assert.Contains(t, unsafe.Reason, "symbolic link")
	a.untouched(t)

	b := newArena(t)
	victim := filepath.Join(b.outside, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("mine"), 0o600))
	require.NoError(t, os.MkdirAll(b.target, 0o755))
	require.NoError(t, os.Symlink(victim, filepath.Join(b.target, "top.txt")))
	require.NoError(t, conn.Download(t.Context(), b.target, "/root/data/top.txt"))
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got), "the link's target untouched")
	fi, err := os.Lstat(filepath.Join(b.target, "top.txt"))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link replaced by the file")
	got, err = os.ReadFile(filepath.Join(b.target, "top.txt"))
	require.NoError(t, err)
	assert.Equal(t, "top", string(got))
}

// TestUploadSkipsLinks: Upload reads a directory through an os.Root:
// links in it, to files or directories inside or out, are not followed.
func TestUploadSkipsLinks(t *testing.T) {
	f := setup(t)
	conn := f.dial(t, podssh.DialOptions{})
	a := newArena(t)
	require.NoError(t, os.WriteFile(filepath.Join(a.outside, "secret"), []byte("secret"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(a.target, "dir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(a.target, "dir", "real.txt"), []byte("real"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(a.outside, "secret"), filepath.Join(a.target, "dir", "secret")))
	require.NoError(t, os.Symlink(a.outside, filepath.Join(a.target, "outside")))
	require.NoError(t, conn.Upload(t.Context(), a.target, "/workspace"))
	b, err := fakessh.PodFile(f.srv, f.pod, "/workspace/target/dir/real.txt")
	require.NoError(t, err)
	assert.Equal(t, "real", string(b))
	for _, p := range []string{"/workspace/target/dir/secret", "/workspace/target/outside/secret", "/workspace/target/outside"} {
		_, err := fakessh.PodFile(f.srv, f.pod, p)
		assert.True(t, errors.Is(err, fs.ErrNotExist) || err != nil && bytes.Contains([]byte(err.Error()), []byte("directory")), "%s: %v", p, err)
	}
}
