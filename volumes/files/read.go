package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/wait"
)

// rangeAttempts is how many times in a row a read asks again for the
// rest of its range when the body is cut short without a byte coming
// through. The AWS retryer retries a failed request; a body that stops
// halfway through a 200 answer (which the platform documents as "EOF
// errors with 200 OK responses") is this package's to resume.
const rangeAttempts = 5

// Read opens the file of key for reading n bytes from byte off (n < 0:
// to the end of the file). The first request is made before Read
// returns, so a missing key (an error matching fs.ErrNotExist) or an
// offset past the end (an *S3Error, 416 InvalidRange) is Read's error.
//
// The reader reads one version of the file: when a body is cut short it
// asks again for the rest, naming that version (If-Match on its ETag), a
// few times with the client's backoff between; a file replaced meanwhile
// ends the read with an *S3Error of status 412. Close the reader to free
// its connection. A bad key, a negative off or n == 0 is a
// *errs.ValidationError before any request.
func (v *Volume) Read(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	if err := checkKey("key", key, false); err != nil {
		return nil, err
	}
	if off < 0 {
		return nil, fail.Invalid("off", "must not be negative, got %d", off)
	}
	if n == 0 {
		return nil, fail.Invalid("n", "must be positive, or negative for the rest of the file; got 0")
	}
	r := &rangeReader{v: v, ctx: ctx, key: key, off: off, end: -1, size: -1}
	if n > 0 {
		r.end = off + n
	}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

// rangeReader reads bytes [off, end) of one version of a file, asking
// again for the rest when a body is cut short. end < 0 means to the end
// of the file, learnt from the first answer; size, when known (>= 0), is
// the file's size, so a range that covers it is asked for without a
// Range header.
type rangeReader struct {
	v         *Volume
	ctx       context.Context
	key, etag string
	off, end  int64
	size      int64
	body      io.ReadCloser
	fails     int
	err       error
}

// open sends the GetObject for what is left of the range.
func (r *rangeReader) open() error {
	in := &s3.GetObjectInput{Bucket: aws.String(r.v.id), Key: aws.String(r.key)}
	if r.etag != "" {
		in.IfMatch = aws.String(r.etag)
	}
	ranged := r.off > 0 || r.end >= 0 && r.end != r.size
	if ranged {
		spec := fmt.Sprintf("bytes=%d-", r.off)
		if r.end >= 0 {
			spec += fmt.Sprint(r.end - 1)
		}
		in.Range = aws.String(spec)
	}
	out, err := r.v.s3.GetObject(r.ctx, in)
	if err != nil {
		return s3Error("GetObject", r.key, err)
	}
	if got := aws.ToString(out.ContentRange); ranged && !strings.HasPrefix(got, fmt.Sprintf("bytes %d-", r.off)) {
		_ = out.Body.Close()
		return &S3Error{Op: "GetObject", Key: r.key, Err: fmt.Errorf("asked for %s, got Content-Range %q", aws.ToString(in.Range), got)}
	}
	if r.etag == "" {
		r.etag = aws.ToString(out.ETag)
	}
	if r.end < 0 {
		if out.ContentLength == nil {
			_ = out.Body.Close()
			return &S3Error{Op: "GetObject", Key: r.key, Err: errors.New("the answer has no Content-Length")}
		}
		r.end = r.off + *out.ContentLength
	}
	r.body = out.Body
	return nil
}

// Read reads from the body, asking again for the rest of the range when
// the body ends early or fails.
func (r *rangeReader) Read(p []byte) (int, error) {
	for {
		switch {
		case r.err != nil:
			return 0, r.err
		case r.off >= r.end:
			return 0, io.EOF
		case r.body == nil:
			if err := r.open(); err != nil {
				r.err = err
				return 0, err
			}
		}
		n, err := r.body.Read(p[:min(int64(len(p)), r.end-r.off)])
		r.off += int64(n)
		if err == nil || r.off >= r.end {
			return n, nil
		}
		_ = r.body.Close()
		r.body = nil
		if n > 0 {
			r.fails = 0
		}
		if err := r.retry(err); err != nil {
			r.err = err
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// retry decides whether a body cut short by err is asked again for,
// pausing first; it returns the error that ends the read otherwise.
func (r *rangeReader) retry(err error) error {
	if ctxErr := r.ctx.Err(); ctxErr != nil {
		return fmt.Errorf("runpod: S3 GetObject %s: %w", r.key, ctxErr)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	r.fails++
	if r.fails >= rangeAttempts {
		return &S3Error{Op: "GetObject", Key: r.key, Err: fmt.Errorf("body cut short at byte %d of %d, %d times: %w", r.off, r.end, r.fails, err)}
	}
	r.v.debug("files: a body was cut short; asking for the rest", "key", r.key, "offset", r.off, "error", err)
	if err := wait.Sleep(r.ctx, r.v.wait.delay(r.fails-1)); err != nil {
		return fmt.Errorf("runpod: S3 GetObject %s: %w", r.key, err)
	}
	return nil
}

// errClosed is what a read after Close returns.
var errClosed = errors.New("runpod: read of a closed file")

// Close closes the body being read, if any; later reads fail.
func (r *rangeReader) Close() error {
	if r.err == nil {
		r.err = errClosed
	}
	if r.body == nil {
		return nil
	}
	err := r.body.Close()
	r.body = nil
	return err
}
