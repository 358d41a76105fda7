package files

import (
	"github.com/runpodkit/runpod-go/internal/fail"
)

// Defaults of transfers.
const (
	// DefaultPartSize is the size of the parts of a multipart upload and
	// of the ranges of a download (64 MiB).
	DefaultPartSize = 64 << 20
	// DefaultMultipartThreshold is the size from which an upload is sent
	// in parts (64 MiB); smaller files go as one PutObject.
	DefaultMultipartThreshold = 64 << 20
	// DefaultConcurrency is how many parts, files or deletes are in
	// flight at once.
	DefaultConcurrency = 4
	// MinPartSize is the smallest part size WithPartSize takes (1 MiB).
	MinPartSize = 1 << 20
	// MaxConcurrency bounds WithConcurrency.
	MaxConcurrency = 64
)

// Option tunes a Volume (given to New or volumes.Service.Files, it sets
// the defaults of every call) or one call. An option a call has no use
// for is ignored: WithPartSize by Delete, DryRun by Upload.
type Option func(*settings) error

// settings is what the options set.
type settings struct {
	partSize    int64
	threshold   int64
	concurrency int
	progress    Progress
	dryRun      bool
	checksums   bool
	deleteExtra bool
	recursive   bool
}

func defaultSettings() settings {
	return settings{partSize: DefaultPartSize, threshold: DefaultMultipartThreshold, concurrency: DefaultConcurrency, recursive: true}
}

// with returns s with opts applied.
func (s settings) with(opts []Option) (settings, error) {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return settings{}, err
		}
	}
	return s, nil
}

// call returns the volume's defaults with a call's options applied.
func (v *Volume) call(opts []Option) (settings, error) { return v.defaults.with(opts) }

// transfer checks the arguments of a transfer between key and a local
// file, and returns the call's settings.
func (v *Volume) transfer(key, localPath string, opts []Option) (settings, error) {
	if err := checkKey("key", key, false); err != nil {
		return settings{}, err
	}
	if localPath == "" {
		return settings{}, fail.Invalid("localPath", "is required")
	}
	return v.call(opts)
}

// WithPartSize sets the size of the parts of a multipart upload and of the
// ranges a download fetches, from MinPartSize to MaxPartSize (default
// DefaultPartSize). Memory held by a transfer is at most part size ×
// concurrency. An upload too large for MaxParts parts of this size uses
// larger parts; an upload that resumes keeps the part size it began with.
func WithPartSize(n int64) Option {
	return within("WithPartSize", n, MinPartSize, MaxPartSize, func(s *settings) { s.partSize = n })
}

// WithMultipartThreshold sets the size from which an upload is sent as a
// multipart upload (default DefaultMultipartThreshold); it is at most
// MaxPutSize, the platform's limit for one PutObject.
func WithMultipartThreshold(n int64) Option {
	return within("WithMultipartThreshold", n, 1, MaxPutSize, func(s *settings) { s.threshold = n })
}

// WithConcurrency sets how many parts of a transfer, files of a Sync or
// keys of a Delete are in flight at once, from 1 to MaxConcurrency
// (default DefaultConcurrency).
func WithConcurrency(n int) Option {
	return within("WithConcurrency", int64(n), 1, MaxConcurrency, func(s *settings) { s.concurrency = n })
}

// within is an option that applies set when n is from lo to hi, and is
// a *errs.ValidationError naming field otherwise.
func within(field string, n, lo, hi int64, set func(*settings)) Option {
	return func(s *settings) error {
		if n < lo || n > hi {
			return fail.Invalid(field, "must be from %d to %d, got %d", lo, hi, n)
		}
		set(s)
		return nil
	}
}

// always is an option that applies set.
func always(set func(*settings)) Option {
	return func(s *settings) error {
		set(s)
		return nil
	}
}

// WithProgress reports the progress of transfers to fn (see Progress).
func WithProgress(fn Progress) Option { return always(func(s *settings) { s.progress = fn }) }

// DryRun makes Sync report what it would do, and do nothing.
func DryRun() Option { return always(func(s *settings) { s.dryRun = true }) }

// CompareChecksums makes Sync compare files by content (their MD5 against
// the S3 ETag) rather than by size and modification time. It reads every
// local file that has a counterpart of the same size.
func CompareChecksums() Option { return always(func(s *settings) { s.checksums = true }) }

// DeleteExtra makes Sync delete what the destination has and the source
// does not. Without it, Sync only adds and replaces.
func DeleteExtra() Option { return always(func(s *settings) { s.deleteExtra = true }) }

// NonRecursive makes List stop at the prefix's directory: files directly
// in it, and its subdirectories as Entry.Dir entries.
func NonRecursive() Option { return always(func(s *settings) { s.recursive = false }) }

// Progress receives the progress of a transfer. Calls for one Volume call
// are never concurrent: a callback needs no lock of its own, and should
// return quickly.
type Progress func(ProgressEvent)

// ProgressEvent is the progress of one file.
type ProgressEvent struct {
	// File is the object key being transferred.
	File string
	// Path is the local file, empty for a reader or a remote read.
	Path string
	// Done is how many bytes of the file are transferred, including what
	// an earlier, interrupted transfer left done.
	Done int64
	// Total is the file's size; -1 while unknown.
	Total int64
}
