package confine_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/confine"
)

// target returns a target directory and a directory beside it, outside
// it, that links point to.
func target(t *testing.T) (*confine.Dir, string, string) {
	t.Helper()
	base := t.TempDir()
	in, out := filepath.Join(base, "target"), filepath.Join(base, "outside")
	require.NoError(t, os.Mkdir(out, 0o750))
	d, err := confine.Open(in, true)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d, in, out
}

func TestRelRefusesWhatIsNotAPlainRelativePath(t *testing.T) {
	d, _, _ := target(t)
	for _, name := range []string{"", "/abs", "/", "..", "../x", "a/../../b", "a/..", "x/..", "./a", "a/./b", "a//b", "a/", "nul\x00byte"} {
		_, err := d.Rel(name)
		var unsafe *errs.UnsafePathError
		require.ErrorAs(t, err, &unsafe, "name %q", name)
		assert.Equal(t, name, unsafe.Name)
		assert.ErrorIs(t, err, errs.ErrUnsafePath)
		assert.Contains(t, err.Error(), "refused to write")
	}
	for _, name := range []string{"a", "a/b/c.txt", "..a", "a..", ".hidden/x", "sp ace/ü"} {
		rel, err := d.Rel(name)
		require.NoError(t, err, name)
		assert.Equal(t, filepath.FromSlash(name), rel)
	}
	require.Error(t, d.Component("a/b"))
	require.Error(t, d.Component(".."))
	require.NoError(t, d.Component("a"))
}

func TestNoLinkIsFollowedOnTheWayToAWrite(t *testing.T) {
	d, in, out := target(t)
	require.NoError(t, os.Symlink(out, filepath.Join(in, "linkdir")))
	require.NoError(t, os.Mkdir(filepath.Join(in, "real"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(in, "inner"))) // a link that stays inside

	for _, rel := range []string{"linkdir", "linkdir/new", "inner/new"} {
		err := d.MkdirAll(filepath.FromSlash(rel), 0o755)
		require.ErrorIs(t, err, errs.ErrUnsafePath, rel)
		_, err = d.Create(filepath.FromSlash(rel+"/f"), 0o644)
		require.ErrorIs(t, err, errs.ErrUnsafePath, rel)
		_, _, err = d.CreateTemp(filepath.FromSlash(rel+"/f"), ".tmp", 0o644)
		require.ErrorIs(t, err, errs.ErrUnsafePath, rel)
		require.ErrorIs(t, d.Chmod(rel, 0o777), errs.ErrUnsafePath, rel)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was made outside")
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o750), st.Mode().Perm(), "nothing outside was chmodded")
	st, err = os.Stat(filepath.Join(in, "real"))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o755), st.Mode().Perm())

	// A file where a directory is needed.
	require.NoError(t, os.WriteFile(filepath.Join(in, "file"), nil, 0o644))
	require.ErrorIs(t, d.MkdirAll(filepath.Join("file", "sub"), 0o755), errs.ErrUnsafePath)
}

func TestTemporaryFilesAreExclusiveAndRenamedOverLinks(t *testing.T) {
	d, in, out := target(t)
	victim := filepath.Join(out, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))

	// A link planted at the final name, and one at a predictable name.
	require.NoError(t, os.Symlink(victim, filepath.Join(in, "final")))
	require.NoError(t, os.Symlink(victim, filepath.Join(in, ".final.tmp")))
	_, err := d.Create(".final.tmp", 0o644)
	require.ErrorIs(t, err, fs.ErrExist, "an exclusive create never opens a link")

	f, tmp, err := d.CreateTemp("final", ".tmp", 0o644)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(tmp, ".final.tmp-"), tmp)
	assert.Len(t, strings.TrimPrefix(tmp, ".final.tmp-"), 16)
	_, err = f.WriteString("new")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, d.Chtimes(tmp, time.Time{}, time.Unix(1e9, 0)))
	require.NoError(t, d.Rename(tmp, "final"))

	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got), "the link's target is untouched")
	fi, err := os.Lstat(filepath.Join(in, "final"))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced by the file")
	assert.Equal(t, time.Unix(1e9, 0), fi.ModTime())

	// Reading never goes through a link either.
	_, err = d.OpenRegular(".final.tmp", os.O_RDWR)
	require.ErrorIs(t, err, errs.ErrUnsafePath)
	require.ErrorIs(t, d.Chtimes(".final.tmp", time.Time{}, time.Now()), errs.ErrUnsafePath)
	f, err = d.OpenRegular("final", os.O_RDONLY)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	// Remove removes a link, not its target.
	require.NoError(t, d.Remove(".final.tmp"))
	_, err = os.Stat(victim)
	require.NoError(t, err)

	require.Error(t, d.Rename(tmp, filepath.Join("sub", "x")), "renames stay in one directory")
}

func TestNamesOfReadDirAndLstat(t *testing.T) {
	d, in, _ := target(t)
	require.NoError(t, d.MkdirAll(filepath.Join("a", "b"), 0o755))
	f, err := d.Create(filepath.Join("a", "b", "c"), 0o600)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	entries, err := d.ReadDir(filepath.Join("a", "b"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "c", entries[0].Name())
	fi, err := d.Lstat(filepath.Join("a", "b", "c"))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
	assert.Equal(t, filepath.Join(in, "a", "b", "c"), d.Join(filepath.Join("a", "b", "c")))
	assert.Equal(t, in, d.Path())
}

func TestRelUnderChecksWithoutADirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not-made")
	_, err := confine.RelUnder(dir, "a/../../b")
	var unsafe *errs.UnsafePathError
	require.ErrorAs(t, err, &unsafe)
	assert.Equal(t, dir, unsafe.Dir)
	assert.Equal(t, "a/../../b", unsafe.Name)
	rel, err := confine.RelUnder(dir, "a/b")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("a", "b"), rel)
	assert.NoDirExists(t, dir, "the check looks at the name only")
}

func TestTempBaseReadsTempNamesOnly(t *testing.T) {
	for _, base := range []string{"a.bin", "..", ".hidden", "x.tag-0123456789abcdef", "sp ace"} {
		got, ok := confine.TempBase(confine.TempName(base, ".tag"), ".tag")
		require.True(t, ok, base)
		assert.Equal(t, base, got)
	}
	for _, name := range []string{
		"", ".tag-0123456789abcdef", "a.tag-0123456789abcdef", ".a.tag-0123456789ABCDEF", ".a.tag-0123456789abcde",
		".a.tag-0123456789abcdef0", ".a.tag0123456789abcdef", ".a.other-0123456789abcdef", ".a.tag-0123456789abcdeg",
	} {
		_, ok := confine.TempBase(name, ".tag")
		assert.False(t, ok, name)
	}
}

func TestSameTellsAReplacedFile(t *testing.T) {
	d, in, out := target(t)
	f, tmp, err := d.CreateTemp("final", ".tmp", 0o644)
	require.NoError(t, err)
	fi, err := f.Stat()
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, d.Same(tmp, fi))

	// Replaced by a link to the file itself, by another file, by nothing.
	require.NoError(t, os.Rename(filepath.Join(in, tmp), filepath.Join(out, "moved")))
	require.NoError(t, os.Symlink(filepath.Join(out, "moved"), filepath.Join(in, tmp)))
	require.ErrorIs(t, d.Same(tmp, fi), errs.ErrUnsafePath)
	require.NoError(t, os.Remove(filepath.Join(in, tmp)))
	require.NoError(t, os.WriteFile(filepath.Join(in, tmp), nil, 0o644))
	require.ErrorIs(t, d.Same(tmp, fi), errs.ErrUnsafePath)
	require.NoError(t, os.Remove(filepath.Join(in, tmp)))
	var unsafe *errs.UnsafePathError
	require.ErrorAs(t, d.Same(tmp, fi), &unsafe)
	assert.Equal(t, tmp, unsafe.Name)
}
