package pods_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/oapi-codegen/nullable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

// TestUpdateRegistryNull: UpdatePodRequest.Registry says all three things
// a PATCH can (item 10): unset leaves the field out, a value sends it, and
// null (the document's ["string","null"]) removes the credentials.
func TestUpdateRegistryNull(t *testing.T) {
	bodies := make(chan map[string]json.RawMessage, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodPatch, r.Method)
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		var m map[string]json.RawMessage
		assert.NoError(t, json.Unmarshal(b, &m), string(b))
		bodies <- m
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"p1","name":"box","registry":null}`)
	}))
	defer srv.Close()
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()

	for _, c := range []struct {
		name     string
		registry nullable.Nullable[string]
		wire     string // "" when the field is left out
	}{
		{"unset", nil, ""},
		{"value", nullable.NewNullableWithValue("reg-1"), `"reg-1"`},
		{"null", nullable.NewNullNullable[string](), `null`},
	} {
		_, err := rp.Pods.Update(t.Context(), "p1", pods.UpdatePodRequest{Name: runpod.Ptr("box"), Registry: c.registry})
		require.NoError(t, err, c.name)
		m := <-bodies
		got, ok := m["registry"]
		if c.wire == "" {
			require.False(t, ok, "%s: registry sent as %s", c.name, got)
			continue
		}
		require.True(t, ok, c.name)
		require.JSONEq(t, c.wire, string(got), c.name)
	}
}

// TestFakeClearsRegistry: on the fake, a registry set at create is kept
// by a PATCH that does not name it and removed by one that sends null.
func TestFakeClearsRegistry(t *testing.T) {
	_, rp, _ := fake(t)
	ctx := t.Context()
	p, err := rp.Pods.Create(ctx, pods.CreatePodRequest{Name: "private", Image: runpod.Ptr("ghcr.io/me/img:1"), Registry: runpod.Ptr("reg-1"),
		GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}})
	require.NoError(t, err)
	require.NotNil(t, p.Registry)
	p, err = rp.Pods.Update(ctx, p.ID, pods.UpdatePodRequest{Name: runpod.Ptr("renamed")})
	require.NoError(t, err)
	require.NotNil(t, p.Registry, "not named: kept")
	assert.Equal(t, "reg-1", *p.Registry)
	p, err = rp.Pods.Update(ctx, p.ID, pods.UpdatePodRequest{Registry: nullable.NewNullNullable[string]()})
	require.NoError(t, err)
	assert.Nil(t, p.Registry, "null removes it")
}
