package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/version"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// Limits of the platform's S3 API.
const (
	// MaxPutSize bounds a single PutObject: the platform takes bodies
	// under 500 MB; larger files are sent as multipart uploads.
	MaxPutSize = 500 * 1000 * 1000
	// MaxPartSize is the largest part of a multipart upload (500 MB).
	MaxPartSize = 500 * 1000 * 1000
	// MaxParts is the most parts one multipart upload may have, as in S3.
	MaxParts = 10000
	// MaxAttempts is how many times a request is tried before it fails:
	// the platform advises 10 for the 502 answers seen during transfers.
	MaxAttempts = 10
)

// DataCenters returns the data centers whose network volumes the S3 API
// serves, as the platform documents them, in a new slice the caller may
// change.
func DataCenters() []string { return slices.Clone(s3DataCenters) }

// HasS3API reports whether the S3 API serves the network volumes of data
// center dataCenter, an id such as "EU-RO-1" (case and surrounding white
// space ignored).
func HasS3API(dataCenter string) bool {
	return slices.Contains(s3DataCenters, strings.ToUpper(strings.TrimSpace(dataCenter)))
}

// s3DataCenters are the data centers DataCenters returns.
var s3DataCenters = []string{
	"EU-CZ-1", "EU-RO-1", "EUR-IS-1", "EUR-NO-1",
	"US-CA-2", "US-GA-2", "US-IL-1", "US-KS-2", "US-MD-1", "US-MO-1", "US-MO-2",
	"US-NC-1", "US-NC-2", "US-NE-1", "US-WA-1",
}

// ErrNoS3API matches a *DataCenterError: the volume's data center has no
// S3 API.
var ErrNoS3API = errors.New("runpod: the data center has no S3 API")

// ErrNoS3Credentials reports that no S3 API key was configured.
var ErrNoS3Credentials = errors.New("runpod: no S3 API key: pass option.WithS3Credentials, or set " +
	option.EnvS3AccessKey + " and " + option.EnvS3SecretKey + " (or " + option.EnvAWSAccessKeyID + " and " +
	option.EnvAWSSecretAccessKey + "); the S3 API key is made in the console's settings and is not the API key")

// DataCenterError reports a volume in a data center without the S3 API.
// It matches ErrNoS3API.
type DataCenterError struct {
	// VolumeID is the volume's id.
	VolumeID string
	// DataCenter is the volume's data center.
	DataCenter string
}

// Error names the volume, its data center and the data centers that have
// the S3 API.
func (e *DataCenterError) Error() string {
	return fmt.Sprintf("runpod: network volume %s is in data center %s, which has no S3 API (it serves %s)",
		e.VolumeID, e.DataCenter, strings.Join(s3DataCenters, ", "))
}

// Is reports whether target is ErrNoS3API.
func (e *DataCenterError) Is(target error) bool { return target == ErrNoS3API }

// Volume is the files of one network volume. Its methods are safe for
// concurrent use. Get one with Service.Volume, or New.
type Volume struct {
	id, dc, endpoint string
	s3               *s3.Client
	defaults         settings
	log              *slog.Logger
	// wait is the client's backoff, for the pauses the package makes
	// itself (a listing's repeated token, a body cut short).
	wait backoff
}

// New returns the files of volume volumeID in data center dataCenter,
// reached with cfg's S3 endpoint (Config.S3Endpoint) and S3 API key; opts
// become the defaults of every call. It sends nothing: a data center
// without the S3 API is a *DataCenterError, a missing key
// ErrNoS3Credentials, a bad id or option a *errs.ValidationError.
// Service.Volume finds the data center itself.
func New(cfg option.Config, volumeID, dataCenter string, opts ...Option) (*Volume, error) {
	if err := checkVolumeID(volumeID); err != nil {
		return nil, err
	}
	if !HasS3API(dataCenter) {
		return nil, &DataCenterError{VolumeID: volumeID, DataCenter: dataCenter}
	}
	dataCenter = strings.ToUpper(strings.TrimSpace(dataCenter))
	if err := cfg.Validate(); err != nil && !errors.Is(err, errs.ErrNoAPIKey) {
		return nil, err
	}
	if cfg.S3AccessKey == "" || cfg.S3SecretKey.Reveal() == "" {
		return nil, ErrNoS3Credentials
	}
	set, err := defaultSettings().with(opts)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	minWait, maxWait := cfg.RetryWaitMin, cfg.RetryWaitMax
	if minWait <= 0 {
		minWait = option.DefaultRetryWaitMin
	}
	if maxWait <= 0 {
		maxWait = option.DefaultRetryWaitMax
	}
	v := &Volume{id: volumeID, dc: dataCenter, endpoint: cfg.S3Endpoint(dataCenter), defaults: set, log: cfg.Logger, wait: backoff{min: minWait, max: maxWait}}
	sec := cfg.S3SecretKey
	httpc := &hooked{base: hc, mw: slices.Clone(cfg.Middleware), hooks: slices.Clone(cfg.AttemptHooks), secret: func() string { return sec.Reveal() }}
	v.s3 = s3.New(s3.Options{
		Region:       dataCenter,
		BaseEndpoint: aws.String(v.endpoint),
		UsePathStyle: true,
		Credentials:  credentials{id: cfg.S3AccessKey, secret: cfg.S3SecretKey},
		HTTPClient:   httpc,
		AppID:        strings.ReplaceAll(version.UserAgent("runpod-go", cfg.UserAgent), " ", "_"),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = MaxAttempts
			o.RateLimiter = ratelimit.None
			o.Backoff = v.wait
			// The platform documents intermittent AccessDenied answers
			// during transfers; a wrong key is SignatureDoesNotMatch or
			// InvalidAccessKeyId, which are not retried.
			o.Retryables = append(slices.Clip(o.Retryables), retry.RetryableErrorCode{Codes: map[string]struct{}{"AccessDenied": {}}})
		}),
		// The platform's S3 API computes MD5 ETags; CRC trailers in
		// aws-chunked bodies are sent only where S3 requires them.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	return v, nil
}

// ID returns the volume's id, the bucket name.
func (v *Volume) ID() string { return v.id }

// DataCenter returns the volume's data center id, the S3 region.
func (v *Volume) DataCenter() string { return v.dc }

// Endpoint returns the S3 endpoint the volume is reached through.
func (v *Volume) Endpoint() string { return v.endpoint }

// String describes the volume without its credentials.
func (v *Volume) String() string { return "files.Volume{" + v.id + " in " + v.dc + "}" }

// GoString is String, so %#v shows no credential.
func (v *Volume) GoString() string { return v.String() }

// Format prints String for every verb, so no verb shows a credential.
func (v *Volume) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(v.String())) }

// LogValue logs the volume's id and data center only.
func (v *Volume) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", v.id), slog.String("data_center", v.dc))
}

// MarshalJSON encodes the volume's id, data center and endpoint only.
func (v *Volume) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"id":%q,"dataCenter":%q,"endpoint":%q}`, v.id, v.dc, v.endpoint), nil
}

// credentials hands the S3 API key to the AWS signer, keeping the secret
// redacted everywhere else.
type credentials struct {
	id     string
	secret secret.String
}

// Retrieve returns the key for one signature.
func (c credentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: c.id, SecretAccessKey: c.secret.Reveal(), Source: "runpod-go"}, nil
}

// backoff is the client's retry backoff (option.WithBackoff): exponential
// with full jitter, the same wait the rest of the SDK uses between tries.
type backoff struct{ min, max time.Duration }

// BackoffDelay returns the wait before try attempt+1, for the AWS
// retryer.
func (b backoff) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	return b.delay(attempt), nil
}

// delay returns the wait before try attempt+1.
func (b backoff) delay(attempt int) time.Duration { return wait.Backoff(b.min, b.max, attempt) }

// debug logs a debug line about the volume when the client has a logger.
func (v *Volume) debug(msg string, args ...any) {
	if v.log != nil {
		v.log.Debug(msg, append([]any{"volume", v.id}, args...)...)
	}
}

// S3Error reports an S3 request that failed: the platform's answer
// (StatusCode, Code, Message) or, with StatusCode 0, no answer at all (Err
// says why). A 2xx answer whose body did not decode as the S3 answer it
// should be (a listing holding a key no XML can carry, a proxy's HTML
// page) has the status it came with, no Code, and an Err holding the
// decode failure (a *smithy.DeserializationError), which Error names. A
// missing key matches fs.ErrNotExist and errs.ErrNotFound; a refused key
// errs.ErrForbidden.
type S3Error struct {
	Op         string // the S3 operation, such as "GetObject"
	Key        string // the object key; for a listing, its prefix
	StatusCode int    // the HTTP status of the answer; 0 when none came
	Code       string // the S3 error code, such as "NoSuchKey" or "SlowDown"
	Message    string // the S3 error message
	RequestID  string // the platform's request id, when it sent one
	Err        error  // the underlying error
}

// Error names the operation, the key, the status and the S3 code.
func (e *S3Error) Error() string {
	var b strings.Builder
	b.WriteString("runpod: S3 ")
	b.WriteString(e.Op)
	if e.Key != "" {
		b.WriteString(" ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	var de *smithy.DeserializationError
	switch {
	case success(e.StatusCode) && errors.As(e.Err, &de):
		cause := error(de)
		if de.Err != nil {
			cause = de.Err
		}
		fmt.Fprintf(&b, "the %d answer did not decode: %v", e.StatusCode, cause)
	case e.StatusCode != 0:
		fmt.Fprintf(&b, "%d %s", e.StatusCode, e.Code)
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *S3Error) Unwrap() error { return e.Err }

// Is matches fs.ErrNotExist and errs.ErrNotFound for a missing key or
// upload, errs.ErrForbidden for a 403.
func (e *S3Error) Is(target error) bool {
	switch target {
	case fs.ErrNotExist, errs.ErrNotFound:
		return e.StatusCode == http.StatusNotFound || e.Code == "NoSuchKey" || e.Code == "NotFound" || e.Code == "NoSuchUpload"
	case errs.ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	}
	return false
}

// s3Error types err, a failure of op on key; a context's end passes
// through unchanged.
func s3Error(op, key string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if ctxErr := contextError(err); ctxErr != nil {
			return fmt.Errorf("runpod: S3 %s %s: %w", op, key, ctxErr)
		}
	}
	e := &S3Error{Op: op, Key: key, Err: err}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil {
		e.StatusCode = re.Response.StatusCode
		e.RequestID = re.Response.Header.Get("X-Amz-Request-Id")
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		e.Code, e.Message = ae.ErrorCode(), ae.ErrorMessage()
	}
	var de *smithy.DeserializationError
	if e.StatusCode != 0 && e.Code == "" && !(success(e.StatusCode) && errors.As(err, &de)) {
		e.Code = http.StatusText(e.StatusCode)
	}
	return e
}

// success reports whether status is a 2xx: an answer that did not
// decode then failed for what its body held, not for its status.
func success(status int) bool { return status >= 200 && status < 300 }

// contextError returns the context error inside err, if any.
func contextError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return nil
}

// checkVolumeID accepts the platform's volume ids: letters, digits, '-'
// and '_'.
func checkVolumeID(id string) error {
	if id == "" {
		return fail.Invalid("volumeID", "is required")
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return fail.Invalid("volumeID", "must be letters, digits, '-' and '_', got %q", id)
		}
	}
	return nil
}

// MaxKeyLength is the longest object key, in bytes, as in S3.
const MaxKeyLength = 1024

// checkKey accepts a key that names one path on the volume: valid UTF-8
// of at most MaxKeyLength bytes, relative ("a/b", not "/a/b"), without
// control characters, empty segments or "." and ".." segments. A key may
// end in "/" (a directory) only when dir is true.
func checkKey(field, key string, dir bool) error {
	switch {
	case key == "":
		return fail.Invalid(field, "is required")
	case len(key) > MaxKeyLength:
		return fail.Invalid(field, "is %d bytes; keys are at most %d", len(key), MaxKeyLength)
	case !utf8.ValidString(key):
		return fail.Invalid(field, "is not valid UTF-8")
	case strings.HasPrefix(key, "/"):
		return fail.Invalid(field, "must be relative to the volume's root (%q, not %q); Key converts pod and worker paths", strings.TrimLeft(key, "/"), key)
	case strings.HasSuffix(key, "/") && !dir:
		return fail.Invalid(field, "names a directory (%q); a file's key does not end in /", key)
	}
	for i, r := range key {
		if r < ' ' || r == 0x7f {
			return fail.Invalid(field, "has control character %U at byte %d", r, i)
		}
	}
	for seg := range strings.SplitSeq(strings.TrimSuffix(key, "/"), "/") {
		switch seg {
		case "":
			return fail.Invalid(field, "has an empty path segment (%q)", key)
		case ".", "..":
			return fail.Invalid(field, "has a %q segment (%q); keys name one path on the volume", seg, key)
		}
	}
	return nil
}

// checkPrefix accepts a listing prefix: empty (the whole volume) or a key,
// with or without a final "/".
func checkPrefix(field, prefix string) error {
	if prefix == "" {
		return nil
	}
	return checkKey(field, prefix, true)
}
