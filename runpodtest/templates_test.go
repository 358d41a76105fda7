package runpodtest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
	"github.com/runpodkit/runpod-go/templates"
)

// TestStoreTemplate: a stored template gets the fake's defaults, reads
// back through the SDK, and is in the snapshot; AddTemplate adds a
// serverless one to the same store, and marks an existing one serverless.
func TestStoreTemplate(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)

	id := srv.StoreTemplate(runpodtest.Template{Image: "ubuntu:24.04", Env: map[string]string{"A": "1"}, PersistentSize: 20, PersistentPath: "/workspace"})
	got, err := rp.Templates.Get(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, id, got.Name, "the id names a template stored without a name")
	assert.Equal(t, 20, got.Disk)
	assert.Equal(t, templates.TemplateCategoryNVIDIA, got.Category)
	assert.Equal(t, &templates.PersistentMount{Size: 20, Path: "/workspace"}, got.Mounts.Persistent)
	assert.False(t, got.Serverless)

	srv.AddTemplate("tmpl-b", id)
	byID := func() map[string]runpodtest.Template {
		m := map[string]runpodtest.Template{}
		for _, tm := range srv.Templates() {
			m[tm.ID] = tm
		}
		return m
	}
	all := byID()
	require.Len(t, all, 2)
	for _, tm := range all {
		assert.True(t, tm.Serverless, tm.ID)
	}
	assert.Equal(t, "runpod/worker-basic:latest", all["tmpl-b"].Image, "AddTemplate's default image")
	assert.Equal(t, map[string]string{"A": "1"}, all[id].Env, "marking it serverless keeps the rest")
	all[id].Env["A"] = "changed"
	assert.Equal(t, "1", byID()[id].Env["A"], "a snapshot is a copy")
}

// TestTemplateLocks: endpoint saves (graphql unit, then templates unit),
// template deletes (pods unit, then templates unit) and fixtures run at
// once without deadlock or race, and every endpoint ends up on a template
// that exists.
func TestTemplateLocks(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			tmpl, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "w", Image: "img", Serverless: runpod.Ptr(true)})
			if !assert.NoError(t, err) {
				return
			}
			_, _ = rp.Serverless.Endpoints.Create(ctx, queueRequest("endpoint", tmpl.ID))
			_ = rp.Templates.Delete(ctx, tmpl.ID)
			srv.AddTemplate(fmt.Sprintf("added-%d", i))
			srv.HandleTemplate(fmt.Sprintf("handled-%d", i), func(_ context.Context, job *worker.Job) (any, error) { return job.Input, nil })
			srv.AddEndpoint(runpodtest.Endpoint{Name: "fixture", TemplateID: fmt.Sprintf("added-%d", i), GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
			_, _ = rp.Templates.List(ctx)
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for _, tm := range srv.Templates() {
		ids[tm.ID] = true
	}
	for _, e := range srv.Endpoints() {
		assert.True(t, ids[e.TemplateID], "endpoint %s uses template %s, which exists", e.ID, e.TemplateID)
	}
	assert.Len(t, srv.Endpoints(), 16)
}
