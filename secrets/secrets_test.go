package secrets_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/secret"
	"github.com/runpodkit/runpod-go/secrets"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
)

// The values of the tests' secrets. testkit fails the suite if any
// captured log line shows one; sweep checks every value a test saw.
const (
	token   = "hf_Secret-Token-Value-0001"
	rotated = "hf_Rotated-Token-Value-0002"
)

func init() {
	testkit.RegisterSecret(token)
	testkit.RegisterSecret(rotated)
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

// sweep fails t when a secret value shows in any of values printed with
// every verb, in its JSON, or in what the SDK logged.
func sweep(t *testing.T, lines *testkit.Lines, values ...any) {
	t.Helper()
	testkit.NoSecret(t, values...)
	for _, v := range values {
		b, err := json.Marshal(v)
		if err == nil {
			assert.Empty(t, testkit.Leak(string(b)), "JSON of %T", v)
		}
	}
	assert.Empty(t, testkit.Leak(lines.String()), "the SDK's log")
}

func create(name, value string) secrets.CreateSecretRequest {
	return secrets.CreateSecretRequest{Name: name, Value: secret.NewString(value), Description: runpod.Ptr("Hugging Face read token")}
}

func TestSecretLifecycle(t *testing.T) {
	c := testkit.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	srv, rp, lines := fixture.New(t, fixture.Server(runpodtest.WithClock(c.Now)))
	ctx := t.Context()

	list, err := rp.Secrets.List(ctx)
	require.NoError(t, err)
	assert.NotNil(t, list)
	assert.Empty(t, list)

	s, err := rp.Secrets.Create(ctx, create("hf-token", token))
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteCreateSecret, r.Route)
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.JSONEq(t, `{"name":"hf-token","value":"`+token+`","description":"Hugging Face read token"}`, string(r.Body), "the value goes on the wire as it is")
	assert.Equal(t, "hf-token", s.Name)
	assert.Equal(t, "Hugging Face read token", *s.Description)
	assert.Equal(t, c.Now(), s.CreatedAt)
	require.NotNil(t, s.ValueLastUpdatedAt)

	got, err := rp.Secrets.Get(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, *s, *got)
	found, err := rp.Secrets.Find(ctx, "HF-TOKEN")
	require.NoError(t, err)
	assert.Equal(t, s.ID, found.ID, "the platform matches names in any case")
	assert.Equal(t, "/v2/account/secrets", last(srv).Path)
	assert.Equal(t, "name=HF-TOKEN", last(srv).RawQuery)
	_, err = rp.Secrets.Find(ctx, "other")
	assert.ErrorIs(t, err, errs.ErrNotFound)

	_, err = rp.Secrets.Create(ctx, create("hf-token", token))
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode, "a name the account has already")

	c.Add(time.Hour)
	rs, err := rp.Secrets.Rotate(ctx, s.ID, secret.NewString(rotated))
	require.NoError(t, err)
	assert.JSONEq(t, `{"value":"`+rotated+`"}`, string(last(srv).Body), "the value alone")
	assert.Equal(t, http.MethodPatch, last(srv).Method)
	assert.Equal(t, c.Now(), *rs.ValueLastUpdatedAt)
	assert.Equal(t, "Hugging Face read token", *rs.Description, "a rotation keeps the description")

	ds, err := rp.Secrets.SetDescription(ctx, s.ID, "")
	require.NoError(t, err)
	assert.JSONEq(t, `{"description":""}`, string(last(srv).Body))
	assert.Empty(t, *ds.Description)
	assert.Equal(t, rs.ValueLastUpdatedAt, ds.ValueLastUpdatedAt, "a description does not touch the value")

	list, err = rp.Secrets.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, *ds, list[0])

	require.NoError(t, rp.Secrets.Delete(ctx, s.ID))
	assert.Equal(t, http.StatusNoContent, last(srv).Status)
	_, err = rp.Secrets.Get(ctx, s.ID)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	assert.ErrorIs(t, rp.Secrets.Delete(ctx, s.ID), errs.ErrNotFound, "a first attempt that finds nothing is not found")
	_, err = rp.Secrets.Rotate(ctx, s.ID, secret.NewString(rotated))
	assert.ErrorIs(t, err, errs.ErrNotFound)
	sweep(t, lines, s, got, rs, ds, list, err)
}

func TestSecretValidation(t *testing.T) {
	srv, rp, lines := fixture.New(t)
	ctx := t.Context()
	long := strings.Repeat("a", 192)
	for _, tc := range []struct {
		req   secrets.CreateSecretRequest
		field string
	}{
		{create("", token), "CreateSecretRequest.Name"},
		{create(long, token), "CreateSecretRequest.Name"},
		{create("1token", token), "CreateSecretRequest.Name"},
		{create("hf token", token), "CreateSecretRequest.Name"},
		{create("hf=token", token), "CreateSecretRequest.Name"},
		{create("RUNPOD_TOKEN", token), "CreateSecretRequest.Name"},
		{create("RunpodKey", token), "CreateSecretRequest.Name"},
		{create("runpod", token), "CreateSecretRequest.Name"},
		{create("hf-token", ""), "CreateSecretRequest.Value"},
		{create("hf-token", strings.Repeat("x", secrets.MaxValueBytes)), "CreateSecretRequest.Value"},
		{create("hf-token", "\xff"+token), "CreateSecretRequest.Value"},
		{secrets.CreateSecretRequest{Name: "hf-token", Value: secret.NewString(token), Description: runpod.Ptr(strings.Repeat("é", 32768))}, "CreateSecretRequest.Description"},
	} {
		_, err := rp.Secrets.Create(ctx, tc.req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%.40s", tc.req.Name)
		assert.Equal(t, tc.field, ve.Field)
		assert.NotContains(t, err.Error(), token)
	}
	// The limits themselves pass: 191 characters, a value one byte under
	// 16 MiB, a description of 65,535 bytes; a name that merely contains
	// RUNPOD.
	for _, req := range []secrets.CreateSecretRequest{
		create(strings.Repeat("a", 191), token),
		create("_x.y-z/w", strings.Repeat("x", secrets.MaxValueBytes-1)),
		{Name: "my_RUNPOD", Value: secret.NewString(token), Description: runpod.Ptr(strings.Repeat("d", secrets.MaxDescriptionBytes))},
	} {
		require.NoError(t, req.Validate(), "%.20s", req.Name)
	}
	_, err := rp.Secrets.Rotate(ctx, "abc", secret.NewString(""))
	assert.ErrorIs(t, err, errs.ErrValidation)
	_, err = rp.Secrets.Get(ctx, "../x")
	assert.ErrorIs(t, err, errs.ErrValidation)
	_, err = rp.Secrets.Find(ctx, "RUNPOD_X")
	assert.ErrorIs(t, err, errs.ErrValidation)
	assert.Empty(t, srv.Requests(), "nothing is sent")
	sweep(t, lines, err)
}

// TestFakeRefusesWhatTheSDKChecks sends what the SDK would refuse
// straight to the fake, which refuses it as the platform's pages say.
func TestFakeRefusesWhatTheSDKChecks(t *testing.T) {
	_, rp, _ := fixture.New(t)
	ctx := t.Context()
	for _, tc := range []struct {
		body   string
		status int
	}{
		{`{"name":"RunPod_x","value":"v"}`, http.StatusBadRequest},
		{`{"name":"9x","value":"v"}`, http.StatusUnprocessableEntity},
		{`{"name":"x","value":""}`, http.StatusUnprocessableEntity},
		{`{"name":"x","value":"v","description":"` + strings.Repeat("é", 32768) + `"}`, http.StatusUnprocessableEntity},
	} {
		err := rp.Do(ctx, http.MethodPost, "/v2/account/secrets", json.RawMessage(tc.body), nil)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr, tc.body[:20])
		assert.Equal(t, tc.status, apiErr.StatusCode, tc.body[:20])
	}
}

// TestSecretReachesPodAfterRestart is the life of a secret a template
// refers to: the pod made from the template boots with its value, a
// rotation leaves the running pod's value as it was, and the pod's
// restart (and a stop and start) brings the new one.
func TestSecretReachesPodAfterRestart(t *testing.T) {
	c := testkit.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	srv, rp, lines := fixture.New(t, fixture.Server(runpodtest.WithClock(c.Now), runpodtest.WithPodBoot(10*time.Second, 20*time.Second)))
	ctx := t.Context()

	s, err := rp.Secrets.Create(ctx, create("hf-token", token))
	require.NoError(t, err)
	tmpl, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{
		Name:  "vllm",
		Image: "vllm/vllm-openai:latest",
		Env:   map[string]string{"HF_TOKEN": secrets.Ref("hf-token"), "MODE": "serve", "URL": "https://x/?t=" + secrets.Ref("hf-token")},
	})
	require.NoError(t, err)
	assert.Contains(t, string(last(srv).Body), `"HF_TOKEN":"{{ RUNPOD_SECRET_hf-token }}"`, "the template holds the reference, not the value")
	v, _ := tmpl.Env.Value("HF_TOKEN")
	assert.Equal(t, "{{ RUNPOD_SECRET_hf-token }}", v)

	p, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name: "server", TemplateID: &tmpl.ID,
		GPU: &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090", Count: runpod.Ptr(1)},
		Env: map[string]string{"MODE": "debug"},
	})
	require.NoError(t, err)
	_, booted := srv.PodEnv(p.ID)
	assert.False(t, booted, "not booted while PROVISIONING")

	c.Add(30 * time.Second)
	env, booted := srv.PodEnv(p.ID)
	require.True(t, booted)
	assert.Equal(t, map[string]string{"HF_TOKEN": token, "MODE": "debug", "URL": "https://x/?t=" + token}, env,
		"the template's environment merged with the pod's (the pod's wins), references resolved")

	_, err = rp.Secrets.Rotate(ctx, s.ID, secret.NewString(rotated))
	require.NoError(t, err)
	c.Add(time.Minute)
	env, _ = srv.PodEnv(p.ID)
	assert.Equal(t, token, env["HF_TOKEN"], "a running pod keeps the value it booted with")

	_, err = rp.Pods.Restart(ctx, p.ID)
	require.NoError(t, err)
	c.Add(20 * time.Second)
	env, _ = srv.PodEnv(p.ID)
	assert.Equal(t, rotated, env["HF_TOKEN"], "the restart boots with the rotated value")

	// A secret deleted under a pod that refers to it fails its next boot.
	require.NoError(t, rp.Secrets.Delete(ctx, s.ID))
	_, err = rp.Pods.Stop(ctx, p.ID)
	require.NoError(t, err)
	_, err = rp.Pods.Start(ctx, p.ID)
	require.NoError(t, err)
	c.Add(30 * time.Second)
	got, err := rp.Pods.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, pods.PodStatusError, got.Status, "the boot fails visibly")
	_, booted = srv.PodEnv(p.ID)
	assert.False(t, booted)

	sweep(t, lines, s, tmpl, p, got, tmpl.Env)
}

// TestEnvReferencesChecked: a reference no secret can match is refused
// before a template, pod or endpoint is sent, naming the variable; the
// value is never quoted.
func TestEnvReferencesChecked(t *testing.T) {
	srv, rp, lines := fixture.New(t)
	ctx := t.Context()
	bad := map[string]string{"OK": secrets.Ref("fine"), "TOKEN": "x" + secrets.Ref("RUNPOD_KEY") + token}
	_, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "t", Image: "i", Env: bad})
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, `CreateTemplateRequest.Env["TOKEN"]`, ve.Field)
	assert.Contains(t, ve.Message, "not starting with RUNPOD")
	assert.NotContains(t, err.Error(), "RUNPOD_KEY", "a name read out of a value is not quoted")
	_, err = rp.Pods.Create(ctx, pods.CreatePodRequest{Name: "p", Image: runpod.Ptr("i"), GPU: &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090", Count: runpod.Ptr(1)}, Env: bad})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, `CreatePodRequest.Env["TOKEN"]`, ve.Field)
	_, err = rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "e", Type: serverless.EndpointTypeQueue, Image: runpod.Ptr("i"),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4), Env: bad,
	})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, `CreateEndpointRequest.Env["TOKEN"]`, ve.Field)
	assert.Empty(t, srv.Requests())
	sweep(t, lines, err)
}

// TestValuesNeverShow prints, logs and marshals every SDK value that
// holds a secret value, nested, and finds the value in none of them.
func TestValuesNeverShow(t *testing.T) {
	req := create("hf-token", token)
	type nested struct {
		Req  secrets.CreateSecretRequest
		Ptr  *secrets.CreateSecretRequest
		List []secret.String
		Map  map[string]any
	}
	v := nested{Req: req, Ptr: &req, List: []secret.String{secret.NewString(token)}, Map: map[string]any{"r": req, "v": req.Value}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		for _, x := range []any{req, &req, v, &v, req.Value} {
			out := fmt.Sprintf(verb, x)
			assert.NotContains(t, out, token, verb)
			assert.NotContains(t, out, fmt.Sprintf("%x", token), verb)
		}
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.NotContains(t, string(b), token)
	assert.Contains(t, string(b), `"value":"[REDACTED]"`)
	for _, h := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var buf bytes.Buffer
		log := slog.New(h(&buf))
		log.Info("secret", "req", req, "ptr", &req, "nested", v, slog.Group("g", "value", req.Value, slog.Group("deeper", "req", req)))
		log.With("req", req).WithGroup("w").Info("again", "v", v)
		assert.NotContains(t, buf.String(), token)
	}
}

func TestRef(t *testing.T) {
	assert.Equal(t, "{{ RUNPOD_SECRET_hf-token }}", secrets.Ref("hf-token"))
	for in, want := range map[string]string{
		"{{ RUNPOD_SECRET_hf-token }}":   "hf-token",
		"{{RUNPOD_SECRET_a/b.c}}":        "a/b.c",
		" {{\tRUNPOD_SECRET__x  }} ":     "_x",
		secrets.Ref("weird name"):        "",
		"{{ RUNPOD_SECRET_x }} and more": "",
		"{{ RUNPOD_SECRET_ }}":           "",
		"{{ SECRET_x }}":                 "",
		"x":                              "",
	} {
		name, ok := secrets.ParseRef(in)
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, name, in)
	}
	assert.NoError(t, secrets.CheckName("hf-token"))
	assert.ErrorIs(t, secrets.CheckName("RUNPOD"), errs.ErrValidation)
}

func TestCreateOutcomeUnknownFoundByName(t *testing.T) {
	srv, rp, lines := fixture.New(t)
	ctx := t.Context()
	srv.FailNext(runpodtest.RouteCreateSecret, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err := rp.Secrets.Create(ctx, create("hf-token", token))
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.NotContains(t, err.Error(), token)
	n := 0
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteCreateSecret {
			n++
		}
	}
	assert.Equal(t, 1, n, "a create is never repeated")
	s, err := rp.Secrets.Find(ctx, "hf-token")
	require.NoError(t, err, "the platform did create it")
	assert.Equal(t, "hf-token", s.Name)
	sweep(t, lines, err, s)
}

// TestSecretReachesWorkers: an endpoint whose environment refers to a
// secret hands its value to the workers that boot, the rotated one to
// those that boot after the rotation; a deleted secret stops them booting.
func TestSecretReachesWorkers(t *testing.T) {
	srv, rp, lines := fixture.New(t)
	ctx := t.Context()
	s, err := rp.Secrets.Create(ctx, create("hf-token", token))
	require.NoError(t, err)
	e, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "llm", Type: serverless.EndpointTypeQueue, Image: runpod.Ptr("vllm/vllm-openai:latest"),
		GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Scaling: serverless.ScaleByQueueDelay(4),
		Env:     map[string]string{"HF_TOKEN": secrets.Ref("hf-token")},
	})
	require.NoError(t, err)
	env, err := srv.WorkerBootEnv(e.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"HF_TOKEN": token}, env)

	_, err = rp.Secrets.Rotate(ctx, s.ID, secret.NewString(rotated))
	require.NoError(t, err)
	env, err = srv.WorkerBootEnv(e.ID)
	require.NoError(t, err)
	assert.Equal(t, rotated, env["HF_TOKEN"], "a worker that boots after the rotation")

	require.NoError(t, rp.Secrets.Delete(ctx, s.ID))
	_, err = srv.WorkerBootEnv(e.ID)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hf-token")
	got, err := rp.Serverless.Endpoints.Get(ctx, e.ID)
	require.NoError(t, err)
	v, _ := got.Env.Value("HF_TOKEN")
	assert.Equal(t, secrets.Ref("hf-token"), v, "the endpoint keeps the reference, never the value")
	sweep(t, lines, e, got, got.Env)
}
