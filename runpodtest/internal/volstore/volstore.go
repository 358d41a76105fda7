// Package volstore is the disk of the fake's network volumes, which the
// core (WriteVolumeFile and its siblings), the S3 API (fakes3) and the
// pods' SSH servers (fakessh) share: one directory per volume under the
// server's storage directory, and the rules that map an S3 key to a file
// path there.
package volstore

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DataCenters are the data centers whose S3 API endpoint the platform's
// documentation lists.
var DataCenters = []string{
	"EU-CZ-1", "EU-RO-1", "EUR-IS-1", "EUR-NO-1", "US-CA-2", "US-GA-2", "US-IL-1", "US-KS-2",
	"US-MD-1", "US-MO-1", "US-MO-2", "US-NC-1", "US-NC-2", "US-NE-1", "US-WA-1",
}

// HostPrefix starts the first label of a data center's S3 host name.
const HostPrefix = "s3api-"

// BucketHosts are the names of virtual-hosted S3 requests, one wildcard
// per data center with the S3 API (*.s3api-eu-ro-1.localhost), for the
// certificate of WithTLS: *.localhost covers one label only.
func BucketHosts() []string {
	names := make([]string, 0, len(DataCenters))
	for _, dc := range DataCenters {
		names = append(names, "*."+HostPrefix+strings.ToLower(dc)+".localhost")
	}
	return names
}

// UploadsDir is the hidden folder of a volume that holds multipart
// uploads in progress: the platform's documentation says parts and their
// metadata live in .s3compat_uploads/ on the volume until Complete or
// Abort clears them, so they take space on the volume but are not listed.
// The fake also stages single-request uploads and files written by tests
// there before they take their place.
const UploadsDir = ".s3compat_uploads"

// KeySizeLimit is S3's limit of a key's length, in bytes.
const KeySizeLimit = 1024

// KeyError is a key that is not a file path on a volume.
type KeyError struct {
	// Key is the key.
	Key string
	// Why says what is wrong with it; empty when it is too long.
	Why string
	// TooLong reports a key longer than KeySizeLimit.
	TooLong bool
}

// Error says what is wrong with the key.
func (e *KeyError) Error() string {
	if e.TooLong {
		return "the key is longer than " + strconv.Itoa(KeySizeLimit) + " bytes"
	}
	return "the key " + strconv.Quote(e.Key) + " is not a file path on the volume: " + e.Why
}

// KeyPath maps object key to its path relative to the volume directory
// (slash-separated, as the key), and reports whether it names a directory
// (a key ending in "/"). Object names are file paths on the volume, so a
// key must be one: no leading "/", no empty, "." or ".." segment, no NUL,
// valid UTF-8 (S3 keys are), at most 1,024 bytes (S3's limit) with
// segments of at most 255 bytes (a file name's). The hidden uploads folder
// is the platform's own and cannot be reached by key. A path it returns is
// always local to the volume directory (filepath.IsLocal). Its error is a
// *KeyError.
func KeyPath(key string) (rel string, dir bool, err error) {
	bad := func(why string) (string, bool, error) {
		return "", false, &KeyError{Key: key, Why: why}
	}
	switch {
	case key == "":
		return bad("it is empty")
	case len(key) > KeySizeLimit:
		return "", false, &KeyError{Key: key, TooLong: true}
	case !utf8.ValidString(key):
		return bad("it is not valid UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("it starts with /")
	case strings.ContainsRune(key, 0):
		return bad("it contains a NUL byte")
	}
	body, dir := strings.CutSuffix(key, "/")
	for i, seg := range strings.Split(body, "/") {
		switch {
		case seg == "":
			return bad("it has an empty path segment (//)")
		case seg == "." || seg == "..":
			return bad("it has a " + seg + " segment")
		case len(seg) > 255:
			return bad("a path segment is longer than 255 bytes")
		case i == 0 && seg == UploadsDir:
			return bad(UploadsDir + "/ is the platform's hidden folder of multipart uploads")
		}
	}
	return filepath.FromSlash(body), dir, nil
}

// SafeVolumeDir reports whether volume id can name a directory under the
// storage directory (one plain path segment).
func SafeVolumeDir(id string) bool {
	return id != "" && id != "." && filepath.IsLocal(id) && !strings.ContainsAny(id, `/\`+"\x00")
}

// Root opens volume id's directory under the storage directory dir; with
// create it makes it if need be. A volume whose directory does not exist
// has no files (an error matching fs.ErrNotExist without create).
func Root(dir, id string, create bool) (*os.Root, error) {
	if !SafeVolumeDir(id) {
		return nil, fmt.Errorf("runpodtest: volume id %q cannot name a directory: %w", id, fs.ErrNotExist)
	}
	p := filepath.Join(dir, id)
	if create {
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return os.OpenRoot(p)
}

// CreateTemp creates a new file in the volume's hidden folder dir, under
// a name no one can guess, and returns its name relative to root.
func CreateTemp(root *os.Root, dir, prefix string) (string, *os.File, error) {
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	for {
		name := path.Join(dir, prefix+RandomID(16))
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
}

// RandomID returns n random lower-case letters and digits.
func RandomID(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}
