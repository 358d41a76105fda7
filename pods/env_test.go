package pods_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSuiteIgnoresShellEnvironment runs the proxy-URL tests again in a
// child process whose environment sets every RUNPOD_* variable to values
// that would break them: the suite clears them before any test runs, so
// a user's shell cannot make it fail.
func TestSuiteIgnoresShellEnvironment(t *testing.T) {
	if os.Getenv("GO_RUNPOD_ENV_CHILD") == "1" {
		t.Skip("already the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestProxyURL|ExampleService_ProxyURL)$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GO_RUNPOD_ENV_CHILD=1",
		"RUNPOD_PROXY_HOST=proxy.example.invalid", "RUNPOD_INFERENCE_URL=https://inference.example.invalid",
		"RUNPOD_BASE_URL=https://api.example.invalid", "RUNPOD_API_KEY=rpa_FROMTHESHELL")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, strings.Contains(string(out), "PASS"), "%s", out)
}
