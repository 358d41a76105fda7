package runpodtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestClusterFixtures: AddCluster fills the defaults and stores the
// cluster's pods in the pods unit, where Pods, SetPodStatus and the pod
// routes reach them; the cluster's counts follow its pods.
func TestClusterFixtures(t *testing.T) {
	srv := newServer(t)
	id := srv.AddCluster(runpodtest.Cluster{Name: "c", GPU: "NVIDIA L4", Ports: []string{"22/tcp"}})

	got := srv.Clusters()
	require.Len(t, got, 1)
	c := got[0]
	assert.Equal(t, id, c.ID)
	assert.Equal(t, clusters.ClusterTypeTraining, c.Type, "TRAINING when no type is given")
	assert.Equal(t, 1, c.GPUsPerPod)
	assert.Equal(t, 2, c.PodCount, "the fewest pods a cluster has")
	assert.Equal(t, "EU-RO-1", c.DataCenterID)
	assert.Empty(t, c.PodStatus)
	require.Len(t, c.PodIDs, 2)
	assert.Len(t, srv.Pods(), 2)
	for _, p := range srv.Pods() {
		assert.Equal(t, pods.PodStatusRunning, p.Status, "RUNNING when no status is given")
	}

	status, body := podCall(t, srv, "GET", "/v2/clusters/"+id, "")
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, map[string]any{"total": 2.0, "byStatus": map[string]any{"RUNNING": 2.0}}, body["pods"])
	primary := body["primary"].(map[string]any)
	assert.Equal(t, c.PodIDs[0], primary["podId"])
	assert.NotEmpty(t, primary["sshEndpoint"], "a running primary exposing 22/tcp")
	assert.Equal(t, "EU-RO-1", body["dataCenterId"])
	network := body["network"].(map[string]any)
	assert.Equal(t, "10.65.0.0/16", network["cidr"])

	srv.SetPodStatus(c.PodIDs[1], pods.PodStatusError)
	_, body = podCall(t, srv, "GET", "/v2/clusters/"+id, "")
	assert.Equal(t, map[string]any{"RUNNING": 1.0, "ERROR": 1.0}, body["pods"].(map[string]any)["byStatus"])

	status, body = podCall(t, srv, "GET", "/v2/pods/"+c.PodIDs[1], "")
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, map[string]any{"id": id, "rank": 1.0, "ip": "10.65.0.3"}, body["cluster"], "no role in a TRAINING cluster")
	assert.Equal(t, []any{"start"}, body["actions"], "a cluster's pod is not terminated on its own")

	exited := srv.AddCluster(runpodtest.Cluster{ID: "slurm1", Name: "s", Type: clusters.ClusterTypeSlurm, GPU: "NVIDIA L4", PodCount: 3, PodStatus: pods.PodStatusExited})
	assert.Equal(t, "slurm1", exited)
	_, body = podCall(t, srv, "GET", "/v2/clusters/slurm1/pods", "")
	members := body["pods"].([]any)
	require.Len(t, members, 3)
	for i, role := range []string{"SLURM_CONTROLLER", "SLURM_COMPUTE", "SLURM_COMPUTE"} {
		m := members[i].(map[string]any)
		assert.Equal(t, "EXITED", m["status"])
		assert.Equal(t, role, m["cluster"].(map[string]any)["role"])
		assert.Equal(t, float64(i), m["cluster"].(map[string]any)["rank"])
	}
	_, body = podCall(t, srv, "GET", "/v2/clusters/slurm1", "")
	assert.Nil(t, body["primary"].(map[string]any)["sshEndpoint"], "no SSH address while the primary is not running")
	for _, r := range srv.Requests() {
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
	}
}

// TestClusterRules: the rules the platform applies beyond the schema (the
// schema itself is checked before the handler: 422), and the pod routes'
// treatment of a cluster's pods.
func TestClusterRules(t *testing.T) {
	c := &podClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := newServer(t, runpodtest.WithClock(c.Now), runpodtest.WithPodBoot(10*time.Second, 20*time.Second))
	const compute = `"compute":{"gpuTypeId":"NVIDIA L4","gpuCountPerPod":1,"podCount":2}`

	for body, want := range map[string]int{
		`{"name":"c","type":"TRAINING",` + compute + `,"mounts":{"persistent":{"size":20,"path":"/w"},"network":[{"volumeId":"v","path":"/v"}]}}`: http.StatusBadRequest,
		`{"name":"c","type":"TRAINING",` + compute + `,"ports":["8888/udp"]}`:                                                                     http.StatusBadRequest,
		`{"name":"c","type":"TRAINING","compute":{"gpuTypeId":"NVIDIA L4","gpuCountPerPod":1,"podCount":1}}`:                                      http.StatusUnprocessableEntity,
		`{"name":"c","type":"K8S",` + compute + `}`:                                                                                               http.StatusUnprocessableEntity,
		`{"name":"c","type":"TRAINING",` + compute + `,"registry":"r1"}`:                                                                          http.StatusUnprocessableEntity,
		`{"type":"TRAINING",` + compute + `}`:                                                                                                     http.StatusUnprocessableEntity,
	} {
		status, out := podCall(t, srv, "POST", "/v2/clusters", body)
		assert.Equal(t, want, status, "%s: %v", body, out)
	}
	assert.Empty(t, srv.Clusters(), "nothing was created")

	status, out := podCall(t, srv, "POST", "/v2/clusters", `{"name":"c","type":"RAY",`+compute+`,"image":"x","ports":["22/tcp"],"dataCenterIds":["EU-RO-1","US-TX-3"]}`)
	require.Equal(t, http.StatusCreated, status, out)
	id := out["id"].(string)
	assert.Equal(t, "EU-RO-1", out["dataCenterId"], "one data center for the whole cluster")
	assert.Equal(t, map[string]any{"total": 2.0, "byStatus": map[string]any{"PROVISIONING": 2.0}}, out["pods"])

	status, _ = podCall(t, srv, "PATCH", "/v2/clusters/"+id, `{}`)
	assert.Equal(t, http.StatusUnprocessableEntity, status, "an update names at least the name")
	status, _ = podCall(t, srv, "PATCH", "/v2/clusters/"+id, `{"name":"c","type":"SLURM"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, status, "a rename is the only change")
	status, out = podCall(t, srv, "PATCH", "/v2/clusters/"+id, `{"name":"c2"}`)
	require.Equal(t, http.StatusOK, status, out)
	assert.Equal(t, "c2", out["name"])

	// The pod routes: listed only on request, never changed or deleted.
	standalone := srv.AddPod(runpodtest.Pod{Name: "box", Image: "x", GPU: "NVIDIA L4"})
	_, out = podCall(t, srv, "GET", "/v2/pods", "")
	assert.Len(t, out["pods"], 1)
	_, out = podCall(t, srv, "GET", "/v2/pods?includeClusterPods=false", "")
	assert.Len(t, out["pods"], 1)
	_, out = podCall(t, srv, "GET", "/v2/pods?includeClusterPods=true", "")
	assert.Len(t, out["pods"], 3)
	member := srv.Clusters()[0].PodIDs[0]
	status, out = podCall(t, srv, "PATCH", "/v2/pods/"+member, `{"name":"mine"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.Contains(t, out["detail"], "/v2/clusters/"+id)
	status, _ = podCall(t, srv, "DELETE", "/v2/pods/"+member, "")
	assert.Equal(t, http.StatusConflict, status)
	status, _ = podCall(t, srv, "POST", "/v2/pods/"+member+"/action", `{"action":"terminate"}`)
	assert.Equal(t, http.StatusConflict, status)
	status, out = podCall(t, srv, "POST", "/v2/pods/"+member+"/action", `{"action":"stop"}`)
	require.Equal(t, http.StatusOK, status, "the document refuses changes and deletes, not the other actions")
	assert.Equal(t, "EXITED", out["status"])

	status, _ = podCall(t, srv, "DELETE", "/v2/clusters/"+id, "")
	assert.Equal(t, http.StatusNoContent, status)
	for _, path := range []string{"/v2/clusters/" + id, "/v2/clusters/" + id + "/pods", "/v2/pods/" + member} {
		status, out = podCall(t, srv, "GET", path, "")
		assert.Equal(t, http.StatusNotFound, status, path)
		assert.NotEmpty(t, out["detail"], path)
	}
	status, _ = podCall(t, srv, "DELETE", "/v2/clusters/"+id, "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = podCall(t, srv, "PATCH", "/v2/clusters/"+id, `{"name":"x"}`)
	assert.Equal(t, http.StatusNotFound, status)
	got := srv.Pods()
	require.Len(t, got, 1)
	assert.Equal(t, standalone, got[0].ID)
	for _, r := range srv.Requests() {
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
	}
}

// TestClusterPermissions: the cluster routes need the clusters
// permissions, not the pods ones.
func TestClusterPermissions(t *testing.T) {
	srv := newServer(t)
	id := srv.AddCluster(runpodtest.Cluster{Name: "c", GPU: "NVIDIA L4"})
	for _, c := range []struct {
		perms  []runpodtest.Permission
		method string
		path   string
		want   int
	}{
		{[]runpodtest.Permission{runpodtest.PermissionPodsRead, runpodtest.PermissionPodsWrite}, "GET", "/v2/clusters", http.StatusForbidden},
		{[]runpodtest.Permission{runpodtest.PermissionClustersRead}, "GET", "/v2/clusters/" + id + "/pods", http.StatusOK},
		{[]runpodtest.Permission{runpodtest.PermissionClustersRead}, "DELETE", "/v2/clusters/" + id, http.StatusForbidden},
		{[]runpodtest.Permission{runpodtest.PermissionClustersWrite}, "DELETE", "/v2/clusters/" + id, http.StatusNoContent},
	} {
		key := srv.NewKey(c.perms...)
		req, err := http.NewRequestWithContext(t.Context(), c.method, srv.URL+c.path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, c.want, resp.StatusCode, "%s %s with %v", c.method, c.path, c.perms)
	}
}

// TestClustersAndPodsConcurrently: cluster and pod routes and fixtures in
// parallel, for the race detector and the lock order (clusters, then
// pods): nothing deadlocks, and every cluster's pods go with it.
func TestClustersAndPodsConcurrently(t *testing.T) {
	srv := newServer(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 5 {
				status, out := goCall(t, srv, "POST", "/v2/clusters",
					fmt.Sprintf(`{"name":"c%d-%d","type":"SLURM","compute":{"gpuTypeId":"NVIDIA L4","gpuCountPerPod":1,"podCount":3}}`, i, j))
				if !assert.Equal(t, http.StatusCreated, status, out) {
					return
				}
				id := out["id"].(string)
				goCall(t, srv, "GET", "/v2/clusters", "")
				goCall(t, srv, "GET", "/v2/pods?includeClusterPods=true", "")
				goCall(t, srv, "GET", "/v2/clusters/"+id+"/pods", "")
				goCall(t, srv, "PATCH", "/v2/clusters/"+id, `{"name":"renamed"}`)
				status, _ = goCall(t, srv, "DELETE", "/v2/clusters/"+id, "")
				assert.Equal(t, http.StatusNoContent, status)
			}
		})
		wg.Go(func() {
			for range 5 {
				id := srv.AddCluster(runpodtest.Cluster{Name: "f", GPU: "NVIDIA L4"})
				_ = srv.Clusters()
				_ = srv.Pods()
				goCall(t, srv, "DELETE", "/v2/clusters/"+id, "")
			}
		})
	}
	wg.Wait()
	assert.Empty(t, srv.Clusters())
	assert.Empty(t, srv.Pods())
}

// goCall is podCall for other goroutines than the test's: it asserts
// instead of requiring, and answers 0 when the call failed.
func goCall(t *testing.T, srv *runpodtest.Server, method, path, body string) (int, map[string]any) {
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	if !assert.NoError(t, err) {
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if !assert.NoError(t, err) {
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	if resp.StatusCode != http.StatusNoContent {
		assert.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	}
	return resp.StatusCode, out
}
