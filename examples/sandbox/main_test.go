package main

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/sandboxes"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestSandboxOffline runs the example against the fake, whose sandboxes
// start at once; the first two commands are answered 409 (the container
// still starting), which Exec waits through. The sandbox ends terminated,
// and is the only one.
func TestSandboxOffline(t *testing.T) {
	srv := demotest.Fake(t, runpodtest.WithSandboxTiming(0, 0))
	srv.FailNext(runpodtest.RouteSandboxExec, 2, runpodtest.Fault{Status: http.StatusConflict})
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. created sandbox [a-z0-9]{10} \((CREATING|RUNNING)\), leased: runpod-go-sandbox~lease-\d{8}T\d{4}Z`, got)
	assert.Regexp(t, `idle timeout 300s, maximum lifetime 3600s, token runpod-go-create-token=[0-9a-f]{32}`, got)
	assert.Contains(t, got, "2. running on 2 vCPUs, 4 GB, at $0.026/h\n")
	assert.Contains(t, got, `3. ran "echo hello from the sandbox": hello from the sandbox`+"\n")
	assert.Contains(t, got, `4. exit 3 -> *sandboxes.ExecError "exit status 3", output "about to fail\n"`)
	assert.Contains(t, got, "   [system] Pulling image python:3.12-slim\n")
	assert.Contains(t, got, "6. TERMINATED: "+runpodtest.SandboxReasonRequested+"\n")
	assert.Equal(t, 4, srv.Count(runpodtest.RouteSandboxExec), "two 409s, then the two commands")
	all := srv.Sandboxes()
	require.Len(t, all, 1)
	assert.Equal(t, "TERMINATED", all[0].State)
}

// TestSandboxOfflineCreateReset: the create's connection is reset after
// the platform made the sandbox; the example goes on with that one, and
// nothing is left running.
func TestSandboxOfflineCreateReset(t *testing.T) {
	srv := demotest.Fake(t, runpodtest.WithSandboxTiming(0, 0))
	srv.FailNext(runpodtest.RouteCreateSandbox, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "6. TERMINATED")
	all := srv.Sandboxes()
	require.Len(t, all, 1, "one sandbox, not two")
	assert.Equal(t, "TERMINATED", all[0].State)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateSandbox))
	assert.NotEmpty(t, all[0].Labels[sandboxes.TokenLabel])
}

// TestSandboxOfflineFailureTerminates: a failure after the create (the
// command cannot run) still terminates the sandbox.
func TestSandboxOfflineFailureTerminates(t *testing.T) {
	srv := demotest.Fake(t, runpodtest.WithSandboxTiming(0, 0))
	srv.FailNext(runpodtest.RouteSandboxExec, 1, runpodtest.Fault{Status: http.StatusForbidden})
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.Error(t, err)
	all := srv.Sandboxes()
	require.Len(t, all, 1)
	assert.Equal(t, "TERMINATED", all[0].State)
}

func TestSandboxUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-idle", "0"}, []string{"-image", "two words"}, []string{"-lease", "-1m"})
}
