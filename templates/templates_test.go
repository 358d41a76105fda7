package templates_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/templates"
)

func fake(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

func newTemplate() templates.CreateTemplateRequest {
	return templates.CreateTemplateRequest{
		Name:  "pytorch",
		Image: "runpod/pytorch:2.4.0",
		Disk:  runpod.Ptr(50),
		Ports: []string{"8888/http", "22/tcp"},
		Env:   map[string]string{"JUPYTER_ENABLE_LAB": "yes"},
	}
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

// TestWireFormats: what each method sends and what it reads back, the
// document's create defaults, and PATCH semantics: a field set is
// replaced, even with an empty value; a nil one stays.
func TestWireFormats(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()

	tmpl, err := rp.Templates.Create(ctx, newTemplate())
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteCreateTemplate, r.Route)
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.JSONEq(t, `{"name":"pytorch","image":"runpod/pytorch:2.4.0","disk":50,"ports":["8888/http","22/tcp"],
		"env":{"JUPYTER_ENABLE_LAB":"yes"}}`, string(r.Body))
	assert.NotEmpty(t, tmpl.ID)
	assert.Equal(t, "pytorch", tmpl.Name)
	assert.Equal(t, templates.TemplateCategoryNVIDIA, tmpl.Category, "the document's default")
	assert.True(t, tmpl.StartSSH, "the document's default")
	assert.True(t, tmpl.StartJupyter, "the document's default")
	assert.False(t, tmpl.Serverless)
	assert.False(t, tmpl.Public)
	assert.Nil(t, tmpl.Registry)
	assert.Empty(t, tmpl.AllowedCUDAVersions)
	assert.Equal(t, map[string]string{"JUPYTER_ENABLE_LAB": "yes"}, tmpl.Env.Reveal(), "the platform returns env as given")

	got, err := rp.Templates.Get(ctx, tmpl.ID)
	require.NoError(t, err)
	assert.Equal(t, tmpl, got)
	assert.Equal(t, "/v2/templates/"+tmpl.ID, last(srv).Path)

	list, err := rp.Templates.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, *tmpl, list[0])
	assert.Empty(t, last(srv).RawQuery)

	tmpl, err = rp.Templates.Update(ctx, tmpl.ID, templates.UpdateTemplateRequest{
		Name: runpod.Ptr("renamed"), StartSSH: runpod.Ptr(false), Env: map[string]string{"A": "1"},
		AllowedCUDAVersions: []string{"12.4"}, Mounts: &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 20, Path: "/workspace"}},
	})
	require.NoError(t, err)
	r = last(srv)
	assert.Equal(t, http.MethodPatch, r.Method)
	assert.JSONEq(t, `{"name":"renamed","startSsh":false,"env":{"A":"1"},"allowedCudaVersions":["12.4"],
		"mounts":{"persistent":{"size":20,"path":"/workspace"}}}`, string(r.Body), "an explicit false is sent")
	assert.Equal(t, "renamed", tmpl.Name)
	assert.False(t, tmpl.StartSSH)
	assert.Equal(t, map[string]string{"A": "1"}, tmpl.Env.Reveal(), "env is replaced whole")
	assert.Equal(t, []string{"8888/http", "22/tcp"}, tmpl.Ports, "what the request leaves nil stays")
	assert.Equal(t, []string{"12.4"}, tmpl.AllowedCUDAVersions)
	assert.Equal(t, &templates.PersistentMount{Size: 20, Path: "/workspace"}, tmpl.Mounts.Persistent)

	tmpl, err = rp.Templates.Update(ctx, tmpl.ID, templates.UpdateTemplateRequest{
		Env: map[string]string{}, Ports: []string{}, AllowedCUDAVersions: []string{}, Mounts: &templates.TemplateMounts{},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"env":{},"ports":[],"allowedCudaVersions":[],"mounts":{}}`, string(last(srv).Body),
		"non-nil empty values are sent, to clear")
	assert.Zero(t, tmpl.Env.Len())
	assert.Empty(t, tmpl.Ports)
	assert.Empty(t, tmpl.AllowedCUDAVersions)
	assert.Equal(t, &templates.PersistentMount{Size: 20, Path: "/workspace"}, tmpl.Mounts.Persistent, "mounts {} leaves the volume")

	require.NoError(t, rp.Templates.Delete(ctx, tmpl.ID))
	r = last(srv)
	assert.Equal(t, http.MethodDelete, r.Method)
	assert.Equal(t, http.StatusNoContent, r.Status)
	_, err = rp.Templates.Get(ctx, tmpl.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	assert.Empty(t, srv.Templates())
}

// TestPlatformErrors: an unknown id is a 404 problem for Get, Update and
// Delete, matched by errs.ErrNotFound and carried by a
// *errs.APIError.
func TestPlatformErrors(t *testing.T) {
	_, rp := fake(t)
	ctx := t.Context()
	_, errGet := rp.Templates.Get(ctx, "nosuch")
	_, errUpdate := rp.Templates.Update(ctx, "nosuch", templates.UpdateTemplateRequest{Name: runpod.Ptr("x")})
	errDelete := rp.Templates.Delete(ctx, "nosuch")
	for _, err := range []error{errGet, errUpdate, errDelete} {
		require.ErrorIs(t, err, errs.ErrNotFound)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
		assert.Equal(t, "template not found", apiErr.Detail)
		assert.NotErrorIs(t, err, templates.ErrInUse)
	}
}

// TestValidation: requests the document's constraints refuse are refused
// before sending, with a *errs.ValidationError naming the field;
// nothing reaches the fake.
func TestValidation(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	cases := []struct {
		field string
		edit  func(*templates.CreateTemplateRequest)
	}{
		{"CreateTemplateRequest.Name", func(r *templates.CreateTemplateRequest) { r.Name = "" }},
		{"CreateTemplateRequest.Image", func(r *templates.CreateTemplateRequest) { r.Image = "" }},
		{"CreateTemplateRequest.Image", func(r *templates.CreateTemplateRequest) { r.Image = "  " }},
		{"CreateTemplateRequest.Disk", func(r *templates.CreateTemplateRequest) { r.Disk = runpod.Ptr(0) }},
		{"CreateTemplateRequest.Ports[1]", func(r *templates.CreateTemplateRequest) { r.Ports = []string{"8888/http", "53/udp"} }},
		{"CreateTemplateRequest.Ports[0]", func(r *templates.CreateTemplateRequest) { r.Ports = []string{"65536/tcp"} }},
		{"CreateTemplateRequest.Ports[0]", func(r *templates.CreateTemplateRequest) { r.Ports = []string{"70000/http"} }},
		{"CreateTemplateRequest.Category", func(r *templates.CreateTemplateRequest) { r.Category = runpod.Ptr[templates.TemplateCategory]("TPU") }},
		{"CreateTemplateRequest.AllowedCUDAVersions[1]", func(r *templates.CreateTemplateRequest) { r.AllowedCUDAVersions = []string{"12.4", "12"} }},
		{"CreateTemplateRequest.Mounts.Persistent.Size", func(r *templates.CreateTemplateRequest) {
			r.Mounts = &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 5, Path: "/workspace"}}
		}},
		{"CreateTemplateRequest.Mounts.Persistent.Path", func(r *templates.CreateTemplateRequest) {
			r.Mounts = &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 20, Path: "workspace"}}
		}},
	}
	for _, c := range cases {
		req := newTemplate()
		c.edit(&req)
		_, err := rp.Templates.Create(ctx, req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.field)
		assert.Equal(t, c.field, ve.Field)
	}
	ok := newTemplate()
	ok.Ports = append(ok.Ports, "70000/tcp")
	ok.Category = runpod.Ptr(templates.TemplateCategoryAMD)
	require.NoError(t, ok.Validate(), "a symmetric port and a known category")

	for field, req := range map[string]templates.UpdateTemplateRequest{
		"UpdateTemplateRequest.Name":                   {Name: runpod.Ptr("")},
		"UpdateTemplateRequest.Image":                  {Image: runpod.Ptr("")},
		"UpdateTemplateRequest.Disk":                   {Disk: runpod.Ptr(-1)},
		"UpdateTemplateRequest.Ports[0]":               {Ports: []string{"x/tcp"}},
		"UpdateTemplateRequest.Category":               {Category: runpod.Ptr[templates.TemplateCategory]("nvidia")},
		"UpdateTemplateRequest.AllowedCUDAVersions[0]": {AllowedCUDAVersions: []string{"v12.4"}},
		"UpdateTemplateRequest.Mounts.Persistent.Size": {Mounts: &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 9, Path: "/w"}}},
	} {
		_, err := rp.Templates.Update(ctx, "abc", req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
	}
	for _, id := range []string{"", "../x", "a/b", "a?b", "a b", "a.b"} {
		_, err := rp.Templates.Get(ctx, id)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%q", id)
		assert.Equal(t, "templateID", ve.Field)
		_, err = rp.Templates.Update(ctx, id, templates.UpdateTemplateRequest{})
		require.ErrorIs(t, err, errs.ErrValidation, "%q", id)
		require.ErrorIs(t, rp.Templates.Delete(ctx, id), errs.ErrValidation, "%q", id)
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}

// TestCreateNeverTwice: a create that may have reached the platform is not
// repeated; the fake proves how many templates exist.
func TestCreateNeverTwice(t *testing.T) {
	srv, rp := fake(t)
	srv.FailNext(runpodtest.RouteCreateTemplate, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err := rp.Templates.Create(t.Context(), newTemplate())
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateTemplate), "not retried")
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteCreateTemplate))
	assert.Len(t, srv.Templates(), 1, "the dropped request created one")

	for _, f := range []runpodtest.Fault{{Drop: runpodtest.DropBefore}, {Status: 500}, {Status: 503}} {
		before := srv.Count(runpodtest.RouteCreateTemplate)
		srv.FailNext(runpodtest.RouteCreateTemplate, 1, f)
		_, err := rp.Templates.Create(t.Context(), newTemplate())
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "%+v", f)
		assert.Equal(t, before+1, srv.Count(runpodtest.RouteCreateTemplate))
	}
	srv.FailNext(runpodtest.RouteCreateTemplate, 1, runpodtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"0"}}})
	_, err = rp.Templates.Create(t.Context(), newTemplate())
	require.NoError(t, err, "a 429 is refused before acting: retried")
	assert.Len(t, srv.Templates(), 2)
}

// TestReadsAndUpdatesAreRetried: a read or an update whose answer was
// lost is sent again, and succeeds.
func TestReadsAndUpdatesAreRetried(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	id := srv.StoreTemplate(runpodtest.Template{Name: "base", Image: "ubuntu:24.04"})

	srv.FailNext(runpodtest.RouteTemplates, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	list, err := rp.Templates.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteTemplates))

	srv.FailNext(runpodtest.RouteTemplate, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	got, err := rp.Templates.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "base", got.Name)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteTemplate))

	srv.FailNext(runpodtest.RouteUpdateTemplate, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	got, err = rp.Templates.Update(ctx, id, templates.UpdateTemplateRequest{Disk: runpod.Ptr(40)})
	require.NoError(t, err)
	assert.Equal(t, 40, got.Disk)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteUpdateTemplate))
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteUpdateTemplate), "applied twice, to the same effect")
}

// TestDeleteRetriedIsIdempotent: when the first delete went through but
// its answer was lost, the retry's 404 means success.
func TestDeleteRetriedIsIdempotent(t *testing.T) {
	srv, rp := fake(t)
	tmpl, err := rp.Templates.Create(t.Context(), newTemplate())
	require.NoError(t, err)
	srv.FailNext(runpodtest.RouteDeleteTemplate, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	require.NoError(t, rp.Templates.Delete(t.Context(), tmpl.ID))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteDeleteTemplate))
	assert.Empty(t, srv.Templates())
	err = rp.Templates.Delete(t.Context(), tmpl.ID)
	require.ErrorIs(t, err, errs.ErrNotFound, "a first attempt's 404 is still an error")
}

// TestDeleteFillsTheCallersResponseInfo: Delete watches the response
// itself, and the caller's observers still see it; the caller's options
// slice is never written to.
func TestDeleteFillsTheCallersResponseInfo(t *testing.T) {
	srv, rp := fake(t)
	id := srv.StoreTemplate(runpodtest.Template{Name: "base", Image: "ubuntu:24.04"})
	var a, b option.ResponseInfo
	opts := make([]option.RequestOption, 2, 8)
	opts[0], opts[1] = option.WithResponseInto(&a), option.WithResponseInto(&b)
	require.NoError(t, rp.Templates.Delete(t.Context(), id, opts...))
	for _, info := range []option.ResponseInfo{a, b} {
		assert.Equal(t, 1, info.Attempts)
		assert.Equal(t, http.StatusNoContent, info.StatusCode)
	}
	assert.Nil(t, opts[:3][2], "nothing was appended into the caller's slice")
}

// TestErrInUseIsTheAPIError: the in-use error is the platform's 400 too.
func TestErrInUseIsTheAPIError(t *testing.T) {
	srv, rp := fake(t)
	id := srv.StoreTemplate(runpodtest.Template{Name: "base", Image: "ubuntu:24.04"})
	srv.FailNext(runpodtest.RouteDeleteTemplate, 1, runpodtest.Fault{Status: 400})
	err := rp.Templates.Delete(t.Context(), id)
	require.ErrorIs(t, err, templates.ErrInUse)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.False(t, errors.Is(err, errs.ErrNotFound))
	assert.Len(t, srv.Templates(), 1)
}
