package fakes3

import (
	"cmp"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/runpodkit/runpod-go/runpodtest/internal/volstore"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// The files of the fake's network volumes, on disk: each volume is a
// directory (dir/<volume id>) and each object a file at its key's path,
// as the platform's S3 documentation describes the volume (object names
// are real file paths; a key ending in "/" is a directory; listings show
// empty directories). Files are streamed in and out, never held whole in
// memory. All file access goes through an os.Root of the volume's
// directory, so no key, and no symbolic link a test leaves there, reaches
// outside it.
//
// The size, ETag and modification time of each file the fake wrote are
// kept in memory, so that HEAD and listings do not read files again; a
// file found without them (put there by hand, or changed since) is hashed
// once when first asked about.

// emptyMD5 is the ETag of an empty file, and of a directory.
const emptyMD5 = "d41d8cd98f00b204e9800998ecf8427e"

// s3Unit is the state of the S3 API: the volumes' files and their
// metadata, multipart uploads, the request counts and queued faults.
type s3Unit struct {
	dir   func() string // the storage directory: one directory per volume
	reqID atomic.Uint64

	mu      sync.Mutex
	objects map[objectKey]objectMeta    // files the fake wrote or hashed
	uploads map[string]*s3Upload        // multipart uploads in progress, by id
	born    map[string]time.Time        // when the S3 API first saw a volume (its bucket CreationDate)
	counts  map[string]int              // requests per operation
	faults  []*s3FaultState             // queued faults, in order
	hosts   map[string]*httptest.Server // Endpoint's listener of each data center
	closed  bool                        // Close ran: Endpoint opens no listener
}

func newS3Unit() s3Unit {
	return s3Unit{objects: map[objectKey]objectMeta{}, uploads: map[string]*s3Upload{}, born: map[string]time.Time{}, counts: map[string]int{}}
}

// objectKey names a file on a volume.
type objectKey struct{ vol, key string }

// objectMeta is what the fake knows of a file without reading it.
type objectMeta struct {
	size int64
	mod  time.Time // the file's modification time, which Last-Modified reports
	etag string    // unquoted: the MD5 hex, or "<hex>-<parts>" after a multipart upload
}

// quoted returns the ETag as S3 sends it.
func (m objectMeta) quoted() string { return `"` + m.etag + `"` }

// s3Upload is a multipart upload in progress; its parts are files in
// <volume>/.s3compat_uploads/<id>/. Guarded by s3Unit.mu.
type s3Upload struct {
	id, vol, key string
	initiated    time.Time
	parts        map[int]s3Part
	completing   bool // a CompleteMultipartUpload is assembling it
}

// s3Part is an uploaded part.
type s3Part struct {
	size int64
	md5  string // hex
	mod  time.Time
}

// s3KeyPath maps object key to its path relative to the volume directory
// (volstore.KeyPath), with its refusal as S3 says it: KeyTooLong, or
// InvalidArgument naming the key.
func s3KeyPath(key string) (rel string, dir bool, err error) {
	rel, dir, err = volstore.KeyPath(key)
	var ke *volstore.KeyError
	if errors.As(err, &ke) {
		if ke.TooLong {
			return "", false, gofakes3.ResourceError(gofakes3.ErrKeyTooLong, key)
		}
		return "", false, gofakes3.ErrorInvalidArgument("key", key, ke.Error())
	}
	return rel, dir, err
}

// volumeRoot opens volume id's directory; with create it makes it if need
// be. A volume whose directory does not exist has no files (an error
// matching fs.ErrNotExist without create).
func (u *s3Unit) volumeRoot(id string, create bool) (*os.Root, error) {
	return volstore.Root(u.dir(), id, create)
}

// fsConflict turns the file system's refusal to put key's file or
// directory in place into an S3 error: on a volume a name is either a
// file or a directory, so "a" and "a/b" cannot both be files.
func fsConflict(key string, err error) error {
	switch {
	case errors.Is(err, syscall.ENAMETOOLONG):
		return gofakes3.ResourceError(gofakes3.ErrKeyTooLong, key)
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR), errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTEMPTY):
		return gofakes3.ErrorInvalidArgument("key", key, "the key "+strconv.Quote(key)+
			" collides with a file or directory on the volume: a path is either a file or a directory")
	}
	return err
}

// cachedMeta returns the recorded metadata of a file if it still
// describes fi (same size and modification time).
func (u *s3Unit) cachedMeta(k objectKey, fi fs.FileInfo) (objectMeta, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	m, ok := u.objects[k]
	return m, ok && m.size == fi.Size() && m.mod.Equal(fi.ModTime())
}

// metaOf returns the metadata of file f (whose stat is fi), hashing it if
// nothing recorded describes it.
func (u *s3Unit) metaOf(k objectKey, f io.ReaderAt, fi fs.FileInfo) (objectMeta, error) {
	if m, ok := u.cachedMeta(k, fi); ok {
		return m, nil
	}
	h := md5.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size())); err != nil {
		return objectMeta{}, err
	}
	m := objectMeta{size: fi.Size(), mod: fi.ModTime(), etag: hex.EncodeToString(h.Sum(nil))}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.objects[k] = m
	return m, nil
}

// place moves the finished file tmp to rel and records its metadata, in
// one step under the lock, so that metadata never describes another
// write's file.
func (u *s3Unit) place(root *os.Root, tmp, rel string, k objectKey, m objectMeta) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := root.Rename(tmp, rel); err != nil {
		_ = root.Remove(tmp)
		return fsConflict(k.key, err)
	}
	u.objects[k] = m
	return nil
}

// forget drops what is recorded about a file.
func (u *s3Unit) forget(k objectKey) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.objects, k)
}

// writeFile streams r into the file of key on volume vol (size bytes, or
// any number when size < 0): into a file of the hidden folder first, then
// into place, so a reader never sees half a file. Its modification time
// is the server's clock. A key ending in "/" makes the directory (r must
// be empty). check, when set, runs just before the file takes its place,
// with the metadata of the file there now (nil when there is none), and
// can refuse the write.
func (s *server) writeFile(vol, key string, r io.Reader, size int64, check func(cur *objectMeta) error) (objectMeta, error) {
	rel, dir, err := s3KeyPath(key)
	if err != nil {
		return objectMeta{}, err
	}
	root, err := s.s3.volumeRoot(vol, true)
	if err != nil {
		return objectMeta{}, err
	}
	defer root.Close()
	if dir {
		if size > 0 {
			return objectMeta{}, gofakes3.ErrorInvalidArgument("key", key, "a key ending in / is a directory: its body must be empty")
		}
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return objectMeta{}, fsConflict(key, err)
		}
		now := s.c.Now()
		_ = root.Chtimes(rel, now, now)
		fi, err := root.Stat(rel)
		if err != nil {
			return objectMeta{}, err
		}
		return objectMeta{mod: fi.ModTime(), etag: emptyMD5}, nil
	}
	if parent := filepath.Dir(rel); parent != "." {
		if err := root.MkdirAll(parent, 0o755); err != nil {
			return objectMeta{}, fsConflict(key, err)
		}
	}
	if r == nil {
		r = strings.NewReader("")
	}
	tmp, f, err := volstore.CreateTemp(root, volstore.UploadsDir, "put-")
	if err != nil {
		return objectMeta{}, err
	}
	h := md5.New()
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && size >= 0 && n != size {
		err = gofakes3.ErrIncompleteBody
	}
	if err != nil {
		_ = root.Remove(tmp)
		return objectMeta{}, err
	}
	now := s.c.Now()
	_ = root.Chtimes(tmp, now, now)
	fi, err := root.Stat(tmp)
	if err != nil {
		_ = root.Remove(tmp)
		return objectMeta{}, err
	}
	m := objectMeta{size: fi.Size(), mod: fi.ModTime(), etag: hex.EncodeToString(h.Sum(nil))}
	if check != nil {
		var cur *objectMeta
		if f, err := root.Open(rel); err == nil {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				if cm, err := s.s3.metaOf(objectKey{vol, key}, f, fi); err == nil {
					cur = &cm
				}
			}
			_ = f.Close()
		}
		if err := check(cur); err != nil {
			_ = root.Remove(tmp)
			return objectMeta{}, err
		}
	}
	return m, s.s3.place(root, tmp, rel, objectKey{vol, key}, m)
}

// removeVolumeFiles forgets volume id's uploads in progress and what is
// recorded about its files: the volume is gone (a REST delete), and the
// server removes its files.
func (s *server) removeVolumeFiles(id string) {
	u := &s.s3
	u.mu.Lock()
	for k := range u.objects {
		if k.vol == id {
			delete(u.objects, k)
		}
	}
	for uid, up := range u.uploads {
		if up.vol == id {
			delete(u.uploads, uid)
		}
	}
	delete(u.born, id)
	u.mu.Unlock()
}

// s3View is the gofakes3 Backend of one request: the volumes of one data
// center (the endpoint's), seen by one request. gofakes3 is made anew for
// each request around its view, so that the view can carry what the
// request asked (its data center, a fault that repeats a listing's token,
// its conditional headers) without gofakes3 having to know of them.
type s3View struct {
	s      *server
	dc     string      // the endpoint's data center id, upper case
	op     string      // the request's operation (Count's names)
	repeat bool        // a RepeatToken fault hits this listing
	cond   http.Header // the request's If-* headers, for GetObject and HeadObject
	etag   string      // the ETag of the object GetObject or HeadObject found, quoted
}

var (
	_ gofakes3.Backend          = (*s3View)(nil)
	_ gofakes3.MultipartBackend = (*s3View)(nil)
)

// volume checks that bucket is a volume of the view's data center: the
// bucket is the volume id, and each data center's endpoint serves its own
// volumes.
func (v *s3View) volume(bucket string) error {
	dc, ok := v.s.c.DataCenter(bucket)
	if !ok || !strings.EqualFold(dc, v.dc) {
		return gofakes3.BucketNotFound(bucket)
	}
	return nil
}

// ListBuckets lists the account's volumes in the data center, by id.
func (v *s3View) ListBuckets() ([]gofakes3.BucketInfo, error) {
	ids := v.s.c.Volumes(v.dc)
	slices.Sort(ids)
	now := v.s.c.Now()
	u := &v.s.s3
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]gofakes3.BucketInfo, 0, len(ids))
	for _, id := range ids {
		if _, ok := u.born[id]; !ok {
			u.born[id] = now
		}
		out = append(out, gofakes3.BucketInfo{Name: id, CreationDate: gofakes3.NewContentTime(u.born[id])})
	}
	return out, nil
}

// BucketExists reports whether name is a volume of the data center.
func (v *s3View) BucketExists(name string) (bool, error) { return v.volume(name) == nil, nil }

// CreateBucket is not supported: volumes are created over REST.
func (v *s3View) CreateBucket(string) error { return gofakes3.ErrNotImplemented }

// DeleteBucket is not supported: volumes are deleted over REST.
func (v *s3View) DeleteBucket(string) error { return gofakes3.ErrNotImplemented }

// ForceDeleteBucket is not supported either.
func (v *s3View) ForceDeleteBucket(string) error { return gofakes3.ErrNotImplemented }

// DeleteMulti is not supported by the platform (DeleteObjects).
func (v *s3View) DeleteMulti(string, ...string) (gofakes3.MultiDeleteResult, error) {
	return gofakes3.MultiDeleteResult{}, gofakes3.ErrNotImplemented
}

// s3Obj is a file (or directory) found for a GET, HEAD or copy.
type s3Obj struct {
	f    *os.File // open for a file when asked for; the caller closes it
	dir  bool
	meta objectMeta
}

// object finds key on volume bucket. With open, a file is returned open,
// and its metadata describes the open file, whatever happens to the path
// meanwhile. A missing file, or one that is a directory when the key
// names a file, is NoSuchKey.
func (v *s3View) object(bucket, key string, open bool) (s3Obj, error) {
	if err := v.volume(bucket); err != nil {
		return s3Obj{}, err
	}
	rel, dir, err := s3KeyPath(key)
	if err != nil {
		return s3Obj{}, err
	}
	root, err := v.s.s3.volumeRoot(bucket, false)
	if err != nil {
		return s3Obj{}, gofakes3.KeyNotFound(key)
	}
	defer root.Close()
	if dir {
		fi, err := root.Stat(rel)
		if err != nil || !fi.IsDir() {
			return s3Obj{}, gofakes3.KeyNotFound(key)
		}
		return s3Obj{dir: true, meta: objectMeta{mod: fi.ModTime(), etag: emptyMD5}}, nil
	}
	f, err := root.Open(rel)
	if err != nil {
		return s3Obj{}, gofakes3.KeyNotFound(key)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return s3Obj{}, gofakes3.KeyNotFound(key)
	}
	m, err := v.s.s3.metaOf(objectKey{bucket, key}, f, fi)
	if err != nil || !open {
		_ = f.Close()
		return s3Obj{meta: m}, err
	}
	return s3Obj{f: f, meta: m}, nil
}

// checkConditions applies the request's If-Match, If-Unmodified-Since,
// If-None-Match and If-Modified-Since to the object found, in the order
// HTTP (RFC 9110, section 13.2.2) and S3's GetObject documentation give:
// a failed If-Match or If-Unmodified-Since is 412 PreconditionFailed, a
// matching If-None-Match or an unmodified If-Modified-Since 304.
func checkConditions(h http.Header, m objectMeta) error {
	mod := m.mod.Truncate(time.Second)
	if im := h.Get("If-Match"); im != "" {
		if !etagListMatches(im, m.etag) {
			return gofakes3.ErrorMessage(gofakes3.ErrPreconditionFailed, "At least one of the pre-conditions you specified did not hold: If-Match")
		}
	} else if t, err := http.ParseTime(h.Get("If-Unmodified-Since")); err == nil && mod.After(t) {
		return gofakes3.ErrorMessage(gofakes3.ErrPreconditionFailed, "At least one of the pre-conditions you specified did not hold: If-Unmodified-Since")
	}
	if inm := h.Get("If-None-Match"); inm != "" {
		if etagListMatches(inm, m.etag) {
			return gofakes3.ErrNotModified
		}
	} else if t, err := http.ParseTime(h.Get("If-Modified-Since")); err == nil && !mod.After(t) {
		return gofakes3.ErrNotModified
	}
	return nil
}

// etagListMatches reports whether an If-Match or If-None-Match value ("*",
// or a comma-separated list of quoted ETags) names etag (unquoted).
func etagListMatches(list, etag string) bool {
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimPrefix(strings.TrimSpace(item), "W/")
		if item == "*" || strings.Trim(item, `"`) == etag {
			return true
		}
	}
	return false
}

// gofakesObject is the gofakes3 Object of a file or directory found.
func (v *s3View) gofakesObject(key string, o s3Obj, contents io.ReadCloser, rnge *gofakes3.ObjectRange) *gofakes3.Object {
	if contents == nil {
		contents = io.NopCloser(strings.NewReader(""))
	}
	// gofakes3 writes the ETag as the hex of Hash, which cannot say
	// "-<parts>": the response writer puts the whole ETag back (v.etag).
	md5hex, _, _ := strings.Cut(o.meta.etag, "-")
	hash, _ := hex.DecodeString(md5hex)
	v.etag = o.meta.quoted()
	return &gofakes3.Object{
		Name: key,
		Metadata: map[string]string{
			"Last-Modified": o.meta.mod.UTC().Format(http.TimeFormat),
			// The platform keeps files, not typed objects.
			"Content-Type": "application/octet-stream",
		},
		Size:     o.meta.size,
		Contents: contents,
		Hash:     hash,
		Range:    rnge,
	}
}

// fileSection is a part of an open file that closes the file.
type fileSection struct {
	*io.SectionReader
	f *os.File
}

func (s fileSection) Close() error { return s.f.Close() }

// GetObject opens key's file for reading, the whole of it or the range
// asked for.
func (v *s3View) GetObject(bucket, key string, rangeRequest *gofakes3.ObjectRangeRequest) (*gofakes3.Object, error) {
	o, err := v.object(bucket, key, true)
	if err != nil {
		return nil, err
	}
	closeFile := func() {
		if o.f != nil {
			_ = o.f.Close()
		}
	}
	if err := checkConditions(v.cond, o.meta); err != nil {
		closeFile()
		if errors.Is(err, gofakes3.ErrNotModified) {
			v.etag = o.meta.quoted()
		}
		return nil, err
	}
	rnge, err := rangeRequest.Range(o.meta.size)
	if err != nil {
		closeFile()
		return nil, err
	}
	if o.f == nil {
		return v.gofakesObject(key, o, nil, rnge), nil
	}
	start, n := int64(0), o.meta.size
	if rnge != nil {
		start, n = rnge.Start, rnge.Length
	}
	return v.gofakesObject(key, o, fileSection{io.NewSectionReader(o.f, start, n), o.f}, rnge), nil
}

// HeadObject returns what a GET of key would, without the contents.
func (v *s3View) HeadObject(bucket, key string) (*gofakes3.Object, error) {
	o, err := v.object(bucket, key, false)
	if err != nil {
		return nil, err
	}
	if v.op == "HeadObject" {
		if err := checkConditions(v.cond, o.meta); err != nil {
			if errors.Is(err, gofakes3.ErrNotModified) {
				v.etag = o.meta.quoted()
			}
			return nil, err
		}
	}
	return v.gofakesObject(key, o, nil, nil), nil
}

// DeleteObject removes key's file, or its directory when that is empty. A
// missing key is no error (204, as S3 answers); a directory that still
// holds files stays (it is not an object, its files are). The directory
// of a deleted file stays too, as it would on the volume a pod sees, and
// lists as "dir/" once empty: the platform's documentation says nothing of
// removing directories a delete leaves empty.
func (v *s3View) DeleteObject(bucket, key string) (gofakes3.ObjectDeleteResult, error) {
	if err := v.volume(bucket); err != nil {
		return gofakes3.ObjectDeleteResult{}, err
	}
	rel, dir, err := s3KeyPath(key)
	if err != nil {
		return gofakes3.ObjectDeleteResult{}, err
	}
	root, err := v.s.s3.volumeRoot(bucket, false)
	if err != nil {
		return gofakes3.ObjectDeleteResult{}, nil
	}
	defer root.Close()
	fi, err := root.Lstat(rel)
	switch {
	case err != nil:
	case dir && fi.IsDir():
		_ = root.Remove(rel) // fails, and stays, when not empty
	case !dir && !fi.IsDir():
		v.s.s3.forget(objectKey{bucket, key})
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return gofakes3.ObjectDeleteResult{}, err
		}
	}
	return gofakes3.ObjectDeleteResult{}, nil
}

// PutObject writes key's file from input (size bytes), or makes its
// directory for a key ending in "/" with an empty body. The conditions
// (If-Match, If-None-Match) are checked against the file there just
// before the new one takes its place. User metadata is not kept: the
// platform stores files, whose only attributes are their contents, size
// and modification time.
func (v *s3View) PutObject(bucket, key string, _ map[string]string, input io.Reader, size int64, conditions *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	if err := v.volume(bucket); err != nil {
		return gofakes3.PutObjectResult{}, err
	}
	var check func(*objectMeta) error
	if conditions != nil {
		check = func(cur *objectMeta) error {
			info := &gofakes3.ConditionalObjectInfo{Exists: cur != nil}
			c := *conditions
			if c.IfMatch != nil {
				// Compare whole ETags (a multipart one has "-<parts>").
				if cur == nil || !etagListMatches(*c.IfMatch, cur.etag) {
					return gofakes3.ErrorMessage(gofakes3.ErrPreconditionFailed, "At least one of the pre-conditions you specified did not hold: If-Match")
				}
				c.IfMatch = nil
			}
			return gofakes3.CheckPutConditions(&c, info)
		}
	}
	_, err := v.s.writeFile(bucket, key, input, size, check)
	return gofakes3.PutObjectResult{}, err
}

// CopyObject copies a file (streaming it) within or between the data
// center's volumes; the copy's ETag is the MD5 of its contents. A
// directory copies to a directory.
func (v *s3View) CopyObject(srcBucket, srcKey, dstBucket, dstKey string, _ map[string]string) (gofakes3.CopyObjectResult, error) {
	if err := v.volume(dstBucket); err != nil {
		return gofakes3.CopyObjectResult{}, err
	}
	src, err := v.object(srcBucket, srcKey, true)
	if err != nil {
		return gofakes3.CopyObjectResult{}, err
	}
	var r io.Reader = strings.NewReader("")
	if src.f != nil {
		defer src.f.Close()
		r = io.NewSectionReader(src.f, 0, src.meta.size)
	} else if !strings.HasSuffix(dstKey, "/") {
		return gofakes3.CopyObjectResult{}, gofakes3.ErrorInvalidArgument("key", dstKey, "a directory copies only to a key ending in /")
	}
	m, err := v.s.writeFile(dstBucket, dstKey, r, src.meta.size, nil)
	if err != nil {
		return gofakes3.CopyObjectResult{}, err
	}
	return gofakes3.CopyObjectResult{ETag: m.quoted(), LastModified: gofakes3.NewContentTime(m.mod)}, nil
}

// volEntry is a file or empty directory found on a volume.
type volEntry struct {
	key  string // "a/b", or "a/c/" for an empty directory
	info fs.FileInfo
}

// walkVolume returns the files and empty directories under start (a
// slash path relative to the volume, "." for all of it), skipping the
// hidden uploads folder. Directories that hold anything are not returned
// themselves: their files are.
func walkVolume(root *os.Root, start string) ([]volEntry, error) {
	var out []volEntry
	var pending *volEntry // the last directory seen, empty until a child shows
	settle := func(p string) {
		if pending != nil && path.Dir(p) != strings.TrimSuffix(pending.key, "/") {
			out = append(out, *pending)
		}
		pending = nil
	}
	err := fs.WalkDir(root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return fs.SkipAll // nothing there
			}
			return nil
		}
		if p == "." {
			return nil
		}
		settle(p)
		if p == volstore.UploadsDir && d.IsDir() {
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case d.IsDir():
			pending = &volEntry{key: p + "/", info: info}
		case info.Mode().IsRegular():
			out = append(out, volEntry{key: p, info: info})
		}
		return nil
	})
	settle("\x00") // the last directory, if it had no child
	return out, err
}

// s3Match applies a listing's prefix and delimiter to key as S3 defines
// them: key must start with the prefix; if the rest of it holds the
// delimiter, key rolls up into the common prefix that ends at the first
// one (common is true, item is that prefix); otherwise item is key. So an
// empty directory "a/b/" listed with delimiter "/" under "a/" is the
// common prefix "a/b/", as a directory is. (gofakes3's Prefix.Match keeps
// a key ending in the delimiter among the contents, which S3 does not.)
func s3Match(key string, p gofakes3.Prefix) (item string, common, ok bool) {
	if !strings.HasPrefix(key, p.Prefix) {
		return "", false, false
	}
	if p.HasDelimiter && p.Delimiter != "" {
		if i := strings.Index(key[len(p.Prefix):], p.Delimiter); i >= 0 {
			return key[:len(p.Prefix)+i+len(p.Delimiter)], true, true
		}
	}
	return key, false, true
}

// listStart is the directory a listing of prefix can start from: the part
// of prefix up to its last "/"; "" when no key can have that prefix.
func listStart(prefix string) string {
	i := strings.LastIndexByte(prefix, '/')
	if i < 0 {
		return "."
	}
	d := prefix[:i]
	if !fs.ValidPath(d) || d == "." || d == volstore.UploadsDir || strings.HasPrefix(d, volstore.UploadsDir+"/") {
		return ""
	}
	return d
}

// ListBucket lists the volume's files, and its empty directories as keys
// ending in "/" (the platform's documentation says listings show empty
// directories), in key order, from after the page's marker, at most
// MaxKeys keys and common prefixes. The continuation token gofakes3 makes
// is the base64 of the last key (or common prefix) of the page, stable
// and opaque. A RepeatToken fault answers with the marker it was given as
// the next one, truncated, as the platform does while it computes
// checksums.
func (v *s3View) ListBucket(name string, prefix *gofakes3.Prefix, page gofakes3.ListBucketPage) (*gofakes3.ObjectList, error) {
	if err := v.volume(name); err != nil {
		return nil, err
	}
	var p gofakes3.Prefix
	if prefix != nil {
		p = *prefix
	}
	list := gofakes3.NewObjectList()
	defer func() {
		if v.repeat && page.HasMarker && page.Marker != "" {
			list.IsTruncated, list.NextMarker = true, page.Marker
		}
	}()
	start := listStart(p.Prefix)
	if start == "" || page.MaxKeys <= 0 {
		return list, nil
	}
	root, err := v.s.s3.volumeRoot(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return list, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	entries, err := walkVolume(root, start)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b volEntry) int { return cmp.Compare(a.key, b.key) })
	count, last, lastPrefix := int64(0), "", ""
	for _, e := range entries {
		item, common, ok := s3Match(e.key, p)
		if !ok || common && item == lastPrefix {
			continue
		}
		if page.HasMarker && item <= page.Marker {
			continue
		}
		if count >= page.MaxKeys {
			list.IsTruncated, list.NextMarker = true, last
			break
		}
		count++
		last = item
		if common {
			lastPrefix = item
			list.AddPrefix(item)
			continue
		}
		m := objectMeta{mod: e.info.ModTime(), etag: emptyMD5}
		if !strings.HasSuffix(e.key, "/") {
			if m, err = v.s.s3.fileMeta(root, objectKey{name, e.key}, e.info); err != nil {
				count--
				continue // gone since the walk
			}
		}
		list.Add(&gofakes3.Content{Key: e.key, LastModified: gofakes3.NewContentTime(m.mod), ETag: m.quoted(), Size: m.size, StorageClass: "STANDARD"})
	}
	return list, nil
}

// fileMeta returns the metadata of the file of k found by a walk (fi),
// opening it only when nothing recorded describes it.
func (u *s3Unit) fileMeta(root *os.Root, k objectKey, fi fs.FileInfo) (objectMeta, error) {
	if m, ok := u.cachedMeta(k, fi); ok {
		return m, nil
	}
	f, err := root.Open(filepath.FromSlash(k.key))
	if err != nil {
		return objectMeta{}, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return objectMeta{}, err
	}
	return u.metaOf(k, f, fi)
}

// Multipart uploads. Parts are files in the upload's folder of the
// volume's hidden .s3compat_uploads/, written as they stream in; Complete
// joins them, by streaming copies, into the file, and removes the folder;
// Abort removes the folder. The platform does not enforce S3's 5 MB
// minimum part size, and neither does the fake.

// upload returns upload id of key on volume bucket, NoSuchUpload if there
// is none (or it is being completed). u.mu is held.
func (u *s3Unit) uploadLocked(bucket, key, id string) (*s3Upload, error) {
	up := u.uploads[id]
	if up == nil || up.vol != bucket || up.key != key || up.completing {
		return nil, gofakes3.ErrNoSuchUpload
	}
	return up, nil
}

// CreateMultipartUpload starts an upload of key: its folder, and its
// record.
func (v *s3View) CreateMultipartUpload(bucket, key string, _ map[string]string) (gofakes3.UploadID, error) {
	if err := v.volume(bucket); err != nil {
		return "", err
	}
	_, dir, err := s3KeyPath(key)
	if err != nil {
		return "", err
	}
	if dir {
		return "", gofakes3.ErrorInvalidArgument("key", key, "a key ending in / is a directory: it has no contents to upload")
	}
	root, err := v.s.s3.volumeRoot(bucket, true)
	if err != nil {
		return "", err
	}
	defer root.Close()
	id := volstore.RandomID(32)
	if err := root.MkdirAll(path.Join(volstore.UploadsDir, id), 0o755); err != nil {
		return "", err
	}
	u := &v.s.s3
	u.mu.Lock()
	defer u.mu.Unlock()
	u.uploads[id] = &s3Upload{id: id, vol: bucket, key: key, initiated: v.s.c.Now(), parts: map[int]s3Part{}}
	return gofakes3.UploadID(id), nil
}

// UploadPart streams a part into the upload's folder; a part of the same
// number replaces the earlier one. Its ETag is its MD5.
func (v *s3View) UploadPart(bucket, key string, id gofakes3.UploadID, partNumber int, contentLength int64, input io.Reader) (string, error) {
	if err := v.volume(bucket); err != nil {
		return "", err
	}
	u := &v.s.s3
	u.mu.Lock()
	_, err := u.uploadLocked(bucket, key, string(id))
	u.mu.Unlock()
	if err != nil {
		return "", err
	}
	root, err := u.volumeRoot(bucket, false)
	if err != nil {
		return "", gofakes3.ErrNoSuchUpload
	}
	defer root.Close()
	folder := path.Join(volstore.UploadsDir, string(id))
	tmp, f, err := volstore.CreateTemp(root, folder, strconv.Itoa(partNumber)+".tmp-")
	if err != nil {
		return "", gofakes3.ErrNoSuchUpload
	}
	h := md5.New()
	n, err := io.Copy(io.MultiWriter(f, h), input)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != contentLength {
		err = gofakes3.ErrIncompleteBody
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	u.mu.Lock()
	defer u.mu.Unlock()
	up, err := u.uploadLocked(bucket, key, string(id))
	if err == nil {
		err = root.Rename(tmp, path.Join(folder, strconv.Itoa(partNumber)))
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", err
	}
	up.parts[partNumber] = s3Part{size: n, md5: sum, mod: v.s.c.Now()}
	return `"` + sum + `"`, nil
}

// ListParts lists the upload's parts by number, after marker, at most
// limit of them.
func (v *s3View) ListParts(bucket, key string, id gofakes3.UploadID, marker int, limit int64) (*gofakes3.ListMultipartUploadPartsResult, error) {
	if err := v.volume(bucket); err != nil {
		return nil, err
	}
	u := &v.s.s3
	u.mu.Lock()
	defer u.mu.Unlock()
	up, err := u.uploadLocked(bucket, key, string(id))
	if err != nil {
		return nil, err
	}
	out := &gofakes3.ListMultipartUploadPartsResult{Bucket: bucket, Key: key, UploadID: id, PartNumberMarker: marker, MaxParts: limit, StorageClass: "STANDARD"}
	for _, n := range slices.Sorted(maps.Keys(up.parts)) {
		if n <= marker {
			continue
		}
		if int64(len(out.Parts)) >= limit {
			out.IsTruncated = true
			break
		}
		p := up.parts[n]
		out.Parts = append(out.Parts, gofakes3.ListMultipartUploadPartItem{PartNumber: n, LastModified: gofakes3.NewContentTime(p.mod), ETag: `"` + p.md5 + `"`, Size: p.size})
		out.NextPartNumberMarker = n
	}
	return out, nil
}

// ListMultipartUploads lists the volume's uploads in progress, by key then
// initiation, after the marker, at most limit uploads and common
// prefixes.
func (v *s3View) ListMultipartUploads(bucket string, marker *gofakes3.UploadListMarker, prefix gofakes3.Prefix, limit int64) (*gofakes3.ListMultipartUploadsResult, error) {
	if err := v.volume(bucket); err != nil {
		return nil, err
	}
	u := &v.s.s3
	u.mu.Lock()
	var ups []s3Upload
	for _, up := range u.uploads {
		if up.vol == bucket && !up.completing {
			ups = append(ups, *up)
		}
	}
	u.mu.Unlock()
	slices.SortFunc(ups, func(a, b s3Upload) int {
		return cmp.Or(cmp.Compare(a.key, b.key), a.initiated.Compare(b.initiated), cmp.Compare(a.id, b.id))
	})
	out := &gofakes3.ListMultipartUploadsResult{Bucket: bucket, Prefix: prefix.Prefix, Delimiter: prefix.Delimiter, MaxUploads: limit}
	if marker != nil {
		out.KeyMarker, out.UploadIDMarker = marker.Object, marker.UploadID
		i := slices.IndexFunc(ups, func(up s3Upload) bool { return up.key == marker.Object && up.id == string(marker.UploadID) })
		if marker.UploadID != "" && i >= 0 {
			ups = ups[i+1:]
		} else {
			ups = slices.DeleteFunc(ups, func(up s3Upload) bool { return up.key <= marker.Object })
		}
	}
	var count int64
	lastPrefix := ""
	for _, up := range ups {
		item, common, ok := s3Match(up.key, prefix)
		if !ok || common && item == lastPrefix {
			continue
		}
		if count >= limit {
			out.IsTruncated = true
			break
		}
		count++
		if common {
			lastPrefix = item
			out.CommonPrefixes = append(out.CommonPrefixes, gofakes3.CommonPrefix{Prefix: item})
			continue
		}
		out.Uploads = append(out.Uploads, gofakes3.ListMultipartUploadItem{Key: up.key, UploadID: gofakes3.UploadID(up.id), StorageClass: "STANDARD", Initiated: gofakes3.NewContentTime(up.initiated)})
		out.NextKeyMarker, out.NextUploadIDMarker = up.key, gofakes3.UploadID(up.id)
	}
	if !out.IsTruncated {
		out.NextKeyMarker, out.NextUploadIDMarker = "", ""
	}
	return out, nil
}

// AbortMultipartUpload drops the upload and removes its folder.
func (v *s3View) AbortMultipartUpload(bucket, key string, id gofakes3.UploadID) error {
	if err := v.volume(bucket); err != nil {
		return err
	}
	u := &v.s.s3
	u.mu.Lock()
	_, err := u.uploadLocked(bucket, key, string(id))
	if err == nil {
		delete(u.uploads, string(id))
	}
	u.mu.Unlock()
	if err != nil {
		return err
	}
	if root, err := u.volumeRoot(bucket, false); err == nil {
		_ = root.RemoveAll(path.Join(volstore.UploadsDir, string(id)))
		_ = root.Close()
	}
	return nil
}

// CompleteMultipartUpload joins the parts listed (in ascending order,
// each with its ETag) into key's file, by streaming copies, and removes
// the upload's folder. The ETag is S3's for a multipart upload: the MD5 of
// the parts' binary MD5s, "-" and the number of parts. No minimum part
// size is enforced.
func (v *s3View) CompleteMultipartUpload(bucket, key string, id gofakes3.UploadID, input *gofakes3.CompleteMultipartUploadRequest) (gofakes3.VersionID, string, error) {
	if err := v.volume(bucket); err != nil {
		return "", "", err
	}
	u := &v.s.s3
	u.mu.Lock()
	up, err := u.uploadLocked(bucket, key, string(id))
	if err != nil {
		u.mu.Unlock()
		return "", "", err
	}
	parts, err := completeParts(up, input)
	if err != nil {
		u.mu.Unlock()
		return "", "", err
	}
	up.completing = true
	u.mu.Unlock()
	etag, err := v.assemble(bucket, key, string(id), parts)
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil {
		up.completing = false // the client may complete again, or abort
		return "", "", err
	}
	delete(u.uploads, string(id))
	return "", `"` + etag + `"`, nil
}

// numberedPart is a part a Complete request lists.
type numberedPart struct {
	n int
	s3Part
}

// completeParts checks a Complete request against the upload's parts and
// returns them in order. u.mu is held.
func completeParts(up *s3Upload, input *gofakes3.CompleteMultipartUploadRequest) ([]numberedPart, error) {
	if input == nil || len(input.Parts) == 0 {
		return nil, gofakes3.ErrorMessage(gofakes3.ErrMalformedXML, "You must specify at least one part")
	}
	nums := make([]numberedPart, 0, len(input.Parts))
	for i, p := range input.Parts {
		if i > 0 && p.PartNumber <= input.Parts[i-1].PartNumber {
			return nil, gofakes3.ErrInvalidPartOrder
		}
		got, ok := up.parts[p.PartNumber]
		if !ok || strings.Trim(p.ETag, `"`) != got.md5 {
			return nil, gofakes3.ErrorMessagef(gofakes3.ErrInvalidPart, "part %d was not uploaded, or its ETag is not %s", p.PartNumber, p.ETag)
		}
		nums = append(nums, numberedPart{p.PartNumber, got})
	}
	return nums, nil
}

// assemble concatenates the parts into key's file (copies the kernel may
// make without the data passing through the process) and removes the
// upload's folder; it returns the multipart ETag.
func (v *s3View) assemble(bucket, key, id string, parts []numberedPart) (string, error) {
	rel, _, err := s3KeyPath(key)
	if err != nil {
		return "", err
	}
	root, err := v.s.s3.volumeRoot(bucket, false)
	if err != nil {
		return "", gofakes3.ErrNoSuchUpload
	}
	defer root.Close()
	folder := path.Join(volstore.UploadsDir, id)
	tmp, out, err := volstore.CreateTemp(root, folder, "complete-")
	if err != nil {
		return "", err
	}
	sums := md5.New()
	for _, p := range parts {
		err = func() error {
			in, err := root.Open(path.Join(folder, strconv.Itoa(p.n)))
			if err != nil {
				return err
			}
			defer in.Close()
			if c, err := io.Copy(out, in); err != nil || c != p.size {
				return cmp.Or(err, fmt.Errorf("runpodtest: part %d changed on disk", p.n))
			}
			sum, _ := hex.DecodeString(p.md5)
			sums.Write(sum)
			return nil
		}()
		if err != nil {
			break
		}
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && filepath.Dir(rel) != "." {
		err = fsConflict(key, root.MkdirAll(filepath.Dir(rel), 0o755))
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", err
	}
	now := v.s.c.Now()
	_ = root.Chtimes(tmp, now, now)
	fi, err := root.Stat(tmp)
	if err != nil {
		return "", err
	}
	etag := hex.EncodeToString(sums.Sum(nil)) + "-" + strconv.Itoa(len(parts))
	if err := v.s.s3.place(root, tmp, rel, objectKey{bucket, key}, objectMeta{size: fi.Size(), mod: fi.ModTime(), etag: etag}); err != nil {
		return "", err
	}
	_ = root.RemoveAll(folder)
	return etag, nil
}
