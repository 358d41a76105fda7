package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// isolate gives the test a home and configuration directory of its own,
// where the example's known_hosts goes, and returns that file's path.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	return filepath.Join(home, ".config", "runpod", "known_hosts")
}

func TestPodsOffline(t *testing.T) {
	demotest.Offline(t)
	isolate(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. created pod [a-z0-9]{14} on NVIDIA L40S in [A-Z]{2}-[A-Z]{2,3}-\d \(\$0\.86/h\), leased: runpod-go-example~lease-\d{8}T\d{4}Z`, got,
		"the first GPU type is out of stock, so the second gets the pod")
	// The example prints the statuses its polls saw: a poll may miss the
	// short STARTING phase on a busy machine, so only their order is
	// checked, and that the pod ended RUNNING.
	assert.Regexp(t, `(?m)^   PROVISIONING -> (STARTING\n   STARTING -> RUNNING|RUNNING)$`, got)
	assert.Regexp(t, `2\. SSH to 203\.0\.113\.\d+:\d+ \(host key SHA256:`, got)
	assert.Contains(t, got, "3. ran a command: hello from the pod\n")
	assert.Contains(t, got, "exit 3 -> *podssh.ExitError, status 3")
	assert.Contains(t, got, "checksum on the pod matches: true")
	assert.Regexp(t, `5\. Jupyter \(8888/http\): https://[a-z0-9]{14}-8888\.proxy\.localhost`, got)
	assert.Contains(t, got, "status RUNNING")
	assert.Contains(t, got, "7. stopped")
	assert.Contains(t, got, "8. deleted")
}

// TestPodsOfflineTwice: two runs on one machine both pass: each keeps the
// host key of its own pod (a new id each run), and a later run trusts
// nothing an earlier one learnt.
func TestPodsOfflineTwice(t *testing.T) {
	demotest.Offline(t)
	knownHosts := isolate(t)
	for i := range 2 {
		var out bytes.Buffer
		require.NoError(t, run(t.Context(), nil, &out), "run %d", i+1)
		assert.Contains(t, out.String(), "8. deleted")
	}
	b, err := os.ReadFile(knownHosts)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2, "one line per run: %s", b)
	assert.Regexp(t, `runpod-pod=[a-z0-9]{14}$`, lines[0])
	assert.NotEqual(t, lines[0][strings.LastIndex(lines[0], "=")+1:], lines[1][strings.LastIndex(lines[1], "=")+1:], "two pods")
}

// TestBadFlags: a -gpu that names nothing and a -lease that is not
// positive are usage errors, found before anything is created.
func TestBadFlags(t *testing.T) {
	demotest.Offline(t)
	for _, args := range [][]string{{"-gpu", " , "}, {"-lease", "-1m"}} {
		err := run(t.Context(), args, &bytes.Buffer{})
		require.Error(t, err, args)
		assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), args)
	}
}

func TestConfirmRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-confirm")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "a missing -confirm is a usage error, found before connecting")
}

// TestUsage: pods used to accept stray arguments.
func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-confirm", "yes"}, []string{"-gpu", "NVIDIA GeForce RTX 4090", "extra"},
		// Refused by the SDK before sending (issue 26, item 15): exit 2.
		[]string{"-image", ""}, []string{"-gpu", ""})
}
