package templates_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/oapi-codegen/nullable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
)

// TestEveryOperationKeepsTheDocument sends every REST v2 templates
// operation (listTemplates, createTemplate, getTemplate, updateTemplate,
// deleteTemplate) through the fake, which checks each request and each
// response against the published REST v2 document, with every field of
// the requests set: none may be refused, and none may be a 500 (a
// response of the fake that breaks the document).
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()

	full := templates.CreateTemplateRequest{
		Name: "full", Image: "runpod/pytorch:2.4.0", Args: runpod.Ptr("--port 8888"), Disk: runpod.Ptr(30),
		Ports: []string{"8888/http", "22/tcp", "70000/tcp"}, Env: map[string]string{"A": "1"}, Registry: runpod.Ptr("reg_1"),
		Category: runpod.Ptr(templates.TemplateCategoryAMD), Public: runpod.Ptr(false), Serverless: runpod.Ptr(false),
		StartSSH: runpod.Ptr(false), StartJupyter: runpod.Ptr(false), AllowedCUDAVersions: []string{"12.4", "12.8"},
		Mounts: &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 20, Path: "/workspace"}},
	}
	a, err := rp.Templates.Create(ctx, full)
	require.NoError(t, err)
	assert.Equal(t, "reg_1", *a.Registry)
	assert.Equal(t, templates.TemplateCategoryAMD, a.Category)
	b, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "worker", Image: "runpod/worker:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	assert.True(t, b.Serverless)

	_, err = rp.Templates.List(ctx)
	require.NoError(t, err)
	_, err = rp.Templates.Get(ctx, a.ID)
	require.NoError(t, err)
	a, err = rp.Templates.Update(ctx, a.ID, templates.UpdateTemplateRequest{
		Name: runpod.Ptr("full-2"), Image: runpod.Ptr("runpod/pytorch:2.5.0"), Args: runpod.Ptr(""), Disk: runpod.Ptr(31),
		Ports: []string{"8888/http"}, Env: map[string]string{"B": "2"}, Registry: nullable.NewNullableWithValue("reg_2"),
		Category: runpod.Ptr(templates.TemplateCategoryCPU), Public: runpod.Ptr(true), Serverless: runpod.Ptr(true),
		StartSSH: runpod.Ptr(true), StartJupyter: runpod.Ptr(true), AllowedCUDAVersions: []string{},
		Mounts: &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 40, Path: "/data"}},
	})
	require.NoError(t, err)
	assert.Equal(t, "reg_2", *a.Registry)
	assert.True(t, a.Public)
	require.NoError(t, rp.Templates.Delete(ctx, a.ID))
	require.NoError(t, rp.Templates.Delete(ctx, b.ID))
	_, err = rp.Templates.Get(ctx, a.ID)
	require.ErrorIs(t, err, errs.ErrNotFound, "a 404 keeps the document too")

	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		seen[r.Route] = true
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
		if r.Route != runpodtest.RouteTemplate || r.Status != http.StatusNotFound {
			assert.Less(t, r.Status, 300, "%s %s %s", r.Method, r.Path, r.Body)
		}
	}
	for _, route := range []string{runpodtest.RouteTemplates, runpodtest.RouteCreateTemplate, runpodtest.RouteTemplate,
		runpodtest.RouteUpdateTemplate, runpodtest.RouteDeleteTemplate} {
		assert.True(t, seen[route], "%s was sent", route)
	}
}

// TestFakeRefusesWhatTheDocumentRefuses: requests the SDK's types or
// checks do not let through, sent raw with rp.Do, are refused by the fake
// as the platform refuses them, with the field named: the document's
// schema (422) and the port rule the platform applies itself (400).
// Nothing is created or changed.
func TestFakeRefusesWhatTheDocumentRefuses(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	id := srv.StoreTemplate(runpodtest.Template{Name: "base", Image: "ubuntu:24.04"})

	cases := []struct {
		name, method, path string
		body               string
		status             int
		field              string
	}{
		{"no name", "POST", "/v2/templates", `{"image":"x"}`, 422, "name"},
		{"no image", "POST", "/v2/templates", `{"name":"t"}`, 422, "image"},
		{"an empty name", "POST", "/v2/templates", `{"name":"","image":"x"}`, 422, "$.name"},
		{"an unknown property", "POST", "/v2/templates", `{"name":"t","image":"x","bogus":1}`, 422, "$.bogus"},
		{"a network volume", "POST", "/v2/templates", `{"name":"t","image":"x","mounts":{"network":[{"volumeId":"v","path":"/v"}]}}`, 422, "network"},
		{"an unknown category", "POST", "/v2/templates", `{"name":"t","image":"x","category":"TPU"}`, 422, "$.category"},
		{"disk 0", "POST", "/v2/templates", `{"name":"t","image":"x","disk":0}`, 422, "$.disk"},
		{"a small volume", "POST", "/v2/templates", `{"name":"t","image":"x","mounts":{"persistent":{"size":5,"path":"/w"}}}`, 422, "$.mounts.persistent.size"},
		{"a CUDA version that is not major.minor", "POST", "/v2/templates", `{"name":"t","image":"x","allowedCudaVersions":["12"]}`, 422, "$.allowedCudaVersions"},
		{"env values that are not strings", "POST", "/v2/templates", `{"name":"t","image":"x","env":{"A":1}}`, 422, "$.env.A"},
		{"a UDP port", "POST", "/v2/templates", `{"name":"t","image":"x","ports":["22/tcp","53/udp"]}`, 400, "$.ports[1]"},
		{"an empty name on update", "PATCH", "/v2/templates/" + id, `{"name":""}`, 422, "$.name"},
		{"an unknown property on update", "PATCH", "/v2/templates/" + id, `{"id":"other"}`, 422, "$.id"},
		{"a port out of range on update", "PATCH", "/v2/templates/" + id, `{"ports":["0/tcp"]}`, 400, "$.ports[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := rp.Do(ctx, tc.method, tc.path, json.RawMessage(tc.body), nil)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			require.NotEmpty(t, apiErr.Errors, apiErr.Detail)
			assert.True(t, slices.ContainsFunc(apiErr.Errors, func(e string) bool { return strings.Contains(e, tc.field) }),
				"%q names %s", apiErr.Errors, tc.field)
		})
	}
	got := srv.Templates()
	require.Len(t, got, 1, "nothing was created")
	assert.Equal(t, "base", got[0].Name, "nothing was changed")
}

// TestRegistryClearedWithNull: the document's registry is a string or
// null; a PATCH with null removes the credential (sent raw: the SDK's
// Registry cannot say null).
func TestRegistryClearedWithNull(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	id := srv.StoreTemplate(runpodtest.Template{Name: "private", Image: "ghcr.io/me/app:1", Registry: "reg_1"})
	var got templates.Template
	require.NoError(t, rp.Do(t.Context(), "PATCH", "/v2/templates/"+id, json.RawMessage(`{"registry":null}`), &got))
	assert.Nil(t, got.Registry)
	assert.Empty(t, srv.Templates()[0].Registry)
}

// TestOneStoreOfTemplates: the templates GraphQL endpoint creation checks
// are the ones REST /v2/templates serves. A serverless template created
// through REST backs an endpoint as one registered with AddTemplate does;
// AddTemplate's are listed by REST; a pod template backs no endpoint.
func TestOneStoreOfTemplates(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()

	srv.AddTemplate("tmpl-added")
	added, err := rp.Templates.Get(ctx, "tmpl-added")
	require.NoError(t, err)
	assert.True(t, added.Serverless)
	assert.Equal(t, "tmpl-added", added.Name)
	assert.NotEmpty(t, added.Image)

	worker, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "worker", Image: "runpod/worker:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	podTmpl, err := rp.Templates.Create(ctx, newTemplate())
	require.NoError(t, err)

	list, err := rp.Templates.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 3)

	params := endpointOn(worker.ID)
	params.Name = "from-rest"
	_, err = rp.Serverless.Endpoints.Create(ctx, params)
	require.NoError(t, err, "a serverless template created through REST")
	assert.Equal(t, worker.ID, srv.Endpoints()[0].TemplateID)
	params.Name, params.TemplateID = "from-add", runpod.Ptr("tmpl-added")
	_, err = rp.Serverless.Endpoints.Create(ctx, params)
	require.NoError(t, err, "a template from AddTemplate")

	params.Name, params.TemplateID = "from-pod-template", &podTmpl.ID
	_, err = rp.Serverless.Endpoints.Create(ctx, params)
	require.Error(t, err, "a pod template backs no endpoint")
	assert.Contains(t, err.Error(), "not a serverless template")
	params.TemplateID = runpod.Ptr("nosuch")
	_, err = rp.Serverless.Endpoints.Create(ctx, params)
	require.ErrorContains(t, err, "template not found")
	assert.Len(t, srv.Endpoints(), 2)

	// A template deleted through REST backs no new endpoint.
	spare, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "spare", Image: "runpod/worker:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	require.NoError(t, rp.Templates.Delete(ctx, spare.ID))
	params.TemplateID = &spare.ID
	_, err = rp.Serverless.Endpoints.Create(ctx, params)
	require.ErrorContains(t, err, "template not found")
}

// endpointOn is a queue endpoint running template id.
func endpointOn(id string) serverless.CreateEndpointRequest {
	return serverless.CreateEndpointRequest{Name: "uses-it", Type: serverless.EndpointTypeQueue, TemplateID: &id,
		GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}}, Scaling: serverless.ScaleByQueueDelay(4)}
}

// TestDeleteInUse: the document refuses (400) to delete a template a
// serverless endpoint or a pod uses; once they are gone, it is deleted.
// An endpoint moved to another template frees the first.
func TestDeleteInUse(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	worker, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "worker", Image: "runpod/worker:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	ep, err := rp.Serverless.Endpoints.Create(ctx, endpointOn(worker.ID))
	require.NoError(t, err)

	err = rp.Templates.Delete(ctx, worker.ID)
	require.ErrorIs(t, err, templates.ErrInUse)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Contains(t, apiErr.Detail, "serverless endpoint")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteDeleteTemplate), "a 400 is not retried")

	// Moved to another template, the endpoint no longer holds the first.
	other, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "other", Image: "runpod/worker:2", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.Update(ctx, ep.ID, serverless.UpdateEndpointRequest{TemplateID: &other.ID})
	require.NoError(t, err)
	require.NoError(t, rp.Templates.Delete(ctx, worker.ID))
	require.ErrorIs(t, rp.Templates.Delete(ctx, other.ID), templates.ErrInUse)
	_, err = rp.Serverless.Endpoints.ScaleToZero(ctx, ep.ID)
	require.NoError(t, err)
	require.NoError(t, rp.Serverless.Endpoints.Delete(ctx, ep.ID))
	require.NoError(t, rp.Templates.Delete(ctx, other.ID), "the endpoint is gone")

	// A fixture endpoint holds its template too.
	srv.AddEndpoint(runpodtest.Endpoint{Name: "fixture", TemplateID: "tmpl-fixture", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	require.ErrorIs(t, rp.Templates.Delete(ctx, "tmpl-fixture"), templates.ErrInUse)

	// A pod whose template field names it.
	podTmpl, err := rp.Templates.Create(ctx, newTemplate())
	require.NoError(t, err)
	p, err := rp.Pods.Create(ctx, pods.CreatePodRequest{Name: "from-template", TemplateID: &podTmpl.ID, GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}})
	require.NoError(t, err)
	if p.Template == nil || *p.Template != podTmpl.ID {
		t.Skip("the pods fake does not record a pod's template")
	}
	err = rp.Templates.Delete(ctx, podTmpl.ID)
	require.ErrorIs(t, err, templates.ErrInUse)
	require.ErrorAs(t, err, &apiErr)
	assert.Contains(t, apiErr.Detail, "pod")
	require.NoError(t, rp.Pods.Delete(ctx, p.ID))
	require.NoError(t, rp.Templates.Delete(ctx, podTmpl.ID), "the pod is gone")
}
