package clusters_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestClusterStockOutAndFallback: a cluster create in a data center out
// of its GPU type is ErrNoCapacity with nothing created; the fallback
// moves on to the next data center, one create each, and a bad candidate
// is refused before anything is sent.
func TestClusterStockOutAndFallback(t *testing.T) {
	srv, rp, _ := fake(t)
	const h100 = "NVIDIA H100 80GB HBM3"
	require.True(t, srv.SetGPUStock(h100, "US-TX-3", catalog.AvailabilityLevelNone))

	req := newCluster()
	req.DataCenterIDs = []string{"US-TX-3"}
	_, err := rp.Clusters.Create(t.Context(), req)
	assert.ErrorIs(t, err, errs.ErrNoCapacity)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Empty(t, srv.Clusters())

	_, err = rp.Clusters.CreateWithFallback(t.Context(), newCluster(), []pods.Candidate{{Cloud: pods.CloudCommunity}})
	var v *errs.ValidationError
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "candidates[0].Cloud", v.Field)
	_, err = rp.Clusters.CreateWithFallback(t.Context(), newCluster(), nil)
	require.ErrorAs(t, err, &v)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateCluster), "the refused ones sent nothing")

	c, err := rp.Clusters.CreateWithFallback(t.Context(), newCluster(), []pods.Candidate{
		{DataCenterIDs: []string{"US-TX-3"}},
		{DataCenterIDs: []string{"EU-SE-1"}},
		{GPUTypeID: "NVIDIA A100 80GB PCIe"},
	})
	require.NoError(t, err)
	require.NotNil(t, c.DataCenterID)
	assert.Equal(t, "EU-SE-1", *c.DataCenterID)
	assert.Equal(t, 3, srv.Count(runpodtest.RouteCreateCluster), "one create per candidate tried")
	assert.Len(t, srv.Clusters(), 1)
}
