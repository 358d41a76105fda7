// Package files reads and writes the files on a network volume without a
// pod, through the platform's S3-compatible API (built on aws-sdk-go-v2's
// S3 client), so putting model weights on a volume takes no pod. The
// volumes themselves (create, grow, delete) are package
// [github.com/runpodkit/runpod-go/volumes]'s; a Volume here is reached
// from a client's Config and one of them, by id:
//
//	fs := files.NewFromConfig(rp.Config())
//	vol, err := fs.Volume(ctx, "k7m2q9x4vd")
//	_, err = vol.Upload(ctx, "./llama.gguf", "models/llama.gguf")
//	for e, err := range vol.List(ctx, "models/") { … }
//	_, err = vol.Download(ctx, "./copy.gguf", "models/llama.gguf")
//	report, err := vol.Sync(ctx, files.DirectionToVolume, "./datasets", "datasets/")
//
// # Where the files are
//
// A network volume is an S3 bucket named by the volume's id, served by
// the S3 endpoint of the volume's data center
// (https://s3api-<data center>.runpod.io, option.DefaultS3URL). An object
// key is the file's path on the volume, so one file has three names:
//
//	on a pod:                /workspace/models/llama.gguf
//	on a serverless worker:  /runpod-volume/models/llama.gguf
//	through S3 (this package):  s3://<volume id>/models/llama.gguf, key "models/llama.gguf"
//
// Key turns a pod's, a worker's or an s3:// path into a key; PodPath and
// WorkerPath go back. Only the data centers DataCenters lists (HasS3API)
// have the S3 API: a volume elsewhere is refused with a *DataCenterError
// (matching ErrNoS3API) before any S3 request.
//
// # Credentials
//
// The S3 API takes its own key, an "S3 API key" made in the console's
// settings: the access key is the account's user id (user_…), the secret
// starts with rps_. It is not the API key. Give it with
// option.WithS3Credentials, or set RUNPOD_S3_ACCESS_KEY and
// RUNPOD_S3_SECRET_KEY, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY as
// the platform's S3 guide does. The secret is kept redacted: no error, log
// line or printed value of this package shows it, and requests carry only
// signatures made with it (AWS Signature Version 4).
//
// # Middleware and attempt hooks
//
// The client's middleware (option.WithMiddleware) and attempt hooks
// (option.WithAttemptHook) see the S3 requests too, as they see every
// other call of the SDK; option.Route and Attempt.Route name the S3
// operation ("s3:PutObject", RoutePrefix), and Attempt.RequestID is the
// answer's X-Amz-Request-Id. Two things differ, because the AWS client
// signs each attempt and retries above them: a middleware runs once per
// attempt, not once per call, and its next sends that one attempt; and
// it gets the signed request, whose Authorization header carries the
// access key id and an AWS Signature Version 4 signature (never the
// secret). A middleware that changes the URL, a signed header or the body
// makes the platform refuse the signature (SignatureDoesNotMatch). The
// methods here take Options, not option.RequestOption, so no middleware
// or hook is added for one call.
//
// # What the platform's S3 API does differently
//
// The package works around what the platform documents:
//   - A single PutObject takes less than 500 MB (MaxPutSize): larger files
//     go as multipart uploads, whose parts are at most 500 MB (MaxPartSize).
//   - There is no DeleteObjects: Delete sends one DeleteObject per key,
//     WithConcurrency at a time.
//   - Listings include empty directories, as keys ending in "/"
//     (Entry.Dir), and can answer "the same next token was received twice"
//     while the platform computes checksums of files written without S3:
//     List pauses and asks again, and yields every key once.
//   - 502 Bad Gateway answers come and go during transfers: every request
//     is tried up to 10 times (the platform's advice), with the client's
//     backoff (option.WithBackoff) between tries.
//   - AccessDenied answers come and go too: they are retried the same
//     way (a wrong key is SignatureDoesNotMatch, and is not).
//   - Requests more than an hour away from the platform's clock are
//     refused (RequestTimeTooSkewed): the client then takes the
//     platform's time from the answer's Date header and signs the retry
//     with it.
//
// # Transfers that survive failures
//
// Upload and Download move large files in parts, WithConcurrency parts
// at a time, holding at most part size × concurrency bytes in memory (an
// upload from a file reads its parts straight from the file). An upload
// that fails or is stopped keeps its finished parts on the platform
// (an *IncompleteUploadError says so); running the same Upload again, in
// this process or after a restart, sends only the parts the platform does
// not have. AbortUploads drops what such uploads left. A multipart upload
// the platform answers complete is read back (HEAD) before Upload returns:
// a file missing, or of another size or ETag, is an
// *UnconfirmedUploadError inside the *IncompleteUploadError, and the same
// Upload run again resumes or starts over. A download writes to a
// temporary file beside the destination, with a small journal of the
// parts it has; run again, it fetches only the missing parts, and it
// renames the file to its final name only when it is complete.
//
// # Local paths and links
//
// Download writes in the directory of its localPath, and Sync DirectionFromVolume
// under its localDir, and nowhere else. Every file they make, rename or
// remove there is reached from that directory through an os.Root, one
// directory at a time, each checked to be a directory and not a symbolic
// link: a link inside the directory is never written through, whatever
// it points to (the write fails with an *errs.UnsafePathError). An
// object key becomes a local path only when it is a plain relative one: a
// key with a ".." or "." segment, an empty segment, a leading "/" or a
// NUL byte is refused with an *errs.UnsafePathError naming the key, never
// mapped to another path. A download's temporary file and journal are
// hidden files beside the destination with random names, each created
// exclusively, so a link or a file someone placed in a shared directory
// is never opened, written or followed; the complete file is renamed
// over the destination, which replaces a link there instead of writing
// through it. Reads are another matter: Upload reads the file it is
// given, and Sync DirectionToVolume reads through links to files (not to
// directories).
//
// Progress reports the bytes done of every file, for a progress bar.
//
// # Sync
//
// Volume.Sync copies what changed (size and modification time, or
// content with CompareChecksums), in either direction (DirectionToVolume,
// DirectionFromVolume); DeleteExtra mirrors, deleting what the source lacks, and
// DryRun reports the plan without acting. A listing that is not an S3
// listing (a key with a NUL byte, a captive portal's HTML page served with
// 200) is an *S3Error, never taken for an empty directory, so a Sync with
// DeleteExtra deletes nothing on it.
//
// # Testing
//
// runpodtest serves the S3 API when the server is started with package
// runpodtest/fakes3 (runpodtest.NewServer(fakes3.Serve())), with the
// platform's quirks on, one host per data center, backed by a temporary
// directory (runpodtest.WithS3Storage), checking SigV4 signatures and the
// server's clock. Its NewClient carries the fake's S3 API key and S3 URL;
// seed and read files with the server's WriteVolumeFile, MakeVolumeDir
// and VolumeFile, count requests with fakes3.Count, and inject 502s,
// bodies cut short and repeated listing tokens with fakes3.Fail. Programs
// that resolve names themselves (the AWS CLI, s3cmd, rclone) get an
// address of the data center's own from fakes3.Endpoint.
// Example: examples/volumes.
package files
