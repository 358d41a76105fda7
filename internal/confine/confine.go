// Package confine makes the local writes of a copy from a remote side (a
// volume's objects, a pod's files) under one target directory, and
// nowhere else:
//
//   - every operation goes through an os.Root opened on the directory,
//     so no name, link or race reaches outside it;
//   - a remote name is used only when it is a plain relative path (Rel,
//     RelUnder, Component); anything else is an *errs.UnsafePathError
//     naming it, never mapped to something else;
//   - no symbolic link inside the directory is followed on the way to a
//     write: each directory on the path is checked to be a directory and
//     not a link, then opened, and the opened directory checked to be
//     the one examined;
//   - temporary files are created exclusively (O_EXCL) under names no
//     one can predict (TempBase tells them in a listing), and renamed
//     into place within their directory; a link planted at the final
//     name is replaced, not written through, and Same tells a temporary
//     file whose name was taken over meanwhile.
package confine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
)

// Dir is a local target directory, opened as an os.Root. It is safe for
// concurrent use.
type Dir struct {
	root *os.Root
	path string
}

// Open opens the directory at path as a target; with create, path and
// its missing parents are made first (path is the caller's own choice, so
// links on the way to it are the caller's business).
func Open(path string, create bool) (*Dir, error) {
	if create {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{root: root, path: path}, nil
}

// Close closes the directory.
func (d *Dir) Close() error { return d.root.Close() }

// Path returns the directory's path as given to Open.
func (d *Dir) Path() string { return d.path }

// Join returns the local path of rel under the directory, for messages
// and reports.
func (d *Dir) Join(rel string) string { return filepath.Join(d.path, rel) }

// unsafe is the error refusing name under d.
func (d *Dir) unsafe(name, format string, args ...any) error {
	return &errs.UnsafePathError{Dir: d.path, Name: name, Reason: fmt.Sprintf(format, args...)}
}

// Rel returns name, a "/"-separated relative path from the remote side,
// as a local relative path under d, or an *errs.UnsafePathError naming it
// when it is not a plain one: empty, absolute, with an empty, "." or ".."
// component, holding a NUL byte, or (on Windows) a backslash, a colon or
// a name the system reserves.
func (d *Dir) Rel(name string) (string, error) { return RelUnder(d.path, name) }

// RelUnder is Rel for a target directory that is not open (a dry run, a
// directory not made yet): the same check of name, the error naming dir.
// It looks at the name only, never at the file system.
func RelUnder(dir, name string) (string, error) {
	d := &Dir{path: dir}
	switch {
	case name == "":
		return "", d.unsafe(name, "is empty")
	case strings.HasPrefix(name, "/"):
		return "", d.unsafe(name, "is absolute")
	}
	for c := range strings.SplitSeq(name, "/") {
		if err := d.component(name, c); err != nil {
			return "", err
		}
	}
	rel := filepath.FromSlash(name)
	if !filepath.IsLocal(rel) {
		return "", d.unsafe(name, "is not a local path here")
	}
	return rel, nil
}

// Component checks name, one entry of a remote directory listing, as a
// single local name: what Rel accepts, without a "/".
func (d *Dir) Component(name string) error {
	if strings.Contains(name, "/") {
		return d.unsafe(name, "holds a /, but names one entry of a directory")
	}
	_, err := d.Rel(name)
	return err
}

// component checks c, a component of name.
func (d *Dir) component(name, c string) error {
	switch {
	case c == "":
		return d.unsafe(name, "has an empty component")
	case c == "." || c == "..":
		return d.unsafe(name, "has a %s component", c)
	case strings.IndexByte(c, 0) >= 0:
		return d.unsafe(name, "holds a NUL byte")
	case runtime.GOOS == "windows" && strings.ContainsAny(c, `\:`):
		return d.unsafe(name, "holds a \\ or a : that Windows reads as a path")
	}
	return nil
}

// OpenDir opens the directory rel ("." for d itself) without following a
// link on the way: each component must be a directory, and one that is a
// link is an *errs.UnsafePathError. With create, missing components are
// made with perm. Close the Root returned.
func (d *Dir) OpenDir(rel string, create bool, perm fs.FileMode) (*os.Root, error) {
	cur, err := d.root.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	done := ""
	for c := range strings.SplitSeq(filepath.Clean(rel), string(filepath.Separator)) {
		if c == "." || c == "" {
			continue
		}
		done = filepath.Join(done, c)
		next, err := d.step(cur, done, c, create, perm)
		_ = cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// step opens the directory c of cur (done is its path under d).
func (d *Dir) step(cur *os.Root, done, c string, create bool, perm fs.FileMode) (*os.Root, error) {
	fi, err := cur.Lstat(c)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := cur.Mkdir(c, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = cur.Lstat(c)
	}
	switch {
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, d.unsafe(done, "is a symbolic link; links inside the target are not followed")
	case !fi.IsDir():
		return nil, d.unsafe(done, "is a %s, where a directory is needed", kind(fi.Mode()))
	}
	next, err := cur.OpenRoot(c)
	if err != nil {
		return nil, err
	}
	if st, err := next.Stat("."); err != nil || !os.SameFile(fi, st) {
		_ = next.Close()
		return nil, d.unsafe(done, "changed while it was opened")
	}
	return next, nil
}

// kind names the type of a file mode.
func kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// MkdirAll makes the directory rel and its missing parents with perm,
// refusing a link or a file on the way.
func (d *Dir) MkdirAll(rel string, perm fs.FileMode) error {
	r, err := d.OpenDir(rel, true, perm)
	if err != nil {
		return err
	}
	return r.Close()
}

// Chmod sets the permission bits of the directory rel (reached as OpenDir
// does, so never through a link).
func (d *Dir) Chmod(rel string, mode fs.FileMode) error {
	r, err := d.OpenDir(rel, false, 0)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Chmod(".", mode)
}

// parent opens the directory holding rel, made when create, and returns
// it with rel's last component.
func (d *Dir) parent(rel string, create bool) (*os.Root, string, error) {
	dir, base := filepath.Split(filepath.Clean(rel))
	if base == "" || base == "." || base == ".." {
		return nil, "", d.unsafe(rel, "names no file")
	}
	r, err := d.OpenDir(dir, create, 0o755)
	return r, base, err
}

// TempName returns a name for a temporary file beside base that no one
// can guess: "." + base + tag + "-" + 16 random hex digits.
func TempName(base, tag string) string {
	var b [tempDigits / 2]byte
	_, _ = rand.Read(b[:])
	return "." + base + tag + "-" + hex.EncodeToString(b[:])
}

// tempDigits is how many hex digits end a TempName.
const tempDigits = 16

// TempBase returns the base a name from TempName(base, tag) was made
// for, and whether name has that form: ".", base, tag, "-" and 16
// lower-case hex digits. It reads a name found in a directory (a listing
// of what an earlier run left), so it accepts nothing else.
func TempBase(name, tag string) (string, bool) {
	head, digits, ok := cutLast(name, tag+"-")
	if !ok || len(digits) != tempDigits || !strings.HasPrefix(head, ".") || len(head) < 2 {
		return "", false
	}
	for i := range len(digits) {
		if c := digits[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false
		}
	}
	return head[1:], true
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Create creates the file rel exclusively (O_EXCL: it fails when anything,
// a link included, has the name), open for reading and writing, making
// its missing parent directories.
func (d *Dir) Create(rel string, perm fs.FileMode) (*os.File, error) {
	r, base, err := d.parent(rel, true)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(base, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// CreateTemp creates a new file beside rel, exclusively, under a name from
// TempName(base of rel, tag), making rel's missing parent directories; it
// returns the file and its path under d.
func (d *Dir) CreateTemp(rel, tag string, perm fs.FileMode) (*os.File, string, error) {
	r, base, err := d.parent(rel, true)
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	dir := filepath.Dir(filepath.Clean(rel))
	for range 100 {
		name := TempName(base, tag)
		f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, filepath.Join(dir, name), nil
	}
	return nil, "", fmt.Errorf("confine: no free temporary name beside %s", d.Join(rel))
}

// OpenRegular opens the existing regular file rel with flag (os.O_RDONLY,
// os.O_RDWR), never through a link: a link, or a name that changes to
// another file while it is opened, is an *errs.UnsafePathError.
func (d *Dir) OpenRegular(rel string, flag int) (*os.File, error) {
	r, base, err := d.parent(rel, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := r.Lstat(base)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, d.unsafe(rel, "is a %s, not a regular file", kind(fi.Mode()))
	}
	f, err := r.OpenFile(base, flag&^(os.O_CREATE|os.O_TRUNC), 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		_ = f.Close()
		return nil, d.unsafe(rel, "changed while it was opened")
	}
	return f, nil
}

// Same checks that rel is still the regular file fi describes (the Stat
// of a file this program created and holds open): a link, another file or
// nothing at rel is an *errs.UnsafePathError, as the name was taken over
// by someone else meanwhile.
func (d *Dir) Same(rel string, fi fs.FileInfo) error {
	st, err := d.Lstat(rel)
	switch {
	case err != nil:
		return d.unsafe(rel, "changed while it was written: %v", err)
	case !st.Mode().IsRegular():
		return d.unsafe(rel, "changed while it was written: it is now a %s", kind(st.Mode()))
	case !os.SameFile(st, fi):
		return d.unsafe(rel, "changed while it was written: it is now another file")
	}
	return nil
}

// Lstat describes rel itself (a link is not followed), reaching it
// without following a link on the way.
func (d *Dir) Lstat(rel string) (fs.FileInfo, error) {
	r, base, err := d.parent(rel, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Lstat(base)
}

// ReadDir lists the directory rel, reached as OpenDir does.
func (d *Dir) ReadDir(rel string) ([]fs.DirEntry, error) {
	r, err := d.OpenDir(rel, false, 0)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Rename renames from to to; both must be in the same directory. What had
// the name to is replaced (a link is replaced, never written through); a
// directory there is an error.
func (d *Dir) Rename(from, to string) error {
	fromDir, fromBase := filepath.Split(filepath.Clean(from))
	toDir, _ := filepath.Split(filepath.Clean(to))
	if filepath.Clean(fromDir) != filepath.Clean(toDir) {
		return fmt.Errorf("confine: rename of %s to %s crosses directories", from, to)
	}
	r, toBase, err := d.parent(to, false)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Rename(fromBase, toBase)
}

// Remove removes the file or empty directory rel (a link itself, never
// its target).
func (d *Dir) Remove(rel string) error {
	r, base, err := d.parent(rel, false)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Remove(base)
}

// Chtimes sets the times of the regular file rel, which must not be a
// link.
func (d *Dir) Chtimes(rel string, atime, mtime time.Time) error {
	r, base, err := d.parent(rel, false)
	if err != nil {
		return err
	}
	defer r.Close()
	fi, err := r.Lstat(base)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return d.unsafe(rel, "is a %s, not a regular file", kind(fi.Mode()))
	}
	return r.Chtimes(base, atime, mtime)
}
