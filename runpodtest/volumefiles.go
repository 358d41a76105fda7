package runpodtest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
	"github.com/runpodkit/runpod-go/runpodtest/internal/volstore"
)

// A network volume's files as a pod sees them: what a test seeds on a
// volume and reads back, beside what the S3 API (package fakes3) and the
// pods' SSH servers (package fakessh) serve. They live on disk, one
// directory per volume under the storage directory.

// volumeStorage is where the volumes' files are.
type volumeStorage struct {
	dir   string // one directory per volume: dir/<volume id>
	owned bool   // NewServer made dir, and Close removes it
}

// WithS3Storage keeps the files of the fake's network volumes under dir,
// one directory per volume (dir/<volume id>/), made if need be and left
// in place by Close. Without it, NewServer makes a temporary directory
// that Close removes. The files are on disk, so the S3 API (fakes3) and
// SFTP (fakessh) stream them: uploads and downloads of many gigabytes do
// not take the memory they would in the fake.
func WithS3Storage(dir string) Option { return func(s *Server) { s.storage.dir = dir } }

// startS3 prepares the volumes' storage and the S3 API's host of every
// data center, which fakes3 serves (501 without it), and makes the
// account's S3 API key.
func (s *Server) startS3() {
	if s.storage.dir == "" {
		dir, err := os.MkdirTemp("", "runpodtest-s3-")
		if err != nil {
			panic("runpodtest: cannot make the S3 storage directory: " + err.Error())
		}
		s.storage.dir, s.storage.owned = dir, true
	} else if err := os.MkdirAll(s.storage.dir, 0o755); err != nil {
		panic("runpodtest: WithS3Storage: " + err.Error())
	}
	s.s3api = s.start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := s.core.S3.Handler; h != nil {
			h.ServeHTTP(w, r)
			return
		}
		seam.NotServed(w, "the S3 API", "fakes3.Serve()")
	}))
	// Each data center is a host of that server, as each has its own host
	// on the platform; the clients of Client dial every *.localhost name
	// to the fake.
	scheme, _, _ := strings.Cut(s.s3api.URL, "://")
	s.S3URL = scheme + "://" + volstore.HostPrefix + "{dc}.localhost:" + strconv.Itoa(s.s3api.Listener.Addr().(*net.TCPAddr).Port)
	// The S3 API key's shape: the user id as access key, a secret
	// starting rps_.
	s.S3AccessKey = "user_" + randomID(27)
	s.S3SecretKey = "rps_" + strings.ToUpper(randomID(40))
}

// closeS3 closes the S3 API's own listeners and removes the storage
// directory NewServer made.
func (s *Server) closeS3() {
	if f := s.core.S3.Close; f != nil {
		f()
	}
	if s.storage.owned {
		_ = os.RemoveAll(s.storage.dir)
	}
}

// s3Seam is what fakes3 reads of the server.
func (s *Server) s3Seam() seam.S3 {
	return seam.S3{
		Now:         func() time.Time { return s.now() },
		Start:       s.start,
		Dir:         func() string { return s.storage.dir },
		DataCenter:  s.volumeDataCenter,
		Volumes:     s.volumesIn,
		Credentials: func() (string, string) { return s.S3AccessKey, s.S3SecretKey },
	}
}

// volumesIn returns the ids of the network volumes in data center dc.
func (s *Server) volumesIn(dc string) []string {
	s.volumes.mu.Lock()
	defer s.volumes.mu.Unlock()
	var ids []string
	for id, fv := range s.volumes.byID {
		if strings.EqualFold(fv.DataCenter, dc) {
			ids = append(ids, id)
		}
	}
	return ids
}

// removeVolumeFiles deletes every file of volume id, and the S3 API's
// uploads in progress and what it recorded about them: the volume is
// gone (a REST delete), and its files with it.
func (s *Server) removeVolumeFiles(id string) {
	if f := s.core.S3.VolumeGone; f != nil {
		f(id)
	}
	if volstore.SafeVolumeDir(id) {
		_ = os.RemoveAll(filepath.Join(s.storage.dir, id))
	}
}

// WriteVolumeFile writes a file onto network volume volumeID as a pod
// would, making its directories: the file of key (its path on the
// volume), with r's contents. A key ending in "/" makes the directory (r
// is not read). The file's modification time is the server's clock. It
// fails for a volume the fake does not have, or a key that is not a file
// path (a leading "/", an empty, "." or ".." segment, or one in the hidden
// .s3compat_uploads/ folder).
func (s *Server) WriteVolumeFile(volumeID, key string, r io.Reader) error {
	if _, ok := s.volumeDataCenter(volumeID); !ok {
		return fmt.Errorf("runpodtest: no network volume %q", volumeID)
	}
	if err := s.writeVolumeFile(volumeID, key, r); err != nil {
		return fmt.Errorf("runpodtest: write %q on volume %s: %w", key, volumeID, err)
	}
	if f := s.core.S3.Wrote; f != nil {
		f(volumeID, key)
	}
	return nil
}

// writeVolumeFile streams r into the file of key on volume vol: into a
// file of the hidden folder first, then into place, so a reader never
// sees half a file.
func (s *Server) writeVolumeFile(vol, key string, r io.Reader) error {
	rel, dir, err := volstore.KeyPath(key)
	if err != nil {
		return err
	}
	root, err := volstore.Root(s.storage.dir, vol, true)
	if err != nil {
		return err
	}
	defer root.Close()
	now := s.now()
	if dir {
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return conflict(key, err)
		}
		return root.Chtimes(rel, now, now)
	}
	if parent := filepath.Dir(rel); parent != "." {
		if err := root.MkdirAll(parent, 0o755); err != nil {
			return conflict(key, err)
		}
	}
	if r == nil {
		r = strings.NewReader("")
	}
	tmp, f, err := volstore.CreateTemp(root, volstore.UploadsDir, "put-")
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chtimes(tmp, now, now)
	}
	if err == nil {
		if err = root.Rename(tmp, rel); err != nil {
			err = conflict(key, err)
		}
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// conflict says why key's file or directory cannot take its place: on a
// volume a name is either a file or a directory.
func conflict(key string, err error) error {
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) || errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
		return fmt.Errorf("the key %q collides with a file or directory on the volume: a path is either a file or a directory: %w", key, err)
	}
	return err
}

// MakeVolumeDir makes directory dir (a path on the volume, such as
// "a/b", with or without a final "/") and its parents on network volume
// volumeID, as a pod would with mkdir -p: an empty directory, which
// listings show as the key "a/b/". It is WriteVolumeFile of "a/b/".
func (s *Server) MakeVolumeDir(volumeID, dir string) error {
	return s.WriteVolumeFile(volumeID, strings.TrimSuffix(dir, "/")+"/", nil)
}

// VolumeFile reads the file of key on network volume volumeID, as a pod
// would. A missing file is an error matching fs.ErrNotExist.
func (s *Server) VolumeFile(volumeID, key string) ([]byte, error) {
	if _, ok := s.volumeDataCenter(volumeID); !ok {
		return nil, fmt.Errorf("runpodtest: no network volume %q", volumeID)
	}
	rel, dir, err := volstore.KeyPath(key)
	if err != nil {
		return nil, fmt.Errorf("runpodtest: read %q on volume %s: %w", key, volumeID, err)
	}
	if dir {
		return nil, fmt.Errorf("runpodtest: read %q on volume %s: the key names a directory", key, volumeID)
	}
	root, err := volstore.Root(s.storage.dir, volumeID, false)
	if err != nil {
		return nil, fmt.Errorf("runpodtest: read %q on volume %s: %w", key, volumeID, fs.ErrNotExist)
	}
	defer root.Close()
	b, err := root.ReadFile(rel)
	if err != nil {
		return nil, fmt.Errorf("runpodtest: read %q on volume %s: %w", key, volumeID, err)
	}
	return b, nil
}

// VolumeUsage returns the bytes of all files on network volume volumeID,
// the hidden folder of multipart uploads in progress included (the
// platform's documentation says their parts take space on the volume).
func (s *Server) VolumeUsage(volumeID string) int64 {
	root, err := volstore.Root(s.storage.dir, volumeID, false)
	if err != nil {
		return 0
	}
	defer root.Close()
	var n int64
	_ = fs.WalkDir(root.FS(), ".", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
