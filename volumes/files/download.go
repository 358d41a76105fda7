package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// Names of a download's files beside its destination "dir/base": the
// content goes to "dir/.base.runpod-download", the journal of its finished
// ranges to "dir/.base.runpod-download.json".
const (
	downloadSuffix = ".runpod-download"
	journalSuffix  = downloadSuffix + ".json"
	// journalTmpSuffix names the journal being written, renamed over the
	// journal once complete.
	journalTmpSuffix = journalSuffix + ".tmp"
)

// progressStep is how many bytes a download receives between two
// Progress events, besides the one at the end of each range.
const progressStep = 1 << 20

// isDownloadFile reports whether name is one of the files a download
// keeps beside its destination while it runs (Sync leaves them alone).
func isDownloadFile(name string) bool {
	return strings.HasPrefix(name, ".") &&
		(strings.HasSuffix(name, downloadSuffix) || strings.HasSuffix(name, journalSuffix) || strings.HasSuffix(name, journalTmpSuffix))
}

// Download copies the file of key on the volume to localPath, creating
// localPath's missing parent directories, and returns the file's Entry.
//
// The file is fetched in ranges of the part size (WithPartSize),
// WithConcurrency ranges at a time, each request naming the version read
// first (If-Match on its ETag): a file changed on the volume meanwhile
// makes the download start over once with the new version, then fail. A
// response cut short is asked again for the rest of its range, a few
// times, with the client's backoff between tries. The bytes go to a
// temporary file beside localPath (".<name>.runpod-download"), and the
// ranges finished so far to a small journal beside it
// (".<name>.runpod-download.json"). Only a complete file is renamed to
// localPath, replacing what was there, with the volume file's
// modification time (so Sync sees it unchanged): a download that fails
// or is stopped never leaves a partial file under localPath.
//
// Run again after a failure or a cancel, in this process or after a
// restart, Download fetches only the ranges the journal lacks, as long as
// the file on the volume and the part size are the same; otherwise it
// starts over. Two downloads to the same localPath must not run at once.
// Like other download tools, Download does not force what it writes to
// disk (fsync): the journal outlives the program stopping or crashing,
// not the machine losing power; after a power loss, delete the
// temporary file and journal to start over.
//
// Progress reports Done counting the ranges an earlier run finished. A
// canceled ctx stops the download promptly with an error matching
// context.Canceled, keeping the temporary file and journal for the next
// run. A missing key is an error matching fs.ErrNotExist.
func (v *Volume) Download(ctx context.Context, key, localPath string, opts ...Option) (Entry, error) {
	set, err := v.transfer(key, localPath, opts)
	if err != nil {
		return Entry{}, err
	}
	if fi, err := os.Stat(localPath); err == nil && fi.IsDir() {
		return Entry{}, fail.Invalid("localPath", "%q is a directory; name the file to write", localPath)
	}
	dir, base := filepath.Split(localPath)
	d := &download{
		v: v, key: key, path: localPath, set: set,
		tmp:     filepath.Join(dir, "."+base+downloadSuffix),
		journal: filepath.Join(dir, "."+base+journalSuffix),
	}
	for restarted := false; ; restarted = true {
		obj, err := v.head(ctx, key)
		if err != nil {
			return Entry{}, err
		}
		err = d.run(ctx, obj)
		if err == nil {
			return obj.entry, nil
		}
		if !changedRemotely(err) || restarted {
			return Entry{}, err
		}
		v.debug("files: the file changed during its download; starting over", "key", key)
	}
}

// remoteFile is what a download needs of the file on the volume.
type remoteFile struct {
	entry Entry
	// etag is the ETag as sent, quotes included, for If-Match.
	etag string
}

// head reads the size, ETag and modification time of key.
func (v *Volume) head(ctx context.Context, key string) (remoteFile, error) {
	in := &s3.HeadObjectInput{Bucket: aws.String(v.id), Key: aws.String(key)}
	out, err := v.s3.HeadObject(ctx, in)
	if err = s3Error("HeadObject", key, err); errors.Is(err, errs.ErrForbidden) {
		// A HEAD's refusal has no body to say why. A clock more than an
		// hour off is one reason, which the S3 client corrects from the
		// answer's Date header for its next request: ask once more.
		out, err = v.s3.HeadObject(ctx, in)
		err = s3Error("HeadObject", key, err)
	}
	if err != nil {
		return remoteFile{}, err
	}
	if out.ContentLength == nil || *out.ContentLength < 0 {
		return remoteFile{}, &S3Error{Op: "HeadObject", Key: key, Err: errors.New("the answer has no Content-Length")}
	}
	etag := aws.ToString(out.ETag)
	return remoteFile{
		entry: Entry{Key: key, Size: *out.ContentLength, ModTime: aws.ToTime(out.LastModified), ETag: strings.Trim(etag, `"`)},
		etag:  etag,
	}, nil
}

// changedRemotely reports whether err is a 412 answer to If-Match: the
// file on the volume is no longer the version the download began with.
func changedRemotely(err error) bool {
	var se *S3Error
	return errors.As(err, &se) && (se.StatusCode == http.StatusPreconditionFailed || se.Code == "PreconditionFailed")
}

// download is one call of Download.
type download struct {
	v            *Volume
	key, path    string
	tmp, journal string
	set          settings
	obj          remoteFile
	ranges       int
	file         *os.File
	// bytesDone counts the bytes written; nextReport is the count from
	// which a write reports progress (every progressStep bytes).
	bytesDone, nextReport atomic.Int64
	mu                    sync.Mutex // guards what follows, the journal, and serializes Progress
	done                  []bool
	reported              int64
	announced             bool
}

// journal is the record of a download's finished ranges, kept beside its
// temporary file. Its fields must all match the file on the volume and the
// call's part size for a run to resume.
type journal struct {
	Key      string `json:"key"`
	ETag     string `json:"etag"`
	Size     int64  `json:"size"`
	PartSize int64  `json:"partSize"`
	// Done lists the finished ranges as runs of range indexes, first and
	// last included: [[0,3],[5,5]].
	Done [][2]int `json:"done"`
}

// run downloads obj, resuming from the journal when it matches.
func (d *download) run(ctx context.Context, obj remoteFile) error {
	size := obj.entry.Size
	d.obj = obj
	d.ranges = max(1, int((size+d.set.partSize-1)/d.set.partSize))
	d.done = make([]bool, d.ranges)
	d.bytesDone.Store(0)
	d.nextReport.Store(0)
	d.reported, d.announced = 0, false
	if err := d.open(); err != nil {
		return err
	}
	defer func() {
		if d.file != nil {
			_ = d.file.Close()
		}
	}()
	var missing []int
	for i, ok := range d.done {
		if ok {
			d.bytesDone.Add(d.length(i))
		} else {
			missing = append(missing, i)
		}
	}
	d.progress(true)
	if err := d.fetchAll(ctx, missing); err != nil {
		return err
	}
	return d.finish()
}

// open opens the temporary file, keeping what an earlier run left when
// its journal matches this run (and marking those ranges done), else
// starting an empty one.
func (d *download) open() error {
	if d.resumable() {
		f, err := os.OpenFile(d.tmp, os.O_RDWR, 0)
		if err == nil {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() == d.obj.entry.Size {
				d.file = f
				return nil
			}
			_ = f.Close()
		}
		clear(d.done)
	}
	if err := os.MkdirAll(filepath.Dir(d.tmp), 0o755); err != nil {
		return err
	}
	if err := os.Remove(d.journal); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(d.tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	if err := f.Truncate(d.obj.entry.Size); err != nil {
		_ = f.Close()
		return err
	}
	d.file = f
	return nil
}

// resumable reads the journal into d.done and reports whether it belongs
// to this file, version and part size.
func (d *download) resumable() bool {
	b, err := os.ReadFile(d.journal)
	if err != nil {
		return false
	}
	var j journal
	if json.Unmarshal(b, &j) != nil || j.Key != d.key || j.ETag != d.obj.entry.ETag || j.Size != d.obj.entry.Size || j.PartSize != d.set.partSize {
		return false
	}
	for _, run := range j.Done {
		if run[0] < 0 || run[1] >= d.ranges || run[0] > run[1] {
			clear(d.done)
			return false
		}
		for i := run[0]; i <= run[1]; i++ {
			d.done[i] = true
		}
	}
	return true
}

// length is the size of range i.
func (d *download) length(i int) int64 {
	start := int64(i) * d.set.partSize
	return min(d.obj.entry.Size, start+d.set.partSize) - start
}

// fetchAll fetches the ranges in missing, set.concurrency at a time; the
// first failure stops the others.
func (d *download) fetchAll(ctx context.Context, missing []int) error {
	err := parallel(ctx, len(missing), d.set.concurrency, true, func(ctx context.Context, k int) error {
		if err := d.fetch(ctx, missing[k]); err != nil {
			return err
		}
		return d.finished(missing[k])
	})
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("runpod: download of %s stopped: %w", d.key, ctxErr)
	}
	return err
}

// fetch fetches range i into the temporary file; the reader asks again
// for what is left when a body is cut short.
func (d *download) fetch(ctx context.Context, i int) error {
	start := int64(i) * d.set.partSize
	r := &rangeReader{v: d.v, ctx: ctx, key: d.key, etag: d.obj.etag, off: start, end: start + d.length(i), size: d.obj.entry.Size}
	defer func() { _ = r.Close() }()
	w := &rangeWriter{d: d, w: io.NewOffsetWriter(d.file, start)}
	_, err := io.Copy(w, r)
	if w.err != nil {
		return w.err
	}
	return err
}

// rangeWriter writes a range into the temporary file, counting progress,
// and keeps its own failure apart from the body's.
type rangeWriter struct {
	d   *download
	w   io.Writer
	err error
}

// Write writes p at the range's current offset.
func (w *rangeWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.err = err
	}
	// Ranges write at once: the count is atomic, and the lock is taken
	// only when a progress report is due.
	if done := w.d.bytesDone.Add(int64(n)); w.d.set.progress != nil && done >= w.d.nextReport.Load() {
		w.d.mu.Lock()
		w.d.progress(false)
		w.d.mu.Unlock()
	}
	return n, err
}

// progress reports the bytes done: the first time, then when they grew
// by progressStep, or with force when they grew at all; d.mu is held (or
// no range is in flight).
func (d *download) progress(force bool) {
	done := d.bytesDone.Load()
	grew := done - d.reported
	if d.set.progress == nil || d.announced && (grew == 0 || !force && grew < progressStep) {
		return
	}
	d.announced, d.reported = true, done
	d.nextReport.Store(done + progressStep)
	d.set.progress(ProgressEvent{File: d.key, Path: d.path, Done: done, Total: d.obj.entry.Size})
}

// finished records range i as done, rewriting the journal (a new file
// renamed over the old one). Nothing is forced to disk: the range's bytes
// and the journal are in the system's cache, which outlives the program.
func (d *download) finished(i int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.done[i] = true
	d.progress(true)
	if d.ranges == 1 {
		return nil
	}
	j := journal{Key: d.key, ETag: d.obj.entry.ETag, Size: d.obj.entry.Size, PartSize: d.set.partSize}
	for k, ok := range d.done {
		switch {
		case !ok:
		case len(j.Done) > 0 && j.Done[len(j.Done)-1][1] == k-1:
			j.Done[len(j.Done)-1][1] = k
		default:
			j.Done = append(j.Done, [2]int{k, k})
		}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	tmp := strings.TrimSuffix(d.journal, journalSuffix) + journalTmpSuffix
	if err := os.WriteFile(tmp, b, 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, d.journal)
}

// finish closes the complete temporary file, gives it the remote file's
// modification time, renames it to its final name and removes the
// journal.
func (d *download) finish() error {
	f := d.file
	d.file = nil
	if err := f.Close(); err != nil {
		return err
	}
	if mt := d.obj.entry.ModTime; !mt.IsZero() {
		if err := os.Chtimes(d.tmp, time.Time{}, mt); err != nil {
			return err
		}
	}
	if err := os.Rename(d.tmp, d.path); err != nil {
		return err
	}
	if err := os.Remove(d.journal); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
