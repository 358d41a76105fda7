package fakes3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
)

// noDelay retries at once: the tests count attempts, not time.
type noDelay struct{}

func (noDelay) BackoffDelay(int, error) (time.Duration, error) { return 0, nil }

// s3Client is the platform's observed client, aws-sdk-go-v2's S3 client,
// aimed at the fake's endpoint of data center dc (path-style, the data
// center as region, the fake's S3 API key), retrying at once up to
// attempts times.
// s3Volume starts a fake with opts, closed when the test ends, and one
// network volume in data center dc, and returns them with an S3 client of
// that data center that tries each request once.
func s3Volume(t *testing.T, dc string, opts ...runpodtest.Option) (*runpodtest.Server, string, *s3.Client) {
	srv := runpodtest.NewServer(append([]runpodtest.Option{fakes3.Serve()}, opts...)...)
	t.Cleanup(srv.Close)
	return srv, srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: dc}), s3Client(srv, dc, 1)
}

func s3Client(srv *runpodtest.Server, dc string, attempts int, opts ...func(*s3.Options)) *s3.Client {
	testkit.RegisterSecret(srv.S3SecretKey)
	return s3.New(s3.Options{
		Region:       dc,
		BaseEndpoint: aws.String(strings.ReplaceAll(srv.S3URL, "{dc}", strings.ToLower(dc))),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(srv.S3AccessKey, srv.S3SecretKey, ""),
		HTTPClient:   srv.Client(),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.Backoff = noDelay{}
			o.RateLimiter = ratelimit.None
		}),
	}, opts...)
}

// requireS3Error checks err is an S3 error answered with status and code.
func requireS3Error(t *testing.T, err error, status int, code string) {
	t.Helper()
	require.Error(t, err)
	var api smithy.APIError
	require.ErrorAs(t, err, &api, "%v", err)
	assert.Equal(t, code, api.ErrorCode(), "%v", err)
	var re *awshttp.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, status, re.HTTPStatusCode(), "%v", err)
	testkit.NoSecret(t, err)
}

func md5hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

func s3Put(t *testing.T, c *s3.Client, vol, key string, body []byte) *s3.PutObjectOutput {
	t.Helper()
	out, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String(key), Body: bytes.NewReader(body)})
	require.NoError(t, err, key)
	return out
}

func s3Get(t *testing.T, c *s3.Client, vol, key string) []byte {
	t.Helper()
	out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String(key)})
	require.NoError(t, err, key)
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	require.NoError(t, err, key)
	return b
}

// listKeys lists the whole volume (or prefix) with ListObjectsV2 pages of
// pageSize, returning keys and common prefixes in order.
func listKeys(t *testing.T, c *s3.Client, vol, prefix, delim string, pageSize int32) (keys, prefixes []string) {
	t.Helper()
	in := &s3.ListObjectsV2Input{Bucket: aws.String(vol), MaxKeys: aws.Int32(pageSize)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	if delim != "" {
		in.Delimiter = aws.String(delim)
	}
	p := s3.NewListObjectsV2Paginator(c, in)
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		require.NoError(t, err)
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		for _, cp := range page.CommonPrefixes {
			prefixes = append(prefixes, aws.ToString(cp.Prefix))
		}
	}
	return keys, prefixes
}

// TestS3PutGetHeadList: files put over S3 read back over S3 and on the
// volume; listings are in key order, show empty directories as "dir/"
// keys but not directories holding files, nor the hidden folder of
// uploads in progress; Last-Modified is the server's clock; a delete of a
// missing key succeeds.
func TestS3PutGetHeadList(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	srv, vol, c := s3Volume(t, "EU-RO-1", runpodtest.WithClock(func() time.Time { return start }))
	ctx := t.Context()
	restBefore := len(srv.Requests())

	out := s3Put(t, c, vol, "a/b.txt", []byte("hello"))
	assert.Equal(t, `"`+md5hex([]byte("hello"))+`"`, aws.ToString(out.ETag))
	s3Put(t, c, vol, "a-c.txt", []byte("x"))
	s3Put(t, c, vol, "empty/", nil)
	s3Put(t, c, vol, "deep/er/", nil)
	require.NoError(t, srv.WriteVolumeFile(vol, "seed/data.bin", strings.NewReader("seeded")))
	// An upload in progress puts parts in the hidden folder.
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("big.bin")})
	require.NoError(t, err)
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String("big.bin"), UploadId: mp.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	require.NoError(t, err)

	assert.Equal(t, []byte("hello"), s3Get(t, c, vol, "a/b.txt"))
	assert.Equal(t, []byte("seeded"), s3Get(t, c, vol, "seed/data.bin"))
	b, err := srv.VolumeFile(vol, "a/b.txt")
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))

	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(vol), Key: aws.String("seed/data.bin")})
	require.NoError(t, err)
	assert.Equal(t, int64(6), aws.ToInt64(head.ContentLength))
	assert.Equal(t, `"`+md5hex([]byte("seeded"))+`"`, aws.ToString(head.ETag))
	assert.True(t, start.Equal(aws.ToTime(head.LastModified)), "Last-Modified is the server's clock: %v", head.LastModified)

	dir, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(vol), Key: aws.String("empty/")})
	require.NoError(t, err, "a directory answers HEAD as an empty object")
	assert.Zero(t, aws.ToInt64(dir.ContentLength))

	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(vol)})
	require.NoError(t, err)

	keys, _ := listKeys(t, c, vol, "", "", 2)
	assert.Equal(t, []string{"a-c.txt", "a/b.txt", "deep/er/", "empty/", "seed/data.bin"}, keys,
		"key order; empty directories listed; deep/ and a/ hold something; .s3compat_uploads hidden")
	keys, prefixes := listKeys(t, c, vol, "", "/", 1000)
	assert.Equal(t, []string{"a-c.txt"}, keys)
	assert.Equal(t, []string{"a/", "deep/", "empty/", "seed/"}, prefixes)
	keys, prefixes = listKeys(t, c, vol, "deep/", "/", 1000)
	assert.Empty(t, keys)
	assert.Equal(t, []string{"deep/er/"}, prefixes)
	keys, _ = listKeys(t, c, vol, "a/", "", 1000)
	assert.Equal(t, []string{"a/b.txt"}, keys)

	v1, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String(vol), MaxKeys: aws.Int32(2), Marker: aws.String("a/b.txt")})
	require.NoError(t, err)
	require.Len(t, v1.Contents, 2)
	assert.Equal(t, "deep/er/", aws.ToString(v1.Contents[0].Key))
	assert.True(t, aws.ToBool(v1.IsTruncated))

	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(vol), Key: aws.String("a/b.txt")})
	require.NoError(t, err)
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(vol), Key: aws.String("never/was")})
	require.NoError(t, err, "a missing key deletes as S3 does (204)")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("a/b.txt")})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchKey")
	var nsk *types.NoSuchKey
	assert.ErrorAs(t, err, &nsk)
	_, err = srv.VolumeFile(vol, "a/b.txt")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	keys, _ = listKeys(t, c, vol, "a", "", 1000)
	assert.Equal(t, []string{"a-c.txt", "a/"}, keys, "the file's directory stays, empty, as on the volume")
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(vol), Key: aws.String("a/")})
	require.NoError(t, err)
	keys, _ = listKeys(t, c, vol, "a", "", 1000)
	assert.Equal(t, []string{"a-c.txt"}, keys)

	assert.Equal(t, 4, fakes3.Count(srv, "PutObject"))
	assert.Equal(t, 1, fakes3.Count(srv, "UploadPart"))
	assert.Equal(t, 3, fakes3.Count(srv, "GetObject"))
	assert.Equal(t, 2, fakes3.Count(srv, "HeadObject"))
	assert.Equal(t, 1, fakes3.Count(srv, "HeadBucket"))
	assert.Equal(t, 1, fakes3.Count(srv, "ListObjects"))
	assert.Equal(t, 3, fakes3.Count(srv, "DeleteObject"))
	assert.Equal(t, restBefore, len(srv.Requests()), "S3 requests are not in the REST request log")
}

// TestS3RangeAndConditions: a ranged GET answers 206 with Content-Range;
// If-Match with another ETag is 412, If-None-Match with the ETag 304.
func TestS3RangeAndConditions(t *testing.T) {
	_, vol, c := s3Volume(t, "US-KS-2")
	ctx := t.Context()
	body := []byte("0123456789abcdef")
	etag := aws.ToString(s3Put(t, c, vol, "f", body).ETag)

	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), Range: aws.String("bytes=2-5"), IfMatch: aws.String(etag)})
	require.NoError(t, err)
	got, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	require.NoError(t, out.Body.Close())
	assert.Equal(t, "2345", string(got))
	assert.Equal(t, "bytes 2-5/16", aws.ToString(out.ContentRange))
	assert.Equal(t, int64(4), aws.ToInt64(out.ContentLength))
	assert.Equal(t, etag, aws.ToString(out.ETag))

	out, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), Range: aws.String("bytes=-3")})
	require.NoError(t, err)
	got, _ = io.ReadAll(out.Body)
	_ = out.Body.Close()
	assert.Equal(t, "def", string(got))

	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), IfMatch: aws.String(`"0000"`)})
	requireS3Error(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), IfMatch: aws.String(`"0000"`)})
	var re *awshttp.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, http.StatusPreconditionFailed, re.HTTPStatusCode())
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), IfNoneMatch: aws.String(etag)})
	require.ErrorAs(t, err, &re)
	assert.Equal(t, http.StatusNotModified, re.HTTPStatusCode())
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), Range: aws.String("bytes=100-")})
	requireS3Error(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
}

// TestS3Copy: CopyObject copies within a volume and between volumes of
// the data center, with the copy's MD5 as ETag; a volume of another data
// center is not there.
func TestS3Copy(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	other := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	far := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-KS-2"})
	c := s3Client(srv, "EU-RO-1", 1)
	ctx := t.Context()
	s3Put(t, c, vol, "src dir/file #1.txt", []byte("copy me"))

	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(vol), Key: aws.String("dst/copy.txt"), CopySource: aws.String(vol + "/src%20dir/file%20%231.txt")})
	require.NoError(t, err)
	assert.Equal(t, `"`+md5hex([]byte("copy me"))+`"`, aws.ToString(out.CopyObjectResult.ETag))
	assert.Equal(t, []byte("copy me"), s3Get(t, c, vol, "dst/copy.txt"))
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(other), Key: aws.String("x"), CopySource: aws.String(vol + "/dst/copy.txt")})
	require.NoError(t, err)
	b, err := srv.VolumeFile(other, "x")
	require.NoError(t, err)
	assert.Equal(t, "copy me", string(b))
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(vol), Key: aws.String("y"), CopySource: aws.String(far + "/x")})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchBucket")
	assert.Equal(t, 3, fakes3.Count(srv, "CopyObject"))
}

// TestS3Multipart: an upload's parts take space on the volume (in the
// hidden folder) until Complete joins them; parts under 5 MB are
// accepted; the ETag is the MD5 of the parts' MD5s, "-" and their count;
// Abort drops an upload; a bad part list is refused.
func TestS3Multipart(t *testing.T) {
	srv, vol, c := s3Volume(t, "EU-RO-1")
	ctx := t.Context()
	key := "models/weights.bin"

	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String(key)})
	require.NoError(t, err)
	parts := [][]byte{bytes.Repeat([]byte("a"), 1000), bytes.Repeat([]byte("b"), 2000), []byte("tail")}
	var completed []types.CompletedPart
	sums := md5.New()
	for i, p := range parts {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String(key), UploadId: mp.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(p)})
		require.NoError(t, err, "no 5 MB minimum")
		assert.Equal(t, `"`+md5hex(p)+`"`, aws.ToString(out.ETag))
		completed = append(completed, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag})
		sum := md5.Sum(p)
		sums.Write(sum[:])
	}
	assert.Equal(t, int64(3004), srv.VolumeUsage(vol), "parts count in the volume's usage")

	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(vol), Key: aws.String(key), UploadId: mp.UploadId})
	require.NoError(t, err)
	require.Len(t, lp.Parts, 3)
	assert.Equal(t, int64(2000), aws.ToInt64(lp.Parts[1].Size))
	lp, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(vol), Key: aws.String(key), UploadId: mp.UploadId, MaxParts: aws.Int32(2)})
	require.NoError(t, err)
	assert.Len(t, lp.Parts, 2)
	assert.True(t, aws.ToBool(lp.IsTruncated))
	assert.Equal(t, "2", aws.ToString(lp.NextPartNumberMarker))

	second, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("other.bin")})
	require.NoError(t, err)
	lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(vol)})
	require.NoError(t, err)
	require.Len(t, lu.Uploads, 2)
	assert.Equal(t, key, aws.ToString(lu.Uploads[0].Key))
	assert.Equal(t, aws.ToString(mp.UploadId), aws.ToString(lu.Uploads[0].UploadId))

	keys, _ := listKeys(t, c, vol, "", "", 1000)
	assert.Empty(t, keys, "uploads in progress are not listed")

	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String(key), UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{completed[1], completed[0]}}})
	requireS3Error(t, err, http.StatusBadRequest, "InvalidPartOrder")
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String(key), UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(`"00"`)}}}})
	requireS3Error(t, err, http.StatusBadRequest, "InvalidPart")

	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String(key), UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: completed}})
	require.NoError(t, err)
	want := `"` + hex.EncodeToString(sums.Sum(nil)) + `-3"`
	assert.Equal(t, want, aws.ToString(done.ETag))
	assert.Equal(t, bytes.Join(parts, nil), s3Get(t, c, vol, key))
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(vol), Key: aws.String(key)})
	require.NoError(t, err)
	assert.Equal(t, want, aws.ToString(head.ETag), "HEAD tells the multipart ETag")
	keys, _ = listKeys(t, c, vol, "", "", 1000)
	assert.Equal(t, []string{key}, keys)
	assert.Equal(t, int64(3004), srv.VolumeUsage(vol), "the parts are gone, the file is there")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String(key), IfMatch: aws.String(want)})
	require.NoError(t, err, "If-Match takes a multipart ETag")

	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String("other.bin"), UploadId: second.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("zzz")})
	require.NoError(t, err)
	assert.Equal(t, int64(3007), srv.VolumeUsage(vol))
	_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("other.bin"), UploadId: second.UploadId})
	require.NoError(t, err)
	assert.Equal(t, int64(3004), srv.VolumeUsage(vol), "Abort clears the parts")
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String("other.bin"), UploadId: second.UploadId, PartNumber: aws.Int32(2), Body: strings.NewReader("z")})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchUpload")
	lu, err = c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(vol)})
	require.NoError(t, err)
	assert.Empty(t, lu.Uploads)

	for op, n := range map[string]int{"CreateMultipartUpload": 2, "UploadPart": 5, "ListParts": 2, "ListMultipartUploads": 2,
		"CompleteMultipartUpload": 3, "AbortMultipartUpload": 1} {
		assert.Equal(t, n, fakes3.Count(srv, op), op)
	}
}

// lazyZeros is a seekable body of n zero bytes that counts what is read
// of it, so a test can declare a huge body without having it.
type lazyZeros struct {
	n, off, read int64
}

func (z *lazyZeros) Read(p []byte) (int, error) {
	if z.off >= z.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n-z.off)
	clear(p[:k])
	z.off += k
	z.read += k
	return int(k), nil
}

func (z *lazyZeros) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		z.off = off
	case io.SeekCurrent:
		z.off += off
	case io.SeekEnd:
		z.off = z.n + off
	}
	return z.off, nil
}

// unsignedBody sends the body unhashed (UNSIGNED-PAYLOAD) and without a
// checksum, so the client does not read a huge declared body before the
// request.
func unsignedBody(o *s3.Options) {
	o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
	o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
}

// http11 makes net/http honour the "Expect: 100-continue" the S3 client
// sets on big bodies: the client builds its requests without a protocol
// version, and net/http waits for 100 Continue only on HTTP/1.1 requests.
type http11 struct{ rt http.RoundTripper }

func (h http11) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	return h.rt.RoundTrip(r)
}

// TestS3SizeLimits: a PutObject of 500,000,000 bytes or more, and a part
// of more than 500,000,000, are refused with 400 EntityTooLarge from the
// declared length, before the body is sent (the client waits for 100
// Continue).
func TestS3SizeLimits(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	c := s3Client(srv, "EU-RO-1", 1, unsignedBody, func(o *s3.Options) {
		o.HTTPClient = &http.Client{Transport: http11{srv.Client().Transport}}
	})
	ctx := t.Context()

	body := &lazyZeros{n: 500_000_000}
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String("huge"), Body: body, ContentLength: aws.Int64(body.n)})
	requireS3Error(t, err, http.StatusBadRequest, "EntityTooLarge")
	assert.Zero(t, body.read, "the body was never sent")

	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("huge")})
	require.NoError(t, err)
	part := &lazyZeros{n: 500_000_001}
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String("huge"), UploadId: mp.UploadId, PartNumber: aws.Int32(1), Body: part, ContentLength: aws.Int64(part.n)})
	requireS3Error(t, err, http.StatusBadRequest, "EntityTooLarge")
	assert.Zero(t, part.read)
	assert.Zero(t, srv.VolumeUsage(vol))
}

// TestS3Unsupported: DeleteObjects, CreateBucket and DeleteBucket answer
// 501 NotImplemented (volumes are made and deleted over REST).
func TestS3Unsupported(t *testing.T) {
	srv, vol, c := s3Volume(t, "EU-RO-1")
	ctx := t.Context()
	s3Put(t, c, vol, "k", []byte("v"))

	_, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(vol), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}})
	requireS3Error(t, err, http.StatusNotImplemented, "NotImplemented")
	assert.Equal(t, []byte("v"), s3Get(t, c, vol, "k"), "nothing was deleted")
	_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("newvolume")})
	requireS3Error(t, err, http.StatusNotImplemented, "NotImplemented")
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(vol)})
	requireS3Error(t, err, http.StatusNotImplemented, "NotImplemented")
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(vol), Key: aws.String("k")})
	requireS3Error(t, err, http.StatusNotImplemented, "NotImplemented")
	assert.Equal(t, 1, fakes3.Count(srv, "DeleteObjects"))
	assert.Equal(t, 1, fakes3.Count(srv, "CreateBucket"))
	assert.Equal(t, 1, fakes3.Count(srv, "DeleteBucket"))
	assert.Equal(t, 1, fakes3.Count(srv, "GetObjectTagging"))
}

// TestS3Authentication: a wrong secret, an unknown access key, a region
// that is not the endpoint's data center, no credentials, and a clock two
// hours off are refused, and counted.
func TestS3Authentication(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	ctx := t.Context()
	in := &s3.HeadBucketInput{Bucket: aws.String(vol)}
	list := &s3.ListObjectsV2Input{Bucket: aws.String(vol)}

	wrongSecret := s3Client(srv, "EU-RO-1", 1, func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(srv.S3AccessKey, "rps_WRONG", "")
	})
	_, err := wrongSecret.ListObjectsV2(ctx, list)
	requireS3Error(t, err, http.StatusForbidden, "SignatureDoesNotMatch")
	assert.NotContains(t, err.Error(), srv.S3SecretKey)

	unknown := s3Client(srv, "EU-RO-1", 1, func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("user_nobody", srv.S3SecretKey, "")
	})
	_, err = unknown.ListObjectsV2(ctx, list)
	requireS3Error(t, err, http.StatusForbidden, "InvalidAccessKeyId")

	apiKey := s3Client(srv, "EU-RO-1", 1, func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("user_x", srv.APIKey, "")
	})
	_, err = apiKey.ListObjectsV2(ctx, list)
	requireS3Error(t, err, http.StatusForbidden, "InvalidAccessKeyId")

	wrongRegion := s3Client(srv, "EU-RO-1", 1, func(o *s3.Options) { o.Region = "US-KS-2" })
	_, err = wrongRegion.ListObjectsV2(ctx, list)
	requireS3Error(t, err, http.StatusBadRequest, "AuthorizationHeaderMalformed")
	assert.Contains(t, err.Error(), "expecting 'EU-RO-1'")

	anonymous := s3Client(srv, "EU-RO-1", 1, func(o *s3.Options) { o.Credentials = aws.AnonymousCredentials{} })
	_, err = anonymous.ListObjectsV2(ctx, list)
	requireS3Error(t, err, http.StatusForbidden, "AccessDenied")

	_, err = s3Client(srv, "EU-RO-1", 1).HeadBucket(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, 5, fakes3.Count(srv, "ListObjectsV2"), "refused requests are counted")

	// The server's clock two hours ahead of the client's.
	ahead := runpodtest.NewServer(fakes3.Serve(), runpodtest.WithClock(func() time.Time { return time.Now().Add(2 * time.Hour) }))
	defer ahead.Close()
	vol = ahead.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	_, err = s3Client(ahead, "EU-RO-1", 1).ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(vol)})
	requireS3Error(t, err, http.StatusForbidden, "RequestTimeTooSkewed")
}

// TestS3DataCenters: each data center's endpoint serves its own volumes;
// a data center without the S3 API answers 404; ListBuckets lists the
// data center's volumes.
func TestS3DataCenters(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	ro := srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "rovolume01", DataCenter: "EU-RO-1"})
	ks := srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "ksvolume01", DataCenter: "US-KS-2"})
	se := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-SE-1"})
	ctx := t.Context()
	roClient := s3Client(srv, "EU-RO-1", 1)
	ksClient := s3Client(srv, "US-KS-2", 1)

	s3Put(t, ksClient, ks, "f", []byte("ks"))
	_, err := roClient.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(ks), Key: aws.String("f")})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = roClient.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(ks)})
	var re *awshttp.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, http.StatusNotFound, re.HTTPStatusCode())
	_, err = roClient.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("novolume"), Key: aws.String("f"), Body: strings.NewReader("x")})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = s3Client(srv, "EU-SE-1", 1).ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(se)})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchBucket")
	assert.Contains(t, err.Error(), "no S3 API endpoint")

	buckets, err := roClient.ListBuckets(ctx, &s3.ListBucketsInput{})
	require.NoError(t, err)
	require.Len(t, buckets.Buckets, 1)
	assert.Equal(t, ro, aws.ToString(buckets.Buckets[0].Name))
	assert.False(t, aws.ToTime(buckets.Buckets[0].CreationDate).IsZero())
	assert.Equal(t, 1, fakes3.Count(srv, "ListBuckets"))
	assert.Equal(t, 1, fakes3.Count(srv, "ListObjectsV2"), "a data center without the S3 API counts too")
}

// TestS3Faults: each kind of S3Fault, as the platform's users met them.
func TestS3Faults(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	ctx := t.Context()
	retrying := s3Client(srv, "EU-RO-1", 3)
	once := s3Client(srv, "EU-RO-1", 1)
	body := bytes.Repeat([]byte("0123456789"), 10_000)
	s3Put(t, once, vol, "f", body)

	t.Run("502", func(t *testing.T) {
		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Status: http.StatusBadGateway})
		before := fakes3.Count(srv, "GetObject")
		assert.Equal(t, body, s3Get(t, retrying, vol, "f"), "the client retries a 502")
		assert.Equal(t, before+2, fakes3.Count(srv, "GetObject"), "the faulted request is counted")
		fakes3.Fail(srv, fakes3.Fault{Status: http.StatusBadGateway})
		_, err := once.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(vol)})
		var re *awshttp.ResponseError
		require.ErrorAs(t, err, &re, "Op \"\" hits any operation")
		assert.Equal(t, http.StatusBadGateway, re.HTTPStatusCode())
		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject"})
		_, err = once.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f")})
		requireS3Error(t, err, http.StatusBadGateway, "BadGateway")
	})
	t.Run("AccessDenied, by key, after and times", func(t *testing.T) {
		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Key: "other", Status: http.StatusForbidden})
		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Key: "f", After: 1, Times: 2, Status: http.StatusForbidden})
		assert.Equal(t, body, s3Get(t, once, vol, "f"), "After lets one through")
		for range 2 {
			_, err := once.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f")})
			requireS3Error(t, err, http.StatusForbidden, "AccessDenied")
		}
		assert.Equal(t, body, s3Get(t, once, vol, "f"), "Times ran out; the fault for another key never hit")
		_, err := once.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("other")})
		requireS3Error(t, err, http.StatusForbidden, "AccessDenied")

		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Status: http.StatusForbidden, Times: 5})
		fakes3.ClearFaults(srv)
		assert.Equal(t, body, s3Get(t, once, vol, "f"), "cleared")
	})
	t.Run("cut GetObject", func(t *testing.T) {
		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Cut: 1000})
		out, err := once.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f")})
		require.NoError(t, err, "the answer is 200 OK")
		assert.Equal(t, int64(len(body)), aws.ToInt64(out.ContentLength))
		got, err := io.ReadAll(out.Body)
		_ = out.Body.Close()
		require.Error(t, err, "the body ends early")
		assert.Equal(t, body[:1000], got)

		fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Cut: 10})
		out, err = once.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("f"), Range: aws.String("bytes=100-199")})
		require.NoError(t, err, "206")
		got, err = io.ReadAll(out.Body)
		_ = out.Body.Close()
		require.Error(t, err)
		assert.Equal(t, body[100:110], got)
	})
	t.Run("cut PutObject", func(t *testing.T) {
		fakes3.Fail(srv, fakes3.Fault{Op: "PutObject", Cut: 100})
		_, err := once.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String("cut"), Body: bytes.NewReader(body)})
		require.Error(t, err)
		_, err = srv.VolumeFile(vol, "cut")
		require.ErrorIs(t, err, fs.ErrNotExist, "nothing stored")
		fakes3.Fail(srv, fakes3.Fault{Op: "PutObject", Cut: 100})
		s3Put(t, retrying, vol, "cut", body)
		got, err := srv.VolumeFile(vol, "cut")
		require.NoError(t, err)
		assert.Equal(t, body, got, "the retry stored it")
	})
	t.Run("repeated token", func(t *testing.T) {
		for _, k := range []string{"r/1", "r/2", "r/3", "r/4", "r/5"} {
			require.NoError(t, srv.WriteVolumeFile(vol, k, strings.NewReader(k)))
		}
		in := &s3.ListObjectsV2Input{Bucket: aws.String(vol), Prefix: aws.String("r/"), MaxKeys: aws.Int32(2)}
		first, err := once.ListObjectsV2(ctx, in)
		require.NoError(t, err)
		token := aws.ToString(first.NextContinuationToken)
		require.NotEmpty(t, token)

		fakes3.Fail(srv, fakes3.Fault{Op: "ListObjectsV2", RepeatToken: true})
		_, err = once.ListObjectsV2(ctx, in)
		require.NoError(t, err, "a first page sends no token: the fault waits")
		in.ContinuationToken = aws.String(token)
		page, err := once.ListObjectsV2(ctx, in)
		require.NoError(t, err)
		assert.Equal(t, token, aws.ToString(page.NextContinuationToken), "the token it was given")
		assert.True(t, aws.ToBool(page.IsTruncated))
		require.Len(t, page.Contents, 2)
		assert.Equal(t, "r/3", aws.ToString(page.Contents[0].Key))

		page, err = once.ListObjectsV2(ctx, in)
		require.NoError(t, err, "asking again works")
		assert.NotEqual(t, token, aws.ToString(page.NextContinuationToken))
		assert.Equal(t, "r/3", aws.ToString(page.Contents[0].Key), "the token is stable")

		// The SDK's paginator asks again with the repeated token: a page
		// comes twice.
		fakes3.Fail(srv, fakes3.Fault{Op: "ListObjectsV2", RepeatToken: true})
		keys, _ := listKeys(t, once, vol, "r/", "", 2)
		assert.Equal(t, []string{"r/1", "r/2", "r/3", "r/4", "r/3", "r/4", "r/5"}, keys)
	})
}

// TestS3VolumeDelete: deleting a volume over REST removes its files.
func TestS3VolumeDelete(t *testing.T) {
	dir := t.TempDir()
	srv, vol, c := s3Volume(t, "EU-RO-1", runpodtest.WithS3Storage(dir))
	s3Put(t, c, vol, "a/b", []byte("bytes"))
	_, err := os.Stat(filepath.Join(dir, vol, "a", "b"))
	require.NoError(t, err, "WithS3Storage keeps each volume in dir/<volume id>")
	assert.Equal(t, int64(5), srv.VolumeUsage(vol))

	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, srv.URL+"/v2/network-volumes/"+vol, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	_, err = os.Stat(filepath.Join(dir, vol))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Zero(t, srv.VolumeUsage(vol))
	_, err = c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("a/b")})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchBucket")
	assert.Error(t, srv.WriteVolumeFile(vol, "x", strings.NewReader("x")), "no such volume")
}

// TestS3FilesOnDisk: a file put on the volume's directory by hand is
// served, its ETag computed when first asked; WriteVolumeFile and
// VolumeFile refuse unknown volumes and keys that are not paths.
func TestS3FilesOnDisk(t *testing.T) {
	dir := t.TempDir()
	srv, vol, c := s3Volume(t, "EU-RO-1", runpodtest.WithS3Storage(dir))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, vol, "by", "hand"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, vol, "by", "hand", "f"), []byte("manual"), 0o644))

	keys, _ := listKeys(t, c, vol, "", "", 1000)
	assert.Equal(t, []string{"by/hand/f"}, keys)
	out, err := c.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(vol)})
	require.NoError(t, err)
	assert.Equal(t, `"`+md5hex([]byte("manual"))+`"`, aws.ToString(out.Contents[0].ETag))
	assert.Equal(t, []byte("manual"), s3Get(t, c, vol, "by/hand/f"))

	require.NoError(t, srv.WriteVolumeFile(vol, "made/dir/", nil))
	require.NoError(t, srv.MakeVolumeDir(vol, "made/other"))
	keys, _ = listKeys(t, c, vol, "made/", "", 1000)
	assert.Equal(t, []string{"made/dir/", "made/other/"}, keys)
	assert.Error(t, srv.MakeVolumeDir(vol, "by/hand/f"), "a file is there")

	assert.Error(t, srv.WriteVolumeFile("nosuchvol", "x", strings.NewReader("x")))
	_, err = srv.VolumeFile("nosuchvol", "x")
	assert.Error(t, err)
	for _, bad := range []string{"", "/abs", "a//b", "a/../b", "./a", "..", ".s3compat_uploads/x"} {
		assert.Error(t, srv.WriteVolumeFile(vol, bad, strings.NewReader("x")), bad)
	}
}

// TestS3Keys: keys with spaces, '#', '+', '%', '?', unicode round-trip
// through put, get, list, head and copy (the SigV4 signature of each
// spelling is verified); keys that are not file paths are refused.
func TestS3Keys(t *testing.T) {
	srv, vol, c := s3Volume(t, "EU-RO-1")
	ctx := t.Context()
	keys := []string{"dir with space/file #1+2.txt", "ünïcødé/日本語 ファイル.txt", "a+b", "percent%20sign", "what?=&.txt", "tilde~(paren)!*'.txt", "emoji 🚀/x"}
	for _, k := range keys {
		s3Put(t, c, vol, k, []byte(k))
		assert.Equal(t, []byte(k), s3Get(t, c, vol, k), k)
		b, err := srv.VolumeFile(vol, k)
		require.NoError(t, err, k)
		assert.Equal(t, k, string(b))
		_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(vol), Key: aws.String(k)})
		require.NoError(t, err, k)
		listed, _ := listKeys(t, c, vol, k, "", 1000)
		assert.Equal(t, []string{k}, listed, "prefix %q", k)
	}
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(vol), Key: aws.String("copied #+ü"),
		CopySource: aws.String(vol + "/dir%20with%20space/file%20%231%2B2.txt")})
	require.NoError(t, err)
	assert.Equal(t, []byte(keys[0]), s3Get(t, c, vol, "copied #+ü"))

	for _, bad := range []string{"a//b", "a/../b", "./a", "a/./b", "/lead", ".s3compat_uploads/x"} {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String(bad), Body: strings.NewReader("x")})
		requireS3Error(t, err, http.StatusBadRequest, "InvalidArgument")
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String("dir/"), Body: strings.NewReader("not empty")})
	requireS3Error(t, err, http.StatusBadRequest, "InvalidArgument")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String("a+b/under a file"), Body: strings.NewReader("x")})
	requireS3Error(t, err, http.StatusBadRequest, "InvalidArgument")
}

// TestS3Streaming: big bodies stream through the fake: a 64 MiB PutObject,
// GetObject and a multipart upload of the same size allocate a small
// fraction of what they move (gofakes3's in-memory uploader would hold
// every part).
func TestS3Streaming(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 192 MiB")
	}
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	c := s3Client(srv, "EU-RO-1", 1, unsignedBody)
	ctx := t.Context()
	const size = 64 << 20
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}

	n := allocated(func() {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(vol), Key: aws.String("big"), Body: &lazyZeros{n: size}, ContentLength: aws.Int64(size)})
		require.NoError(t, err)
	})
	assert.Less(t, n, uint64(size/4), "PutObject allocated %d bytes", n)

	n = allocated(func() {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(vol), Key: aws.String("big")})
		require.NoError(t, err)
		got, err := io.Copy(io.Discard, out.Body)
		require.NoError(t, err)
		require.NoError(t, out.Body.Close())
		assert.Equal(t, int64(size), got)
	})
	assert.Less(t, n, uint64(size/4), "GetObject allocated %d bytes", n)

	n = allocated(func() {
		mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("parts")})
		require.NoError(t, err)
		var done []types.CompletedPart
		for i := range int32(4) {
			out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String("parts"), UploadId: mp.UploadId,
				PartNumber: aws.Int32(i + 1), Body: &lazyZeros{n: size / 4}, ContentLength: aws.Int64(size / 4)})
			require.NoError(t, err)
			done = append(done, types.CompletedPart{PartNumber: aws.Int32(i + 1), ETag: out.ETag})
		}
		_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("parts"), UploadId: mp.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
		require.NoError(t, err)
	})
	assert.Less(t, n, uint64(size/4), "the multipart upload allocated %d bytes", n)
	assert.Equal(t, int64(2*size), srv.VolumeUsage(vol))
}

// TestS3ClientOptions: the options ClientOptions returns aim at the S3
// API, one host per data center, with its key.
func TestS3ClientOptions(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	assert.Regexp(t, `^http://s3api-\{dc\}\.localhost:[0-9]+$`, srv.S3URL)
	assert.True(t, strings.HasPrefix(srv.S3AccessKey, "user_"))
	assert.True(t, strings.HasPrefix(srv.S3SecretKey, "rps_"))
	_, err := srv.NewClient()
	require.NoError(t, err)
}

// TestS3ConcurrentParts: parts uploaded at once all land.
func TestS3ConcurrentParts(t *testing.T) {
	_, vol, c := s3Volume(t, "EU-RO-1")
	ctx := t.Context()
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("k")})
	require.NoError(t, err)
	const n = 8
	etags := make([]string, n)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			out, err := c.UploadPart(context.WithoutCancel(ctx), &s3.UploadPartInput{Bucket: aws.String(vol), Key: aws.String("k"), UploadId: mp.UploadId,
				PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(bytes.Repeat([]byte{byte('a' + i)}, 1000))})
			if err == nil {
				etags[i] = aws.ToString(out.ETag)
			}
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	var parts []types.CompletedPart
	var want []byte
	for i := range n {
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: aws.String(etags[i])})
		want = append(want, bytes.Repeat([]byte{byte('a' + i)}, 1000)...)
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("k"), UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	require.NoError(t, err)
	assert.Equal(t, want, s3Get(t, c, vol, "k"))
}

// TestS3AWSChunked: an aws-chunked body (what SigV4 clients stream with
// trailing checksums, signed here by the SDK's signer on a plain
// request) stores the data it carries, for PutObject and UploadPart; a
// malformed one stores nothing.
func TestS3AWSChunked(t *testing.T) {
	srv, vol, c := s3Volume(t, "EU-RO-1")
	ctx := t.Context()
	endpoint := strings.ReplaceAll(srv.S3URL, "{dc}", "eu-ro-1")
	const payload = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	send := func(target, body string, decoded int) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, endpoint+"/"+vol+"/"+target, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Encoding", "aws-chunked")
		req.Header.Set("X-Amz-Decoded-Content-Length", strconv.Itoa(decoded))
		req.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
		req.Header.Set("X-Amz-Content-Sha256", payload)
		signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
		require.NoError(t, signer.SignHTTP(ctx, aws.Credentials{AccessKeyID: srv.S3AccessKey, SecretAccessKey: srv.S3SecretKey}, req, payload, "s3", "EU-RO-1", time.Now()))
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
		return resp
	}
	body := "5\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n"

	resp := send("dir%20x/chunked%2B.txt", body, 11)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, `"`+md5hex([]byte("hello world"))+`"`, resp.Header.Get("ETag"))
	b, err := srv.VolumeFile(vol, "dir x/chunked+.txt")
	require.NoError(t, err)
	assert.Equal(t, "hello world", string(b))

	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("parts")})
	require.NoError(t, err)
	resp = send("parts?partNumber=1&uploadId="+aws.ToString(mp.UploadId), body, 11)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(vol), Key: aws.String("parts"), UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(resp.Header.Get("ETag"))}}}})
	require.NoError(t, err)
	assert.Equal(t, []byte("hello world"), s3Get(t, c, vol, "parts"))

	resp = send("bad", "5\r\nhello world\r\n0\r\n\r\n", 11)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	_, err = srv.VolumeFile(vol, "bad")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, 2, fakes3.Count(srv, "PutObject"))
	assert.Equal(t, 1, fakes3.Count(srv, "UploadPart"))
}
