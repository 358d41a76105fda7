package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestOpenAIGoOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `base URL: http://localhost:\d+/v2/qwen3-32b-awq/openai/v1\n`, got)
	assert.Contains(t, got, "reply: You said: Hello from openai-go\n")
	assert.Contains(t, got, "\nstreamed: You said: Hello from openai-go\n", "a space after the label, a newline after the stream")
	assert.Equal(t, 2, srv.Count(runpodtest.RouteChatCompletions))
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run)
}
