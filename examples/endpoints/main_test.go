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

func TestLifecycleOffline(t *testing.T) {
	t.Setenv(runpod.EnvAPIKey, "")
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. created ep\d+ "runpod-go-example"`, got)
	assert.Contains(t, got, "2. the account has 2 endpoint(s) and a SERVERLESS discount (factor 0.90)")
	const kept = "gpus=ADA_24,AMPERE_24 locations=US,RO idleTimeout=30s flashBoot=FLASHBOOT scaler=QUEUE_DELAY/2"
	assert.Contains(t, got, kept+" workers=0..2")
	assert.Contains(t, got, "everything else survived:\n   "+kept+" workers=1..2")
	assert.Contains(t, got, "4. scaled to zero: 1 worker(s) left")
	assert.Contains(t, got, "4. scaled to zero: 0 worker(s) left")
	assert.Regexp(t, `5\. deleted ep\d+`, got)
}

func TestTemplateRequiredOnline(t *testing.T) {
	t.Setenv(runpod.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(runpod.EnvBaseURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-template is required")
}
