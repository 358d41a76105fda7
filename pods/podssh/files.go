package podssh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pkg/sftp"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/confine"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// tempTag marks the temporary names of copies in progress.
const tempTag = ".podssh"

// Upload copies the local file or directory at local to remote on the
// pod over SFTP, streaming: a file of any size costs a few megabytes of
// memory. remote is the path of the copy, or an existing directory to
// copy into. Each file is written to a temporary name beside its
// destination, then renamed over it, so a copy that is cut never appears
// complete; its permission bits are the local file's. A directory is
// copied with everything under it, regular files and directories only:
// symbolic links and devices are skipped, and the directory is read
// through an os.Root, never following a link (one that replaces a file
// or directory while the copy runs makes it fail with an
// *errs.UnsafePathError). ctx ends the copy, leaving the files already
// done.
func (c *Conn) Upload(ctx context.Context, local, remote string) error {
	if local == "" {
		return fail.Invalid("local", "is empty")
	}
	if remote == "" {
		return fail.Invalid("remote", "is empty")
	}
	st, err := os.Stat(local)
	if err != nil {
		return fmt.Errorf("podssh: upload to %s: %w", c.target(), err)
	}
	return c.withSFTP(ctx, "upload to", func(sc *sftp.Client) error {
		if rs, err := sc.Stat(remote); err == nil && rs.IsDir() {
			remote = path.Join(remote, filepath.Base(local))
		}
		if !st.IsDir() {
			in, err := os.Open(local)
			if err != nil {
				return err
			}
			defer in.Close()
			return putFile(sc, in, remote, st)
		}
		d, err := confine.Open(local, false)
		if err != nil {
			return err
		}
		defer d.Close()
		if err := mkdirRemote(sc, remote, st.Mode()); err != nil {
			return err
		}
		return uploadTree(ctx, sc, d, ".", remote)
	})
}

// uploadTree copies the local directory rel under d into the remote
// directory remote, which exists.
func uploadTree(ctx context.Context, sc *sftp.Client, d *confine.Dir, rel, remote string) error {
	entries, err := d.ReadDir(rel)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		lrel, dst := filepath.Join(rel, e.Name()), path.Join(remote, e.Name())
		switch {
		case e.IsDir():
			info, err := e.Info()
			if err != nil {
				return err
			}
			if err := mkdirRemote(sc, dst, info.Mode()); err != nil {
				return err
			}
			if err := uploadTree(ctx, sc, d, lrel, dst); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if err := uploadFile(sc, d, lrel, dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// uploadFile copies the local regular file rel under d to dst.
func uploadFile(sc *sftp.Client, d *confine.Dir, rel, dst string) error {
	in, err := d.OpenRegular(rel, os.O_RDONLY)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	return putFile(sc, in, dst, st)
}

// mkdirRemote makes the remote directory dst with mode's permission bits.
func mkdirRemote(sc *sftp.Client, dst string, mode fs.FileMode) error {
	if err := sc.MkdirAll(dst); err != nil {
		return fmt.Errorf("mkdir %s: %w", dst, err)
	}
	return sc.Chmod(dst, mode.Perm())
}

// Download copies the file or directory at remote on the pod to local
// over SFTP, streaming, as Upload does the other way: local is the path
// of the copy or an existing directory to copy into; each file is
// written to a temporary name beside its destination and renamed over it
// once whole, with the remote file's permission bits (a directory gets
// its remote bits and rwx for its owner, so that it can be filled).
//
// The pod is not trusted with the local file system: everything Download
// writes under the target (local, or local/<base of remote> when local
// is a directory) goes through an os.Root opened on it, so nothing is
// written, made or chmodded outside it. A name from the pod's listings
// is used only when it is one plain name: "..", an absolute path, a name
// holding a "/" or a NUL byte, an empty one, are refused with an
// *errs.UnsafePathError naming the remote path, never mapped to another
// name (a "." or ".." entry that is a directory is the listing's own and
// its parent's, and skipped). No symbolic link inside the target is
// followed on the way to a write: a link where a directory of the copy
// goes fails the copy with an *errs.UnsafePathError, and a link where a
// file goes is replaced by the file. Temporary files are created
// exclusively, under names no one can predict. Remote symbolic links and
// devices are skipped. ctx ends the copy, leaving the files already done.
func (c *Conn) Download(ctx context.Context, local, remote string) error {
	if remote == "" {
		return fail.Invalid("remote", "is empty")
	}
	if local == "" {
		return fail.Invalid("local", "is empty")
	}
	return c.withSFTP(ctx, "download from", func(sc *sftp.Client) error {
		st, err := sc.Stat(remote)
		if err != nil {
			return err
		}
		d, rel, err := downloadTarget(sc, remote, local, st.IsDir())
		if err != nil {
			return err
		}
		defer d.Close()
		if !st.IsDir() {
			return getFile(sc, remote, d, rel, st.Mode(), uint64(st.Size()))
		}
		l, err := newLister(c.client)
		if err != nil {
			return err
		}
		defer l.Close()
		defer context.AfterFunc(ctx, l.Close)()
		if err := mkdirLocal(d, rel, st.Mode()); err != nil {
			return err
		}
		dl := &download{ctx: ctx, sc: sc, list: l, dir: d}
		return dl.tree(remote, rel)
	})
}

// downloadTarget opens the local directory a download writes under, and
// returns the copy's path relative to it: local/<base of remote> when
// local is a directory, else local itself (made, with its parents, for
// a directory).
func downloadTarget(sc *sftp.Client, remote, local string, isDir bool) (*confine.Dir, string, error) {
	local = filepath.Clean(local)
	if ls, err := os.Stat(local); err == nil && ls.IsDir() {
		d, err := confine.Open(local, false)
		if err != nil {
			return nil, "", err
		}
		base := path.Base(remote)
		if base == "/" || base == "." || base == ".." {
			if real, err := sc.RealPath(remote); err == nil {
				base = path.Base(real)
			}
		}
		if err := checkName(d, base, remote); err != nil {
			_ = d.Close()
			return nil, "", err
		}
		return d, base, nil
	}
	if isDir {
		d, err := confine.Open(local, true)
		return d, ".", err
	}
	d, err := confine.Open(filepath.Dir(local), false)
	return d, filepath.Base(local), err
}

// download is a directory download in progress.
type download struct {
	ctx  context.Context
	sc   *sftp.Client
	list *lister
	dir  *confine.Dir
}

// tree copies the remote directory remote into rel, which exists.
func (dl *download) tree(remote, rel string) error {
	entries, err := dl.list.ReadDir(remote)
	if err != nil {
		return err
	}
	slices.SortFunc(entries, func(a, b remoteEntry) int { return cmp.Compare(a.name, b.name) })
	for _, e := range entries {
		if err := dl.ctx.Err(); err != nil {
			return err
		}
		src := joinRemote(remote, e.name)
		if (e.name == "." || e.name == "..") && e.hasMode && e.mode.IsDir() {
			continue // the directory itself and its parent
		}
		if err := checkName(dl.dir, e.name, src); err != nil {
			return err
		}
		if !e.hasMode {
			fi, err := dl.sc.Lstat(src)
			if err != nil {
				return err
			}
			e.mode, e.size = fi.Mode(), uint64(fi.Size())
		}
		dst := filepath.Join(rel, e.name)
		switch {
		case e.mode.IsDir():
			if err := mkdirLocal(dl.dir, dst, e.mode); err != nil {
				return err
			}
			if err := dl.tree(src, dst); err != nil {
				return err
			}
		case e.mode.IsRegular():
			if err := getFile(dl.sc, src, dl.dir, dst, e.mode, e.size); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkName refuses name, an entry of a remote listing (or the base of
// the remote path), unless it is one plain local name; the error names
// src, the remote path it came as.
func checkName(d *confine.Dir, name, src string) error {
	err := d.Component(name)
	var u *errs.UnsafePathError
	if errors.As(err, &u) {
		u.Name = src
	}
	return err
}

// joinRemote is the remote path of name in dir, name as it came.
func joinRemote(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// mkdirLocal makes the directory rel under d, never through a link, with
// mode's permission bits and rwx for its owner.
func mkdirLocal(d *confine.Dir, rel string, mode fs.FileMode) error {
	if err := d.MkdirAll(rel, 0o700); err != nil {
		return err
	}
	return d.Chmod(rel, mode.Perm()|0o700)
}

// withSFTP runs f with an SFTP client on its own channel, closed when f
// returns or ctx ends (which ends f's transfers).
func (c *Conn) withSFTP(ctx context.Context, what string, f func(*sftp.Client) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("podssh: %s %s: %w", what, c.target(), err)
	}
	sc, err := sftp.NewClient(c.client, sftp.UseConcurrentWrites(true))
	if err != nil {
		return fmt.Errorf("podssh: %s %s: start SFTP: %w", what, c.target(), err)
	}
	stop := context.AfterFunc(ctx, func() { _ = sc.Close() })
	err = f(sc)
	stop()
	_ = sc.Close()
	if ctx.Err() != nil {
		return fmt.Errorf("podssh: %s %s: %w", what, c.target(), ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("podssh: %s %s: %w", what, c.target(), err)
	}
	return nil
}

// putFile copies in, the local file st describes, to dst on the pod
// through a temporary name.
func putFile(sc *sftp.Client, in io.Reader, dst string, st fs.FileInfo) (err error) {
	tmp := path.Join(path.Dir(dst), confine.TempName(path.Base(dst), tempTag))
	out, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	defer func() {
		if err != nil {
			_ = out.Close()
			_ = sc.Remove(tmp)
		}
	}()
	n, err := out.ReadFrom(in)
	if err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	if n != st.Size() {
		return fmt.Errorf("write %s: the local file changed size while copied (%d bytes, then %d)", dst, st.Size(), n)
	}
	if err := out.Chmod(st.Mode().Perm()); err != nil {
		return fmt.Errorf("chmod %s: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	if err := sc.PosixRename(tmp, dst); err != nil {
		// A server without the posix-rename extension: SFTP's own rename
		// does not replace an existing file.
		_ = sc.Remove(dst)
		if err2 := sc.Rename(tmp, dst); err2 != nil {
			return fmt.Errorf("rename to %s: %w", dst, errors.Join(err, err2))
		}
	}
	return nil
}

// getFile copies src on the pod, of mode and at least size bytes, to rel
// under d through an exclusive temporary file beside it.
func getFile(sc *sftp.Client, src string, d *confine.Dir, rel string, mode fs.FileMode, size uint64) (err error) {
	in, err := sc.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, tmp, err := d.CreateTemp(rel, tempTag, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = out.Close()
			_ = d.Remove(tmp)
		}
	}()
	n, err := in.WriteTo(out)
	if err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	if uint64(n) < size {
		return fmt.Errorf("read %s: got %d of its %d bytes", src, n, size)
	}
	if err := out.Chmod(mode.Perm()); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return d.Rename(tmp, rel)
}
