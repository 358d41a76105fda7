package serverless_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

func TestLoadBalancerRequests(t *testing.T) {
	srv, rp, _ := fake(t)
	lb := srv.HandleLoadBalancer("lb1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "lb1.localhost", r.Host[:len("lb1.localhost")])
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"path":"` + r.URL.Path + `","query":"` + r.URL.RawQuery + `","body":` + string(b) + `}`))
	}))
	c := rp.Serverless.LoadBalancer("lb1")
	base, err := c.BaseURL()
	require.NoError(t, err)
	assert.Regexp(t, `^http://lb1\.localhost:\d+$`, base.String())

	resp, err := c.Do(t.Context(), serverless.LBParams{Method: "POST", Path: "/generate?n=2", Body: []byte(`{"prompt":"hi"}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"/generate","query":"n=2","body":{"prompt":"hi"}}`, string(resp.Body))
	assert.NotEmpty(t, resp.WorkerID)
	r := srv.Requests()[len(srv.Requests())-1]
	assert.Equal(t, runpodtest.RouteLoadBalancer("lb1"), r.Route)
	assert.Equal(t, "bearer", r.Auth)

	// Soft affinity keeps the worker; strict affinity to a gone worker fails.
	again, err := c.Do(t.Context(), serverless.LBParams{Method: "POST", Path: "/generate", Body: []byte(`1`), Affinity: &serverless.Affinity{WorkerID: resp.WorkerID}})
	require.NoError(t, err)
	assert.Equal(t, resp.WorkerID, again.WorkerID)
	assert.Equal(t, resp.WorkerID, srv.Requests()[len(srv.Requests())-1].Header.Get("X-Runpod-Worker-Id"))
	lb.SetWorkers("other")
	_, err = c.Do(t.Context(), serverless.LBParams{Path: "/x", Affinity: &serverless.Affinity{WorkerID: resp.WorkerID, Mode: "strict"}})
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 404, apiErr.StatusCode)
	assert.Contains(t, apiErr.Excerpt, "affinity_worker_gone")
	soft, err := c.Do(t.Context(), serverless.LBParams{Path: "/x", Affinity: &serverless.Affinity{WorkerID: resp.WorkerID}})
	require.NoError(t, err)
	assert.Equal(t, "other", soft.WorkerID)

	for _, bad := range []serverless.LBParams{{Path: "x"}, {Path: "/x", Affinity: &serverless.Affinity{}}, {Path: "/x", Affinity: &serverless.Affinity{WorkerID: "w", Mode: "sticky"}}} {
		_, err := c.Do(t.Context(), bad)
		require.ErrorIs(t, err, errs.ErrValidation)
	}
	_, err = rp.Serverless.LoadBalancer("a.b").BaseURL()
	require.ErrorIs(t, err, errs.ErrValidation)
}

func TestLoadBalancerWaitReady(t *testing.T) {
	srv, rp, _ := fake(t)
	lb := srv.HandleLoadBalancer("lb1", http.NotFoundHandler())
	lb.SetPing(serverless.PingStateInitializing)
	c := rp.Serverless.LoadBalancer("lb1")

	state, err := c.Ping(t.Context())
	require.NoError(t, err)
	assert.Equal(t, serverless.PingStateInitializing, state)
	_, err = c.Do(t.Context(), serverless.LBParams{Path: "/work"})
	require.Error(t, err, "no workers available while initializing")

	var states []serverless.PingState
	err = c.WaitReady(t.Context(), option.Poll[serverless.PingState]{Interval: 5 * time.Millisecond, OnCheck: func(s serverless.PingState) {
		states = append(states, s)
		switch len(states) {
		case 2:
			lb.SetPing(serverless.PingStateUnhealthy)
		case 3:
			lb.SetPing(serverless.PingStateReady)
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, []serverless.PingState{serverless.PingStateInitializing, serverless.PingStateInitializing, serverless.PingStateUnhealthy, serverless.PingStateReady}, states)

	lb.SetPing(serverless.PingStateInitializing)
	short, stop := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer stop()
	err = c.WaitReady(short, option.Poll[serverless.PingState]{Interval: 5 * time.Millisecond})
	require.ErrorContains(t, err, "not ready (last initializing)")
}

// TestWaitReadyStopsOnFinalAnswers: a revoked key (401), a key without
// inference permission (403) and an endpoint that does not exist (404)
// end WaitReady at once with that error; only server errors, failed
// connections and 204 keep it waiting.
func TestWaitReadyStopsOnFinalAnswers(t *testing.T) {
	srv, rp, _ := fake(t)
	lb := srv.HandleLoadBalancer("lb1", http.NotFoundHandler())
	lb.SetPing(serverless.PingStateInitializing)
	revoked := srv.NewKey(runpodtest.PermissionInference)
	srv.RevokeKey(revoked)
	noInference := srv.NewKey(runpodtest.PermissionPodsRead)
	for _, tc := range []struct {
		name   string
		key    string
		id     string
		status int
	}{
		{"revoked key", revoked, "lb1", http.StatusUnauthorized},
		{"no inference permission", noInference, "lb1", http.StatusForbidden},
		{"no such endpoint", "", "lb-missing", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := rp
			if tc.key != "" {
				var err error
				client, err = srv.NewClient(option.WithAPIKey(tc.key))
				require.NoError(t, err)
				defer client.CloseIdleConnections()
			}
			c := client.Serverless.LoadBalancer(tc.id)
			_, err := c.Ping(t.Context())
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			before := srv.Count("*")
			err = c.WaitReady(t.Context(), option.Poll[serverless.PingState]{Interval: time.Hour})
			require.ErrorAs(t, err, &apiErr, "returned at once, not after an hour")
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, before+1, srv.Count("*"), "one ping")
		})
	}

	// A server error is a state to wait through.
	srv.FailNext(runpodtest.RouteLoadBalancer("lb1"), 20, runpodtest.Fault{Status: http.StatusServiceUnavailable})
	state, err := rp.Serverless.LoadBalancer("lb1").Ping(t.Context())
	require.NoError(t, err)
	assert.Equal(t, serverless.PingStateUnhealthy, state)
}
