package runpodtest_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// podClock is a platform clock the tests move by hand.
type podClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *podClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *podClock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// podCall sends a raw request to the fake and decodes a JSON answer.
func podCall(t *testing.T, srv *runpodtest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	if resp.StatusCode != http.StatusNoContent {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	}
	return resp.StatusCode, out
}

// TestPodFixtures: AddPod takes runpodtest's own Pod, fills the defaults,
// and the pod reads back through Pods and GET in the wire format the
// document describes (the fake checks its own answers against it: a 500
// would say one broke it).
func TestPodFixtures(t *testing.T) {
	c := &podClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := newServer(t, runpodtest.WithClock(c.Now))
	id := srv.AddPod(runpodtest.Pod{Name: "box", Image: "ubuntu:24.04", GPU: "NVIDIA L4", Ports: []string{"8888/http", "22/tcp", "70000/tcp"}})
	cpu := srv.AddPod(runpodtest.Pod{ID: "cpupod1", Name: "cpu", Image: "ubuntu:24.04", CPU: "cpu3m", VCPUs: 2, Status: pods.PodStatusExited})
	assert.Equal(t, "cpupod1", cpu)

	got := srv.Pods()
	require.Len(t, got, 2)
	byID := map[string]runpodtest.Pod{got[0].ID: got[0], got[1].ID: got[1]}
	assert.Equal(t, pods.PodStatusRunning, byID[id].Status, "RUNNING when no status is given")
	assert.Equal(t, 1, byID[id].GPUCount)
	assert.Equal(t, 50, byID[id].Disk)
	assert.Equal(t, pods.PodStatusExited, byID[cpu].Status)

	status, pod := podCall(t, srv, "GET", "/v2/pods/"+id, "")
	require.Equal(t, http.StatusOK, status, pod)
	assert.Equal(t, []any{"stop", "restart", "terminate"}, pod["actions"])
	ssh := pod["ssh"].(map[string]any)
	assert.NotNil(t, ssh["proxy"])
	assert.NotNil(t, ssh["direct"], "22/tcp is exposed")
	rt := pod["runtime"].(map[string]any)
	ports := rt["ports"].([]any)
	require.Len(t, ports, 3)
	assert.Equal(t, map[string]any{"private": 8888.0, "public": nil, "type": "http", "ip": nil}, ports[0])
	sym := ports[2].(map[string]any)
	assert.Equal(t, sym["private"], sym["public"], "a symmetric request maps a port to itself")
	assert.Equal(t, ports[1].(map[string]any)["ip"], sym["ip"], "one public IP per pod")

	status, pod = podCall(t, srv, "GET", "/v2/pods/"+cpu, "")
	require.Equal(t, http.StatusOK, status, pod)
	assert.Equal(t, map[string]any{"id": "cpu3m", "vcpuCount": 2.0, "memory": 16.0}, pod["cpu"])
	assert.Nil(t, pod["runtime"])
	assert.Nil(t, pod["cudaVersion"])
	assert.Equal(t, map[string]any{"proxy": nil, "direct": nil}, pod["ssh"])
}

// TestPodRules: the rules the platform applies beyond the schema: the
// actions each status allows (409 otherwise), a locked pod that cannot be
// stopped or restarted, a network volume whose id cannot change, and the
// boot phases on the fake's clock.
func TestPodRules(t *testing.T) {
	c := &podClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := newServer(t, runpodtest.WithClock(c.Now), runpodtest.WithPodBoot(10*time.Second, 20*time.Second))
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol_1"})
	status, pod := podCall(t, srv, "POST", "/v2/pods", `{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2},"mounts":{"network":[{"volumeId":"vol_1","path":"/v"}]}}`)
	require.Equal(t, http.StatusCreated, status, pod)
	id := pod["id"].(string)
	assert.Equal(t, "PROVISIONING", pod["status"])

	status, pod = podCall(t, srv, "POST", "/v2/pods/"+id+"/action", `{"action":"restart"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, "cannot restart a pod that is PROVISIONING", pod["detail"])

	c.Add(30 * time.Second)
	status, pod = podCall(t, srv, "PATCH", "/v2/pods/"+id, `{"locked":true,"mounts":{"network":[{"volumeId":"vol_1","path":"/data"}]}}`)
	require.Equal(t, http.StatusOK, status, pod)
	assert.Equal(t, "RUNNING", pod["status"])
	assert.Equal(t, []any{"terminate"}, pod["actions"], "a locked pod cannot be stopped or restarted")
	assert.Equal(t, "/data", pod["mounts"].(map[string]any)["network"].([]any)[0].(map[string]any)["path"])
	status, pod = podCall(t, srv, "POST", "/v2/pods/"+id+"/action", `{"action":"stop"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, "cannot stop a locked pod", pod["detail"])

	status, pod = podCall(t, srv, "PATCH", "/v2/pods/"+id, `{"mounts":{"network":[{"volumeId":"vol_2","path":"/data"}]}}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, pod["errors"], "$.mounts.network[0].volumeId: a network volume's id cannot change")

	status, _ = podCall(t, srv, "PATCH", "/v2/pods/"+id, `{"locked":false}`)
	require.Equal(t, http.StatusOK, status)
	status, pod = podCall(t, srv, "POST", "/v2/pods/"+id+"/action", `{"action":"stop"}`)
	require.Equal(t, http.StatusOK, status, pod)
	assert.Equal(t, "EXITED", pod["status"])
	status, _ = podCall(t, srv, "POST", "/v2/pods/"+id+"/action", `{"action":"terminate"}`)
	assert.Equal(t, http.StatusNoContent, status)
	assert.Empty(t, srv.Pods())
	for _, r := range srv.Requests() {
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
	}
}

// TestPodLogIDs: a log event's id is its line's time (the document types
// Last-Event-ID as a date-time), distinct even for lines written at the
// same instant, so resuming after one gives exactly the lines that follow.
func TestPodLogIDs(t *testing.T) {
	c := &podClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := newServer(t, runpodtest.WithClock(c.Now))
	id := srv.AddPod(runpodtest.Pod{Name: "box", Image: "ubuntu:24.04", GPU: "NVIDIA L4", Status: pods.PodStatusExited})
	for _, l := range []string{"one", "two", "three"} {
		srv.AppendPodLog(id, pods.LogSourceContainer, l)
	}
	read := func(lastID string, want int) (ids, lines []string) {
		req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v2/pods/"+id+"/logs?source=container", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		sc := bufio.NewScanner(resp.Body)
		for len(lines) < want && sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
				ids = append(ids, v)
			}
			if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev struct{ Line, Source, Ts string }
				require.NoError(t, json.Unmarshal([]byte(v), &ev))
				assert.Equal(t, "container", ev.Source)
				assert.Equal(t, ids[len(ids)-1], ev.Ts)
				lines = append(lines, ev.Line)
			}
		}
		return ids, lines
	}
	ids, lines := read("", 3)
	assert.Equal(t, []string{"one", "two", "three"}, lines)
	var prev time.Time
	for _, v := range ids {
		at, err := time.Parse(time.RFC3339Nano, v)
		require.NoError(t, err, v)
		assert.True(t, at.After(prev), "ids are distinct and in order: %v", ids)
		prev = at
	}
	_, lines = read(ids[0], 2)
	assert.Equal(t, []string{"two", "three"}, lines)
}
