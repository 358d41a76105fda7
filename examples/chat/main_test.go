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

func TestChatOffline(t *testing.T) {
	t.Setenv(runpod.EnvAPIKey, "")
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-prompt", "hello gophers"}, &out))
	got := out.String()
	assert.Contains(t, got, "[The user wrote 2 words; I will repeat them.]\nYou said: hello gophers\n")
	assert.Regexp(t, `\(\d+ prompt \+ \d+ completion tokens\)`, got)

	err := run(t.Context(), []string{"-model", "gpt-4"}, &out)
	require.ErrorContains(t, err, "The model `gpt-4` does not exist.")
}
