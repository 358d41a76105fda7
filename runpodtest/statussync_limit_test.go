package runpodtest_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestHeldStatusSyncCountsAsStatus: status-sync counts as status, and a
// held request is in progress until it answers: with Status.Concurrent
// 2, two held long polls fill the limit, and a third long poll and a
// /status read are refused 429 with Retry-After 1 without reaching the
// route; once the job ends and the holds answer, status is served again.
func TestHeldStatusSyncCountsAsStatus(t *testing.T) {
	srv := newServer(t, runpodtest.WithInferenceLimits(runpodtest.InferenceLimits{Status: runpodtest.InferenceLimit{Concurrent: 2}}))
	release := make(chan struct{})
	srv.HandleQueue("ep", blocking(release))
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":1}`)
	id := m["id"].(string)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			resp, m := call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=60000", "")
			assert.Equal(t, 200, resp.StatusCode)
			assert.Equal(t, "COMPLETED", m["status"])
		})
	}
	for srv.Acted(runpodtest.RouteStatusSync) < 2 {
		runtime.Gosched() // until both holds are admitted
	}
	resp, m := call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=1000", "")
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, m["detail"], "2 concurrent /status requests")
	resp, _ = call(t, srv, "GET", "/v2/ep/status/"+id, "")
	assert.Equal(t, 429, resp.StatusCode, "held long polls fill the /status limit")
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteStatusSync), "a refused request is not held")
	close(release)
	wg.Wait()
	resp, m = call(t, srv, "GET", "/v2/ep/status/"+id, "")
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "COMPLETED", m["status"])
}

// TestStatusSyncSpendsStatusRate: a long poll spends /status's rate
// window, as a /status read does: the platform counts it as status.
func TestStatusSyncSpendsStatusRate(t *testing.T) {
	srv := newServer(t, runpodtest.WithInferenceLimits(runpodtest.InferenceLimits{Status: runpodtest.InferenceLimit{Rate: 2, Concurrent: 5}}))
	srv.HandleQueue("ep", echo)
	_, m := call(t, srv, "POST", "/v2/ep/run", `{"input":1}`)
	id := m["id"].(string)
	resp, m := call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=60000", "")
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "COMPLETED", m["status"])
	resp, _ = call(t, srv, "GET", "/v2/ep/status/"+id, "")
	assert.Equal(t, 200, resp.StatusCode, "the window's second request")
	resp, _ = call(t, srv, "GET", "/v2/ep/status-sync/"+id+"?wait=60000", "")
	assert.Equal(t, 429, resp.StatusCode, "the window is spent")
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
}
