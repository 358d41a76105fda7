package pods_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
)

// TestEnvNamesRefused: names no process environment can hold are refused
// before anything is sent, naming the field and never the value.
func TestEnvNamesRefused(t *testing.T) {
	srv, rp, _ := fake(t)
	for _, name := range []string{"", "BAD KEY=", "\x00", "A=B", "TAB\tX"} {
		env := map[string]string{name: "hf_secret_value"}
		_, err := rp.Pods.Create(t.Context(), pods.CreatePodRequest{Name: "p", Image: runpod.Ptr("img"), GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}, Env: env})
		var invalid *errs.ValidationError
		require.ErrorAs(t, err, &invalid, "%q", name)
		assert.Equal(t, "CreatePodRequest.Env", invalid.Field)
		assert.NotContains(t, err.Error(), "hf_secret_value")
		_, err = rp.Pods.Update(t.Context(), "pod1", pods.UpdatePodRequest{Env: env})
		require.ErrorAs(t, err, &invalid, "%q", name)
		assert.Equal(t, "UpdatePodRequest.Env", invalid.Field)
	}
	assert.Empty(t, srv.Requests(), "nothing was sent")
}
