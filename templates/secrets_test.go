package templates_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/secret"
	"github.com/runpodkit/runpod-go/templates"
)

// secretValue is an Env value the tests treat as a secret: registered with
// testkit, so that a log line holding it fails the suite.
const secretValue = "hf_SECRETvalue<&>\"42"

func init() { testkit.RegisterSecret(secretValue) }

// noEnvValue fails t when any of the ways fmt prints v, or log/slog logs
// it, shows secretValue; the variable's name shows.
func noEnvValue(t *testing.T, v any, name string) {
	t.Helper()
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("v", "v", v)
	if _, ok := v.(slog.LogValuer); ok { // a slice is logged as JSON as it is
		slog.New(slog.NewJSONHandler(&logged, nil)).Info("v", "v", v)
	}
	forms := []string{
		fmt.Sprint(v), fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), fmt.Sprintf("%s", v),
		fmt.Sprintf("%q", v), fmt.Sprintf("%x", v), fmt.Sprintf("%10.3v", v), fmt.Sprintln(v), logged.String(),
	}
	for _, f := range forms {
		assert.NotContains(t, f, "SECRETvalue", "%T printed as %s", v, f)
	}
	assert.Contains(t, forms[0], name, "%T", v)
	assert.Contains(t, forms[0], "[REDACTED]", "%T", v)
	testkit.NoSecret(t, v)
}

// TestEnvValuesNeverPrinted: the request types and the template print
// the names of Env with every value replaced, by every fmt verb, through
// pointers and slices, and in log/slog's text and JSON lines; the other
// fields print as they are.
func TestEnvValuesNeverPrinted(t *testing.T) {
	env := map[string]string{"HF_TOKEN": secretValue, "MODE": "yes"}
	create := newTemplate()
	create.Env = env
	create.Registry = runpod.Ptr("reg_1")
	create.Mounts = &templates.TemplateMounts{Persistent: &templates.PersistentMount{Size: 20, Path: "/workspace"}}
	update := templates.UpdateTemplateRequest{Name: runpod.Ptr("renamed"), Env: env}
	tmpl := templates.Template{ID: "tpl1", Name: "t", Image: "img", Env: secret.NewEnv(env), Category: templates.TemplateCategoryCPU}
	for _, v := range []any{
		create, &create, update, &update, tmpl, &tmpl, []templates.Template{tmpl},
	} {
		noEnvValue(t, v, "HF_TOKEN")
	}

	assert.Equal(t, `CreateTemplateRequest{Name:"pytorch" Image:"runpod/pytorch:2.4.0" Disk:50 Ports:["8888/http" "22/tcp"] `+
		`Env:{"HF_TOKEN":[REDACTED] "MODE":[REDACTED]} Registry:"reg_1" Mounts:{Persistent:{Size:20 Path:"/workspace"}}}`, create.String())
	assert.Equal(t, `UpdateTemplateRequest{Name:"renamed" Env:{"HF_TOKEN":[REDACTED] "MODE":[REDACTED]}}`, fmt.Sprintf("%+v", update))
	assert.Equal(t, `Template{ID:"tpl1" Name:"t" Image:"img" Args:"" Disk:0 Env:{"HF_TOKEN":[REDACTED] "MODE":[REDACTED]} `+
		`Category:CPU Mounts:{} Serverless:false Public:false StartSSH:false StartJupyter:false}`, fmt.Sprintf("%#v", tmpl))
	assert.Equal(t, "UpdateTemplateRequest{}", fmt.Sprint(templates.UpdateTemplateRequest{}))
	var nilReq *templates.CreateTemplateRequest
	assert.Equal(t, "<nil>", fmt.Sprint(nilReq))
}

// TestEnvValuesNeverInErrors: a Create or Update whose environment the
// platform echoes in its error answer gets that answer with the values
// replaced, in every field of the *errs.APIError; a template body that
// does not decode is reported without an excerpt of it; and a validation
// error does not quote Env. The SDK's log lines hold no value either
// (testkit.Main scans them).
func TestEnvValuesNeverInErrors(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	req := newTemplate()
	req.Env = map[string]string{"HF_TOKEN": secretValue, "SHORT": "abc"}
	echo := runpodtest.Fault{
		Status: http.StatusBadRequest,
		Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body: `{"title":"Bad Request","status":400,"detail":"env HF_TOKEN=hf_SECRETvalue\u003c\u0026\u003e\"42 is not allowed",` +
			`"errors":["$.env.HF_TOKEN: hf_SECRETvalue<&>\"42 is not allowed (abc)"]}`,
	}
	srv.FailNext(runpodtest.RouteCreateTemplate, 1, echo)
	_, errCreate := rp.Templates.Create(ctx, req)
	id := srv.StoreTemplate(runpodtest.Template{Name: "base", Image: "ubuntu:24.04"})
	srv.FailNext(runpodtest.RouteUpdateTemplate, 1, echo)
	_, errUpdate := rp.Templates.Update(ctx, id, templates.UpdateTemplateRequest{Env: req.Env})
	for _, err := range []error{errCreate, errUpdate} {
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
		for _, s := range append([]string{err.Error(), apiErr.Detail, string(apiErr.Body), fmt.Sprintf("%+v", apiErr)}, apiErr.Errors...) {
			assert.NotContains(t, s, "SECRETvalue")
		}
		assert.Contains(t, apiErr.Detail, "HF_TOKEN=[REDACTED] is not allowed")
		assert.Contains(t, apiErr.Errors[0], "(abc)", "values shorter than four bytes stay")
		testkit.NoSecret(t, err, apiErr)
	}

	// A 2xx body that is not a template: no excerpt.
	srv.FailNext(runpodtest.RouteTemplate, 1, runpodtest.Fault{
		Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"id":"` + id + `","env":{"HF_TOKEN":"hf_SECRETvalue"},"disk":"big"`,
	})
	_, err := rp.Templates.Get(ctx, id)
	var respErr *errs.ResponseError
	require.ErrorAs(t, err, &respErr)
	assert.Empty(t, respErr.Excerpt)
	assert.NotContains(t, err.Error(), "SECRETvalue")
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown, "a read can be repeated")

	srv.FailNext(runpodtest.RouteCreateTemplate, 1, runpodtest.Fault{
		Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"env":{"HF_TOKEN":"hf_SECRETvalue`,
	})
	_, err = rp.Templates.Create(ctx, req)
	require.ErrorAs(t, err, &respErr)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "the template may exist")
	assert.NotContains(t, err.Error(), "SECRETvalue")

	// Validation errors name fields, never values.
	bad := req
	bad.Ports = []string{"x"}
	_, err = rp.Templates.Create(ctx, bad)
	require.ErrorIs(t, err, errs.ErrValidation)
	assert.False(t, strings.Contains(err.Error(), "SECRETvalue"))
}
