package files_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// clientFake is a fake platform without S3 storage and a client of it.
func clientFake(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve())
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

// s3Ops are the S3 operations the fake counts.
var s3Ops = []string{
	"PutObject", "UploadPart", "GetObject", "HeadObject", "ListObjectsV2", "CreateMultipartUpload",
	"CompleteMultipartUpload", "AbortMultipartUpload", "ListMultipartUploads", "ListParts", "CopyObject",
	"DeleteObject", "DeleteObjects",
}

// noS3 fails t when the fake saw any S3 request.
func noS3(t *testing.T, srv *runpodtest.Server) {
	t.Helper()
	for _, op := range s3Ops {
		assert.Zero(t, fakes3.Count(srv, op), op)
	}
}

func TestServiceVolume(t *testing.T) {
	srv, rp := clientFake(t)
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol1", DataCenter: "EU-RO-1", Size: 50})
	require.NoError(t, srv.WriteVolumeFile(id, "models/a.bin", strings.NewReader("weights")))

	before := len(srv.Requests())
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), id, files.WithConcurrency(2))
	require.NoError(t, err)
	assert.Equal(t, id, vol.ID())
	assert.Equal(t, "EU-RO-1", vol.DataCenter())
	got := srv.Requests()[before:]
	if assert.Len(t, got, 1, "one REST GET") {
		assert.Equal(t, http.MethodGet, got[0].Method)
		assert.Equal(t, "/v2/network-volumes/"+id, got[0].Path)
	}
	noS3(t, srv)

	dst := t.TempDir() + "/a.bin"
	e, err := vol.Download(t.Context(), dst, "models/a.bin")
	require.NoError(t, err)
	assert.Equal(t, int64(len("weights")), e.Size)
}

// TestVolumeDataCenterWithoutS3: a volume in a data center without the S3
// API is refused after the REST GET alone.
func TestVolumeDataCenterWithoutS3(t *testing.T) {
	srv, rp := clientFake(t)
	testkit.RegisterSecret(srv.S3SecretKey)
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-TX-3", Size: 50})

	before := len(srv.Requests())
	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), id)
	require.Error(t, err)
	assert.Nil(t, vol)
	var dcErr *files.DataCenterError
	require.ErrorAs(t, err, &dcErr)
	assert.Equal(t, id, dcErr.VolumeID)
	assert.Equal(t, "US-TX-3", dcErr.DataCenter)
	assert.ErrorIs(t, err, files.ErrNoS3API)
	assert.Contains(t, err.Error(), "EU-RO-1", "the error names the data centers that have the API")
	assert.Len(t, srv.Requests()[before:], 1, "the REST GET only")
	noS3(t, srv)
	testkit.NoSecret(t, err)
}

func TestVolumeRefusesBeforeSending(t *testing.T) {
	srv, rp := clientFake(t)
	for _, id := range []string{"", "../vol", "vol 1", "vol/1"} {
		_, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), id)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%q", id)
		assert.Equal(t, "volumeID", ve.Field)
	}
	assert.Empty(t, srv.Requests())
	noS3(t, srv)
}

func TestVolumeUnknownVolume(t *testing.T) {
	srv, rp := clientFake(t)
	_, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), "nosuchvolume")
	assert.ErrorIs(t, err, errs.ErrNotFound)
	noS3(t, srv)
}

func TestVolumeBadOption(t *testing.T) {
	srv, rp := clientFake(t)
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1", Size: 50})
	_, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), id, files.WithConcurrency(0))
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithConcurrency", ve.Field)
	noS3(t, srv)
}

// refuseAll is a RoundTripper that fails the test on any request.
type refuseAll struct{ t *testing.T }

func (r refuseAll) RoundTrip(req *http.Request) (*http.Response, error) {
	assert.Fail(r.t, "unexpected request", "%s %s", req.Method, req.URL.Redacted())
	return nil, errors.New("no request expected")
}

// TestNewSendsNothing: files.New refuses a data center without the S3
// API, and accepts one with it, without a single request.
func TestNewSendsNothing(t *testing.T) {
	cfg, err := option.NewConfig(
		option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"),
		option.WithS3Credentials("user_test", "rps_not-a-real-secret"),
		option.WithHTTPClient(&http.Client{Transport: refuseAll{t}}),
	)
	require.NoError(t, err)
	testkit.RegisterSecret("rps_not-a-real-secret")

	_, err = files.New(cfg, "vol1", "US-TX-3")
	var dcErr *files.DataCenterError
	require.ErrorAs(t, err, &dcErr)
	assert.Equal(t, "US-TX-3", dcErr.DataCenter)
	testkit.NoSecret(t, err)

	vol, err := files.New(cfg, "vol1", "eu-ro-1")
	require.NoError(t, err)
	assert.Equal(t, "EU-RO-1", vol.DataCenter())
	testkit.NoSecret(t, vol)
}
