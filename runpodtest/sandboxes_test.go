package runpodtest_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
)

// sandboxFake starts a fake on a clock the test moves.
func sandboxFake(t *testing.T, opts ...runpodtest.Option) (*runpodtest.Server, *podClock) {
	t.Helper()
	c := &podClock{now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	return newServer(t, append([]runpodtest.Option{runpodtest.WithClock(c.Now)}, opts...)...), c
}

// TestSandboxCreateRules: exactly one of image and template (400), a known
// template, flavor and data center (422), an unknown field or a value out
// of range refused by the document's check (contract.Check answers 422;
// the page names 400 for an unknown field); a template's image is what
// the sandbox runs.
func TestSandboxCreateRules(t *testing.T) {
	srv, _ := sandboxFake(t)
	for body, want := range map[string]int{
		`{}`:                                 http.StatusBadRequest,
		`{"imageName":"a","templateId":"t"}`: http.StatusBadRequest,
		`{"templateId":"nosuch"}`:            http.StatusUnprocessableEntity,
		`{"imageName":"a","cpuFlavorId":"cpu9z"}`:  http.StatusUnprocessableEntity,
		`{"imageName":"a","dataCenterId":"XX-1"}`:  http.StatusUnprocessableEntity,
		`{"imageName":"a","egress":"DENY_ALL"}`:    http.StatusUnprocessableEntity, // the document's check
		`{"imageName":"a","vcpuCount":0}`:          http.StatusUnprocessableEntity,
		`{"imageName":"a","labels":{"a=b":"c"}}`:   http.StatusBadRequest,
		`{"imageName":"a","idleTimeoutSeconds":5}`: http.StatusCreated,
	} {
		status, _ := podCall(t, srv, http.MethodPost, "/v2/sandboxes", body)
		assert.Equal(t, want, status, body)
	}
	srv.StoreTemplate(runpodtest.Template{ID: "tmplsbx1", Name: "py", Image: "python:3.11"})
	status, got := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"templateId":"tmplsbx1"}`)
	require.Equal(t, http.StatusCreated, status)
	assert.Equal(t, "tmplsbx1", got["templateId"])
	assert.Nil(t, got["imageName"])
	assert.Equal(t, "CREATING", got["state"])
	assert.Nil(t, got["compute"])
	all := srv.Sandboxes()
	require.Len(t, all, 2)
	for _, sb := range all {
		if sb.Template == "tmplsbx1" {
			assert.Equal(t, "python:3.11", sb.ImageName)
		} else {
			assert.Equal(t, 5*time.Second, sb.IdleTimeout)
		}
	}
}

// TestSandboxTimeline: CREATING for 5 s of the fake's clock, then RUNNING;
// exec and logs answer 409 until the container has started 15 s later;
// an exec moves the idle deadline on; the sandbox ends past its idle
// deadline, and then exec and logs answer 409 again.
func TestSandboxTimeline(t *testing.T) {
	srv, c := sandboxFake(t)
	_, sb := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"python:3.12-slim","idleTimeoutSeconds":60}`)
	id := sb["id"].(string)
	exec := func() int {
		status, _ := podCall(t, srv, http.MethodPost, "/v2/sandboxes/"+id+"/exec", `{"command":["true"]}`)
		return status
	}
	state := func() string {
		_, got := podCall(t, srv, http.MethodGet, "/v2/sandboxes/"+id, "")
		return got["state"].(string)
	}
	assert.Equal(t, http.StatusConflict, exec(), "CREATING")
	c.Add(5 * time.Second)
	assert.Equal(t, "RUNNING", state())
	assert.Equal(t, http.StatusConflict, exec(), "the container is starting")
	status, _ := podCall(t, srv, http.MethodGet, "/v2/sandboxes/"+id+"/logs", "")
	assert.Equal(t, http.StatusConflict, status)
	c.Add(15*time.Second - time.Nanosecond)
	assert.Equal(t, http.StatusConflict, exec())
	c.Add(time.Nanosecond)
	assert.Equal(t, http.StatusOK, exec(), "the container has started")

	c.Add(50 * time.Second)
	assert.Equal(t, http.StatusOK, exec(), "50 s idle of 60")
	c.Add(60 * time.Second)
	assert.Equal(t, "RUNNING", state(), "at its idle deadline, not past it")
	c.Add(time.Second)
	_, got := podCall(t, srv, http.MethodGet, "/v2/sandboxes/"+id, "")
	assert.Equal(t, "TERMINATED", got["state"])
	assert.Equal(t, runpodtest.SandboxReasonIdle, got["terminationReason"])
	assert.Equal(t, http.StatusConflict, exec())
	status, _ = podCall(t, srv, http.MethodDelete, "/v2/sandboxes/"+id, "")
	assert.Equal(t, http.StatusNoContent, status, "terminating a terminated sandbox succeeds")
	status, _ = podCall(t, srv, http.MethodDelete, "/v2/sandboxes/nosuch", "")
	assert.Equal(t, http.StatusNotFound, status)
}

// TestSandboxLimits: the timeouts' defaults and clamping; the lifetime
// ends the sandbox; the balance pays for what the sandboxes billed, and
// the capacity counts live sandboxes only.
func TestSandboxLimits(t *testing.T) {
	srv, c := sandboxFake(t)
	_, a := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a"}`)
	assert.EqualValues(t, 600, a["idleTimeoutSeconds"])
	assert.EqualValues(t, 3600, a["maxLifetimeSeconds"])
	_, b := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a","idleTimeoutSeconds":99999,"maxLifetimeSeconds":999999,"vcpuCount":4}`)
	assert.EqualValues(t, 7200, b["idleTimeoutSeconds"])
	assert.EqualValues(t, 86400, b["maxLifetimeSeconds"])

	srv.SetSandboxCapacity(2)
	status, _ := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a"}`)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	status, _ = podCall(t, srv, http.MethodDelete, "/v2/sandboxes/"+a["id"].(string), "")
	require.Equal(t, http.StatusNoContent, status)
	status, _ = podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a"}`)
	assert.Equal(t, http.StatusCreated, status, "a terminated sandbox frees its room")
	srv.SetSandboxCapacity(-1)

	// b (4 vCPUs, $0.052/h) runs for an hour: 0.052 billed.
	c.Add(time.Hour)
	var billed float64
	for _, sb := range srv.Sandboxes() {
		billed += sb.Cost
	}
	srv.SetBalance(billed + 0.025) // less than an hour of a 2-vCPU sandbox (0.026)
	status, got := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a"}`)
	assert.Equal(t, http.StatusPaymentRequired, status)
	assert.Contains(t, got["detail"], "balance is too low")
	srv.SetBalance(billed + 0.03)
	status, _ = podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a"}`)
	assert.Equal(t, http.StatusCreated, status)

	c.Add(24 * time.Hour)
	for _, sb := range srv.Sandboxes() {
		assert.Equal(t, "TERMINATED", sb.State, sb.ID)
	}
	status, got = podCall(t, srv, http.MethodGet, "/v2/sandboxes/"+b["id"].(string), "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, runpodtest.SandboxReasonIdle, got["terminationReason"], "idle 2 h came before the 24 h lifetime")
	var bCost float64
	for _, sb := range srv.Sandboxes() {
		if sb.ID == b["id"] {
			bCost = sb.Cost
		}
	}
	assert.InDelta(t, 0.052*2, bCost, 1e-9, "billed per second until its idle end, 2 h")
}

// TestSandboxListFilters: terminated sandboxes only with state=TERMINATED;
// labels must all match; a label without '=' is refused.
func TestSandboxListFilters(t *testing.T) {
	srv, _ := sandboxFake(t)
	_, a := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a","labels":{"team":"x","env":"ci"}}`)
	podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a","labels":{"team":"y"}}`)
	podCall(t, srv, http.MethodDelete, "/v2/sandboxes/"+a["id"].(string), "")
	count := func(q string) int {
		status, got := podCall(t, srv, http.MethodGet, "/v2/sandboxes"+q, "")
		require.Equal(t, http.StatusOK, status, q)
		return len(got["sandboxes"].([]any))
	}
	assert.Equal(t, 1, count(""))
	assert.Equal(t, 1, count("?state=TERMINATED"))
	assert.Equal(t, 1, count("?state=TERMINATED&labels=team=x&labels=env=ci"))
	assert.Equal(t, 0, count("?state=TERMINATED&labels=team=x&labels=env=prod"))
	assert.Equal(t, 1, count("?labels=team=y"))
	status, _ := podCall(t, srv, http.MethodGet, "/v2/sandboxes?labels=team", "")
	assert.Equal(t, http.StatusBadRequest, status)
}

// TestSandboxLogsEndWithTheSandbox: the log stream serves the lifecycle
// lines and the container's, and ends when the sandbox is terminated.
func TestSandboxLogsEndWithTheSandbox(t *testing.T) {
	srv, _ := sandboxFake(t, runpodtest.WithSandboxTiming(0, 0))
	_, sb := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a"}`)
	id := sb["id"].(string)
	require.True(t, srv.AppendSandboxLog(id, "hello"))
	assert.False(t, srv.AppendSandboxLog("nosuch", "x"))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/v2/sandboxes/"+id+"/logs?source=container", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	var data []string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
			if len(data) == 1 {
				status, _ := podCall(t, srv, http.MethodDelete, "/v2/sandboxes/"+id, "")
				require.Equal(t, http.StatusNoContent, status)
			}
		}
	}
	require.NoError(t, sc.Err(), "the stream ended cleanly")
	require.Len(t, data, 1, "the container's line; the system's are filtered out")
	assert.Contains(t, data[0], `"line":"hello"`)
}

// TestSandboxExecCommands: the built-in shell, the execution cap and a
// test's own handler; a FAILED sandbox bills nothing.
func TestSandboxExecCommands(t *testing.T) {
	srv, _ := sandboxFake(t, runpodtest.WithSandboxTiming(0, 0))
	_, sb := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"a","env":{"X":"1"}}`)
	id := sb["id"].(string)
	for cmd, want := range map[string][2]any{
		`["echo","a","b"]`:                   {"a b\n", nil},
		`["sh","-c","echo x && env; false"]`: {"x\nX=1\n", "exit status 1"},
		`["sleep","31"]`:                     {"", "command ran past the execution cap (30s) and was killed"},
		`["python"]`:                         {"sh: python: not found\n", "exit status 127"},
	} {
		status, got := podCall(t, srv, http.MethodPost, "/v2/sandboxes/"+id+"/exec", `{"command":`+cmd+`}`)
		require.Equal(t, http.StatusOK, status, cmd)
		assert.Equal(t, want[0], got["output"], cmd)
		assert.Equal(t, want[1], got["error"], cmd)
	}
	srv.HandleSandboxCommand(func(sandboxID string, argv []string, env map[string]string) runpodtest.SandboxResult {
		return runpodtest.SandboxResult{Output: sandboxID + " " + strings.Join(argv, ",") + " " + env["X"]}
	})
	_, got := podCall(t, srv, http.MethodPost, "/v2/sandboxes/"+id+"/exec", `{"command":["a","b"]}`)
	assert.Equal(t, id+" a,b 1", got["output"])
	assert.Len(t, srv.Sandboxes()[0].Commands, 5)

	srv.FailSandboxImage("bad", "image pull failed")
	_, f := podCall(t, srv, http.MethodPost, "/v2/sandboxes", `{"imageName":"bad"}`)
	assert.Equal(t, "FAILED", f["state"])
	assert.Equal(t, "image pull failed", f["terminationReason"])
	for _, s := range srv.Sandboxes() {
		if s.ID == f["id"] {
			assert.Zero(t, s.Cost)
		}
	}
}
