package files

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Delete deletes the files of keys, one DeleteObject each (the platform
// has no DeleteObjects), WithConcurrency at a time. A key ending in "/"
// deletes an empty directory. A key that is already gone is no error, as
// in S3. Every key is tried until ctx ends: the error joins the
// failures, each an *S3Error naming its key. Bad keys are a *errs.ValidationError before
// any request.
func (v *Volume) Delete(ctx context.Context, keys []string, opts ...Option) error {
	for _, k := range keys {
		if err := checkKey("keys", k, true); err != nil {
			return err
		}
	}
	set, err := v.call(opts)
	if err != nil {
		return err
	}
	failed := make([]error, len(keys))
	_ = parallel(ctx, len(keys), set.concurrency, false, func(ctx context.Context, i int) error {
		failed[i] = v.deleteOne(ctx, keys[i])
		return nil
	})
	if err := ctx.Err(); err != nil {
		failed = append(failed, fmt.Errorf("runpod: delete stopped: %w", err))
	}
	return errors.Join(failed...)
}

// deleteOne sends one DeleteObject.
func (v *Volume) deleteOne(ctx context.Context, key string) error {
	_, err := v.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(v.id), Key: aws.String(key)})
	return s3Error("DeleteObject", key, err)
}

// MoveError reports a Move whose copy was made but whose source could
// not be deleted: the file is at both keys.
type MoveError struct {
	// From and To are the keys: the file is now at both.
	From, To string
	// Err is why the delete of From failed.
	Err error
}

// Error says the file was copied and not deleted.
func (e *MoveError) Error() string {
	return "runpod: move of " + e.From + " to " + e.To + ": copied, but the original could not be deleted: " + e.Err.Error()
}

// Unwrap returns why the delete failed.
func (e *MoveError) Unwrap() error { return e.Err }

// Move renames the file of key from to key to on the volume, replacing
// what to held: a CopyObject on the platform (the bytes do not travel
// through this machine), then a DeleteObject of from. If the copy fails
// nothing changed; if the delete fails the error is a *MoveError and the
// file is at both keys. It returns the Entry of to (its ETag and
// modification time). Bad or equal keys are a *errs.ValidationError
// before any request.
func (v *Volume) Move(ctx context.Context, from, to string) (Entry, error) {
	if err := checkKey("from", from, false); err != nil {
		return Entry{}, err
	}
	if err := checkKey("to", to, false); err != nil {
		return Entry{}, err
	}
	if from == to {
		return Entry{}, fail.Invalid("to", "is the same key as from (%q)", from)
	}
	out, err := v.s3.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket: aws.String(v.id), Key: aws.String(to), CopySource: aws.String(copySource(v.id, from)),
	})
	if err != nil {
		return Entry{}, s3Error("CopyObject", to, err)
	}
	e := Entry{Key: to}
	if r := out.CopyObjectResult; r != nil {
		e.ETag, e.ModTime = strings.Trim(aws.ToString(r.ETag), `"`), aws.ToTime(r.LastModified)
	}
	if err := v.deleteOne(ctx, from); err != nil {
		return e, &MoveError{From: from, To: to, Err: err}
	}
	if st, err := v.Stat(ctx, to); err == nil {
		e = st
	}
	return e, nil
}

// copySource is the x-amz-copy-source of key in bucket: "bucket/key",
// each segment of the key URL-encoded (S3 takes it encoded; a '#', '?' or
// '%' in a name would otherwise change what is copied).
func copySource(bucket, key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return bucket + "/" + strings.Join(segs, "/")
}
