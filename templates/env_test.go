package templates_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/oapi-codegen/nullable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/templates"
)

// TestReturnedEnvNeverShown: the templates List, Get, Create and Update
// return hold their Env values, readable with Env.Value and Env.Reveal,
// but fmt, slog (text and JSON, at the top and nested in a struct, a
// slice, []any and a map) and encoding/json show only the names; the
// values still reach the platform (issue 26, item 3).
func TestReturnedEnvNeverShown(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	req := newTemplate()
	req.Env = map[string]string{"HF_TOKEN": secretValue}
	created, err := rp.Templates.Create(ctx, req)
	require.NoError(t, err)
	var sent struct {
		Env map[string]string `json:"env"`
	}
	require.NoError(t, json.Unmarshal(last(srv).Body, &sent))
	assert.Equal(t, secretValue, sent.Env["HF_TOKEN"], "the value is sent as it is")
	updated, err := rp.Templates.Update(ctx, created.ID, templates.UpdateTemplateRequest{Env: map[string]string{"HF_TOKEN": secretValue, "B": "2"}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(last(srv).Body, &sent))
	assert.Equal(t, secretValue, sent.Env["HF_TOKEN"], "the value is sent as it is")
	list, err := rp.Templates.List(ctx)
	require.NoError(t, err)
	got, err := rp.Templates.Get(ctx, created.ID)
	require.NoError(t, err)

	v, ok := got.Env.Value("HF_TOKEN")
	assert.True(t, ok)
	assert.Equal(t, secretValue, v, "an explicit call reads the value")
	assert.Equal(t, map[string]string{"HF_TOKEN": secretValue, "B": "2"}, got.Env.Reveal())
	assert.Equal(t, []string{"B", "HF_TOKEN"}, got.Env.Names())

	type holder struct {
		T templates.Template
		P *templates.Template
	}
	for _, v := range []any{
		*created, created, *updated, list, *got, holder{T: *got, P: got}, []any{*got, list},
		map[string]templates.Template{"t": *got}, map[string]any{"l": list}, got.Env,
	} {
		var b bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&b, nil), slog.NewJSONHandler(&b, nil)} {
			slog.New(h).Info("x", "v", v, "nested", []any{v}, slog.Any("m", map[string]any{"v": v}), slog.Group("g", "v", v))
		}
		j, err := json.Marshal(v)
		require.NoError(t, err)
		for _, out := range []string{
			fmt.Sprint(v), fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), fmt.Sprintf("%s", v),
			b.String(), string(j),
		} {
			assert.NotContains(t, out, "SECRETvalue", "%T", v)
			assert.Contains(t, out, "HF_TOKEN", "%T: the names show", v)
		}
	}
	j, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Contains(t, string(j), `"env":{"B":"[REDACTED]","HF_TOKEN":"[REDACTED]"}`)
}

// TestEnvNamesRefused: a name the platform cannot set is refused before
// anything is sent, naming the field and never quoting a value (issue 26,
// item 3).
func TestEnvNamesRefused(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	before := len(srv.Requests())
	for _, name := range []string{"", "BAD KEY=", "\x00", "A=B", "TAB\t"} {
		env := map[string]string{name: secretValue}
		req := newTemplate()
		req.Env = env
		_, err := rp.Templates.Create(ctx, req)
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v, "%q", name)
		assert.Equal(t, "CreateTemplateRequest.Env", v.Field)
		assert.NotContains(t, err.Error(), "SECRETvalue")
		_, err = rp.Templates.Update(ctx, "tpl1", templates.UpdateTemplateRequest{Env: env})
		require.ErrorAs(t, err, &v, "%q", name)
		assert.Equal(t, "UpdateTemplateRequest.Env", v.Field)
		assert.NotContains(t, err.Error(), "SECRETvalue")
	}
	assert.Len(t, srv.Requests(), before, "nothing was sent")
}

// TestUpdateClearsRegistry: an update can remove the registry credential
// (null on the wire), set it, or leave it (no field sent) (issue 26,
// item 10).
func TestUpdateClearsRegistry(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	id := srv.StoreTemplate(runpodtest.Template{Name: "private", Image: "me/app:1", Registry: "reg_1"})

	got, err := rp.Templates.Update(ctx, id, templates.UpdateTemplateRequest{Name: runpod.Ptr("renamed")})
	require.NoError(t, err)
	assert.NotContains(t, string(last(srv).Body), "registry", "unset leaves it")
	require.NotNil(t, got.Registry)
	assert.Equal(t, "reg_1", *got.Registry)

	req := templates.UpdateTemplateRequest{Registry: nullable.NewNullNullable[string]()}
	assert.Equal(t, "UpdateTemplateRequest{Registry:null}", req.String())
	got, err = rp.Templates.Update(ctx, id, req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"registry":null}`, string(last(srv).Body))
	assert.Nil(t, got.Registry, "null removes it")
	got, err = rp.Templates.Get(ctx, id)
	require.NoError(t, err)
	assert.Nil(t, got.Registry)

	got, err = rp.Templates.Update(ctx, id, templates.UpdateTemplateRequest{Registry: nullable.NewNullableWithValue("reg_2")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"registry":"reg_2"}`, string(last(srv).Body))
	require.NotNil(t, got.Registry)
	assert.Equal(t, "reg_2", *got.Registry)
}
