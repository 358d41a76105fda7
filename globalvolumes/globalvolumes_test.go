package globalvolumes_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/globalvolumes"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

func TestGlobalVolumes(t *testing.T) {
	c := testkit.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithClock(c.Now), runpodtest.WithPageSize(2)))
	ctx := t.Context()

	list, err := rp.GlobalVolumes.List(ctx)
	require.NoError(t, err)
	assert.NotNil(t, list)
	assert.Empty(t, list)

	v, err := rp.GlobalVolumes.Create(ctx, globalvolumes.CreateGlobalVolumeRequest{Name: "  weights "})
	require.NoError(t, err)
	assert.Equal(t, runpodtest.RouteCreateGlobalVolume, last(srv).Route)
	assert.Equal(t, http.StatusCreated, last(srv).Status)
	assert.Equal(t, "weights", v.Name, "the platform trims the name")
	assert.True(t, strings.HasPrefix(v.ID, "gsb_"), v.ID)
	assert.Equal(t, c.Now(), v.CreatedAt)
	require.NotNil(t, v.CreatedByUserID)

	got, err := rp.GlobalVolumes.Get(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, *v, *got)

	r, err := rp.GlobalVolumes.Rename(ctx, v.ID, "model-weights")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"model-weights"}`, string(last(srv).Body))
	assert.Equal(t, "model-weights", r.Name)

	for _, n := range []string{"a", "b", "c", "d"} {
		srv.AddGlobalVolume(runpodtest.GlobalVolume{Name: n})
	}
	list, err = rp.GlobalVolumes.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 5, "every page")
	pages := 0
	for _, q := range srv.Requests() {
		if q.Route == runpodtest.RouteGlobalVolumes {
			pages++
		}
	}
	assert.Equal(t, 1+3, pages, "the empty list, then three pages of two")
	n := 0
	for gv, err := range rp.GlobalVolumes.All(ctx) {
		require.NoError(t, err)
		assert.NotEmpty(t, gv.ID)
		n++
	}
	assert.Equal(t, 5, n)

	require.NoError(t, rp.GlobalVolumes.Delete(ctx, v.ID))
	assert.Equal(t, http.StatusNoContent, last(srv).Status)
	_, err = rp.GlobalVolumes.Get(ctx, v.ID)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	assert.Len(t, srv.GlobalVolumes(), 4)
}

func TestGlobalVolumeValidation(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	for _, name := range []string{"", " \t\n", strings.Repeat("x", 192), "\xff"} {
		_, err := rp.GlobalVolumes.Create(ctx, globalvolumes.CreateGlobalVolumeRequest{Name: name})
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%q", name)
		assert.Equal(t, "CreateGlobalVolumeRequest.Name", ve.Field)
		_, err = rp.GlobalVolumes.Rename(ctx, "gsb_abc", name)
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "name", ve.Field)
	}
	_, err := rp.GlobalVolumes.Get(ctx, "gsb/../x")
	assert.ErrorIs(t, err, errs.ErrValidation)
	assert.Empty(t, srv.Requests(), "nothing is sent")
	require.NoError(t, globalvolumes.CreateGlobalVolumeRequest{Name: strings.Repeat("é", 191)}.Validate())
}

func gpuEndpoint(global, network []string) serverless.CreateEndpointRequest {
	return serverless.CreateEndpointRequest{
		Name: "llm", Type: serverless.EndpointTypeQueue, Image: runpod.Ptr("vllm/vllm-openai:latest"),
		GPU:           &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling:       serverless.ScaleByQueueDelay(4),
		GlobalVolumes: global, NetworkVolumes: network,
	}
}

// TestEndpointGlobalVolume: an endpoint mounts one global volume; the
// rules (at most one, GPU only, not with network volumes) are checked by
// the SDK before sending and by the fake, which a raw request reaches.
func TestEndpointGlobalVolume(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	gv := srv.AddGlobalVolume(runpodtest.GlobalVolume{Name: "weights"})
	nv := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "data"})

	e, err := rp.Serverless.Endpoints.Create(ctx, gpuEndpoint([]string{gv}, nil))
	require.NoError(t, err)
	assert.Contains(t, string(last(srv).Body), `"globalVolumes":["`+gv+`"]`)
	assert.Equal(t, []string{gv}, e.GlobalVolumes)
	got, err := rp.Serverless.Endpoints.Get(ctx, e.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{gv}, got.GlobalVolumes)

	// The SDK refuses what the guide's rules forbid, naming the field.
	var ve *errs.ValidationError
	for _, req := range []serverless.CreateEndpointRequest{
		gpuEndpoint([]string{gv, gv}, nil),
		gpuEndpoint([]string{gv}, []string{nv}),
		func() serverless.CreateEndpointRequest {
			r := gpuEndpoint([]string{gv}, nil)
			r.GPU, r.CPU = nil, []serverless.CreateCPUConfig{{ID: "cpu3c", VCPUCount: 2}}
			return r
		}(),
	} {
		_, err := rp.Serverless.Endpoints.Create(ctx, req)
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "CreateEndpointRequest.GlobalVolumes", ve.Field)
	}
	_, err = rp.Serverless.Endpoints.Update(ctx, e.ID, serverless.UpdateEndpointRequest{GlobalVolumes: &[]string{gv}, NetworkVolumes: &[]string{nv}})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "UpdateEndpointRequest.GlobalVolumes", ve.Field)

	// The fake refuses them too (400): a network volume added to an
	// endpoint that has a global one, an unknown volume, two at once.
	for _, body := range []string{
		`{"networkVolumes":["` + nv + `"]}`,
		`{"globalVolumes":["gsb_nope"]}`,
	} {
		err := rp.Do(ctx, http.MethodPatch, "/v2/serverless/"+e.ID, jsonRaw(body), nil)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr, body)
		assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode, body)
	}
	err = rp.Do(ctx, http.MethodPatch, "/v2/serverless/"+e.ID, jsonRaw(`{"globalVolumes":["`+gv+`","`+gv+`"]}`), nil)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, apiErr.StatusCode)

	// Detaching the global volume ([]) lets network volumes in.
	u, err := rp.Serverless.Endpoints.Update(ctx, e.ID, serverless.UpdateEndpointRequest{GlobalVolumes: &[]string{}, NetworkVolumes: &[]string{nv}})
	require.NoError(t, err)
	assert.Empty(t, u.GlobalVolumes)
	assert.Equal(t, []string{nv}, u.NetworkVolumes)
}

type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }
