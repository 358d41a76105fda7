package runpodtest

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// A network volume's files as a pod sees them: what a test seeds on a
// volume and reads back, beside what the S3 API serves (s3.go).

// WriteVolumeFile writes a file onto network volume volumeID as a pod
// would, making its directories: the file of key (its path on the
// volume), with r's contents. A key ending in "/" makes the directory (r
// is not read). The file's modification time is the server's clock, and
// the S3 API knows its ETag at once. It fails for a volume the fake does
// not have, or a key that is not a file path (a leading "/", an empty,
// "." or ".." segment, or one in the hidden .s3compat_uploads/ folder).
func (s *Server) WriteVolumeFile(volumeID, key string, r io.Reader) error {
	if _, ok := s.volumeDataCenter(volumeID); !ok {
		return fmt.Errorf("runpodtest: no network volume %q", volumeID)
	}
	if _, err := s.writeFile(volumeID, key, r, -1, nil); err != nil {
		return fmt.Errorf("runpodtest: write %q on volume %s: %w", key, volumeID, err)
	}
	return nil
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
	rel, dir, err := s3KeyPath(key)
	if err != nil {
		return nil, fmt.Errorf("runpodtest: read %q on volume %s: %w", key, volumeID, err)
	}
	if dir {
		return nil, fmt.Errorf("runpodtest: read %q on volume %s: the key names a directory", key, volumeID)
	}
	root, err := s.s3.volumeRoot(volumeID, false)
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
	root, err := s.s3.volumeRoot(volumeID, false)
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
