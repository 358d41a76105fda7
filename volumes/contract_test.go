package volumes_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes"
)

// TestEveryOperationKeepsTheDocument sends every REST v2 network volume
// operation (listNetworkVolumes, createNetworkVolume, getNetworkVolume,
// updateNetworkVolume, deleteNetworkVolume) through the fake, which checks
// each request and each response against the published REST v2 document:
// none may be refused, and none may be a 500 (a response of the fake that
// breaks the document).
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	srv, rp, _ := fixture.New(t, fixture.Server(fakes3.Serve()))
	ctx := t.Context()

	for dc, tier := range map[string]*volumes.VolumeType{
		"EU-RO-1": nil, "US-KS-2": runpod.Ptr(volumes.VolumeTypeHighPerformance),
		"US-TX-3": runpod.Ptr(volumes.VolumeTypeStandard), "EU-SE-1": nil,
	} {
		_, err := rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{Name: "v-" + dc, Size: volumes.MinSize, DataCenter: dc, Type: tier})
		require.NoError(t, err, dc)
	}
	list, err := rp.Volumes.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 4)
	for _, v := range list {
		got, err := rp.Volumes.Get(ctx, v.ID)
		require.NoError(t, err)
		assert.True(t, got.Type.Valid(), "%+v", got)
		_, err = rp.Volumes.Update(ctx, v.ID, volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("renamed")})
		require.NoError(t, err)
		_, err = rp.Volumes.Update(ctx, v.ID, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(volumes.MaxSize)})
		require.NoError(t, err)
		require.NoError(t, rp.Volumes.Delete(ctx, v.ID))
	}
	_, err = rp.Volumes.Get(ctx, list[0].ID)
	require.ErrorIs(t, err, errs.ErrNotFound, "a 404 keeps the document too")

	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		seen[r.Route] = true
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
		if r.Route != runpodtest.RouteNetworkVolume || r.Status != http.StatusNotFound {
			assert.Less(t, r.Status, 300, "%s %s %s", r.Method, r.Path, r.Body)
		}
	}
	for _, route := range []string{runpodtest.RouteNetworkVolumes, runpodtest.RouteCreateNetworkVolume, runpodtest.RouteNetworkVolume,
		runpodtest.RouteUpdateNetworkVolume, runpodtest.RouteDeleteNetworkVolume} {
		assert.True(t, seen[route], "%s was sent", route)
	}
}

// TestFakeRefusesWhatTheDocumentRefuses: requests the SDK would refuse
// before sending, sent raw with rp.Do, are refused by the fake as the
// platform refuses them, with the field named: the document's schema
// (422) and the rules it says the platform applies itself (400). Nothing
// is created or changed.
func TestFakeRefusesWhatTheDocumentRefuses(t *testing.T) {
	srv, rp, _ := fixture.New(t, fixture.Server(fakes3.Serve()))
	ctx := t.Context()
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "vol", Size: 100, DataCenter: "US-KS-2"})
	path := "/v2/network-volumes/" + id

	cases := []struct {
		name, method, path string
		body               string
		status             int
		field              string
	}{
		{"no data center", "POST", "/v2/network-volumes", `{"name":"v","size":50}`, 422, "dataCenter"},
		{"no size", "POST", "/v2/network-volumes", `{"name":"v","dataCenter":"EU-RO-1"}`, 422, "size"},
		{"an empty name", "POST", "/v2/network-volumes", `{"name":"","size":50,"dataCenter":"EU-RO-1"}`, 422, "$.name"},
		{"an empty data center", "POST", "/v2/network-volumes", `{"name":"v","size":50,"dataCenter":""}`, 422, "$.dataCenter"},
		{"below 10 GB", "POST", "/v2/network-volumes", `{"name":"v","size":9,"dataCenter":"EU-RO-1"}`, 422, "$.size"},
		{"above 4096 GB", "POST", "/v2/network-volumes", `{"name":"v","size":4097,"dataCenter":"EU-RO-1"}`, 422, "$.size"},
		{"an unknown tier", "POST", "/v2/network-volumes", `{"name":"v","size":50,"dataCenter":"EU-RO-1","type":"FAST"}`, 422, "$.type"},
		{"an unknown property", "POST", "/v2/network-volumes", `{"name":"v","size":50,"dataCenter":"EU-RO-1","bogus":1}`, 422, "bogus"},
		{"an empty update", "PATCH", path, `{}`, 422, "$"},
		{"a data center change", "PATCH", path, `{"dataCenter":"EU-RO-1"}`, 422, "dataCenter"},
		{"a tier change", "PATCH", path, `{"type":"STANDARD"}`, 422, "type"},
		{"a grow past 4096 GB", "PATCH", path, `{"size":5000}`, 422, "$.size"},

		{"an unknown data center", "POST", "/v2/network-volumes", `{"name":"v","size":50,"dataCenter":"XX-NOPE-9"}`, 400, "$.dataCenter"},
		{"a tier the data center lacks", "POST", "/v2/network-volumes", `{"name":"v","size":50,"dataCenter":"EU-SE-1","type":"HIGH_PERFORMANCE"}`, 400, "$.type"},
		{"a shrink", "PATCH", path, `{"name":"x","size":99}`, 400, "$.size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := rp.Do(ctx, tc.method, tc.path, json.RawMessage(tc.body), nil)
			apiErr := problem(t, err)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			require.NotEmpty(t, apiErr.Errors, apiErr.Detail)
			assert.True(t, slices.ContainsFunc(apiErr.Errors, func(e string) bool { return strings.Contains(e, tc.field) }),
				"%q names %s", apiErr.Errors, tc.field)
		})
	}
	assert.Equal(t, []runpodtest.NetworkVolume{{ID: id, Name: "vol", Size: 100, DataCenter: "US-KS-2", Type: volumes.VolumeTypeStandard}},
		srv.NetworkVolumes(), "nothing was created or changed")
}
