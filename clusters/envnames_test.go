package clusters_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
)

// TestEnvNamesRefused: a cluster's pods get the same environment rules as
// any pod; a bad name is refused before sending, naming the field.
func TestEnvNamesRefused(t *testing.T) {
	srv, rp, _ := fake(t)
	req := newCluster()
	req.Env = map[string]string{"BAD KEY=": "hf_secret_value"}
	_, err := rp.Clusters.Create(t.Context(), req)
	var invalid *errs.ValidationError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "CreateClusterRequest.Env", invalid.Field)
	assert.NotContains(t, err.Error(), "hf_secret_value")
	assert.Empty(t, srv.Requests())
}
