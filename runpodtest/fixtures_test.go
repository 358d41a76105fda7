package runpodtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

func echoHandler(_ context.Context, job *worker.Job) (any, error) { return job.Input, nil }

// queueRequest is a REST create of a queue-based GPU endpoint of a
// template.
func queueRequest(name, templateID string) serverless.CreateEndpointRequest {
	return serverless.CreateEndpointRequest{
		Name: name, Type: serverless.EndpointTypeQueue, Scaling: serverless.ScaleByQueueDelay(4),
		TemplateID: runpod.Ptr(templateID), GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
	}
}

// TestAddEndpointDefaults: an endpoint added with only a name and a
// template gets the fake's defaults, its template is registered, and it
// reads back through the SDK's REST calls with the serverless package's
// enums: the GraphQL spelling of an excluded GPU type ("-<type>" among the
// pools) is the REST document's excludedTypes.
func TestAddEndpointDefaults(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "plain", TemplateID: "tmpl-x", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24, "-NVIDIA RTX A6000"}})

	got := srv.Endpoints()
	require.Len(t, got, 1)
	assert.Equal(t, serverless.EndpointTypeQueue, got[0].Type)
	assert.Equal(t, serverless.FlashBootOff, got[0].FlashBoot)
	assert.Equal(t, serverless.ScalerTypeQueueDelay, got[0].ScalerType)
	assert.Equal(t, 4, got[0].ScalerValue)
	assert.Equal(t, 5, got[0].IdleTimeout)
	assert.Equal(t, 3, got[0].WorkersMax)
	assert.Equal(t, 1, got[0].GPUCount)
	assert.Equal(t, 600*time.Second, got[0].ExecutionTimeout)

	assert.Equal(t, []serverless.GPUPool{serverless.GPUPoolAda24}, got[0].GPUs)
	assert.Equal(t, []string{"NVIDIA RTX A6000"}, got[0].ExcludedGPUTypes)

	ep, err := rp.Serverless.Endpoints.Update(t.Context(), id, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Max: runpod.Ptr(5)}})
	require.NoError(t, err, "the template was registered")
	require.NotNil(t, ep.GPU)
	assert.Equal(t, []serverless.GPUPool{serverless.GPUPoolAda24}, ep.GPU.Pools)
	assert.Equal(t, []string{"NVIDIA RTX A6000"}, ep.GPU.ExcludedTypes)
	assert.Equal(t, serverless.ScaleByQueueDelay(4), ep.Scaling)
	assert.Equal(t, 5, srv.Endpoints()[0].WorkersMax)
	assert.Zero(t, srv.Count(runpodtest.RouteRunSync), "no job route was touched")
}

// TestHandleTemplate: endpoints of a template with a handler run jobs,
// whether they existed before HandleTemplate or are created after it; an
// endpoint of a template without one is listed and its jobs are queued,
// never taken (TestNoWorkerQueuesForever).
func TestHandleTemplate(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	before := srv.AddEndpoint(runpodtest.Endpoint{Name: "before", TemplateID: "tmpl-a", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	srv.AddTemplate("tmpl-b")
	other, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("other", "tmpl-b"))
	require.NoError(t, err)

	srv.HandleTemplate("tmpl-a", echoHandler)
	after, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("after", "tmpl-a"))
	require.NoError(t, err)

	for _, id := range []string{before, after.ID} {
		job, err := rp.Serverless.Queue(id).RunSync(ctx, serverless.RunParams{Input: id}, serverless.WaitOptions{})
		require.NoError(t, err, id)
		assert.JSONEq(t, `"`+id+`"`, string(job.Output))
	}
	job, err := rp.Serverless.Queue(other.ID).Run(ctx, serverless.RunParams{Input: 1})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusInQueue, job.Status, "no worker behind a template without a handler")
}

// TestAddQueueEndpoint: one call lists the endpoint and serves its jobs.
func TestAddQueueEndpoint(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "echo", TemplateID: "t", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}}, echoHandler, runpodtest.WithWorkers(2))
	got, err := rp.Serverless.Endpoints.Get(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, runpod.Ptr(serverless.EndpointTypeQueue), got.Type)
	job, err := rp.Serverless.Queue(id).RunSync(t.Context(), serverless.RunParams{Input: "x"}, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `"x"`, string(job.Output))
}
