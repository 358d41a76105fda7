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

func TestJobsOffline(t *testing.T) {
	demotest.Offline(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-prompt", "hello there"}, &out))
	got := out.String()
	assert.Regexp(t, `1\. submitted job \S+-u1 \(IN_QUEUE\)`, got)
	assert.Contains(t, got, "-> COMPLETED")
	assert.Contains(t, got, `output {"text":"You said: hello there","tokens":4}`)
	assert.Contains(t, got, ": You said: hello there\n")
	assert.Contains(t, got, `3. runsync job sync-`)
	assert.Contains(t, got, `"You said: hello there" (4 tokens)`)
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-prompt", "hello", "there"},
		// Refused by the SDK before sending (issue 26, item 15): exit 2.
		[]string{"-endpoint", " "})
}

func TestEndpointRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	t.Setenv(option.EnvInferenceURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-endpoint is required")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "found before connecting")
}
