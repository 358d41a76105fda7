package pods_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestEveryOperationKeepsTheDocument sends every REST v2 pods operation
// the SDK has (listPods, createPod, getPod, updatePod, deletePod,
// getPodLogs, podAction) through the fake, which checks each request and
// each response against the published REST v2 document: none may be
// refused, and none may be a 500 (a response of the fake that breaks the
// document).
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	srv, rp, c := fake(t)
	ctx := t.Context()
	// The network volume the CPU pod mounts exists.
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol_1"})

	gpu := newPod()
	gpu.Ports = append(gpu.Ports, "70000/tcp")
	gpu.GPU.MinCUDAVersion = runpod.Ptr("12.4")
	gpu.Cloud = runpod.Ptr(pods.CloudSecure)
	gpu.DataCenterIDs = []string{"US-TX-3"}
	gpu.GlobalNetworking = runpod.Ptr(true)
	gpu.Mounts = &pods.Mounts{Persistent: &pods.PersistentMount{Size: 20, Path: "/workspace"}}
	p, err := rp.Pods.Create(ctx, gpu)
	require.NoError(t, err)
	cpuPod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name: "cpu-box", TemplateID: runpod.Ptr("tmpl-1"), Image: runpod.Ptr("ubuntu:24.04"),
		CPU:    &pods.CreateCPUConfig{ID: "cpu3g", VcpuCount: 2},
		Mounts: &pods.Mounts{Network: []pods.NetworkMount{{VolumeID: "vol_1", Path: "/runpod-volume"}}},
	})
	require.NoError(t, err)
	assert.Equal(t, "tmpl-1", *cpuPod.Template)

	list, err := rp.Pods.List(ctx, pods.ListPodsParams{IncludeClusterPods: runpod.Ptr(true)})
	require.NoError(t, err)
	assert.Len(t, list, 2)
	c.Add(30 * time.Second) // both running: runtime, SSH endpoints, start time
	p, err = rp.Pods.Get(ctx, p.ID)
	require.NoError(t, err)
	require.NotNil(t, p.Runtime)
	require.NotNil(t, p.SSH.Direct, "22/tcp is exposed")
	assert.Equal(t, "root", p.SSH.Direct.Username)
	assert.Equal(t, p.ID+".runpod.internal", *p.GlobalNetworking.InternalDNS)
	_, err = rp.Pods.List(ctx, pods.ListPodsParams{})
	require.NoError(t, err)

	p, err = rp.Pods.Update(ctx, p.ID, pods.UpdatePodRequest{
		Name: runpod.Ptr("renamed"), Env: map[string]string{"A": "1"}, Ports: []string{"8888/http", "22/tcp", "70000/tcp"},
		Mounts: &pods.Mounts{Persistent: &pods.PersistentMount{Size: 40, Path: "/data"}},
	})
	require.NoError(t, err)
	assert.Equal(t, 40, p.Mounts.Persistent.Size)
	_, err = rp.Pods.Update(ctx, cpuPod.ID, pods.UpdatePodRequest{Locked: runpod.Ptr(true)})
	require.NoError(t, err)

	_, err = rp.Pods.Restart(ctx, p.ID)
	require.NoError(t, err)
	_, err = rp.Pods.Stop(ctx, p.ID)
	require.NoError(t, err)
	_, err = rp.Pods.Start(ctx, p.ID)
	require.NoError(t, err)

	var lastTime time.Time
	for line, err := range rp.Pods.Logs(ctx, p.ID, pods.GetPodLogsParams{Tail: runpod.Ptr(3)}) {
		require.NoError(t, err)
		lastTime = line.Time
		break
	}
	for _, err := range rp.Pods.Logs(ctx, p.ID, pods.GetPodLogsParams{LastEventID: &lastTime, Source: runpod.Ptr(pods.LogSourceSystem)}) {
		require.NoError(t, err)
		break
	}
	for _, err := range rp.Pods.Logs(ctx, p.ID, pods.GetPodLogsParams{Since: runpod.Ptr(c.Now().Add(-time.Hour))}) {
		require.NoError(t, err)
		break
	}

	require.NoError(t, rp.Pods.Terminate(ctx, p.ID))
	require.NoError(t, rp.Pods.Delete(ctx, cpuPod.ID))
	_, err = rp.Pods.Get(ctx, p.ID)
	require.ErrorIs(t, err, errs.ErrNotFound, "a 404 keeps the document too")

	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		seen[r.Route] = true
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
		if r.Route != runpodtest.RoutePod || r.Status != http.StatusNotFound {
			assert.Less(t, r.Status, 300, "%s %s %s", r.Method, r.Path, r.Body)
		}
	}
	for _, route := range []string{runpodtest.RoutePods, runpodtest.RouteCreatePod, runpodtest.RoutePod, runpodtest.RouteUpdatePod,
		runpodtest.RouteDeletePod, runpodtest.RoutePodLogs, runpodtest.RoutePodAction} {
		assert.True(t, seen[route], "%s was sent", route)
	}
}

// TestFakeRefusesWhatTheDocumentRefuses: requests the SDK's types cannot
// express, sent raw with rp.Do, are refused by the fake as the platform
// refuses them, with the field named: the document's schema (422 for a
// body, 400 for a parameter) and the rules it says the platform applies
// itself (400). Nothing is created.
func TestFakeRefusesWhatTheDocumentRefuses(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	id := srv.AddPod(runpodtest.Pod{Name: "box", Image: "ubuntu:24.04", GPU: "NVIDIA L4", Ports: []string{"22/tcp"}})
	vol := srv.AddPod(runpodtest.Pod{Name: "vol", Image: "ubuntu:24.04", CPU: "cpu3c", VCPUs: 2})

	cases := []struct {
		name, method, path string
		body               string
		status             int
		field              string
	}{
		{"cpu.memory on create", "POST", "/v2/pods", `{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2,"memory":4}}`, 422, "$.cpu.memory"},
		{"a field of the wrong type", "POST", "/v2/pods", `{"name":5,"image":"x","gpu":{"id":"NVIDIA L4"}}`, 422, "$.name"},
		{"an unknown cloud", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4"},"cloud":"PRIVATE"}`, 422, "$.cloud"},
		{"an unknown property", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4"},"bogus":1}`, 422, "$.bogus"},
		{"no image and no template", "POST", "/v2/pods", `{"name":"p","gpu":{"id":"NVIDIA L4"}}`, 422, "image"},
		{"vcpuCount below 2", "POST", "/v2/pods", `{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":1}}`, 422, "$.cpu.vcpuCount"},
		{"a CUDA version that is not major.minor", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4","minCudaVersion":"12"}}`, 422, "$.gpu.minCudaVersion"},
		{"two network volumes", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4"},"mounts":{"network":[{"volumeId":"a","path":"/a"},{"volumeId":"b","path":"/b"}]}}`, 422, "$.mounts.network"},
		{"an unknown action", "POST", "/v2/pods/" + id + "/action", `{"action":"pause"}`, 422, "$.action"},
		{"disk of the wrong type", "PATCH", "/v2/pods/" + id, `{"disk":"big"}`, 422, "$.disk"},
		{"an unknown log source", "GET", "/v2/pods/" + id + "/logs?source=stdout", "", 400, "query.source"},
		{"tail above 5000", "GET", "/v2/pods/" + id + "/logs?tail=5001", "", 400, "query.tail"},

		{"neither gpu nor cpu", "POST", "/v2/pods", `{"name":"p","image":"x"}`, 400, "$.gpu"},
		{"both gpu and cpu", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4"},"cpu":{"id":"cpu3c","vcpuCount":2}}`, 400, "$.gpu"},
		{"a persistent mount on a CPU pod", "POST", "/v2/pods", `{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2},"mounts":{"persistent":{"size":20,"path":"/w"}}}`, 400, "$.mounts.persistent"},
		{"a CUDA floor and a CUDA list", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4","minCudaVersion":"12.1","allowedCudaVersions":["12.4"]}}`, 400, "$.gpu.allowedCudaVersions"},
		{"a UDP port", "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA L4"},"ports":["22/tcp","53/udp"]}`, 400, "$.ports[1]"},
		{"an empty network list", "PATCH", "/v2/pods/" + vol, `{"mounts":{"network":[]}}`, 400, "$.mounts.network"},
		{"a mount kind the pod was not created with", "PATCH", "/v2/pods/" + id, `{"mounts":{"persistent":{"size":20,"path":"/w"}}}`, 400, "$.mounts.persistent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var in any
			if tc.body != "" {
				in = json.RawMessage(tc.body)
			}
			err := rp.Do(ctx, tc.method, tc.path, in, nil)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			require.NotEmpty(t, apiErr.Errors, apiErr.Detail)
			assert.True(t, slices.ContainsFunc(apiErr.Errors, func(e string) bool { return strings.Contains(e, tc.field) }),
				"%q names %s", apiErr.Errors, tc.field)
		})
	}
	assert.Len(t, srv.Pods(), 2, "nothing was created")
}
