package files

import (
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Where a network volume is mounted.
const (
	// PodMount is where a pod mounts its network volume.
	PodMount = "/workspace"
	// WorkerMount is where a serverless worker mounts its endpoint's
	// network volume.
	WorkerMount = "/runpod-volume"
)

// Key returns the object key of a path on a volume, given as a pod sees it
// ("/workspace/models/a.bin"), as a serverless worker sees it
// ("/runpod-volume/models/a.bin"), as an S3 URL ("s3://<volume id>/models/a.bin")
// or as a key already ("models/a.bin"): all give "models/a.bin". A path
// outside the mounts, or one that is not a valid key, is a
// *errs.ValidationError naming path.
func Key(path string) (string, error) {
	key := path
	switch {
	case strings.HasPrefix(path, "s3://"):
		_, rest, ok := strings.Cut(strings.TrimPrefix(path, "s3://"), "/")
		if !ok {
			return "", fail.Invalid("path", "%q names a bucket but no file", path)
		}
		key = rest
	case strings.HasPrefix(path, "/"):
		var ok bool
		for _, mount := range []string{PodMount, WorkerMount} {
			if rest, cut := strings.CutPrefix(path, mount+"/"); cut {
				key, ok = rest, true
				break
			}
		}
		if !ok {
			return "", fail.Invalid("path", "%q is outside the volume: a pod mounts it at %s, a worker at %s", path, PodMount, WorkerMount)
		}
	}
	if err := checkKey("path", key, true); err != nil {
		return "", err
	}
	return key, nil
}

// PodPath returns where a pod sees the file of key: "/workspace/" + key.
func PodPath(key string) string { return PodMount + "/" + key }

// WorkerPath returns where a serverless worker sees the file of key:
// "/runpod-volume/" + key.
func WorkerPath(key string) string { return WorkerMount + "/" + key }

// URL returns the S3 URL of key on the volume: "s3://<volume id>/" + key.
func (v *Volume) URL(key string) string { return "s3://" + v.id + "/" + key }
