package files

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// IncompleteUploadError reports a multipart upload that stopped before it
// completed. Its finished parts stay on the platform (in the volume's
// hidden .s3compat_uploads folder, counting in its usage): the same
// Upload run again, in this process or after a restart, sends only the
// parts the platform lacks. AbortUploads drops them instead.
type IncompleteUploadError struct {
	Key       string // the object key being uploaded
	UploadID  string // the S3 id of the multipart upload
	PartsDone int    // how many parts the platform has
	Parts     int    // the file's number of parts; 0 while unknown (a reader of unknown size)
	Err       error  // why the upload stopped
}

// Error says how far the upload got, and that it can be resumed.
func (e *IncompleteUploadError) Error() string {
	of := ""
	if e.Parts > 0 {
		of = fmt.Sprintf(" of %d", e.Parts)
	}
	if errors.Is(e.Err, ErrUploadUnconfirmed) {
		return fmt.Sprintf("runpod: upload of %s not confirmed after %d%s parts sent (upload %s; run the same upload again: it resumes while the platform holds the parts, else starts over): %v",
			e.Key, e.PartsDone, of, e.UploadID, e.Err)
	}
	return fmt.Sprintf("runpod: upload of %s stopped with %d%s parts sent (upload %s, kept: run the same upload again to resume): %v",
		e.Key, e.PartsDone, of, e.UploadID, e.Err)
}

// ErrUploadUnconfirmed matches an *UnconfirmedUploadError: the platform
// answered a multipart upload complete, and reading the file back did not
// show it.
var ErrUploadUnconfirmed = errors.New("runpod: the platform answered the upload complete, but does not show the file")

// UnconfirmedUploadError reports a multipart upload the platform answered
// complete (CompleteMultipartUpload succeeded) whose file the read back
// that follows (a HEAD) does not show: no file at the key, or a file of
// another size or ETag; or the read back failed. The platform has been
// seen to answer a large upload complete and never store it.
//
// Upload returns it as the Err of an *IncompleteUploadError, so the
// handling of a stopped upload applies: the same Upload run again
// resumes while the platform still holds the parts, and starts over
// otherwise. Nothing is aborted. It matches ErrUploadUnconfirmed.
type UnconfirmedUploadError struct {
	Key      string // the object key uploaded
	UploadID string // the S3 id of the multipart upload
	Size     int64  // the size uploaded
	// ETag is the ETag the file should have: the one CompleteMultipartUpload
	// returned, else the one the parts give (either is accepted); "" when
	// neither is known (the size alone is checked).
	ETag string
	// Missing is set when the read back found no file at the key.
	Missing bool
	// Found is the file the read back found, when it differs from the
	// upload; nil otherwise.
	Found *Entry
	// Err is why the read back failed, when it failed other than with a
	// missing file.
	Err error
}

// Error says what the read back found.
func (e *UnconfirmedUploadError) Error() string {
	msg := fmt.Sprintf("runpod: upload of %s (upload %s) was answered complete, but ", e.Key, e.UploadID)
	switch {
	case e.Missing:
		return msg + "no file is at the key"
	case e.Found != nil:
		return msg + fmt.Sprintf("the file at the key has size %d and ETag %q, not size %d and ETag %q",
			e.Found.Size, e.Found.ETag, e.Size, e.ETag)
	}
	return msg + fmt.Sprintf("reading it back failed: %v", e.Err)
}

// Unwrap returns why the read back failed, if it did other than with a
// missing file.
func (e *UnconfirmedUploadError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUploadUnconfirmed.
func (e *UnconfirmedUploadError) Is(target error) bool { return target == ErrUploadUnconfirmed }

// Unwrap returns why the upload stopped.
func (e *IncompleteUploadError) Unwrap() error { return e.Err }

// Upload copies the local file at localPath to the volume as key,
// replacing what key held, and returns the new file's Entry (its
// ModTime is left zero: the platform sets it; Stat reads it).
//
// A file smaller than the multipart threshold (WithMultipartThreshold)
// goes as one PutObject; a larger one as a multipart upload of parts of
// WithPartSize (grown when the file would need more than MaxParts),
// WithConcurrency parts at a time, each read straight from the file, so
// memory does not grow with the file. A failed or stopped multipart
// upload returns an *IncompleteUploadError and keeps its parts: Upload
// of the same key run again (after a restart too) finds the upload,
// asks the platform which parts it has, compares each one's MD5 with the
// file, and sends only the missing or different parts. An upload that
// resumes keeps the part size it began with.
//
// A multipart upload is confirmed: once CompleteMultipartUpload answers
// success, Upload reads the key back (HEAD) and checks the file's size,
// and that its ETag is the one Complete returned or the one the parts
// give. A missing file, or one of another size
// or ETag, is an *UnconfirmedUploadError (matching ErrUploadUnconfirmed)
// inside an *IncompleteUploadError: nothing is aborted, and the same
// Upload run again resumes while the platform still holds the parts, or
// starts over. If CompleteMultipartUpload fails instead (the platform
// documents timeouts there for files of 10 GB or more), Upload reads the
// key back and accepts the file when its size and ETag are the ones the
// parts give. Progress reports the bytes the platform has, after each
// part. A bad key or localPath (a directory, a missing file) is an error
// before any request.
func (v *Volume) Upload(ctx context.Context, localPath, key string, opts ...Option) (Entry, error) {
	set, err := v.transfer(key, localPath, opts)
	if err != nil {
		return Entry{}, err
	}
	f, err := os.Open(localPath)
	if err != nil {
		return Entry{}, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, err
	}
	if !fi.Mode().IsRegular() {
		return Entry{}, fail.Invalid("localPath", "%q is not a regular file", localPath)
	}
	u := &upload{v: v, key: key, path: localPath, set: set, size: fi.Size(), file: f}
	return u.run(ctx)
}

// UploadFrom copies what r yields to the volume as key, as Upload does
// for a file. size is how many bytes r yields, or -1 when unknown: r is
// then read a part at a time, and sent as one PutObject if it ends before
// the multipart threshold. When r is an io.ReaderAt (an *os.File, a
// *bytes.Reader) of known size, parts are read from it in place;
// otherwise each part is read into memory, so memory stays within part
// size × (concurrency + 1).
//
// A stopped multipart upload resumes as Upload's does, when UploadFrom is
// called again with a reader of the same content: each part is read and
// its MD5 compared with what the platform has, and only the differing
// ones are sent. A multipart upload answered complete is read back and
// confirmed as Upload's is (*UnconfirmedUploadError). A reader yielding
// more or fewer bytes than size is an error.
func (v *Volume) UploadFrom(ctx context.Context, key string, r io.Reader, size int64, opts ...Option) (Entry, error) {
	if err := checkKey("key", key, false); err != nil {
		return Entry{}, err
	}
	if r == nil {
		return Entry{}, fail.Invalid("r", "is required")
	}
	if size < -1 {
		return Entry{}, fail.Invalid("size", "must be -1 (unknown) or more, got %d", size)
	}
	set, err := v.call(opts)
	if err != nil {
		return Entry{}, err
	}
	u := &upload{v: v, key: key, set: set, size: size, r: r}
	if ra, ok := r.(io.ReaderAt); ok && size >= 0 {
		u.file = ra
	}
	return u.run(ctx)
}

// maxUploadSize is the most an upload can hold: MaxParts parts of
// MaxPartSize.
const maxUploadSize = int64(MaxParts) * MaxPartSize

// upload is one call of Upload or UploadFrom.
type upload struct {
	v        *Volume
	key      string
	path     string // the local file, for Progress; "" for a reader
	set      settings
	size     int64       // -1 while unknown
	file     io.ReaderAt // parts are read from it in place; nil: from r
	r        io.Reader
	partSize int64

	uploadID string
	have     map[int32]types.Part // parts the platform had when the upload began

	mu        sync.Mutex // guards what follows, and serializes Progress
	etags     map[int32]string
	done      int64
	announced bool
}

// run sends the file as one put or as a multipart upload.
func (u *upload) run(ctx context.Context) (Entry, error) {
	if u.size > maxUploadSize {
		return Entry{}, fail.Invalid("size", "is %d bytes; an upload holds at most %d parts of %d bytes", u.size, MaxParts, MaxPartSize)
	}
	if u.size >= 0 && u.size < u.set.threshold {
		return u.put(ctx)
	}
	if u.size < 0 {
		// Read the first part: a reader that ends before the threshold
		// goes as one put.
		buf := make([]byte, u.set.partSize)
		n, err := io.ReadFull(u.r, buf)
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			u.size = int64(n)
			if u.size < u.set.threshold {
				u.r, u.file = nil, bytes.NewReader(buf[:n])
				return u.put(ctx)
			}
			u.file, u.r = bytes.NewReader(buf[:n]), nil
		case err != nil:
			return Entry{}, err
		default:
			u.r = io.MultiReader(bytes.NewReader(buf), u.r)
		}
	}
	return u.multipart(ctx)
}

// put sends the whole file as one PutObject.
func (u *upload) put(ctx context.Context) (Entry, error) {
	body, err := u.body(0, u.size)
	if err != nil {
		return Entry{}, err
	}
	u.progress(0)
	out, err := u.v.s3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(u.v.id), Key: aws.String(u.key), Body: body, ContentLength: aws.Int64(u.size),
	})
	if err != nil {
		return Entry{}, s3Error("PutObject", u.key, err)
	}
	u.progress(u.size)
	return Entry{Key: u.key, Size: u.size, ETag: strings.Trim(aws.ToString(out.ETag), `"`)}, nil
}

// body returns the bytes [off, off+n) of a file or ReaderAt in place, or
// the next n bytes of the reader read into memory, as a seekable body
// (the signer reads a body to hash it, then rewinds).
func (u *upload) body(off, n int64) (io.ReadSeeker, error) {
	if u.file != nil {
		return io.NewSectionReader(u.file, off, n), nil
	}
	buf := make([]byte, n)
	got, err := io.ReadFull(u.r, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if int64(got) != n {
		return nil, fmt.Errorf("runpod: upload of %s: the reader ended at byte %d of %d", u.key, off+int64(got), u.size)
	}
	return bytes.NewReader(buf), nil
}

// multipart sends the file as a multipart upload, resuming one the
// platform holds for the key.
func (u *upload) multipart(ctx context.Context) (Entry, error) {
	u.partSize = partSizeFor(u.size, u.set.partSize)
	if err := u.resume(ctx); err != nil {
		return Entry{}, err
	}
	if u.uploadID == "" {
		out, err := u.v.s3.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(u.v.id), Key: aws.String(u.key)})
		if err != nil {
			return Entry{}, s3Error("CreateMultipartUpload", u.key, err)
		}
		u.uploadID = aws.ToString(out.UploadId)
	}
	u.etags = map[int32]string{}
	u.progress(0)
	if err := u.sendParts(ctx); err != nil {
		return Entry{}, u.incomplete(err)
	}
	etag, err := u.complete(ctx)
	if err != nil {
		return Entry{}, u.incomplete(err)
	}
	return Entry{Key: u.key, Size: u.size, ETag: etag}, nil
}

// partSizeFor is the part size of a multipart upload of size bytes (-1:
// unknown): partSize, grown to fit MaxParts parts.
func partSizeFor(size, partSize int64) int64 {
	if need := (size + MaxParts - 1) / MaxParts; need > partSize {
		return need
	}
	return partSize
}

// resume finds the newest multipart upload the platform holds for the
// key and the parts it has, and takes its part size when they show one
// that fits the file.
func (u *upload) resume(ctx context.Context) error {
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(u.v.id), Prefix: aws.String(u.key)}
	var newest *types.MultipartUpload
	for {
		out, err := u.v.s3.ListMultipartUploads(ctx, in)
		if err != nil {
			return s3Error("ListMultipartUploads", u.key, err)
		}
		for i, up := range out.Uploads {
			if aws.ToString(up.Key) == u.key && (newest == nil || aws.ToTime(up.Initiated).After(aws.ToTime(newest.Initiated))) {
				newest = &out.Uploads[i]
			}
		}
		if !aws.ToBool(out.IsTruncated) || out.NextKeyMarker == nil && out.NextUploadIdMarker == nil {
			break
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
	if newest == nil {
		return nil
	}
	u.uploadID = aws.ToString(newest.UploadId)
	u.have = map[int32]types.Part{}
	pin := &s3.ListPartsInput{Bucket: aws.String(u.v.id), Key: aws.String(u.key), UploadId: newest.UploadId}
	for {
		out, err := u.v.s3.ListParts(ctx, pin)
		if err != nil {
			return s3Error("ListParts", u.key, err)
		}
		for _, p := range out.Parts {
			u.have[aws.ToInt32(p.PartNumber)] = p
		}
		if !aws.ToBool(out.IsTruncated) || out.NextPartNumberMarker == nil {
			break
		}
		pin.PartNumberMarker = out.NextPartNumberMarker
	}
	if ps := u.partSizeFromParts(); ps > 0 {
		u.partSize = ps
	}
	u.v.debug("files: resuming a multipart upload", "key", u.key, "upload", u.uploadID, "parts", len(u.have))
	return nil
}

// partSizeFromParts returns the part size the platform's parts show (the
// largest of them), or 0 when it does not fit the file: out of bounds,
// or some part not of the size it would have.
func (u *upload) partSizeFromParts() int64 {
	var ps int64
	for _, p := range u.have {
		ps = max(ps, aws.ToInt64(p.Size))
	}
	if ps < MinPartSize || ps > MaxPartSize || u.size >= 0 && (u.size+ps-1)/ps > MaxParts {
		return 0
	}
	if u.size >= 0 {
		for n, p := range u.have {
			if want := min(ps, u.size-int64(n-1)*ps); aws.ToInt64(p.Size) != want {
				return 0
			}
		}
	}
	return ps
}

// parts returns the number of parts of the file; 0 while unknown.
func (u *upload) parts() int {
	if u.size < 0 {
		return 0
	}
	return max(1, int((u.size+u.partSize-1)/u.partSize))
}

// uploadPart is one part to send: its number, body and size.
type uploadPart struct {
	num  int32
	off  int64
	size int64
	body io.ReadSeeker
}

// sendParts sends the parts the platform lacks, set.concurrency at a
// time; the first failure stops the others.
func (u *upload) sendParts(ctx context.Context) error {
	inner, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan uploadPart)
	var wg sync.WaitGroup
	for range u.set.concurrency {
		wg.Go(func() {
			for p := range next {
				if err := u.sendPart(inner, p); err != nil {
					cancel(err)
					// Drain, so the feeder never blocks.
					for range next {
					}
					return
				}
			}
		})
	}
	feedErr := u.feed(inner, next)
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("runpod: upload of %s stopped: %w", u.key, err)
	}
	if err := context.Cause(inner); err != nil {
		return err
	}
	return feedErr
}

// feed hands the parts to the senders in order, reading them from the
// reader when there is no file; with a reader of unknown size it learns
// the size at the reader's end.
func (u *upload) feed(ctx context.Context, next chan<- uploadPart) error {
	for num := int32(1); ; num++ {
		off := int64(num-1) * u.partSize
		if u.size >= 0 && off >= u.size && num > 1 {
			return nil
		}
		if int(num) > MaxParts {
			return fmt.Errorf("runpod: upload of %s: the reader yields more than %d parts of %d bytes", u.key, MaxParts, u.partSize)
		}
		p := uploadPart{num: num, off: off}
		if u.size >= 0 {
			p.size = min(u.partSize, u.size-off)
			body, err := u.body(off, p.size)
			if err != nil {
				return err
			}
			p.body = body
		} else {
			buf := make([]byte, u.partSize)
			n, err := io.ReadFull(u.r, buf)
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				return err
			}
			if n == 0 && num > 1 {
				u.mu.Lock()
				u.size = off
				u.mu.Unlock()
				return nil
			}
			p.size, p.body = int64(n), bytes.NewReader(buf[:n])
			if int64(n) < u.partSize {
				u.mu.Lock()
				u.size = off + int64(n)
				u.mu.Unlock()
			}
		}
		select {
		case next <- p:
		case <-ctx.Done():
			return nil
		}
	}
}

// sendPart sends part p, unless the platform has it already with the
// same size and MD5.
func (u *upload) sendPart(ctx context.Context, p uploadPart) error {
	if had, ok := u.have[p.num]; ok && aws.ToInt64(had.Size) == p.size {
		sum, err := md5Of(p.body)
		if err != nil {
			return err
		}
		if etag := strings.Trim(aws.ToString(had.ETag), `"`); strings.EqualFold(etag, sum) {
			u.finished(p, etag)
			return nil
		}
	}
	out, err := u.v.s3.UploadPart(ctx, &s3.UploadPartInput{
		Bucket: aws.String(u.v.id), Key: aws.String(u.key), UploadId: aws.String(u.uploadID),
		PartNumber: aws.Int32(p.num), Body: p.body, ContentLength: aws.Int64(p.size),
	})
	if err != nil {
		return s3Error("UploadPart", u.key, err)
	}
	u.finished(p, strings.Trim(aws.ToString(out.ETag), `"`))
	return nil
}

// finished records part p as on the platform with etag.
func (u *upload) finished(p uploadPart, etag string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.etags[p.num] = etag
	u.progressLocked(u.done + p.size)
}

// complete completes the upload and returns the file's ETag. When the
// platform's answer fails, the key is read back: a file whose ETag is the
// one these parts give was completed.
func (u *upload) complete(ctx context.Context) (string, error) {
	nums := make([]int32, 0, len(u.etags))
	for n := range u.etags {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	parts := make([]types.CompletedPart, len(nums))
	for i, n := range nums {
		parts[i] = types.CompletedPart{PartNumber: aws.Int32(n), ETag: aws.String(`"` + u.etags[n] + `"`)}
	}
	out, err := u.v.s3.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(u.v.id), Key: aws.String(u.key), UploadId: aws.String(u.uploadID),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	})
	want, ok := multipartETag(nums, u.etags)
	if err == nil {
		answered := strings.Trim(aws.ToString(out.ETag), `"`)
		if !ok {
			want = ""
		}
		return u.confirm(ctx, answered, want)
	}
	err = s3Error("CompleteMultipartUpload", u.key, err)
	if !ok || ctx.Err() != nil {
		return "", err
	}
	if obj, headErr := u.v.head(ctx, u.key); headErr == nil && strings.EqualFold(obj.entry.ETag, want) && obj.entry.Size == u.size {
		u.v.debug("files: CompleteMultipartUpload failed, but the file is complete", "key", u.key, "error", err)
		return obj.entry.ETag, nil
	}
	return "", err
}

// confirm reads the file back after the platform answered the upload
// complete, and returns its ETag: a file of the upload's size whose ETag
// is the one Complete answered or the one the parts give (when either is
// known) confirms it; anything else is an *UnconfirmedUploadError.
func (u *upload) confirm(ctx context.Context, answered, fromParts string) (string, error) {
	obj, err := u.v.head(ctx, u.key)
	e := &UnconfirmedUploadError{Key: u.key, UploadID: u.uploadID, Size: u.size, ETag: cmp.Or(answered, fromParts)}
	known := answered != "" || fromParts != ""
	sameETag := answered != "" && strings.EqualFold(obj.entry.ETag, answered) || fromParts != "" && strings.EqualFold(obj.entry.ETag, fromParts)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.Missing = true
	case err != nil:
		e.Err = err
	case obj.entry.Size != u.size || known && !sameETag:
		e.Found = &obj.entry
	default:
		return obj.entry.ETag, nil
	}
	u.v.debug("files: the platform answered the upload complete, but the read back does not show it", "key", u.key, "upload", u.uploadID, "error", e)
	return "", e
}

// incomplete wraps err in an *IncompleteUploadError.
func (u *upload) incomplete(err error) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return &IncompleteUploadError{Key: u.key, UploadID: u.uploadID, PartsDone: len(u.etags), Parts: u.parts(), Err: err}
}

// progress reports done bytes of the file.
func (u *upload) progress(done int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.progressLocked(done)
}

// progressLocked reports done bytes, the first time and when they grew;
// u.mu is held.
func (u *upload) progressLocked(done int64) {
	grew := done != u.done
	u.done = done
	if u.set.progress == nil || u.announced && !grew {
		return
	}
	u.announced = true
	u.set.progress(ProgressEvent{File: u.key, Path: u.path, Done: done, Total: u.size})
}

// AbortUploads aborts the multipart uploads the platform holds for keys
// starting with prefix ("" for the whole volume), left by uploads that
// failed or were stopped, and returns how many it aborted. Their parts
// are deleted and can no longer be resumed. A bad prefix is a
// *errs.ValidationError before any request.
func (v *Volume) AbortUploads(ctx context.Context, prefix string) (int, error) {
	if err := checkPrefix("prefix", prefix); err != nil {
		return 0, err
	}
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(v.id)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	var uploads []types.MultipartUpload
	for {
		out, err := v.s3.ListMultipartUploads(ctx, in)
		if err != nil {
			return 0, s3Error("ListMultipartUploads", prefix, err)
		}
		uploads = append(uploads, out.Uploads...)
		if !aws.ToBool(out.IsTruncated) || out.NextKeyMarker == nil && out.NextUploadIdMarker == nil {
			break
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
	aborted := 0
	for _, up := range uploads {
		_, err := v.s3.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(v.id), Key: up.Key, UploadId: up.UploadId})
		// An upload gone meanwhile (completed or aborted by another
		// caller) needs no abort.
		if err := s3Error("AbortMultipartUpload", aws.ToString(up.Key), err); err != nil && !errors.Is(err, errs.ErrNotFound) {
			return aborted, err
		}
		aborted++
	}
	return aborted, nil
}
