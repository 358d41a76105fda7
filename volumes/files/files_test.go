package files_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// volumeID is the fake volume the tests use, in a data center with the
// S3 API.
const volumeID = "vol0files1"

// fake starts a fake platform with one volume in EU-RO-1 and returns it
// with that volume's files.
func fake(t *testing.T, opts ...files.Option) (*runpodtest.Server, *files.Volume) {
	t.Helper()
	srv, rp, _ := fixture.New(t, fixture.Server(fakes3.Serve(), runpodtest.WithS3Storage(t.TempDir())))
	testkit.RegisterSecret(srv.S3SecretKey)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: "EU-RO-1", Size: 50})
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID, opts...)
	require.NoError(t, err)
	return srv, vol
}

// content returns n bytes that differ from file to file (by seed).
func content(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	_, _ = r.Read(b)
	return b
}

// writeFile writes b to a new file under t's temporary directory.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// list returns the keys List yields, and fails t on an error.
func list(t *testing.T, vol *files.Volume, prefix string, opts ...files.Option) []files.Entry {
	t.Helper()
	var out []files.Entry
	for e, err := range vol.List(t.Context(), prefix, opts...) {
		require.NoError(t, err)
		out = append(out, e)
	}
	return out
}

func keys(entries []files.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Key
	}
	return out
}

func TestUploadStatReadDownload(t *testing.T) {
	srv, vol := fake(t)
	body := content(1, 100_000)
	src := writeFile(t, "weights.bin", body)

	e, err := vol.Upload(t.Context(), src, "models/weights.bin")
	require.NoError(t, err)
	assert.Equal(t, int64(len(body)), e.Size)
	assert.Regexp(t, `^[0-9a-f]{32}$`, e.ETag, "one PutObject: the ETag is the MD5")
	assert.Equal(t, 1, fakes3.Count(srv, "PutObject"))
	got, err := srv.VolumeFile(volumeID, "models/weights.bin")
	require.NoError(t, err)
	assert.Equal(t, body, got, "a pod sees the file")
	assert.Equal(t, int64(len(body)), srv.VolumeUsage(volumeID))

	st, err := vol.Stat(t.Context(), "models/weights.bin")
	require.NoError(t, err)
	assert.Equal(t, e.ETag, st.ETag)
	assert.Equal(t, int64(len(body)), st.Size)
	assert.False(t, st.ModTime.IsZero())

	r, err := vol.Read(t.Context(), "models/weights.bin", 1000, 500)
	require.NoError(t, err)
	part, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.Equal(t, body[1000:1500], part)

	r, err = vol.Read(t.Context(), "models/weights.bin", 99_000, -1)
	require.NoError(t, err)
	part, err = io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.Equal(t, body[99_000:], part)

	dst := filepath.Join(t.TempDir(), "sub", "copy.bin")
	d, err := vol.Download(t.Context(), dst, "models/weights.bin")
	require.NoError(t, err)
	assert.Equal(t, e.ETag, d.ETag)
	copied, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, body, copied)
	fi, err := os.Stat(dst)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(st.ModTime), "the download has the volume's modification time")
}

func TestMissingKey(t *testing.T) {
	_, vol := fake(t)
	_, err := vol.Stat(t.Context(), "nothing/here")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	var se *files.S3Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 404, se.StatusCode)

	_, err = vol.Read(t.Context(), "nothing/here", 0, -1)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	dst := filepath.Join(t.TempDir(), "x")
	_, err = vol.Download(t.Context(), dst, "nothing/here")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.NoFileExists(t, dst)
}

// TestBadInputSendsNothing: every operation refuses a bad key, prefix,
// path or option with a *errs.ValidationError naming it, before any S3
// request.
func TestBadInputSendsNothing(t *testing.T) {
	srv, vol := fake(t)
	ctx := t.Context()
	field := func(err error) string {
		var ve *errs.ValidationError
		if !errors.As(err, &ve) {
			return "not a validation error: " + err.Error()
		}
		return ve.Field
	}
	_, err := vol.Upload(ctx, "x", "/workspace/a")
	assert.Equal(t, "key", field(err))
	_, err = vol.Upload(ctx, "x", "a/../b")
	assert.Equal(t, "key", field(err))
	_, err = vol.Upload(ctx, "", "a")
	assert.Equal(t, "localPath", field(err))
	_, err = vol.Upload(ctx, t.TempDir(), "a")
	assert.Equal(t, "localPath", field(err), "a directory")
	_, err = vol.UploadFrom(ctx, "a", nil, 1)
	assert.Equal(t, "r", field(err))
	_, err = vol.UploadFrom(ctx, "a", strings.NewReader(""), -2)
	assert.Equal(t, "size", field(err))
	_, err = vol.Stat(ctx, "dir/")
	assert.Equal(t, "key", field(err))
	_, err = vol.Read(ctx, "a", -1, 1)
	assert.Equal(t, "off", field(err))
	_, err = vol.Read(ctx, "a", 0, 0)
	assert.Equal(t, "n", field(err))
	_, err = vol.Download(ctx, "", "a")
	assert.Equal(t, "localPath", field(err))
	assert.Equal(t, "keys", field(vol.Delete(ctx, []string{"ok", "a//b"})))
	_, err = vol.Move(ctx, "a", "a")
	assert.Equal(t, "to", field(err))
	_, err = vol.AbortUploads(ctx, "a\x00")
	assert.Equal(t, "prefix", field(err))
	_, err = vol.Sync(ctx, files.DirectionToVolume, t.TempDir(), "../up")
	assert.Equal(t, "remotePrefix", field(err))
	_, err = vol.Upload(ctx, "x", "a", files.WithPartSize(1))
	assert.Equal(t, "WithPartSize", field(err))
	for e, err := range vol.List(ctx, "/abs") {
		assert.Equal(t, "prefix", field(err))
		assert.Zero(t, e)
	}
	for _, op := range []string{"PutObject", "UploadPart", "GetObject", "HeadObject", "ListObjectsV2", "DeleteObject", "CopyObject", "ListMultipartUploads"} {
		assert.Zero(t, fakes3.Count(srv, op), op)
	}
}

// TestMultipartResumesAfterFailure: an upload of n parts that fails
// after k keeps them; the same Upload again sends only the n-k missing
// ones (counted by the fake), and the file is whole.
func TestMultipartResumesAfterFailure(t *testing.T) {
	const part, n, k = files.MinPartSize, 6, 4
	srv, vol := fake(t, files.WithPartSize(part), files.WithMultipartThreshold(part), files.WithConcurrency(1))
	body := content(2, n*part-1000)
	src := writeFile(t, "big.bin", body)

	// The platform refuses part k+1 outright (not a retried status).
	fakes3.Fail(srv, fakes3.Fault{Op: "UploadPart", After: k, Status: 400})
	_, err := vol.Upload(t.Context(), src, "data/big.bin")
	var inc *files.IncompleteUploadError
	require.ErrorAs(t, err, &inc)
	assert.Equal(t, "data/big.bin", inc.Key)
	assert.Equal(t, k, inc.PartsDone)
	assert.Equal(t, n, inc.Parts)
	assert.NotEmpty(t, inc.UploadID)
	assert.Contains(t, err.Error(), "run the same upload again to resume")
	_, err = srv.VolumeFile(volumeID, "data/big.bin")
	assert.ErrorIs(t, err, fs.ErrNotExist, "nothing under the final name")
	assert.Equal(t, int64(k*part), srv.VolumeUsage(volumeID), "the finished parts are kept on the volume")
	sent := fakes3.Count(srv, "UploadPart")
	assert.Equal(t, k+1, sent)

	// A restart: a new Volume, the same call.
	_, vol2 := fakeAgain(t, srv, files.WithPartSize(part), files.WithMultipartThreshold(part), files.WithConcurrency(3))
	e, err := vol2.Upload(t.Context(), src, "data/big.bin")
	require.NoError(t, err)
	assert.Equal(t, n-k, fakes3.Count(srv, "UploadPart")-sent, "only the missing parts are sent")
	assert.Equal(t, 1, fakes3.Count(srv, "CreateMultipartUpload"), "the upload resumed")
	assert.Regexp(t, `^[0-9a-f]{32}-6$`, e.ETag)
	got, err := srv.VolumeFile(volumeID, "data/big.bin")
	require.NoError(t, err)
	assert.Equal(t, body, got)
	assert.Equal(t, int64(len(body)), srv.VolumeUsage(volumeID), "the parts are gone once complete")
}

// fakeAgain returns the files of the test volume through a new client of
// srv, as a restarted program would have.
func fakeAgain(t *testing.T, srv *runpodtest.Server, opts ...files.Option) (*runpodtest.Server, *files.Volume) {
	t.Helper()
	rp, _ := fixture.NewClient(t, srv)
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID, opts...)
	require.NoError(t, err)
	return srv, vol
}

// TestMultipartStoppedByCancel: a canceled upload keeps its parts and
// says so, matching context.Canceled; the next run sends what is missing,
// and again a finished part whose content changed on disk meanwhile.
func TestMultipartStoppedByCancel(t *testing.T) {
	const part, n = files.MinPartSize, 4
	srv, vol := fake(t, files.WithPartSize(part), files.WithMultipartThreshold(part), files.WithConcurrency(1))
	body := content(3, n*part)
	src := writeFile(t, "big.bin", body)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := vol.Upload(ctx, src, "big.bin", files.WithProgress(func(e files.ProgressEvent) {
		if e.Done >= 2*part {
			cancel()
		}
	}))
	var inc *files.IncompleteUploadError
	require.ErrorAs(t, err, &inc)
	assert.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, inc.PartsDone, 2)
	sent := fakes3.Count(srv, "UploadPart")

	// The first part changed on disk meanwhile: it is sent again.
	copy(body[:10], "0123456789")
	require.NoError(t, os.WriteFile(src, body, 0o644))
	var events []files.ProgressEvent
	_, err = vol.Upload(t.Context(), src, "big.bin", files.WithProgress(func(e files.ProgressEvent) { events = append(events, e) }))
	require.NoError(t, err)
	assert.Equal(t, n-inc.PartsDone+1, fakes3.Count(srv, "UploadPart")-sent)
	got, err := srv.VolumeFile(volumeID, "big.bin")
	require.NoError(t, err)
	assert.Equal(t, body, got)
	require.NotEmpty(t, events)
	assert.Equal(t, files.ProgressEvent{File: "big.bin", Path: src, Done: n * part, Total: n * part}, events[len(events)-1])
}

// TestUploadFromReader: a reader of unknown size goes as one put when it
// is small, and as a multipart upload read a part at a time when not.
func TestUploadFromReader(t *testing.T) {
	const part = files.MinPartSize
	srv, vol := fake(t, files.WithPartSize(part), files.WithMultipartThreshold(part))
	small := content(4, 1000)
	e, err := vol.UploadFrom(t.Context(), "small.txt", io.MultiReader(bytes.NewReader(small)), -1)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), e.Size)
	assert.Equal(t, 1, fakes3.Count(srv, "PutObject"))

	big := content(5, 3*part+17)
	e, err = vol.UploadFrom(t.Context(), "big.bin", io.MultiReader(bytes.NewReader(big)), -1)
	require.NoError(t, err)
	assert.Equal(t, int64(len(big)), e.Size)
	assert.Equal(t, 4, fakes3.Count(srv, "UploadPart"))
	got, err := srv.VolumeFile(volumeID, "big.bin")
	require.NoError(t, err)
	assert.Equal(t, big, got)

	_, err = vol.UploadFrom(t.Context(), "short.bin", io.MultiReader(bytes.NewReader(big[:10])), 20)
	assert.ErrorContains(t, err, "the reader ended at byte 10 of 20")
}

// TestCompleteFailsButFileIsWhole: when the answer to
// CompleteMultipartUpload is lost (the platform documents timeouts there
// for large files), Upload reads the key back and accepts the file.
func TestCompleteFailsButFileIsWhole(t *testing.T) {
	const part = files.MinPartSize
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve(), runpodtest.WithS3Storage(t.TempDir()))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: loseAnswer{base: srv.Client().Transport, query: "uploadId", method: http.MethodPost}}
	rp, err := srv.NewClient(option.WithHTTPClient(hc), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: "EU-RO-1", Size: 50})
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID, files.WithPartSize(part), files.WithMultipartThreshold(part))
	require.NoError(t, err)
	body := content(6, 2*part+5)
	e, err := vol.Upload(t.Context(), writeFile(t, "big.bin", body), "big.bin")
	require.NoError(t, err)
	assert.Regexp(t, `-3$`, e.ETag)
	assert.GreaterOrEqual(t, fakes3.Count(srv, "CompleteMultipartUpload"), 1)
	assert.Equal(t, 1, fakes3.Count(srv, "HeadObject"), "read back once")
	got, err := srv.VolumeFile(volumeID, "big.bin")
	require.NoError(t, err)
	assert.Equal(t, body, got)
}

// TestCompleteThatLies: the platform answers CompleteMultipartUpload
// with success and stores nothing (runpodctl issue #282), then holds a
// file of another size, then one of the same size and another ETag:
// each time Upload reads the key back and fails with an
// *UnconfirmedUploadError inside an *IncompleteUploadError, aborting
// nothing. Once the platform answers truly, the same Upload resumes
// (no part sent again) and completes.
func TestCompleteThatLies(t *testing.T) {
	const part, n = files.MinPartSize, 3
	body := content(23, n*part-77)
	sums := md5.New()
	for off := 0; off < len(body); off += part {
		sum := md5.Sum(body[off:min(off+part, len(body))])
		sums.Write(sum[:])
	}
	want := fmt.Sprintf("%x-%d", sums.Sum(nil), n)

	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve(), runpodtest.WithS3Storage(t.TempDir()))
	t.Cleanup(srv.Close)
	testkit.RegisterSecret(srv.S3SecretKey)
	liar := &lieOnComplete{base: srv.Client().Transport, etag: want}
	liar.lie.Store(true)
	rp, err := srv.NewClient(option.WithHTTPClient(&http.Client{Transport: liar}), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: "EU-RO-1", Size: 50})
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID, files.WithPartSize(part), files.WithMultipartThreshold(part))
	require.NoError(t, err)
	src := writeFile(t, "big.bin", body)

	unconfirmed := func(t *testing.T) *files.UnconfirmedUploadError {
		t.Helper()
		_, err := vol.Upload(t.Context(), src, "m/big.bin")
		var inc *files.IncompleteUploadError
		require.ErrorAs(t, err, &inc, "the handling of a stopped upload applies")
		assert.Equal(t, n, inc.PartsDone)
		assert.Equal(t, n, inc.Parts)
		var unc *files.UnconfirmedUploadError
		require.ErrorAs(t, err, &unc)
		require.ErrorIs(t, err, files.ErrUploadUnconfirmed)
		assert.Equal(t, "m/big.bin", unc.Key)
		assert.Equal(t, inc.UploadID, unc.UploadID)
		assert.Equal(t, int64(len(body)), unc.Size)
		assert.Equal(t, want, unc.ETag)
		assert.Contains(t, err.Error(), "run the same upload again")
		assert.NotErrorIs(t, err, fs.ErrNotExist, "the local file is there")
		testkit.NoSecret(t, err)
		assert.Equal(t, n, fakes3.Count(srv, "UploadPart"), "no part is sent again")
		assert.Equal(t, 1, fakes3.Count(srv, "CreateMultipartUpload"), "the upload resumes")
		assert.Zero(t, fakes3.Count(srv, "AbortMultipartUpload"), "nothing is aborted")
		return unc
	}

	// Nothing stored.
	unc := unconfirmed(t)
	assert.True(t, unc.Missing)
	assert.Nil(t, unc.Found)
	assert.Contains(t, unc.Error(), "no file is at the key")
	assert.Equal(t, 1, fakes3.Count(srv, "HeadObject"), "read back once")

	// Another file, of another size.
	require.NoError(t, srv.WriteVolumeFile(volumeID, "m/big.bin", strings.NewReader("old version")))
	unc = unconfirmed(t)
	assert.False(t, unc.Missing)
	require.NotNil(t, unc.Found)
	assert.Equal(t, int64(len("old version")), unc.Found.Size)

	// Another file of the same size: the ETag tells.
	require.NoError(t, srv.WriteVolumeFile(volumeID, "m/big.bin", bytes.NewReader(content(24, len(body)))))
	unc = unconfirmed(t)
	require.NotNil(t, unc.Found)
	assert.Equal(t, int64(len(body)), unc.Found.Size)
	assert.NotEqual(t, want, unc.Found.ETag)

	// The platform fixed itself: the same upload completes.
	liar.lie.Store(false)
	e, err := vol.Upload(t.Context(), src, "m/big.bin")
	require.NoError(t, err)
	assert.Equal(t, want, e.ETag)
	assert.Equal(t, n, fakes3.Count(srv, "UploadPart"), "no part is sent again")
	assert.Equal(t, 1, fakes3.Count(srv, "CreateMultipartUpload"))
	assert.Equal(t, 1, fakes3.Count(srv, "CompleteMultipartUpload"))
	got, err := srv.VolumeFile(volumeID, "m/big.bin")
	require.NoError(t, err)
	assert.Equal(t, body, got)
}

// lieOnComplete answers CompleteMultipartUpload itself while lie is set,
// with success and etag, and passes nothing on: the platform says the
// upload is complete and stores nothing. Other requests go to base.
type lieOnComplete struct {
	base http.RoundTripper
	etag string
	lie  atomic.Bool
}

func (l *lieOnComplete) RoundTrip(req *http.Request) (*http.Response, error) {
	if !l.lie.Load() || req.Method != http.MethodPost || !req.URL.Query().Has("uploadId") {
		return l.base.RoundTrip(req)
	}
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	body := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>` + volumeID +
		`</Bucket><Key>m/big.bin</Key><ETag>&quot;` + l.etag + `&quot;</ETag></CompleteMultipartUploadResult>`
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/xml"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// loseAnswer passes requests of method with query parameter query to
// base, then loses the answer, as a timeout after the server acted.
type loseAnswer struct {
	base          http.RoundTripper
	query, method string
}

func (l loseAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil || req.Method != l.method || !req.URL.Query().Has(l.query) {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return nil, errors.New("read: connection timed out")
}

// TestDownloadResumes: a download cut mid-file fails without a file
// under its final name; the next run fetches only the missing ranges.
func TestDownloadResumes(t *testing.T) {
	const part, n, k = files.MinPartSize, 5, 2
	srv, vol := fake(t, files.WithPartSize(part), files.WithConcurrency(1))
	body := content(7, n*part-3)
	require.NoError(t, srv.WriteVolumeFile(volumeID, "data/set.bin", bytes.NewReader(body)))

	// Range k+1's body is cut short, every time it is asked for.
	fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", After: k, Cut: 1000, Times: 100})
	dir := t.TempDir()
	dst := filepath.Join(dir, "set.bin")
	_, err := vol.Download(t.Context(), dst, "data/set.bin")
	var se *files.S3Error
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "cut short")
	assert.NoFileExists(t, dst, "never a partial file under the final name")
	temps, journals := downloadLeftovers(t, dir, "set.bin")
	assert.Len(t, temps, 1, "the temporary file is kept")
	assert.Len(t, journals, 1, "the journal is kept")

	fakes3.ClearFaults(srv)
	before := fakes3.Count(srv, "GetObject")
	_, err = vol.Download(t.Context(), dst, "data/set.bin")
	require.NoError(t, err)
	assert.Equal(t, n-k, fakes3.Count(srv, "GetObject")-before, "only the missing ranges")
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, body, got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the temporary file and journal are gone")
}

// TestReadResumesCutBody: a body cut short is asked for again from where
// it stopped, for the same version of the file.
func TestReadResumesCutBody(t *testing.T) {
	srv, vol := fake(t)
	body := content(8, 50_000)
	require.NoError(t, srv.WriteVolumeFile(volumeID, "a.bin", bytes.NewReader(body)))
	fakes3.Fail(srv, fakes3.Fault{Op: "GetObject", Cut: 7000, Times: 2})
	r, err := vol.Read(t.Context(), "a.bin", 0, -1)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.Equal(t, body, got)
	assert.Equal(t, 3, fakes3.Count(srv, "GetObject"))
}

// TestListing5000WithRepeatedToken: a 5,000-file listing whose pages the
// platform answers twice with the token it was given lists each file
// once.
func TestListing5000WithRepeatedToken(t *testing.T) {
	srv, vol := fake(t)
	want := make([]string, 5000)
	for i := range want {
		want[i] = fmt.Sprintf("shards/%02d/part-%05d.jsonl", i%50, i)
		require.NoError(t, srv.WriteVolumeFile(volumeID, want[i], strings.NewReader("x")))
	}
	slices.Sort(want)
	fakes3.Fail(srv, fakes3.Fault{Op: "ListObjectsV2", RepeatToken: true, After: 1, Times: 2})
	fakes3.Fail(srv, fakes3.Fault{Op: "ListObjectsV2", RepeatToken: true, After: 3, Times: 1})
	got := keys(list(t, vol, "shards/"))
	assert.Equal(t, want, got)
	assert.Equal(t, 5+3, fakes3.Count(srv, "ListObjectsV2"), "5 pages, 3 asked again")
}

// TestListingGivesUpOnEndlessToken: a page that keeps coming back with
// its own token ends the listing with ErrRepeatedToken.
func TestListingGivesUpOnEndlessToken(t *testing.T) {
	srv, vol := fake(t)
	for i := range 1001 {
		require.NoError(t, srv.WriteVolumeFile(volumeID, fmt.Sprintf("f%04d", i), strings.NewReader("x")))
	}
	fakes3.Fail(srv, fakes3.Fault{Op: "ListObjectsV2", RepeatToken: true, Times: 1000})
	n := 0
	var last error
	for _, err := range vol.List(t.Context(), "") {
		if err != nil {
			last = err
			continue
		}
		n++
	}
	assert.Equal(t, 1000, n, "the first page")
	assert.ErrorIs(t, last, files.ErrRepeatedToken)
}

func TestListDirectories(t *testing.T) {
	srv, vol := fake(t)
	for _, k := range []string{"a/1.txt", "a/b/2.txt", "c.txt"} {
		require.NoError(t, srv.WriteVolumeFile(volumeID, k, strings.NewReader(k)))
	}
	_, err := vol.UploadFrom(t.Context(), "empty/", strings.NewReader(""), 0)
	require.Error(t, err, "a key ending in / is not a file")
	require.NoError(t, srv.MakeVolumeDir(volumeID, "empty"))

	all := list(t, vol, "")
	assert.Equal(t, []string{"a/1.txt", "a/b/2.txt", "c.txt", "empty/"}, keys(all))
	assert.True(t, all[3].Dir, "an empty directory is listed")
	assert.Equal(t, "empty", all[3].Name())
	assert.False(t, all[0].Dir)

	top := list(t, vol, "", files.NonRecursive())
	assert.Equal(t, []string{"a/", "c.txt", "empty/"}, keys(top))
	assert.True(t, top[0].Dir)
	assert.Equal(t, []string{"a/1.txt", "a/b/"}, keys(list(t, vol, "a/", files.NonRecursive())))
}

// TestBadGatewayStorm: 502s within the retry budget (10 tries) are
// retried; one more is an error.
func TestBadGatewayStorm(t *testing.T) {
	srv, vol := fake(t)
	src := writeFile(t, "a.txt", []byte("hello"))
	fakes3.Fail(srv, fakes3.Fault{Op: "PutObject", Status: http.StatusBadGateway, Times: files.MaxAttempts - 1})
	_, err := vol.Upload(t.Context(), src, "a.txt")
	require.NoError(t, err)
	assert.Equal(t, files.MaxAttempts, fakes3.Count(srv, "PutObject"))

	fakes3.Fail(srv, fakes3.Fault{Op: "HeadObject", Status: http.StatusBadGateway, Times: files.MaxAttempts})
	_, err = vol.Stat(t.Context(), "a.txt")
	var se *files.S3Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusBadGateway, se.StatusCode)
}

func TestDeleteAndMove(t *testing.T) {
	srv, vol := fake(t, files.WithConcurrency(3))
	for i := range 10 {
		require.NoError(t, srv.WriteVolumeFile(volumeID, fmt.Sprintf("tmp/%d", i), strings.NewReader("x")))
	}
	var ks []string
	for i := range 10 {
		ks = append(ks, fmt.Sprintf("tmp/%d", i))
	}
	require.NoError(t, vol.Delete(t.Context(), append(ks, "tmp/never-there")))
	assert.Equal(t, 11, fakes3.Count(srv, "DeleteObject"), "one DeleteObject per key")
	assert.Zero(t, fakes3.Count(srv, "DeleteObjects"))
	// The files are gone; their directory stays, as on a filesystem, and
	// is listed as an empty directory.
	assert.Equal(t, []string{"tmp/"}, keys(list(t, vol, "tmp/")))

	require.NoError(t, srv.WriteVolumeFile(volumeID, "in/a #1.txt", strings.NewReader("move me")))
	e, err := vol.Move(t.Context(), "in/a #1.txt", "out/a #1 (moved).txt")
	require.NoError(t, err)
	assert.Equal(t, int64(len("move me")), e.Size)
	got, err := srv.VolumeFile(volumeID, "out/a #1 (moved).txt")
	require.NoError(t, err)
	assert.Equal(t, "move me", string(got))
	_, err = srv.VolumeFile(volumeID, "in/a #1.txt")
	assert.ErrorIs(t, err, fs.ErrNotExist)

	// The delete of the original fails: the file is at both keys.
	require.NoError(t, srv.WriteVolumeFile(volumeID, "b.txt", strings.NewReader("b")))
	fakes3.Fail(srv, fakes3.Fault{Op: "DeleteObject", Status: http.StatusForbidden, Times: files.MaxAttempts})
	_, err = vol.Move(t.Context(), "b.txt", "c.txt")
	var me *files.MoveError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "b.txt", me.From)
	assert.ErrorIs(t, err, errs.ErrForbidden)
	for _, k := range []string{"b.txt", "c.txt"} {
		_, err := vol.Stat(t.Context(), k)
		assert.NoError(t, err, k)
	}
}

func TestAbortUploads(t *testing.T) {
	const part = files.MinPartSize
	srv, vol := fake(t, files.WithPartSize(part), files.WithMultipartThreshold(part), files.WithConcurrency(1))
	src := writeFile(t, "big.bin", content(9, 3*part))
	fakes3.Fail(srv, fakes3.Fault{Op: "UploadPart", After: 1, Status: 400})
	_, err := vol.Upload(t.Context(), src, "x/big.bin")
	require.Error(t, err)
	assert.Positive(t, srv.VolumeUsage(volumeID))
	n, err := vol.AbortUploads(t.Context(), "x/")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Zero(t, srv.VolumeUsage(volumeID), "the parts are gone")
	n, err = vol.AbortUploads(t.Context(), "")
	require.NoError(t, err)
	assert.Zero(t, n)
}

// TestWrongSecret: a refused S3 key is an error naming the S3 code,
// without the secret.
func TestWrongSecret(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve(), runpodtest.WithS3Storage(t.TempDir()))
	t.Cleanup(srv.Close)
	const wrong = "rps_WRONGSECRET0123456789"
	testkit.RegisterSecret(wrong)
	log, lines := testkit.Logger()
	rp, err := srv.NewClient(option.WithS3Credentials(srv.S3AccessKey, wrong), option.WithLogger(log))
	require.NoError(t, err)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: "EU-RO-1", Size: 50})
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID)
	require.NoError(t, err)
	_, err = vol.Stat(t.Context(), "a")
	var se *files.S3Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusForbidden, se.StatusCode)
	assert.ErrorIs(t, err, errs.ErrForbidden)
	testkit.NoSecret(t, err, vol, lines.String())
}

// TestClockSkew: a machine whose clock is two hours off is refused by
// the platform (more than one hour: RequestTimeTooSkewed); the client
// takes the platform's time from the answer's Date header and signs the
// retry with it.
func TestClockSkew(t *testing.T) {
	ahead := time.Now().Add(2 * time.Hour)
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve(), runpodtest.WithS3Storage(t.TempDir()), runpodtest.WithClock(func() time.Time { return ahead }))
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: "EU-RO-1", Size: 50})
	require.NoError(t, srv.WriteVolumeFile(volumeID, "a.txt", strings.NewReader("a")))
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID)
	require.NoError(t, err)
	// A HEAD's refusal has no body to name the code: Stat asks again,
	// signed with the time the refusal carried.
	e, err := vol.Stat(t.Context(), "a.txt")
	require.NoError(t, err)
	assert.Equal(t, int64(1), e.Size)
	assert.Equal(t, 2, fakes3.Count(srv, "HeadObject"))

	// A GET's refusal names RequestTimeTooSkewed: the S3 client retries it
	// with the platform's time (a new client, which has not learnt it).
	_, vol2 := fakeAgain(t, srv)
	r, err := vol2.Read(t.Context(), "a.txt", 0, -1)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.Equal(t, 2, fakes3.Count(srv, "GetObject"), "refused once, then signed with the platform's time")
}
