package worker

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlagDefaults(t *testing.T) {
	f, err := parseFlags(nil)
	require.NoError(t, err)
	assert.False(t, f.serveAPI)
	assert.Equal(t, 8000, f.port)
	assert.Equal(t, "localhost", f.host)
	assert.Equal(t, 1, f.concurrency)
	assert.Equal(t, levelInfo, f.logLevel)
	assert.False(t, f.debugger)
	assert.Nil(t, f.testInput)
}

func TestEveryFlagAndSpelling(t *testing.T) {
	for _, args := range [][]string{
		{"--rp_serve_api", "--rp_api_port", "9000", "--rp_api_host", "0.0.0.0", "--rp_api_concurrency", "4", "--rp_log_level", "debug", "--rp_debugger", "--test_input", `{"input":{}}`},
		{"--rp-serve-api", "--rp-api-port=9000", "--rp-api-host=0.0.0.0", "--rp-api-concurrency=4", "--rp-log-level=DEBUG", "--rp-debugger=true", `--test-input={"input":{}}`},
		{"-rp_serve_api", "-rp_api_port", "9000", "-rp_api_host", "0.0.0.0", "-rp_api_concurrency", "4", "-rp_log_level", "Debug", "-rp_debugger", "-test_input", `{"input":{}}`},
	} {
		f, err := parseFlags(args)
		require.NoError(t, err, "%v", args)
		assert.True(t, f.serveAPI)
		assert.Equal(t, 9000, f.port)
		assert.Equal(t, "0.0.0.0", f.host)
		assert.Equal(t, 4, f.concurrency)
		assert.Equal(t, levelDebug, f.logLevel)
		assert.True(t, f.logLevelSet)
		assert.True(t, f.debugger)
		require.NotNil(t, f.testInput)
		assert.Equal(t, `{"input":{}}`, *f.testInput)
		assert.Empty(t, f.rest)
	}
}

func TestApplicationFlagsLeftAlone(t *testing.T) {
	args := []string{"--model", "llama", "--rp_serve_api", "-v", "--rp_api_port", "8001", "pos", "--", "--rp_debugger"}
	f, err := parseFlags(args)
	require.NoError(t, err)
	assert.Equal(t, []string{"--model", "llama", "-v", "pos", "--", "--rp_debugger"}, f.rest)
	assert.False(t, f.debugger, "after -- nothing is ours")
	assert.Equal(t, f.rest, AppArgs(args))
	assert.Equal(t, []string{"--x"}, AppArgs([]string{"--x", "--rp_log_level", "LOUD"}))
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--rp_log_level", "WARNING"}, {"--rp_log_level", "TRACE"}, {"--rp_log_level"},
		{"--rp_api_port", "http"}, {"--rp_api_port", "70000"}, {"--rp_api_concurrency", "0"},
		{"--rp_api_host", " "}, {"--rp_serve_api=maybe"}, {"--test_input"},
	} {
		_, err := parseFlags(args)
		require.Error(t, err, "%v", args)
	}
	err := Run(t.Context(), func(_ context.Context, j *Job) (any, error) { return nil, nil }, WithArgs([]string{"--rp_log_level", "LOUD"}))
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.Code)
	assert.Contains(t, err.Error(), "want ERROR, WARN, INFO or DEBUG")
}

// TestUnknownWorkerFlag: a flag in the worker's rp_ namespace that it does
// not know (a misspelling) stops the worker with exit code 2 naming it,
// instead of silently running test mode; other flags stay the app's.
func TestUnknownWorkerFlag(t *testing.T) {
	for _, tc := range []struct{ arg, named string }{
		{"--rp_serve_apii", "--rp_serve_apii"},
		{"-rp-serve-apii", "-rp-serve-apii"},
		{"--rp_api_prot=8000", "--rp_api_prot"},
		{"--rp_anything", "--rp_anything"},
	} {
		_, err := parseFlags([]string{tc.arg})
		require.Error(t, err, tc.arg)
		assert.Contains(t, err.Error(), "unknown worker flag "+tc.named)
		err = Run(t.Context(), func(_ context.Context, j *Job) (any, error) { return "ran", nil },
			WithArgs([]string{tc.arg, "--test_input", `{"input":1}`}), WithOutput(io.Discard), WithEnv(func(string) string { return "" }))
		var ee *ExitError
		require.ErrorAs(t, err, &ee, tc.arg)
		assert.Equal(t, 2, ee.Code)
		assert.Contains(t, err.Error(), tc.named)
	}
	for _, arg := range []string{"--rpc", "--rpx_serve", "-r", "--model", "--rp"} {
		f, err := parseFlags([]string{arg})
		require.NoError(t, err, arg)
		assert.Equal(t, []string{arg}, f.rest)
	}
}

// TestBannerGoesToTheWriter: the banner a process run by Start prints goes
// through WithOutput, like every other line the worker writes.
func TestBannerGoesToTheWriter(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), echo, make(chan os.Signal), []Option{WithArgs([]string{"--test_input", `{"input":{"prompt":"hi"}}`}),
		WithOutput(&out), WithEnv(func(string) string { return "" }), WithWorkDir(t.TempDir())})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out.String(), "--- Starting Serverless Worker"), out.String())
}
