package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestJobsOffline(t *testing.T) {
	t.Setenv(runpod.EnvAPIKey, "")
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
