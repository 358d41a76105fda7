package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func noEnv(string) string { return "" }

func TestTestInputJSON(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, worker.Run(t.Context(), Handler, worker.WithArgs(nil), worker.WithOutput(&out), worker.WithEnv(noEnv),
		worker.WithTestInputFile(testInputFile())))
	assert.Contains(t, out.String(), `Job result: {"output":{"words":12,"unique":9,"top":{"dog":2,"the":3}}}`)
	assert.Contains(t, out.String(), `Stream chunk: {"index":0,"word":"the"}`)
}

func TestBadInput(t *testing.T) {
	var out bytes.Buffer
	err := worker.Run(t.Context(), Handler, worker.WithArgs([]string{"--test_input", `{"input":{"top":500}}`}), worker.WithOutput(&out), worker.WithEnv(noEnv))
	var ee *worker.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.Code)
	assert.Contains(t, out.String(), "text is a required input")
}

func TestServeAPI(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, Handler, worker.WithArgs([]string{"--rp_serve_api"}), worker.WithListener(ln), worker.WithOutput(&bytes.Buffer{}), worker.WithEnv(noEnv))
	}()
	resp, err := http.Post("http://"+ln.Addr().String()+"/runsync", "application/json", strings.NewReader(`{"input":{"text":"to be or not to be","top":1}}`))
	require.NoError(t, err)
	var body struct {
		Status string
		Output Output
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	_ = resp.Body.Close()
	assert.Equal(t, "COMPLETED", body.Status)
	assert.Equal(t, Output{Words: 6, Unique: 4, Top: map[string]int{"be": 2}}, body.Output)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestExitCodes: the worker's command line belongs to the worker runtime
// (worker.Start), which keeps the examples' exit-code convention: 2 for a
// bad flag of its own, 1 for a failed job.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--rp_serve_apii"}, 2},
		{[]string{"--rp_api_port", "http"}, 2},
		{[]string{"--test_input", `{"input":{"text":"hi","top":500}}`}, 1},
	} {
		err := worker.Run(t.Context(), Handler, worker.WithArgs(c.args), worker.WithOutput(&bytes.Buffer{}), worker.WithEnv(noEnv))
		var ee *worker.ExitError
		require.ErrorAs(t, err, &ee, "%q", c.args)
		assert.Equal(t, c.code, ee.Code, "%q", c.args)
	}
}

// TestHelp (issue 26, item 15): -h prints the usage instead of running
// the test job; a --test_input whose value is "-h" is still a job.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"--rp_log_level", "DEBUG", "-h"}} {
		var out bytes.Buffer
		assert.True(t, help(args, &out), "%q", args)
		assert.Contains(t, out.String(), "Usage of worker", "%q", args)
	}
	for _, args := range [][]string{nil, {"--rp_serve_api"}, {"--test_input", "-h"}, {"--", "-h"}} {
		var out bytes.Buffer
		assert.False(t, help(args, &out), "%q", args)
		assert.Empty(t, out.String())
	}
}

// TestHelpDoesNotRunTheJob: the built command, run with -h, prints the
// usage and no job result.
func TestHelpDoesNotRunTheJob(t *testing.T) {
	if os.Getenv("WORKER_EXAMPLE_MAIN") == "1" {
		os.Args = []string{"worker", "-h"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelpDoesNotRunTheJob$")
	cmd.Env = append(os.Environ(), "WORKER_EXAMPLE_MAIN=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "Usage of worker")
	assert.NotContains(t, string(out), "Job result")
}
