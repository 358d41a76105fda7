package podssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/pkg/sftp"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Upload copies the local file or directory at local to remote on the
// pod over SFTP, streaming: a file of any size costs a few megabytes of
// memory. remote is the path of the copy, or an existing directory to
// copy into. Each file is written to a temporary name beside its
// destination, then renamed over it, so a copy that is cut never appears
// complete; its permission bits are the local file's. A directory is
// copied with everything under it, regular files and directories only
// (symbolic links and devices are skipped). ctx ends the copy, leaving
// the files already done.
func (c *Conn) Upload(ctx context.Context, local, remote string) error {
	if local == "" {
		return fail.Invalid("local", "is empty")
	}
	if remote == "" {
		return fail.Invalid("remote", "is empty")
	}
	st, err := os.Stat(local)
	if err != nil {
		return fmt.Errorf("podssh: upload to pod %s: %w", c.podID, err)
	}
	return c.withSFTP(ctx, "upload to", func(sc *sftp.Client) error {
		if rs, err := sc.Stat(remote); err == nil && rs.IsDir() {
			remote = path.Join(remote, filepath.Base(local))
		}
		if !st.IsDir() {
			return putFile(sc, local, remote, st)
		}
		return filepath.WalkDir(local, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rel, err := filepath.Rel(local, p)
			if err != nil {
				return err
			}
			dst := path.Join(remote, filepath.ToSlash(rel))
			info, err := d.Info()
			if err != nil {
				return err
			}
			switch {
			case d.IsDir():
				if err := sc.MkdirAll(dst); err != nil {
					return fmt.Errorf("mkdir %s: %w", dst, err)
				}
				return sc.Chmod(dst, info.Mode().Perm())
			case d.Type().IsRegular():
				return putFile(sc, p, dst, info)
			}
			return nil
		})
	})
}

// Download copies the file or directory at remote on the pod to local
// over SFTP, streaming, as Upload does the other way: local is the path
// of the copy or an existing directory to copy into; each file is
// written to a temporary name beside its destination and renamed over it
// once whole, with the remote file's permission bits.
func (c *Conn) Download(ctx context.Context, remote, local string) error {
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
		if ls, err := os.Stat(local); err == nil && ls.IsDir() {
			local = filepath.Join(local, path.Base(remote))
		}
		if !st.IsDir() {
			return getFile(sc, remote, local, st)
		}
		w := sc.Walk(remote)
		for w.Step() {
			if err := w.Err(); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rel, err := filepath.Rel(filepath.FromSlash(remote), filepath.FromSlash(w.Path()))
			if err != nil {
				return err
			}
			dst := filepath.Join(local, rel)
			info := w.Stat()
			switch {
			case info.IsDir():
				if err := os.MkdirAll(dst, 0o700); err != nil {
					return err
				}
				if err := os.Chmod(dst, info.Mode().Perm()|0o700); err != nil {
					return err
				}
			case info.Mode().IsRegular():
				if err := getFile(sc, w.Path(), dst, info); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// withSFTP runs f with an SFTP client on its own channel, closed when f
// returns or ctx ends (which ends f's transfers).
func (c *Conn) withSFTP(ctx context.Context, what string, f func(*sftp.Client) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("podssh: %s pod %s: %w", what, c.podID, err)
	}
	sc, err := sftp.NewClient(c.client, sftp.UseConcurrentWrites(true))
	if err != nil {
		return fmt.Errorf("podssh: %s pod %s: start SFTP: %w", what, c.podID, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = sc.Close() })
	err = f(sc)
	stop()
	_ = sc.Close()
	if ctx.Err() != nil {
		return fmt.Errorf("podssh: %s pod %s: %w", what, c.podID, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("podssh: %s pod %s: %w", what, c.podID, err)
	}
	return nil
}

// tempName is a name beside dst for a copy in progress.
func tempName(dst string, join func(...string) string, dir, base func(string) string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return join(dir(dst), "."+base(dst)+".podssh-"+hex.EncodeToString(b[:]))
}

// putFile copies the local file src to dst on the pod through a
// temporary name.
func putFile(sc *sftp.Client, src, dst string, st fs.FileInfo) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := tempName(dst, path.Join, path.Dir, path.Base)
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
		return fmt.Errorf("write %s: %s changed size while copied (%d bytes, then %d)", dst, src, st.Size(), n)
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

// getFile copies src on the pod to the local dst through a temporary
// name.
func getFile(sc *sftp.Client, src, dst string, st fs.FileInfo) (err error) {
	in, err := sc.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".podssh-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = out.Close()
			_ = os.Remove(out.Name())
		}
	}()
	n, err := in.WriteTo(out)
	if err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	if n < st.Size() {
		return fmt.Errorf("read %s: got %d of its %d bytes", src, n, st.Size())
	}
	if err := out.Chmod(st.Mode().Perm()); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(out.Name(), dst)
}
