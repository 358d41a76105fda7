package secret_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/secret"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const value = "hf_SECRET<&>\"value"

// shown is every way an Env reaches a person or a file, at the top and
// nested (exported and unexported struct fields, slices, maps, []any).
func shown(t *testing.T, e secret.Env) []string {
	t.Helper()
	type inner struct {
		E secret.Env
		e secret.Env
	}
	vals := []any{e, &e, inner{E: e, e: e}, []any{e}, map[string]secret.Env{"k": e}, []inner{{E: e, e: e}}}
	var out []string
	for _, v := range vals {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			out = append(out, fmt.Sprintf(verb, v))
		}
		j, err := json.Marshal(v)
		require.NoError(t, err)
		out = append(out, string(j))
		var b bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&b, nil), slog.NewJSONHandler(&b, nil)} {
			slog.New(h).Info("x", "v", v)
		}
		out = append(out, b.String())
	}
	return out
}

// TestEnvNeverShowsValues: fmt, slog and encoding/json show the names
// only; Value and Reveal read the values (issue 26, item 3).
func TestEnvNeverShowsValues(t *testing.T) {
	var e secret.Env
	require.NoError(t, json.Unmarshal([]byte(`{"HF_TOKEN":"hf_SECRET\u003c\u0026\u003e\"value","MODE":"a"}`), &e))
	for _, s := range shown(t, e) {
		assert.NotContains(t, s, "SECRET")
	}
	assert.Equal(t, `{"HF_TOKEN":[REDACTED] "MODE":[REDACTED]}`, e.String())
	j, _ := json.Marshal(e)
	assert.JSONEq(t, `{"HF_TOKEN":"[REDACTED]","MODE":"[REDACTED]"}`, string(j))
	v, ok := e.Value("HF_TOKEN")
	assert.True(t, ok)
	assert.Equal(t, value, v)
	assert.Equal(t, map[string]string{"HF_TOKEN": value, "MODE": "a"}, e.Reveal())
	assert.Equal(t, []string{"HF_TOKEN", "MODE"}, e.Names())
	assert.True(t, e.Has("MODE"))
	assert.Equal(t, 2, e.Len())
	e.Reveal()["MODE"] = "changed"
	v, _ = e.Value("MODE")
	assert.Equal(t, "a", v, "Reveal returns a copy")

	var zero secret.Env
	require.NoError(t, json.Unmarshal([]byte(`null`), &zero))
	assert.True(t, zero.IsZero())
	assert.Nil(t, zero.Reveal())
	j, _ = json.Marshal(struct {
		E secret.Env `json:"env,omitzero"`
	}{})
	assert.Equal(t, `{}`, string(j))
	assert.False(t, secret.NewEnv(map[string]string{}).IsZero(), "an empty set is not zero")
	assert.Error(t, json.Unmarshal([]byte(`{"A":1}`), &zero))
}

// FuzzEnvUnmarshal: whatever the platform sends as env, decoding it
// either fails or gives an Env whose values no printed or encoded form
// shows.
func FuzzEnvUnmarshal(f *testing.F) {
	f.Add([]byte(`{"A":"SECRETxyz"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"":"SECRET\u0000"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e secret.Env
		if json.Unmarshal(b, &e) != nil {
			return
		}
		for _, name := range e.Names() {
			v, ok := e.Value(name)
			require.True(t, ok)
			if len(v) < 8 || strings.Contains(secret.Redacted, v) || strings.Contains(e.String(), v) {
				continue // too short to tell apart, or part of a name or the marker
			}
			j, err := json.Marshal(e)
			require.NoError(t, err)
			require.NotContains(t, string(j), v)
			require.NotContains(t, fmt.Sprintf("%#v", e), v)
		}
	})
}
