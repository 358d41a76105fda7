package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestPodsOffline(t *testing.T) {
	demotest.Offline(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. created pod [a-z0-9]{14} \(PROVISIONING, \$0\.69/h\)`, got)
	assert.Contains(t, got, "PROVISIONING -> STARTING")
	assert.Contains(t, got, "-> RUNNING")
	assert.Regexp(t, `2\. Jupyter \(8888/http\): https://[a-z0-9]{14}-8888\.proxy\.localhost`, got)
	assert.Regexp(t, `3\. SSH \(22/tcp\): ssh root@203\.0\.113\.\d+ -p \d+`, got)
	assert.Contains(t, got, "status RUNNING")
	assert.Contains(t, got, "5. stopped")
	assert.Contains(t, got, "6. deleted")
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
