package fakessh

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/runpodkit/runpod-go/runpodtest"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/pkg/sftp"
)

// A pod's file system, as its SSH server serves it: the pod's own
// directory, with each network volume it mounts (at /workspace, or the
// mount's path) being the volume's files, the ones WriteVolumeFile and
// the S3 API see.

// podRoot opens the root that holds the pod's absolute path p (cleaned)
// and returns it and p relative to it. An error matches fs.ErrNotExist
// for a pod the fake has no SSH state for.
func (s *server) podRoot(id, p string) (*os.Root, string, error) {
	p = path.Clean("/" + p)
	for mount, vol := range s.c.SSH.Mounts(id) {
		if p == mount || strings.HasPrefix(p, mount+"/") {
			root, err := s.c.SSH.VolumeRoot(vol)
			if err != nil {
				return nil, "", err
			}
			return root, relOf(strings.TrimPrefix(p, mount)), nil
		}
	}
	s.ssh.mu.Lock()
	ps, err := s.podSSHLocked(id)
	s.ssh.mu.Unlock()
	if err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(ps.root)
	if err != nil {
		return nil, "", err
	}
	return root, relOf(p), nil
}

func relOf(p string) string {
	if p = strings.Trim(p, "/"); p == "" {
		return "."
	}
	return p
}

// podPath is a path of the pod as a command gives it: relative ones are
// under /root.
func podPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/root/" + p
	}
	return path.Clean(p)
}

// PodFile reads the file at path (absolute, or relative to /root) on pod
// id, as a command on the pod would.
func PodFile(srv *runpodtest.Server, id, p string) ([]byte, error) {
	s := of(srv)
	root, rel, err := s.podRoot(id, podPath(p))
	if err != nil {
		return nil, fmt.Errorf("runpodtest: read %s on pod %s: %w", p, id, err)
	}
	defer root.Close()
	b, err := root.ReadFile(rel)
	if err != nil {
		return nil, fmt.Errorf("runpodtest: read %s on pod %s: %w", p, id, err)
	}
	return b, nil
}

// WritePodFile writes data to the file at path (absolute, or relative to
// /root) on pod id, making its directories, as a command on the pod
// would.
func WritePodFile(srv *runpodtest.Server, id, p string, data []byte) error {
	s := of(srv)
	root, rel, err := s.podRoot(id, podPath(p))
	if err == nil {
		defer root.Close()
		if dir := path.Dir(rel); dir != "." {
			err = root.MkdirAll(dir, 0o755)
		}
		if err == nil {
			err = root.WriteFile(rel, data, 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("runpodtest: write %s on pod %s: %w", p, id, err)
	}
	return nil
}

// podHandlers serves the pod's file system over SFTP.
func (s *server) podHandlers(id string) sftp.Handlers {
	h := &podFS{s: s, id: id}
	return sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
}

// podFS implements the SFTP request server's handlers over a pod's file
// system.
type podFS struct {
	s  *server
	id string
}

// with runs f with the root and relative path of p.
func (h *podFS) with(p string, f func(root *os.Root, rel string) error) error {
	root, rel, err := h.s.podRoot(h.id, p)
	if err != nil {
		return err
	}
	defer root.Close()
	return f(root, rel)
}

func (h *podFS) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	var f *os.File
	err := h.with(r.Filepath, func(root *os.Root, rel string) (err error) {
		f, err = root.Open(rel)
		return err
	})
	return f, err
}

func (h *podFS) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	return h.open(r, os.O_WRONLY)
}

// OpenFile opens for reading and writing.
func (h *podFS) OpenFile(r *sftp.Request) (sftp.WriterAtReaderAt, error) {
	return h.open(r, os.O_RDWR)
}

func (h *podFS) open(r *sftp.Request, mode int) (*os.File, error) {
	fl := r.Pflags()
	if fl.Creat {
		mode |= os.O_CREATE
	}
	if fl.Trunc {
		mode |= os.O_TRUNC
	}
	if fl.Excl {
		mode |= os.O_EXCL
	}
	var f *os.File
	err := h.with(r.Filepath, func(root *os.Root, rel string) (err error) {
		f, err = root.OpenFile(rel, mode, 0o644)
		return err
	})
	return f, err
}

func (h *podFS) Filecmd(r *sftp.Request) error {
	switch r.Method {
	case "Setstat":
		return h.with(r.Filepath, func(root *os.Root, rel string) error {
			attrs, flags := r.Attributes(), r.AttrFlags()
			if flags.Size {
				f, err := root.OpenFile(rel, os.O_WRONLY, 0)
				if err != nil {
					return err
				}
				err = f.Truncate(int64(attrs.Size))
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
			}
			if flags.Permissions {
				if err := root.Chmod(rel, attrs.FileMode().Perm()); err != nil {
					return err
				}
			}
			if flags.Acmodtime {
				return root.Chtimes(rel, attrs.AccessTime(), attrs.ModTime())
			}
			return nil
		})
	case "Rename":
		return h.rename(r, false)
	case "Rmdir", "Remove":
		return h.with(r.Filepath, func(root *os.Root, rel string) error { return root.Remove(rel) })
	case "Mkdir":
		return h.with(r.Filepath, func(root *os.Root, rel string) error { return root.Mkdir(rel, 0o755) })
	}
	return sftp.ErrSSHFxOpUnsupported
}

// PosixRename renames over an existing file.
func (h *podFS) PosixRename(r *sftp.Request) error { return h.rename(r, true) }

// rename renames within one root (a file system); across two it fails as
// rename(2) does.
func (h *podFS) rename(r *sftp.Request, replace bool) error {
	return h.with(r.Filepath, func(root *os.Root, rel string) error {
		return h.with(r.Target, func(troot *os.Root, trel string) error {
			if root.Name() != troot.Name() {
				return &os.LinkError{Op: "rename", Old: r.Filepath, New: r.Target, Err: syscall.EXDEV}
			}
			if !replace {
				if _, err := root.Lstat(trel); err == nil {
					return &os.LinkError{Op: "rename", Old: r.Filepath, New: r.Target, Err: fs.ErrExist}
				}
			}
			return root.Rename(rel, trel)
		})
	})
}

func (h *podFS) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	var out listerAt
	err := h.with(r.Filepath, func(root *os.Root, rel string) error {
		switch r.Method {
		case "List":
			d, err := root.Open(rel)
			if err != nil {
				return err
			}
			defer d.Close()
			entries, err := d.ReadDir(-1)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if fi, err := e.Info(); err == nil {
					out = append(out, fi)
				}
			}
			return nil
		case "Stat":
			fi, err := root.Stat(rel)
			out = listerAt{fi}
			return err
		}
		return sftp.ErrSSHFxOpUnsupported
	})
	return out, err
}

// Lstat stats without following a link.
func (h *podFS) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	var out listerAt
	err := h.with(r.Filepath, func(root *os.Root, rel string) error {
		fi, err := root.Lstat(rel)
		out = listerAt{fi}
		return err
	})
	return out, err
}

type listerAt []os.FileInfo

func (l listerAt) ListAt(dst []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(dst, l[off:])
	if n < len(dst) {
		return n, io.EOF
	}
	return n, nil
}

// builtin runs the default commands of a pod (see HandlePodCommand).
func (s *server) builtin(id, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	args := strings.Fields(cmd)
	if len(args) == 0 {
		return 0
	}
	switch args[0] {
	case "true":
		return 0
	case "false":
		return 1
	case "exit":
		if len(args) < 2 {
			return 0
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			fmt.Fprintf(stderr, "sh: 1: exit: Illegal number: %s\n", args[1])
			return 2
		}
		return n & 0xff
	case "echo":
		fmt.Fprintln(stdout, strings.Join(args[1:], " "))
		return 0
	case "cat", "sha256sum":
		if len(args) == 1 {
			if args[0] == "sha256sum" {
				h := sha256.New()
				_, _ = io.Copy(h, stdin)
				fmt.Fprintf(stdout, "%s  -\n", hex.EncodeToString(h.Sum(nil)))
				return 0
			}
			_, _ = io.Copy(stdout, stdin)
			return 0
		}
		code := 0
		w := bufio.NewWriter(stdout)
		for _, p := range args[1:] {
			root, rel, err := s.podRoot(id, podPath(p))
			var f *os.File
			if err == nil {
				f, err = root.Open(rel)
				_ = root.Close()
			}
			if err == nil {
				if args[0] == "cat" {
					_, err = io.Copy(w, f)
				} else {
					h := sha256.New()
					if _, err = io.Copy(h, f); err == nil {
						fmt.Fprintf(w, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), p)
					}
				}
				_ = f.Close()
			}
			if err != nil {
				msg := "No such file or directory"
				switch {
				case errors.Is(err, syscall.EISDIR):
					msg = "Is a directory"
				case !errors.Is(err, fs.ErrNotExist):
					msg = err.Error()
				}
				_ = w.Flush()
				fmt.Fprintf(stderr, "%s: %s: %s\n", args[0], p, msg)
				code = 1
			}
		}
		_ = w.Flush()
		return code
	}
	fmt.Fprintf(stderr, "sh: 1: %s: not found\n", args[0])
	return 127
}
