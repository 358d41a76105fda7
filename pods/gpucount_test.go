package pods_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
)

// TestCreateAlwaysSendsGPUCount: a GPU pod created without a count (nil,
// or 0) goes out with "count": 1, the caller's request left as it was; a
// count the caller sets goes out as it is. The placement filters per GPU
// go out too, and the fake (the document's contract on) takes them.
func TestCreateAlwaysSendsGPUCount(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	gpuOnWire := func() map[string]any {
		t.Helper()
		r := last(srv)
		require.Equal(t, "POST", r.Method)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		var body struct {
			GPU map[string]any `json:"gpu"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &body))
		return body.GPU
	}
	for _, count := range []*int{nil, runpod.Ptr(0)} {
		req := newPod()
		req.GPU.Count = count
		p, err := rp.Pods.Create(ctx, req)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"id": "NVIDIA GeForce RTX 4090", "count": 1.0}, gpuOnWire())
		assert.Equal(t, count, req.GPU.Count, "the caller's request is not changed")
		assert.Equal(t, runpod.Ptr(1), p.GPU.Count)
	}

	req := newPod()
	req.GPU.Count, req.GPU.MinRAMPerGPU, req.GPU.MinVCPUCountPerGPU = runpod.Ptr(2), runpod.Ptr(32), runpod.Ptr(8)
	_, err := rp.Pods.Create(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": "NVIDIA GeForce RTX 4090", "count": 2.0, "minRamPerGpu": 32.0, "minVcpuCountPerGpu": 8.0}, gpuOnWire())

	cpu := newPod()
	cpu.GPU, cpu.CPU = nil, &pods.CreateCPUConfig{ID: "cpu3c", VcpuCount: 2}
	_, err = rp.Pods.Create(ctx, cpu)
	require.NoError(t, err)
	assert.NotContains(t, string(last(srv).Body), `"gpu"`, "a CPU pod gets no GPU part")
}

// TestCreateWithoutGPUCountFailsOnTheFake: sent raw, a GPU create that
// leaves out gpu.count fails on the fake as on the platform, as a
// stock-out (nothing created), though the document gives the count a
// default.
func TestCreateWithoutGPUCountFailsOnTheFake(t *testing.T) {
	_, rp, _ := fake(t)
	body := json.RawMessage(`{"name":"p","image":"img","gpu":{"id":"NVIDIA GeForce RTX 4090"}}`)
	err := rp.Do(t.Context(), http.MethodPost, "/v2/pods", body, nil)
	var ae *errs.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusInternalServerError, ae.StatusCode)
	assert.Contains(t, ae.Detail, "no longer any instances available with the requested specifications")
	list, err := rp.Pods.List(t.Context(), pods.ListPodsParams{})
	require.NoError(t, err)
	assert.Empty(t, list, "nothing was created")
}
