package worker

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	c := newConfig([]Option{WithEnv(func(k string) string {
		return map[string]string{"RUNPOD_POD_ID": "pod9", "RUNPOD_POD_HOSTNAME": "host9"}[k]
	})})
	norm := func(out any, err error) result { return normalize(out, err, &Job{ID: "j"}, c, false, 0) }

	assert.Equal(t, `{"a":1}`, string(norm(map[string]int{"a": 1}, nil).Output))
	assert.Equal(t, `"text"`, string(norm("text", nil).Output))
	assert.Equal(t, `null`, string(norm(nil, nil).Output))
	r := norm(map[string]any{"error": "bad prompt", "partial": 1}, nil)
	assert.Equal(t, "bad prompt", r.Error)
	assert.Equal(t, `{"partial":1}`, string(r.Output))
	r = norm(map[string]any{"error": "", "refresh_worker": true}, nil)
	assert.Empty(t, r.Error)
	assert.True(t, r.StopPod)
	assert.Nil(t, r.Output, "an object left empty is no output")
	r = norm(map[string]any{"error": map[string]int{"code": 7}}, nil)
	assert.Equal(t, `{"code":7}`, r.Error, "a non-string error is kept as its JSON")

	r = norm(nil, errors.New("kaput"))
	var fields map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Error), &fields), "the error is a string holding JSON")
	assert.Equal(t, "kaput", fields["error_message"])
	assert.Equal(t, "pod9", fields["worker_id"])
	assert.Equal(t, "host9", fields["hostname"])
	assert.Contains(t, fields["runpod_version"], "runpod-go/")

	r = norm(func() {}, nil)
	assert.Contains(t, r.Error, "not JSON")

	job := &Job{ID: "j"}
	job.RefreshWorker()
	assert.True(t, normalize("x", nil, job, c, false, 0).StopPod)
	assert.True(t, normalize("x", nil, &Job{}, newConfig([]Option{WithRefreshWorker()}), false, 0).StopPod)
	dbg := normalize(map[string]int{"a": 1}, nil, &Job{}, c, true, 0)
	assert.Contains(t, string(dbg.Output), `"rp_debugger":{"handler_ms":0`)
}

func TestValidateInput(t *testing.T) {
	var in echoInput
	require.NoError(t, ValidateInput(json.RawMessage(`{"prompt":"p"}`), &in))
	assert.Equal(t, "p", in.Prompt)
	defaults := echoInput{Times: 3}
	require.NoError(t, ValidateInput(json.RawMessage(`{"prompt":"p"}`), &defaults))
	assert.Equal(t, 3, defaults.Times, "values already set are defaults")

	err := ValidateInput(json.RawMessage(`{"times":"many","bogus":true}`), &echoInput{})
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{"bogus is not a valid input option", "prompt is a required input"}, ie.Errors)
	err = ValidateInput(json.RawMessage(`{"prompt":"p","times":"many"}`), &echoInput{})
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{"times should be int, not string"}, ie.Errors)
	err = ValidateInput(json.RawMessage(`{"prompt":"p","times":-1}`), &echoInput{})
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{"times must not be negative"}, ie.Errors)
	require.Error(t, ValidateInput(json.RawMessage(`[1]`), &echoInput{}))
	require.Error(t, ValidateInput(nil, &echoInput{}))
	require.Error(t, ValidateInput(json.RawMessage(`{}`), echoInput{}))
}
