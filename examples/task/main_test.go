package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
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
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestTaskOffline runs the example against the fake: the first GPU type
// is out of stock, so the task runs on the second; the input goes up,
// the sums come down into -out, and the fake holds no running pod after.
func TestTaskOffline(t *testing.T) {
	srv := demotest.Fake(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "data.txt")
	require.NoError(t, os.WriteFile(in, []byte("some data\n"), 0o644))
	out := filepath.Join(dir, "results")
	var w bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-in", in, "-out", out}, &w))
	got := w.String()
	sum := fmt.Sprintf("%x  /workspace/input.txt\n", sha256.Sum256([]byte("some data\n")))
	assert.Regexp(t, `1\. created pod [a-z0-9]{14} on NVIDIA L40S \(\$0\.86/h\), named runpod-go-task-[0-9a-f]{8}~lease-\d{8}T\d{4}Z\n`, got)
	assert.Contains(t, got, "2. the command's output:\n"+sum)
	assert.Contains(t, got, "3. exit status 0, outputs 1\n")
	assert.Regexp(t, `4\. pod terminated after \S+, about \$\d+\.\d{4}\n`, got)
	b, err := os.ReadFile(filepath.Join(out, "out", "sums.txt"))
	require.NoError(t, err)
	assert.Equal(t, sum, string(b))
	assertNoTaskPod(t, srv)
}

// TestCommandFails: a command the stand-in does not know exits 127; the
// example reports the status, the pod is terminated, and the run fails.
func TestCommandFails(t *testing.T) {
	srv := demotest.Fake(t)
	var w bytes.Buffer
	err := run(t.Context(), []string{"-command", "nvidia-smi", "-out", t.TempDir()}, &w)
	require.ErrorContains(t, err, "status 127")
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.Contains(t, w.String(), "3. exit status 127, outputs 0\n")
	assert.Contains(t, w.String(), "4. pod terminated")
	assertNoTaskPod(t, srv)
}

func TestConfirmRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-confirm")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "a missing -confirm is a usage error, found before connecting")
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-confirm", "yes"}, []string{"-gpu", " , "}, []string{"-timeout", "-1m"})
}

// assertNoTaskPod checks that the fake holds no running pod of the
// example's (the demo account has pods of its own).
func assertNoTaskPod(t *testing.T, srv *runpodtest.Server) {
	t.Helper()
	for _, p := range srv.Pods() {
		if strings.HasPrefix(p.Name, "runpod-go-task-") {
			assert.Equal(t, pods.PodStatusTerminated, p.Status, "nothing left billing")
		}
	}
}
