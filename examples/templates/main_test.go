package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestTemplatesOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Contains(t, got, "1. the account has 2 template(s)")
	assert.Regexp(t, `demo-worker-tmpl +llm-chat-worker +serverless +runpod/worker-v1-vllm:\S+ +env: HF_TOKEN, MODEL_NAME\n`, got)
	assert.Regexp(t, `pytorch-nb-3k8d +pytorch-notebook +pod +runpod/pytorch:\S+ +env: JUPYTER_PASSWORD\n`, got)
	assert.Contains(t, got, `2. creating CreateTemplateRequest{Name:"runpod-go-example"`)
	assert.Contains(t, got, `Env:{"JUPYTER_PASSWORD":[REDACTED]}`)
	assert.Regexp(t, `   created template [a-z0-9]{8} \(startSsh true, startJupyter true by default\)`, got)
	assert.Contains(t, got, "3. updated: disk 40 GB; the ports stayed 8888/http, 22/tcp")
	assert.Regexp(t, `4\. read back: Template\{ID:"[a-z0-9]{8}" Name:"runpod-go-example" .*Disk:40 `, got)
	assert.Regexp(t, `5\. deleted [a-z0-9]{8}\n$`, got)
	assert.Len(t, srv.Templates(), 2, "the template it made is gone")

	// The password it generated reached the platform, and was never shown.
	var sent struct {
		Env map[string]string `json:"env"`
	}
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteCreateTemplate {
			require.NoError(t, json.Unmarshal(r.Body, &sent))
		}
	}
	pw := sent.Env["JUPYTER_PASSWORD"]
	require.Len(t, pw, 26, "rand.Text")
	assert.NotContains(t, got, pw)
	for _, seeded := range []string{"hf_demoDEMO", "demo-jupyter-pw"} {
		assert.NotContains(t, got, seeded)
	}
}

// TestDeletedAfterAFailure: when a step after the create fails, the
// template is deleted all the same.
func TestDeletedAfterAFailure(t *testing.T) {
	srv := demotest.Fake(t)
	srv.FailNext(runpodtest.RouteUpdateTemplate, 10, runpodtest.Fault{Status: 400})
	var out bytes.Buffer
	err := run(t.Context(), nil, &out)
	require.ErrorContains(t, err, "update:")
	assert.Len(t, srv.Templates(), 2, "the template it made is gone")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteDeleteTemplate))
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-disk", "0"}, []string{"-name", ""}, []string{"-image", " "}, []string{"-disk", "x"})
}
