package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestHelloOnTheFake runs the program as it is, main and all, against the
// fake platform: its key and URLs come from the environment, as a user's
// do, and the fake runs an echo handler for the program's image.
func TestHelloOnTheFake(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	srv.HandleImage(image, func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ Prompt string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return map[string]string{"echo": in.Prompt}, nil
	})
	t.Setenv(option.EnvAPIKey, srv.APIKey)
	t.Setenv(option.EnvBaseURL, srv.URL)
	t.Setenv(option.EnvInferenceURL, srv.InferenceURL)

	out := captureStdout(t, main)
	require.Equal(t, "COMPLETED {\"echo\":\"Hello, RunPod!\"}\n", out)
	again := captureStdout(t, main)
	require.Equal(t, out, again, "a second run finds the endpoint")
	eps := srv.Endpoints()
	require.Len(t, eps, 1, "Apply created the endpoint once")
}

// captureStdout runs f with os.Stdout going to a pipe and returns what it
// wrote.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, r)
		done <- b.String()
	}()
	defer func() { os.Stdout = old }()
	f()
	require.NoError(t, w.Close())
	out := <-done
	require.NoError(t, r.Close())
	return out
}

// TestREADMEOpensWithThisProgram: the first code block of the
// repository's README is this program, byte for byte.
func TestREADMEOpensWithThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	first := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, first, "README has a Go code block")
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(string(src)), strings.TrimSpace(string(first[1])))
}
