package files_test

import (
	"context"
	"flag"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	tmtypes "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// transferSize is the size of the file BenchmarkTransfer moves: 256 MiB
// by default, so that go test -bench . stays short; BENCHMARKS.md quotes
// 2 GiB (.ci/bench passes S3_SIZE as -transfer.size).
var transferSize = flag.Int64("transfer.size", 256<<20, "size in bytes of the file BenchmarkTransfer uploads and downloads")

// benchDataCenter is the data center of the benchmark's volume: the S3
// region, and in lower case the endpoint's {dc}.
const benchDataCenter = "EU-RO-1"

// BenchmarkTransfer uploads and downloads one large file (-transfer.size
// bytes) through the fake S3 API, with on-disk storage in a temporary
// directory, with the SDK (Volume.Upload, Volume.Download) beside its
// floor: the same transfer made with aws-sdk-go-v2's transfer manager
// (feature/s3/transfermanager) used directly, with the SDK's part size
// and concurrency (64 MiB × 4), against the same fake and volume, through
// an s3.Client set up as files.New sets up the SDK's.
//
// Each reports MB/s (b.SetBytes) and peak-heap-MB: the largest heap (live
// and not yet swept objects, runtime/metrics
// /memory/classes/heap/objects:bytes, in MiB) sampled every 5 ms during
// the timed loop. The fake runs in the benchmark's process, so its heap
// (its request handling, gofakes3's, SigV4 checks) counts too, on both
// sides alike. The SDK's claim is a heap bounded by part size ×
// concurrency (256 MiB), not by the file's size.
//
// Every upload replaces the same key; every download goes to a new
// local path (removed after, outside the timing), so the SDK's download
// never resumes from an earlier iteration's journal.
func BenchmarkTransfer(b *testing.B) {
	size := *transferSize
	if size <= files.DefaultPartSize {
		b.Fatalf("-transfer.size=%d: the benchmark measures multipart transfers, of more than %d bytes", size, files.DefaultPartSize)
	}
	ctx := context.Background()
	tmp := b.TempDir()
	src := filepath.Join(tmp, "source.bin")
	writeSource(b, src, size)

	storage := filepath.Join(tmp, "s3")
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve(), runpodtest.WithS3Storage(storage))
	b.Cleanup(srv.Close)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: benchDataCenter, Size: 4096})
	rp, err := srv.NewClient()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rp.CloseIdleConnections)
	vol, err := files.NewFromConfig(rp.Config()).Volume(ctx, volumeID)
	if err != nil {
		b.Fatal(err)
	}
	tm := floorClient(srv)

	b.Run("upload", func(b *testing.B) {
		const key = "bench/upload.bin"
		// stored flushes what the fake wrote to disk, outside the timing,
		// so that an iteration does not pay for the last one's writeback.
		stored := func(b *testing.B) {
			b.StopTimer()
			flush(b, storage)
			b.StartTimer()
		}
		b.Run("floor", func(b *testing.B) {
			testkit.MeasureTransfer(b, size, func() {
				f, err := os.Open(src)
				if err != nil {
					b.Fatal(err)
				}
				_, err = tm.UploadObject(ctx, &transfermanager.UploadObjectInput{
					Bucket: aws.String(volumeID), Key: aws.String(key), Body: f,
				})
				_ = f.Close()
				if err != nil {
					b.Fatal(err)
				}
				stored(b)
			})
		})
		b.Run("sdk", func(b *testing.B) {
			testkit.MeasureTransfer(b, size, func() {
				if _, err := vol.Upload(ctx, src, key); err != nil {
					b.Fatal(err)
				}
				stored(b)
			})
		})
	})

	b.Run("download", func(b *testing.B) {
		const key = "bench/download.bin"
		if _, err := vol.Upload(ctx, src, key); err != nil {
			b.Fatal(err)
		}
		flush(b, storage)
		dir := filepath.Join(tmp, "downloads")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		n := 0
		// next returns a local path no earlier iteration used.
		next := func() string {
			n++
			return filepath.Join(dir, "copy-"+strconv.Itoa(n)+".bin")
		}
		// done checks and removes a downloaded file, outside the timing.
		done := func(b *testing.B, path string) {
			b.StopTimer()
			fi, err := os.Stat(path)
			if err != nil || fi.Size() != size {
				b.Fatalf("the download is not %d bytes: %v, %v", size, fi, err)
			}
			if err := os.Remove(path); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.Run("floor", func(b *testing.B) {
			testkit.MeasureTransfer(b, size, func() {
				path := next()
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = tm.DownloadObject(ctx, &transfermanager.DownloadObjectInput{
					Bucket: aws.String(volumeID), Key: aws.String(key), WriterAt: f,
				})
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					b.Fatal(err)
				}
				done(b, path)
			})
		})
		b.Run("sdk", func(b *testing.B) {
			testkit.MeasureTransfer(b, size, func() {
				path := next()
				if _, err := vol.Download(ctx, path, key); err != nil {
					b.Fatal(err)
				}
				done(b, path)
			})
		})
	})
}

// floorClient returns the floor's transfer manager: an s3.Client made as
// files.New makes the SDK's (region, path-style endpoint, the fake's S3
// API key and HTTP client, the standard retryer with 10 attempts and no
// retry rate limit, checksums only where S3 requires them), driven with
// the SDK's part size, threshold and concurrency.
//
// Two transfer manager settings differ from its defaults to do the same
// work as the SDK: RequestChecksumCalculation "when required" (its own
// default, "when supported", overrides the client's and adds a CRC32
// trailer to every part, which the SDK does not send), and ranged
// downloads of PartSizeBytes (its default fetches by part number, which
// the platform's S3 API does not document and the fake ignores, so it
// would fetch the whole file in one GET). Checksum validation of
// downloads is off, as in the SDK (the fake sends no checksums anyway).
func floorClient(srv *runpodtest.Server) *transfermanager.Client {
	client := s3.New(s3.Options{
		Region:       benchDataCenter,
		BaseEndpoint: aws.String(strings.ReplaceAll(srv.S3URL, "{dc}", strings.ToLower(benchDataCenter))),
		UsePathStyle: true,
		Credentials:  awscreds.NewStaticCredentialsProvider(srv.S3AccessKey, srv.S3SecretKey, ""),
		HTTPClient:   srv.Client(),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = files.MaxAttempts
			o.RateLimiter = ratelimit.None
		}),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	return transfermanager.New(client, func(o *transfermanager.Options) {
		o.PartSizeBytes = files.DefaultPartSize
		o.Concurrency = files.DefaultConcurrency
		o.MultipartUploadThreshold = files.DefaultMultipartThreshold
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.GetObjectType = tmtypes.GetObjectRanges
		o.DisableChecksumValidation = true
	})
}

// flush writes the files under dir to disk (fsync), so that the timed
// loop does not share the disk with the writeback of the setup's files
// (the source file, the object a download fetches) or of an earlier
// iteration.
func flush(b *testing.B, dir string) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		return f.Sync()
	})
	if err != nil {
		b.Fatal(err)
	}
}

// writeSource writes size bytes of ChaCha8 output to path, 4 MiB at a
// time, and flushes it to disk.
func writeSource(b *testing.B, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.NewChaCha8([32]byte{'b', 'e', 'n', 'c', 'h'})
	buf := make([]byte, 4<<20)
	for left := size; left > 0; {
		chunk := buf[:min(int64(len(buf)), left)]
		_, _ = r.Read(chunk)
		if _, err := f.Write(chunk); err != nil {
			_ = f.Close()
			b.Fatal(err)
		}
		left -= int64(len(chunk))
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
