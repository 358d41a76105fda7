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
	"github.com/runpodkit/runpod-go/internal/confine"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// A download keeps two kinds of files beside its destination "dir/base"
// while it runs, each created exclusively under a name no one can guess
// (".base" + tag + "-" + 16 random hex digits): the content, tagged
// downloadTag, and the journal of its finished ranges, tagged journalTag.
// A journal is rewritten as a new file renamed over the old one, and
// names its content file. A run that starts finds what an earlier run
// left by listing the directory for these names.
const (
	downloadTag = ".runpod-download"
	journalTag  = ".runpod-journal"
)

// legacySuffixes end the names earlier versions of the package gave a
// download's files (".base.runpod-download", its ".json" journal and the
// journal being written): Sync leaves them alone too.
var legacySuffixes = []string{".runpod-download", ".runpod-download.json", ".runpod-download.json.tmp"}

// maxJournal bounds what is read of a journal: one lists at most a run
// per two ranges, a few bytes each.
const maxJournal = 16 << 20

// progressStep is how many bytes a download receives between two
// Progress events, besides the one at the end of each range.
const progressStep = 1 << 20

// isDownloadFile reports whether name is one of the files a download
// keeps beside its destination while it runs (Sync leaves them alone).
func isDownloadFile(name string) bool {
	for _, tag := range []string{downloadTag, journalTag} {
		if _, ok := confine.TempBase(name, tag); ok {
			return true
		}
	}
	if !strings.HasPrefix(name, ".") {
		return false
	}
	for _, suffix := range legacySuffixes {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// Download copies the file of key on the volume to localPath, creating
// localPath's missing parent directories, and returns the file's Entry.
//
// The file is fetched in ranges of the part size (WithPartSize),
// WithConcurrency ranges at a time, each request naming the version read
// first (If-Match on its ETag): a file changed on the volume meanwhile
// makes the download start over once with the new version, then fail. A
// response cut short is asked again for the rest of its range, a few
// times, with the client's backoff between tries. Only a complete file is
// renamed to localPath, replacing what was there, with the volume file's
// modification time (so Sync sees it unchanged): a download that fails
// or is stopped never leaves a partial file under localPath.
//
// Local files: localPath's directory is the caller's choice, made if
// missing; everything Download does in it stays in it and never goes
// through a symbolic link. The bytes go to a temporary file beside
// localPath, and the ranges finished so far to a small journal beside
// it, both hidden files named after localPath with a random suffix
// (".<name>.runpod-download-<16 hex digits>",
// ".<name>.runpod-journal-<16 hex digits>"), each created exclusively:
// a file or link someone placed at a name Download might use is never
// opened, written or followed. The journal is rewritten as a new file
// renamed over the old one. The complete file is renamed to localPath: a
// link at localPath is replaced by the file, never written through. A
// temporary file replaced by something else while the download ran (a
// link, another file) is not renamed into place: Download fails with an
// *errs.UnsafePathError, and the next run starts over.
//
// Run again after a failure or a cancel, in this process or after a
// restart, Download finds the temporary file and journal an earlier run
// left by their names (regular files only), and fetches only the ranges
// the journal lacks, as long as the file on the volume and the part size
// are the same; otherwise it starts over. Whatever else it finds under
// those names (another run's leftovers, a link) it removes, never
// following a link. Two downloads to the same localPath must not run at
// once. Like other download tools, Download does not force what it
// writes to disk (fsync): the journal outlives the program stopping or
// crashing, not the machine losing power; after a power loss, delete the
// hidden files beside localPath to start over.
//
// Progress reports Done counting the ranges an earlier run finished. A
// canceled ctx stops the download promptly with an error matching
// context.Canceled, keeping the temporary file and journal for the next
// run. A missing key is an error matching fs.ErrNotExist; a localPath
// that names a directory is a *errs.ValidationError.
func (v *Volume) Download(ctx context.Context, localPath, key string, opts ...Option) (Entry, error) {
	set, err := v.transfer(key, localPath, opts)
	if err != nil {
		return Entry{}, err
	}
	dir, base := filepath.Split(localPath)
	if fi, err := os.Stat(localPath); base == "" || base == "." || base == ".." || err == nil && fi.IsDir() {
		return Entry{}, fail.Invalid("localPath", "%q is a directory; name the file to write", localPath)
	}
	if dir == "" {
		dir = "."
	}
	root, err := confine.Open(dir, true)
	if err != nil {
		return Entry{}, err
	}
	defer func() { _ = root.Close() }()
	return v.download(ctx, root, base, localPath, key, set)
}

// download copies the file of key to rel under root (its local path is
// path, for Progress), as Download describes.
func (v *Volume) download(ctx context.Context, root *confine.Dir, rel, path, key string, set settings) (Entry, error) {
	d := &download{v: v, key: key, path: path, set: set, dir: root, rel: rel, dirRel: filepath.Dir(rel), base: filepath.Base(rel)}
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
	v         *Volume
	key, path string
	// dir is the target directory; rel the destination under it, in
	// directory dirRel, named base.
	dir               *confine.Dir
	rel, dirRel, base string
	// tmp and journal are the paths under dir of the temporary file and
	// of the journal; journal is "" until one is written.
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
	// Temp is the name of the temporary file holding the ranges, in the
	// same directory.
	Temp string `json:"temp"`
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

// at is the path under d.dir of name, a file beside the destination.
func (d *download) at(name string) string { return filepath.Join(d.dirRel, name) }

// open opens the temporary file: the one an earlier run left, when a
// journal of it matches this run (marking its ranges done), else a new
// one. What else earlier runs left is removed.
func (d *download) open() error {
	left, err := d.leftovers()
	if err != nil {
		return err
	}
	d.tmp, d.journal = "", ""
	clear(d.done)
	if j, temp, done := d.resumable(left); j != "" {
		f, err := d.dir.OpenRegular(d.at(temp), os.O_RDWR)
		if err == nil {
			if fi, err := f.Stat(); err == nil && fi.Size() == d.obj.entry.Size {
				d.file, d.tmp, d.journal = f, d.at(temp), d.at(j)
				copy(d.done, done)
			} else {
				_ = f.Close()
			}
		}
	}
	for _, name := range left.names {
		if p := d.at(name); p != d.tmp && p != d.journal {
			if err := d.dir.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				d.v.debug("files: cannot remove what an earlier download left", "path", d.dir.Join(p), "error", err)
			}
		}
	}
	if d.file != nil {
		return nil
	}
	f, tmp, err := d.dir.CreateTemp(d.rel, downloadTag, 0o666)
	if err != nil {
		return err
	}
	if err := f.Truncate(d.obj.entry.Size); err != nil {
		_ = f.Close()
		_ = d.dir.Remove(tmp)
		return err
	}
	d.file, d.tmp = f, tmp
	return nil
}

// leftovers are the files earlier runs of a download left beside its
// destination, found by their names.
type leftovers struct {
	// names are every entry named as a temporary file or journal of the
	// destination, whatever its type (a directory excepted).
	names []string
	// temps and journals are those of them that are regular files.
	temps    map[string]bool
	journals []string
}

// leftovers lists the destination's directory for what earlier runs
// left. A link is listed in names only: it is never opened or followed.
func (d *download) leftovers() (leftovers, error) {
	l := leftovers{temps: map[string]bool{}}
	entries, err := d.dir.ReadDir(d.dirRel)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	for _, e := range entries {
		name := e.Name()
		tb, isTemp := confine.TempBase(name, downloadTag)
		jb, isJournal := confine.TempBase(name, journalTag)
		if !(isTemp && tb == d.base || isJournal && jb == d.base) || e.IsDir() {
			continue
		}
		l.names = append(l.names, name)
		switch {
		case !e.Type().IsRegular():
		case isTemp:
			l.temps[name] = true
		default:
			l.journals = append(l.journals, name)
		}
	}
	return l, nil
}

// resumable returns the journal to resume from, among those left: of
// those that match this run and name a temporary file left, the one with
// the most ranges done (a journal being written when a run stopped may
// have one more than the one it was to replace). It returns the
// journal's name, its temporary file's name and the ranges done; j is ""
// when none matches.
func (d *download) resumable(l leftovers) (j, temp string, done []bool) {
	want := journal{Key: d.key, ETag: d.obj.entry.ETag, Size: d.obj.entry.Size, PartSize: d.set.partSize}
	best := -1
	for _, name := range l.journals {
		b, err := d.readJournal(d.at(name))
		if err != nil {
			continue
		}
		got, t, ok := parseJournal(b, want, d.base, d.ranges)
		if !ok || !l.temps[t] {
			continue
		}
		if n := count(got); n > best {
			best, j, temp, done = n, name, t, got
		}
	}
	return j, temp, done
}

// count counts the true values of b.
func count(b []bool) int {
	n := 0
	for _, ok := range b {
		if ok {
			n++
		}
	}
	return n
}

// readJournal reads the journal at rel, a regular file (never through a
// link), up to maxJournal bytes.
func (d *download) readJournal(rel string) ([]byte, error) {
	f, err := d.dir.OpenRegular(rel, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxJournal+1))
	if err == nil && len(b) > maxJournal {
		err = fmt.Errorf("runpod: download journal %s is over %d bytes", d.dir.Join(rel), maxJournal)
	}
	return b, err
}

// parseJournal reads b, a journal found beside the destination base, and
// returns the ranges it lists done (of ranges) and the name of its
// temporary file; ok is false unless b is a journal of want (its key,
// ETag, size and part size) naming a temporary file of base, whose runs
// of ranges are all within ranges.
func parseJournal(b []byte, want journal, base string, ranges int) (done []bool, temp string, ok bool) {
	var j journal
	if json.Unmarshal(b, &j) != nil || j.Key != want.Key || j.ETag != want.ETag || j.Size != want.Size || j.PartSize != want.PartSize || ranges < 1 {
		return nil, "", false
	}
	if tb, ok := confine.TempBase(j.Temp, downloadTag); !ok || tb != base {
		return nil, "", false
	}
	done = make([]bool, ranges)
	for _, run := range j.Done {
		if run[0] < 0 || run[1] >= ranges || run[0] > run[1] {
			return nil, "", false
		}
		for i := run[0]; i <= run[1]; i++ {
			done[i] = true
		}
	}
	return done, j.Temp, true
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

// finished records range i as done, rewriting the journal. Nothing is
// forced to disk: the range's bytes and the journal are in the system's
// cache, which outlives the program.
func (d *download) finished(i int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.done[i] = true
	d.progress(true)
	if d.ranges == 1 {
		return nil
	}
	j := journal{Key: d.key, ETag: d.obj.entry.ETag, Size: d.obj.entry.Size, PartSize: d.set.partSize, Temp: filepath.Base(d.tmp)}
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
	return d.writeJournal(b)
}

// writeJournal writes b to a new journal file, created exclusively, and
// renames it over the journal (a link there is replaced, not followed);
// the first one written becomes the journal. d.mu is held.
func (d *download) writeJournal(b []byte) error {
	f, name, err := d.dir.CreateTemp(d.rel, journalTag, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && d.journal != "" {
		err = d.dir.Rename(name, d.journal)
	}
	if err != nil {
		_ = d.dir.Remove(name)
		return err
	}
	if d.journal == "" {
		d.journal = name
	}
	return nil
}

// finish closes the complete temporary file, gives it the remote file's
// modification time, renames it to its final name and removes the
// journal. A temporary file whose name no longer holds the file written
// (replaced by a link or another file meanwhile) is not renamed into
// place: that is an *errs.UnsafePathError.
func (d *download) finish() error {
	f := d.file
	d.file = nil
	fi, err := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := d.dir.Same(d.tmp, fi); err != nil {
		return err
	}
	if mt := d.obj.entry.ModTime; !mt.IsZero() {
		if err := d.dir.Chtimes(d.tmp, time.Time{}, mt); err != nil {
			return err
		}
	}
	if err := d.dir.Rename(d.tmp, d.rel); err != nil {
		return err
	}
	if err := d.dir.Same(d.rel, fi); err != nil {
		// The name was taken over between the check and the rename: what
		// was renamed into place is not the download's, and goes.
		_ = d.dir.Remove(d.rel)
		return err
	}
	if d.journal != "" {
		if err := d.dir.Remove(d.journal); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
