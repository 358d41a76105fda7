package volumes_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes"
)

func fake(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve())
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

func newVolume() volumes.CreateNetworkVolumeRequest {
	return volumes.CreateNetworkVolumeRequest{Name: "datasets", Size: 50, DataCenter: "EU-RO-1"}
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

// problem returns err as a *errs.APIError, failing t when it is not one.
func problem(t *testing.T, err error) *errs.APIError {
	t.Helper()
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	return apiErr
}

// names reports whether one of the problem's errors names field.
func names(apiErr *errs.APIError, field string) bool {
	return slices.ContainsFunc(apiErr.Errors, func(e string) bool { return strings.HasPrefix(e, field+":") })
}

// TestWireFormats: each method's method, path and body, and what comes
// back, through the whole life of a volume.
func TestWireFormats(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()

	list, err := rp.Volumes.List(ctx)
	require.NoError(t, err)
	assert.NotNil(t, list, "an empty list is empty, not nil")
	assert.Empty(t, list)

	v, err := rp.Volumes.Create(ctx, newVolume())
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteCreateNetworkVolume, r.Route)
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.JSONEq(t, `{"name":"datasets","size":50,"dataCenter":"EU-RO-1"}`, string(r.Body), "no type: the data center's primary tier")
	assert.Regexp(t, `^[a-z0-9]{10}$`, v.ID)
	assert.Equal(t, volumes.NetworkVolume{ID: v.ID, Name: "datasets", Size: 50, DataCenter: "EU-RO-1", Type: volumes.VolumeTypeStandard}, *v)

	got, err := rp.Volumes.Get(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, *v, *got)
	assert.Equal(t, "/v2/network-volumes/"+v.ID, last(srv).Path)

	v, err = rp.Volumes.Update(ctx, v.ID, volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("training-data"), Size: runpod.Ptr(120)})
	require.NoError(t, err)
	r = last(srv)
	assert.Equal(t, runpodtest.RouteUpdateNetworkVolume, r.Route)
	assert.JSONEq(t, `{"name":"training-data","size":120}`, string(r.Body))
	assert.Equal(t, "training-data", v.Name)
	assert.Equal(t, 120, v.Size)

	v, err = rp.Volumes.Update(ctx, v.ID, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(200)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"size":200}`, string(last(srv).Body), "a nil field is not sent")
	assert.Equal(t, "training-data", v.Name, "the name stays")
	assert.Equal(t, 200, v.Size)

	hp, err := rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{
		Name: "fast", Size: volumes.MaxSize, DataCenter: "US-KS-2", Type: runpod.Ptr(volumes.VolumeTypeHighPerformance),
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"fast","size":4096,"dataCenter":"US-KS-2","type":"HIGH_PERFORMANCE"}`, string(last(srv).Body))
	assert.Equal(t, volumes.VolumeTypeHighPerformance, hp.Type)

	list, err = rp.Volumes.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []volumes.NetworkVolume{*v, *hp}, list, "in creation order")
	assert.Equal(t, runpodtest.RouteNetworkVolumes, last(srv).Route)

	require.NoError(t, rp.Volumes.Delete(ctx, v.ID))
	r = last(srv)
	assert.Equal(t, runpodtest.RouteDeleteNetworkVolume, r.Route)
	assert.Equal(t, http.StatusNoContent, r.Status)
	_, err = rp.Volumes.Get(ctx, v.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	assert.Equal(t, []runpodtest.NetworkVolume{{ID: hp.ID, Name: "fast", Size: 4096, DataCenter: "US-KS-2", Type: volumes.VolumeTypeHighPerformance}},
		srv.NetworkVolumes())
}

// TestValidation: requests that break the document's constraints are
// refused before anything is sent, naming the field.
func TestValidation(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	creates := []struct {
		field string
		edit  func(*volumes.CreateNetworkVolumeRequest)
	}{
		{"CreateNetworkVolumeRequest.Name", func(r *volumes.CreateNetworkVolumeRequest) { r.Name = "" }},
		{"CreateNetworkVolumeRequest.Name", func(r *volumes.CreateNetworkVolumeRequest) { r.Name = "  " }},
		{"CreateNetworkVolumeRequest.Size", func(r *volumes.CreateNetworkVolumeRequest) { r.Size = 0 }},
		{"CreateNetworkVolumeRequest.Size", func(r *volumes.CreateNetworkVolumeRequest) { r.Size = volumes.MinSize - 1 }},
		{"CreateNetworkVolumeRequest.Size", func(r *volumes.CreateNetworkVolumeRequest) { r.Size = volumes.MaxSize + 1 }},
		{"CreateNetworkVolumeRequest.DataCenter", func(r *volumes.CreateNetworkVolumeRequest) { r.DataCenter = "" }},
		{"CreateNetworkVolumeRequest.Type", func(r *volumes.CreateNetworkVolumeRequest) { r.Type = runpod.Ptr(volumes.VolumeType("FAST")) }},
		{"CreateNetworkVolumeRequest.Type", func(r *volumes.CreateNetworkVolumeRequest) { r.Type = runpod.Ptr(volumes.VolumeType("")) }},
	}
	for _, c := range creates {
		req := newVolume()
		c.edit(&req)
		_, err := rp.Volumes.Create(ctx, req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.field)
		assert.Equal(t, c.field, ve.Field)
		require.ErrorIs(t, err, errs.ErrValidation)
	}
	for _, size := range []int{volumes.MinSize, volumes.MaxSize} {
		req := newVolume()
		req.Size = size
		assert.NoError(t, req.Validate(), "%d GB is within the range", size)
	}

	updates := []struct {
		field string
		req   volumes.UpdateNetworkVolumeRequest
	}{
		{"UpdateNetworkVolumeRequest", volumes.UpdateNetworkVolumeRequest{}},
		{"UpdateNetworkVolumeRequest.Name", volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("")}},
		{"UpdateNetworkVolumeRequest.Size", volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(9)}},
		{"UpdateNetworkVolumeRequest.Size", volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("ok"), Size: runpod.Ptr(4097)}},
	}
	for _, c := range updates {
		_, err := rp.Volumes.Update(ctx, "agv6w2qcg7", c.req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.field)
		assert.Equal(t, c.field, ve.Field)
	}

	for _, id := range []string{"", "../etc", "a/b", "a b", "a?b", "a%2Fb", "."} {
		_, err := rp.Volumes.Get(ctx, id)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%q", id)
		assert.Equal(t, "volumeID", ve.Field)
		_, err = rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(20)})
		require.ErrorIs(t, err, errs.ErrValidation, "%q", id)
		require.ErrorIs(t, rp.Volumes.Delete(ctx, id), errs.ErrValidation, "%q", id)
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}

// TestPlatformErrors: what only the platform knows comes back as a typed
// error: an unknown id (404), an unknown data center or a tier it does not
// offer (400), and a shrink (400), each naming the field; nothing changes.
func TestPlatformErrors(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()

	_, err := rp.Volumes.Get(ctx, "nosuchvol1")
	require.ErrorIs(t, err, errs.ErrNotFound)
	assert.Equal(t, http.StatusNotFound, problem(t, err).StatusCode)
	_, err = rp.Volumes.Update(ctx, "nosuchvol1", volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(20)})
	require.ErrorIs(t, err, errs.ErrNotFound)
	require.ErrorIs(t, rp.Volumes.Delete(ctx, "nosuchvol1"), errs.ErrNotFound, "a first attempt's 404 is an error")

	req := newVolume()
	req.DataCenter = "XX-NOPE-9"
	_, err = rp.Volumes.Create(ctx, req)
	apiErr := problem(t, err)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.True(t, names(apiErr, "$.dataCenter"), "%q", apiErr.Errors)

	req = newVolume()
	req.DataCenter, req.Type = "EU-SE-1", runpod.Ptr(volumes.VolumeTypeHighPerformance)
	_, err = rp.Volumes.Create(ctx, req)
	apiErr = problem(t, err)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.True(t, names(apiErr, "$.type"), "%q", apiErr.Errors)
	assert.Empty(t, srv.NetworkVolumes(), "nothing was created")

	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "big", Size: 100})
	before := srv.Count(runpodtest.RouteUpdateNetworkVolume)
	_, err = rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("smaller"), Size: runpod.Ptr(50)})
	apiErr = problem(t, err)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.True(t, names(apiErr, "$.size"), "%q", apiErr.Errors)
	assert.False(t, apiErr.OutcomeUnknown)
	assert.Equal(t, before+1, srv.Count(runpodtest.RouteUpdateNetworkVolume), "a 400 is not retried")
	v, err := rp.Volumes.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "big", v.Name, "a refused update changes nothing")
	assert.Equal(t, 100, v.Size)

	v, err = rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(100)})
	require.NoError(t, err, "the current size again is no shrink")
	assert.Equal(t, 100, v.Size)
}

// TestPermissions: reads need VolumesRead and changes VolumesWrite; a key
// without them gets 403.
func TestPermissions(t *testing.T) {
	srv, _ := fake(t)
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "v"})
	reader, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionVolumesRead)))
	require.NoError(t, err)
	t.Cleanup(reader.CloseIdleConnections)
	_, err = reader.Volumes.List(t.Context())
	require.NoError(t, err)
	_, err = reader.Volumes.Get(t.Context(), id)
	require.NoError(t, err)
	_, err = reader.Volumes.Create(t.Context(), newVolume())
	assert.Equal(t, http.StatusForbidden, problem(t, err).StatusCode)
	err = reader.Volumes.Delete(t.Context(), id)
	assert.Equal(t, http.StatusForbidden, problem(t, err).StatusCode)
	assert.Len(t, srv.NetworkVolumes(), 1)
}

// TestCreateNeverTwice: a create that may have reached the platform is
// not repeated; the fake proves how many volumes exist.
func TestCreateNeverTwice(t *testing.T) {
	srv, rp := fake(t)
	for _, f := range []runpodtest.Fault{{Drop: runpodtest.DropAfter}, {Drop: runpodtest.DropBefore}, {Status: 500}, {Status: 503}} {
		before := srv.Count(runpodtest.RouteCreateNetworkVolume)
		srv.FailNext(runpodtest.RouteCreateNetworkVolume, 1, f)
		_, err := rp.Volumes.Create(t.Context(), newVolume())
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "%+v", f)
		assert.Equal(t, before+1, srv.Count(runpodtest.RouteCreateNetworkVolume), "%+v", f)
	}
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteCreateNetworkVolume), "only the DropAfter request reached the handler")
	assert.Len(t, srv.NetworkVolumes(), 1, "and created a volume")

	srv.FailNext(runpodtest.RouteCreateNetworkVolume, 1, runpodtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"0"}}})
	_, err := rp.Volumes.Create(t.Context(), newVolume())
	require.NoError(t, err, "a 429 was refused before acting, so it is retried")
	assert.Len(t, srv.NetworkVolumes(), 2)
}

// TestReadsAndChangesAreRetried: List, Get, Update and Delete are
// repeated after a lost answer and succeed.
func TestReadsAndChangesAreRetried(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "v", Size: 40})
	drop := runpodtest.Fault{Drop: runpodtest.DropAfter}

	srv.FailNext(runpodtest.RouteNetworkVolumes, 1, drop)
	list, err := rp.Volumes.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteNetworkVolumes))

	srv.FailNext(runpodtest.RouteNetworkVolume, 1, drop)
	_, err = rp.Volumes.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteNetworkVolume))

	// The first grow went through; the second finds the size already
	// there, which is no shrink.
	srv.FailNext(runpodtest.RouteUpdateNetworkVolume, 1, drop)
	v, err := rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(80)})
	require.NoError(t, err)
	assert.Equal(t, 80, v.Size)
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteUpdateNetworkVolume))

	// The first delete went through; the retry's 404 means success.
	var info option.ResponseInfo
	opts := []option.RequestOption{option.WithResponseInto(&info)}
	srv.FailNext(runpodtest.RouteDeleteNetworkVolume, 1, drop)
	require.NoError(t, rp.Volumes.Delete(ctx, id, opts...))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteDeleteNetworkVolume))
	assert.Equal(t, 2, info.Attempts, "the caller's observer saw the call too")
	assert.Len(t, opts, 1, "the caller's slice is not written to")
	assert.Empty(t, srv.NetworkVolumes())
}

// TestAddNetworkVolumeDefaults: zero fields of a seeded volume get the
// documented defaults, and the tier follows the data center.
func TestAddNetworkVolumeDefaults(t *testing.T) {
	srv, rp := fake(t)
	a := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "a"})
	// Data centers come from the catalog: one added there offers its tiers.
	srv.AddDataCenter(runpodtest.DataCenter{ID: "US-CA-2", NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeHighPerformance}})
	b := srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "fixedid01", Name: "b", DataCenter: "US-CA-2", Size: 10})
	assert.Equal(t, "fixedid01", b)
	list, err := rp.Volumes.List(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []volumes.NetworkVolume{
		{ID: a, Name: "a", Size: 50, DataCenter: "EU-RO-1", Type: volumes.VolumeTypeStandard},
		{ID: b, Name: "b", Size: 10, DataCenter: "US-CA-2", Type: volumes.VolumeTypeHighPerformance},
	}, list)
}
