package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestVideoOffline(t *testing.T) {
	t.Setenv(runpod.EnvAPIKey, "")
	out := filepath.Join(t.TempDir(), "v.mp4")
	var buf bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-duration", "10", "-size", "1920*1080", "-o", out}, &buf))
	got := buf.String()
	assert.Contains(t, got, "Generating with wan-2-5 (estimated $1.50)")
	assert.Regexp(t, `IN_PROGRESS`, got, "the progress line shows the status while the video renders")
	assert.Contains(t, got, "charged $1.50")
	assert.Contains(t, got, "100%")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "ftypisom", string(b[4:12]))

	require.NoError(t, run(t.Context(), []string{"-model", "wan-2-2-t2v-720-lora", "-duration", "8", "-o", out}, &buf))
	assert.Contains(t, buf.String(), "charged $0.56")
}

func TestVideoBadInput(t *testing.T) {
	t.Setenv(runpod.EnvAPIKey, "")
	for _, args := range [][]string{{"-duration", "7"}, {"-image", "beach.jpg"}, {"-model", "sora"}, {"-size", "640*640"}} {
		var ve *runpod.ValidationError
		require.ErrorAs(t, run(t.Context(), args, io.Discard), &ve, "%v", args)
	}
}
