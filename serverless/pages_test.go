package serverless_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

// addEndpoints stores endpoints ep0 … ep<n-1>, each named other-<i>
// except the one at mine, named my-endpoint (restSpec's name) with
// settings of its own.
func addEndpoints(srv *runpodtest.Server, n, mine int) {
	for i := range n {
		name := fmt.Sprintf("other-%d", i)
		if i == mine {
			name = "my-endpoint"
		}
		srv.AddEndpoint(runpodtest.Endpoint{ID: fmt.Sprintf("ep%d", i), Name: name, TemplateID: "tmpl-1",
			GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	}
}

// TestApplyFindsItsEndpointOnALaterPage: with the endpoint list two to a
// page, the endpoint named in the spec is on page 3: Apply reads every
// page, finds it and changes it, and creates nothing.
func TestApplyFindsItsEndpointOnALaterPage(t *testing.T) {
	srv, rp := epFake(t)
	addEndpoints(srv, 6, 4)
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec(), option.WithPageSize(2))
	require.NoError(t, err)
	assert.False(t, res.Created)
	assert.Equal(t, "ep4", res.Endpoint.ID)
	assert.NotEmpty(t, res.Changes)
	assert.Equal(t, 0, countRoute(srv, routeCreate), "no second endpoint")
	assert.Equal(t, 1, countRoute(srv, routePatch))
	assert.Equal(t, 3, countRoute(srv, routeList), "three pages")
	assert.Len(t, srv.Endpoints(), 6)
}

// TestApplyAmbiguousCreateLooksOnEveryPage: a create whose answer is lost
// after the platform made the endpoint; the lookup by name that follows
// finds it on a later page (one endpoint a page, the others sorting
// first) instead of reporting that nothing was created.
func TestApplyAmbiguousCreateLooksOnEveryPage(t *testing.T) {
	srv, rp := epFake(t)
	for i := range 3 {
		srv.AddEndpoint(runpodtest.Endpoint{ID: fmt.Sprintf("000%d", i), Name: fmt.Sprintf("other-%d", i), TemplateID: "tmpl-1",
			GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	}
	srv.FailNext(routeCreate, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec(), option.WithPageSize(1))
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.Len(t, srv.Endpoints(), 4, "one endpoint made, not two")
	assert.Equal(t, 1, countRoute(srv, routeCreate), "the create was not repeated")
}

// TestWorkersAndReleasesReadEveryPage: Releases and Workers read every
// page and return one answer, without Pagination; their iterators give
// the same items.
func TestWorkersAndReleasesReadEveryPage(t *testing.T) {
	srv, rp := epFake(t)
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "busy", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 3})
	for i := range 4 {
		require.NotEmpty(t, srv.AddRelease(id, runpodtest.Release{Changes: []runpodtest.ReleaseChange{{Field: "workers.max", Old: i + 3, New: i + 4}}}))
	}
	ctx := t.Context()
	one := option.WithPageSize(1)

	rel, err := rp.Serverless.Endpoints.Releases(ctx, id, one)
	require.NoError(t, err)
	assert.Nil(t, rel.Pagination)
	whole, err := rp.Serverless.Endpoints.Releases(ctx, id)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(whole.Releases), 4)
	assert.Equal(t, whole.Releases, rel.Releases, "newest first, every page")
	assert.Equal(t, whole.Rollout, rel.Rollout)
	var fromIter []serverless.EndpointRelease
	for r, err := range rp.Serverless.Endpoints.AllReleases(ctx, id, one) {
		require.NoError(t, err)
		fromIter = append(fromIter, r)
	}
	assert.Equal(t, whole.Releases, fromIter)

	ws, err := rp.Serverless.Endpoints.Workers(ctx, id, one)
	require.NoError(t, err)
	assert.Nil(t, ws.Pagination)
	require.Len(t, ws.Workers, 3)
	assert.Equal(t, 3, ws.Summary.Total)
	n := 0
	for w, err := range rp.Serverless.Endpoints.AllWorkers(ctx, id, one) {
		require.NoError(t, err)
		assert.Equal(t, ws.Workers[n].ID, w.ID)
		n++
	}
	assert.Equal(t, 3, n)
}
