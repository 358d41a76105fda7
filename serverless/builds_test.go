package serverless_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

// TestBuilds: Builds lists an endpoint's builds newest first, with what
// the fake recorded (AddBuild, and the build a GIT_BUILD release names),
// and Build reads one by id; both go to their documented routes, and the
// fake holds every answer to the document.
func TestBuilds(t *testing.T) {
	srv, rp, c, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints

	none, err := eps.Builds(ctx, id)
	require.NoError(t, err)
	assert.NotNil(t, none)
	assert.Empty(t, none)

	committed := start.Add(-time.Hour)
	b1 := srv.AddBuild(id, runpodtest.Build{CommitHash: "abc1234", CommitMessage: "bump model", Branch: "main", CommitDate: committed,
		ImageName: "registry.runpod.net/repo:abc1234"})
	assert.Equal(t, "build00001", b1)
	c.Add(time.Minute)
	b2 := srv.AddBuild(id, runpodtest.Build{ID: "build_pending", Status: serverless.EndpointBuildStatusPending})
	c.Add(time.Minute)
	srv.AddRelease(id, runpodtest.Release{Source: serverless.ReleaseSourceGitBuild, BuildID: "build_rel"})

	list, err := eps.Builds(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, runpodtest.RouteEndpointBuilds, lastREST(srv).Route)
	assert.Less(t, lastREST(srv).Status, 300)
	require.Len(t, list, 3)
	assert.Equal(t, []string{"build_rel", b2, b1}, []string{list[0].ID, list[1].ID, list[2].ID}, "newest first")
	assert.Equal(t, serverless.EndpointBuildStatusCompleted, list[0].Status, "a release's build has completed")
	assert.Equal(t, serverless.EndpointBuildStatusPending, list[1].Status)
	assert.Nil(t, list[1].StartedAt, "a pending build has not started")
	assert.Nil(t, list[1].CommitHash)
	first := list[2]
	assert.Equal(t, serverless.EndpointBuild{ID: b1, Status: serverless.EndpointBuildStatusCompleted, CommitHash: runpod.Ptr("abc1234"),
		CommitMessage: runpod.Ptr("bump model"), Branch: runpod.Ptr("main"), CommitDate: &committed,
		ImageName: runpod.Ptr("registry.runpod.net/repo:abc1234"), StartedAt: runpod.Ptr(start)}, first)
	assert.True(t, first.Status.Terminal())
	assert.False(t, list[1].Status.Terminal())

	got, err := eps.Build(ctx, id, b1)
	require.NoError(t, err)
	assert.Equal(t, runpodtest.RouteEndpointBuild, lastREST(srv).Route)
	assert.Equal(t, "/v2/serverless/"+id+"/builds/"+b1, lastREST(srv).Path)
	assert.Equal(t, first, *got)

	_, err = eps.Build(ctx, id, "build_nosuch")
	require.ErrorIs(t, err, errs.ErrNotFound)
	_, err = eps.Builds(ctx, "ep_nosuch")
	require.ErrorIs(t, err, errs.ErrNotFound)
	_, err = eps.Build(ctx, "ep_nosuch", b1)
	require.ErrorIs(t, err, errs.ErrNotFound)
}

// TestBuildsListTheNewestHundred: the list holds the 100 newest builds
// and no more; an older one is still read by id.
func TestBuildsListTheNewestHundred(t *testing.T) {
	srv, rp, _, id := restFake(t)
	ctx := t.Context()
	for i := range 101 {
		srv.AddBuild(id, runpodtest.Build{ID: fmt.Sprintf("b%03d", i)})
	}
	list, err := rp.Serverless.Endpoints.Builds(ctx, id)
	require.NoError(t, err)
	require.Len(t, list, 100)
	assert.Equal(t, "b100", list[0].ID)
	assert.Equal(t, "b001", list[99].ID)
	old, err := rp.Serverless.Endpoints.Build(ctx, id, "b000")
	require.NoError(t, err)
	assert.Equal(t, "b000", old.ID)
}

// TestBuildsValidation: bad ids are refused before anything is sent,
// naming the field.
func TestBuildsValidation(t *testing.T) {
	srv, rp, _, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	before := srv.Count("*")
	for _, bad := range []string{"", "a/b", "..", "ep 1", "ep?x", "ép"} {
		var ve *errs.ValidationError
		_, err := eps.Builds(ctx, bad)
		require.ErrorAs(t, err, &ve, "%q", bad)
		assert.Equal(t, "endpointID", ve.Field)
		_, err = eps.Build(ctx, bad, "build00001")
		require.ErrorAs(t, err, &ve, "%q", bad)
		assert.Equal(t, "endpointID", ve.Field)
		_, err = eps.Build(ctx, id, bad)
		require.ErrorAs(t, err, &ve, "%q", bad)
		assert.Equal(t, "buildID", ve.Field)
	}
	assert.Equal(t, before, srv.Count("*"), "nothing was sent")
	assert.Empty(t, srv.AddBuild("ep_nosuch", runpodtest.Build{}), "no endpoint, no build")
}
