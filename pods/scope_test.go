package pods_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/apispec/scope"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestForbiddenNamesTheScope: a key without the permission an operation
// needs is answered 403 by the fake. Where the document names the
// operation's scope (here a table set for the test, as the document
// names none for the pod operations yet), the fake asks for that scope
// and the SDK's error names it, for a route template and for a raw path
// alike; where it names none, the error names none. (Not parallel: the
// table is the process's.)
func TestForbiddenNamesTheScope(t *testing.T) {
	srv, _, _ := fake(t)
	ctx := t.Context()
	reader, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionPodsRead)))
	require.NoError(t, err)
	t.Cleanup(reader.CloseIdleConnections)

	_, err = reader.Pods.Create(ctx, newPod())
	var ae *errs.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusForbidden, ae.StatusCode)
	assert.Empty(t, ae.RequiredScope, "the document names no scope for createPod")
	assert.NotContains(t, ae.Error(), "scope")

	defer scope.Set(map[string]string{"POST /v2/pods": "pods:write", "GET /v2/pods/{}": "pods:inspect"})()
	_, err = reader.Pods.Create(ctx, newPod())
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusForbidden, ae.StatusCode)
	assert.Equal(t, "pods:write", ae.RequiredScope)
	assert.Contains(t, ae.Error(), "needs an API key with scope pods:write")

	_, err = reader.Pods.List(ctx, pods.ListPodsParams{})
	require.NoError(t, err, "a route the table does not name keeps its permission")
	_, err = reader.Pods.Get(ctx, "pod1")
	require.ErrorAs(t, err, &ae, "the fake asks for the document's scope, which the key lacks")
	assert.Equal(t, http.StatusForbidden, ae.StatusCode)
	assert.Equal(t, "pods:inspect", ae.RequiredScope)
	err = reader.Do(ctx, http.MethodGet, "/v2/pods/pod1", nil, nil)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "pods:inspect", ae.RequiredScope, "found by the path of a raw call too")

	inspector, err := srv.NewClient(option.WithAPIKey(srv.NewKey("pods:inspect")))
	require.NoError(t, err)
	t.Cleanup(inspector.CloseIdleConnections)
	_, err = inspector.Pods.Get(ctx, "pod1")
	require.ErrorIs(t, err, errs.ErrNotFound, "a key with the scope passes")
}
