package worker

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type echoInput struct {
	Prompt string `json:"prompt" required:"true"`
	Times  int    `json:"times"`
}

func (e *echoInput) Validate() error {
	if e.Times < 0 {
		return errors.New("times must not be negative")
	}
	return nil
}

var echo = Typed(func(ctx context.Context, in echoInput, job *Job) (map[string]any, error) {
	if in.Prompt == "fail" {
		return nil, errors.New("asked to fail")
	}
	return map[string]any{"echo": in.Prompt, "times": in.Times}, nil
})

// local runs Run in test mode with no environment, capturing the output.
func local(t *testing.T, h Handler, args []string, dir string) (string, error) {
	var out bytes.Buffer
	if dir == "" {
		dir = t.TempDir()
	}
	err := Run(t.Context(), h, WithArgs(args), WithOutput(&out), WithWorkDir(dir), WithEnv(func(string) string { return "" }))
	return out.String(), err
}

func exitCodeOf(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestTestInputFlag(t *testing.T) {
	out, err := local(t, echo, []string{"--test_input", `{"input":{"prompt":"hi","times":2}}`}, "")
	require.NoError(t, err)
	assert.Contains(t, out, "INFO   | local_test | Job local_test completed successfully.\n")
	assert.Contains(t, out, `Job result: {"output":{"echo":"hi","times":2}}`)
	assert.Contains(t, out, "INFO   | Local testing complete, exiting.\n")
}

func TestTestInputFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_input.json"), []byte(`{"id":"from-file","input":{"prompt":"file"}}`), 0o600))
	out, err := local(t, echo, nil, dir)
	require.NoError(t, err)
	assert.Contains(t, out, `Job from-file completed successfully.`)
	assert.Contains(t, out, `"echo":"file"`)

	out, err = local(t, echo, []string{"--test_input", `{"input":{"prompt":"flag"}}`}, dir)
	require.NoError(t, err)
	assert.Contains(t, out, `"echo":"flag"`, "the flag wins over the file")
	assert.NotContains(t, out, `"echo":"file"`)
}

func TestTestInputFailures(t *testing.T) {
	out, err := local(t, echo, nil, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, "WARN   | test_input.json not found, exiting.")
	assert.Contains(t, err.Error(), "--test_input")

	out, err = local(t, echo, []string{"--test_input", `{"prompt":"no input key"}`}, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, "Job has no input parameter. Unable to run.")

	_, err = local(t, echo, []string{"--test_input", `{not json`}, "")
	assert.Equal(t, 1, exitCodeOf(err))

	out, err = local(t, echo, []string{"--test_input", `{"input":{"prompt":"fail"}}`}, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, "Job local_test failed with error:")
	assert.Contains(t, out, "asked to fail")

	out, err = local(t, echo, []string{"--test_input", `{"input":{"times":-1,"extra":1}}`}, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, "extra is not a valid input option")
	assert.Contains(t, out, "prompt is a required input")

	out, err = local(t, func(context.Context, *Job) (any, error) { panic("boom") }, []string{"--test_input", `{"input":1}`}, "")
	assert.Equal(t, 1, exitCodeOf(err))
	assert.Contains(t, out, "handler panicked: boom")
}

// TestStreamingHandlerRunsInTestMode: unlike the Python runtime, a
// streaming handler runs fully here.
func TestStreamingHandlerRunsInTestMode(t *testing.T) {
	h := func(ctx context.Context, job *Job) (any, error) {
		for _, w := range []string{"a", "b", "c"} {
			if err := job.Stream(w); err != nil {
				return nil, err
			}
		}
		_ = job.Progress(map[string]int{"percent": 100})
		return nil, nil
	}
	out, err := local(t, h, []string{"--test_input", `{"input":{}}`}, "")
	require.NoError(t, err)
	assert.Contains(t, out, `Stream chunk: "a"`)
	assert.Contains(t, out, `Stream chunk: "c"`)
	assert.Contains(t, out, `Progress: {"percent":100}`)
	assert.Contains(t, out, `Job result: {"output":["a","b","c"]}`)
}

func TestJSONLogLines(t *testing.T) {
	var out bytes.Buffer
	env := func(k string) string {
		if k == "RUNPOD_ENDPOINT_ID" {
			return "ep1"
		}
		return ""
	}
	require.NoError(t, Run(t.Context(), echo, WithArgs([]string{"--test_input", `{"id":"j1","input":{"prompt":"x"}}`}), WithOutput(&out), WithEnv(env)))
	assert.Contains(t, out.String(), `{"requestId":"j1","message":"Job j1 completed successfully.","level":"INFO"}`)
	assert.Contains(t, out.String(), `{"requestId":null,"message":"Local testing complete, exiting.","level":"INFO"}`)
}

func TestLogTruncation(t *testing.T) {
	var out bytes.Buffer
	l := newLogger(&out, levelDebug, false)
	long := string(bytes.Repeat([]byte("x"), 5000)) + "END"
	l.info("", long)
	assert.Contains(t, out.String(), "...TRUNCATED 907 CHARACTERS...")
	assert.Contains(t, out.String(), "xEND\n")
	out.Reset()
	newLogger(&out, levelWarn, false).info("", "hidden")
	assert.Empty(t, out.String())
}
