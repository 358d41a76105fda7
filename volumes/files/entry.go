package files

import (
	"strings"
	"time"
)

// Entry is a file or directory on the volume, as List and Stat report it.
type Entry struct {
	// Key is the object key, the path on the volume ("models/a.bin"); a
	// directory's ends in "/".
	Key string
	// Size is the file's size in bytes; 0 for a directory.
	Size int64
	// ModTime is when the file was last written (the S3 Last-Modified).
	ModTime time.Time
	// ETag is the S3 entity tag without quotes: the MD5 of the content in
	// hex for a file written whole, "<hex>-<parts>" for a multipart
	// upload.
	ETag string
	// Dir marks a directory: an empty one, which the platform lists as a
	// key ending in "/", or, with NonRecursive, a subdirectory of the
	// listed one.
	Dir bool
}

// Name returns the last element of the key, without a directory's "/".
func (e Entry) Name() string {
	k := strings.TrimSuffix(e.Key, "/")
	return k[strings.LastIndexByte(k, '/')+1:]
}
