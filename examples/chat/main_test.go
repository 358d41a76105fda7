package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestChatOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-prompt", "hello gophers"}, &out))
	got := out.String()
	assert.Contains(t, got, "qwen3-32b-awq serves Qwen/Qwen3-32B-AWQ\n")
	assert.Contains(t, got, "[The user wrote 2 words; I will repeat them.]\nYou said: hello gophers\n")
	assert.Regexp(t, `\(\d+ prompt \+ \d+ completion tokens\)`, got)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteModels))
}

// TestOtherEndpoint is the endpoint that used to fail with 404: its model
// is not Qwen's, and without -model the example now asks for it.
func TestOtherEndpoint(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-endpoint", "granite-4-0-h-small", "-prompt", "hi granite"}, &out))
	got := out.String()
	assert.Regexp(t, `granite-4-0-h-small serves \S*granite\S*\n`, got)
	assert.Contains(t, got, "You said: hi granite\n")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteModels))
	assert.Equal(t, 1, srv.Count(runpodtest.RouteChatCompletions))
}

func TestExplicitModel(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-model", "Qwen/Qwen3-32B-AWQ", "-prompt", "hi"}, &out))
	assert.NotContains(t, out.String(), " serves ")
	assert.Zero(t, srv.Count(runpodtest.RouteModels), "a -model given is used as is")

	err := run(t.Context(), []string{"-model", "gpt-4"}, &out)
	require.ErrorContains(t, err, "The model `gpt-4` does not exist.")
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
}

func TestUnknownEndpoint(t *testing.T) {
	demotest.Fake(t)
	err := run(t.Context(), []string{"-endpoint", "no-such-endpoint"}, &bytes.Buffer{})
	require.ErrorContains(t, err, "listing the models of no-such-endpoint")
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-prompt", "hi", "there"})
}
