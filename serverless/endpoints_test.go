package serverless_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// The REST v2 routes of endpoint management, as the document writes them.
const (
	routeCreate = "POST /v2/serverless"
	routeList   = "GET /v2/serverless"
	routeGet    = "GET /v2/serverless/{id}"
	routePatch  = "PATCH /v2/serverless/{id}"
	routeDelete = "DELETE /v2/serverless/{id}"
)

// restFake is a fake platform whose GraphQL API is retired (410), so that
// every call of these tests must go over REST v2.
func epFake(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithWorkerDrain(50*time.Millisecond))
	t.Cleanup(srv.Close)
	srv.AddTemplate("tmpl-1", "tmpl-2")
	rp, err := srv.NewClient(option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

// restSpec is an endpoint with a setting in every part of the request.
func restSpec() serverless.CreateEndpointRequest {
	return serverless.CreateEndpointRequest{
		Name:       "my-endpoint",
		Type:       serverless.EndpointTypeQueue,
		TemplateID: runpod.Ptr("tmpl-1"),
		GPU: &serverless.CreateEndpointGPUConfig{
			Pools:               []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere24},
			Count:               runpod.Ptr(2),
			AllowedCUDAVersions: []string{"12.4", "12.8"},
		},
		DataCenterIDs: []string{"EU-RO-1", "US-KS-2"},
		FlashBoot:     runpod.Ptr(serverless.FlashBootOn),
		Scaling:       serverless.ScaleByQueueDelay(3),
		Timeout:       runpod.Ptr(90000),
		Workers:       &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(4), IdleTimeout: runpod.Ptr(77)},
	}
}

// countRoute counts the requests the fake received for route.
func countRoute(srv *runpodtest.Server, route string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Route == route {
			n++
		}
	}
	return n
}

func TestEndpointsCRUD(t *testing.T) {
	srv, rp := epFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints

	ep, err := eps.Create(ctx, restSpec())
	require.NoError(t, err)
	assert.NotEmpty(t, ep.ID)
	assert.Equal(t, "my-endpoint", ep.Name)
	require.NotNil(t, ep.Type)
	assert.Equal(t, serverless.EndpointTypeQueue, *ep.Type)
	require.NotNil(t, ep.GPU)
	assert.Equal(t, []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere24}, ep.GPU.Pools)
	assert.Equal(t, []string{"12.4", "12.8"}, ep.GPU.AllowedCUDAVersions)
	assert.Equal(t, serverless.ScaleByQueueDelay(3), ep.Scaling)
	assert.Equal(t, 90000, ep.Timeout)
	assert.Equal(t, 4, *ep.Workers.Max)
	require.NotNil(t, ep.RequestURLs)
	assert.Contains(t, ep.RequestURLs.RunSync, "/v2/"+ep.ID+"/runsync")

	got, err := eps.Get(ctx, ep.ID)
	require.NoError(t, err)
	assert.Equal(t, ep.ID, got.ID)
	list, err := eps.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, ep.ID, list[0].ID)

	_, err = eps.Get(ctx, "nosuch")
	assert.ErrorIs(t, err, errs.ErrNotFound)

	_, err = eps.ScaleToZero(ctx, ep.ID)
	require.NoError(t, err)
	require.NoError(t, eps.Delete(ctx, ep.ID))
	assert.Empty(t, srv.Endpoints())
	assert.Zero(t, countRoute(srv, fakegraphql.Route), "nothing went to the retired GraphQL API")
}

// TestEndpointRunsJobs: an endpoint made over REST runs jobs on its
// template's handler.
func TestEndpointRunsJobs(t *testing.T) {
	srv, rp := epFake(t)
	srv.HandleTemplate("tmpl-1", func(_ context.Context, job *worker.Job) (any, error) { return "ok", nil })
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), restSpec())
	require.NoError(t, err)
	job, err := rp.Serverless.Queue(ep.ID).RunSync(t.Context(), serverless.RunParams{Input: map[string]int{"n": 1}}, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
}

// TestUpdateLeavesUnsentSettings: a PATCH carries only what the request
// sets, and every other setting stays as it was.
func TestUpdateLeavesUnsentSettings(t *testing.T) {
	srv, rp := epFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	ep, err := eps.Create(ctx, restSpec())
	require.NoError(t, err)
	before := srv.Endpoints()[0]

	after, err := eps.Update(ctx, ep.ID, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Max: runpod.Ptr(6)}})
	require.NoError(t, err)
	assert.Equal(t, 6, *after.Workers.Max)

	var patch []byte
	for _, r := range srv.Requests() {
		if r.Route == routePatch {
			patch = r.Body
		}
	}
	assert.JSONEq(t, `{"workers":{"max":6}}`, string(patch), "only what was set is sent")

	stored := srv.Endpoints()[0]
	assert.Equal(t, 6, stored.WorkersMax)
	stored.WorkersMax = before.WorkersMax
	assert.Equal(t, exported(t, before), exported(t, stored), "every other setting stays")

	ep2, err := eps.Get(ctx, ep.ID)
	require.NoError(t, err)
	ep.Workers.Max, ep2.RequestURLs, ep.RequestURLs = runpod.Ptr(6), nil, nil
	assert.Equal(t, ep, ep2)
}

// exported is the JSON of a record's exported fields, to compare settings.
func exported(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestUpdateClears: a pointer to an empty list clears a list; a null
// registry removes the credentials. Both reach the wire as such.
func TestUpdateClears(t *testing.T) {
	var mu sync.Mutex
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, _ = io.ReadAll(r.Body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"ep1","name":"x","workers":{"min":0,"max":1},"scaling":{"type":"REQUEST_COUNT","requestCount":2},`+
			`"dataCenterIds":[],"networkVolumes":[],"timeout":300000,"flashboot":"OFF","createdAt":"2026-06-01T12:00:00Z"}`)
	}))
	defer srv.Close()
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_test"), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()

	ep, err := rp.Serverless.Endpoints.Update(t.Context(), "ep1", serverless.UpdateEndpointRequest{
		NetworkVolumes: &[]string{},
		DataCenterIDs:  &[]string{},
		Registry:       nullable.NewNullNullable[string](),
		GPU:            &serverless.UpdateEndpointGPUConfig{AllowedCUDAVersions: &[]string{}, MinCUDAVersion: runpod.Ptr("")},
	})
	require.NoError(t, err)
	assert.Equal(t, serverless.ScaleByRequestCount(2), ep.Scaling)
	mu.Lock()
	defer mu.Unlock()
	assert.JSONEq(t, `{"networkVolumes":[],"dataCenterIds":[],"registry":null,"gpu":{"allowedCudaVersions":[],"minCudaVersion":""}}`, string(body))
}

// TestEndpointRequestsValidated: a request the document refuses is refused
// before anything is sent, with the field named.
func TestEndpointRequestsValidated(t *testing.T) {
	srv, rp := epFake(t)
	eps := rp.Serverless.Endpoints
	create := []struct {
		field  string
		change func(*serverless.CreateEndpointRequest)
	}{
		{"CreateEndpointRequest.Name", func(r *serverless.CreateEndpointRequest) { r.Name = " " }},
		{"CreateEndpointRequest.Type", func(r *serverless.CreateEndpointRequest) { r.Type = "" }},
		{"CreateEndpointRequest.Type", func(r *serverless.CreateEndpointRequest) { r.Type = "QB" }},
		{"CreateEndpointRequest.Image", func(r *serverless.CreateEndpointRequest) { r.TemplateID = nil }},
		{"CreateEndpointRequest.Image", func(r *serverless.CreateEndpointRequest) { r.Image = runpod.Ptr("img:1") }},
		{"CreateEndpointRequest.GPU", func(r *serverless.CreateEndpointRequest) { r.GPU = nil }},
		{"CreateEndpointRequest.CPU", func(r *serverless.CreateEndpointRequest) {
			r.CPU = []serverless.CreateCPUConfig{{ID: "cpu3c", VCPUCount: 2}}
		}},
		{"CreateEndpointRequest.Scaling.Type", func(r *serverless.CreateEndpointRequest) { r.Type = serverless.EndpointTypeLoadBalancer }},
		{"CreateEndpointRequest.Scaling.Type", func(r *serverless.CreateEndpointRequest) { r.Scaling = serverless.Scaling{} }},
		{"CreateEndpointRequest.Scaling.QueueDelay", func(r *serverless.CreateEndpointRequest) { r.Scaling = serverless.ScaleByQueueDelay(0.2) }},
		{"CreateEndpointRequest.Scaling.RequestCount", func(r *serverless.CreateEndpointRequest) { r.Scaling = serverless.ScaleByRequestCount(0) }},
		{"CreateEndpointRequest.GPU.Pools", func(r *serverless.CreateEndpointRequest) { r.GPU.Pools = nil }},
		{"CreateEndpointRequest.GPU.Count", func(r *serverless.CreateEndpointRequest) { r.GPU.Count = runpod.Ptr(0) }},
		{"CreateEndpointRequest.GPU.AllowedCUDAVersions[0]", func(r *serverless.CreateEndpointRequest) { r.GPU.AllowedCUDAVersions = []string{"12"} }},
		{"CreateEndpointRequest.GPU.ExcludedTypes[0]", func(r *serverless.CreateEndpointRequest) { r.GPU.ExcludedTypes = []string{"-NVIDIA L4"} }},
		{"CreateEndpointRequest.Workers.IdleTimeout", func(r *serverless.CreateEndpointRequest) { r.Workers.IdleTimeout = runpod.Ptr(0) }},
		{"CreateEndpointRequest.Workers.Max", func(r *serverless.CreateEndpointRequest) { r.Workers.Min = runpod.Ptr(5) }},
		{"CreateEndpointRequest.Disk", func(r *serverless.CreateEndpointRequest) { r.Disk = runpod.Ptr(0) }},
		{"CreateEndpointRequest.Ports[0]", func(r *serverless.CreateEndpointRequest) { r.Ports = []string{"8000"} }},
		{"CreateEndpointRequest.Env", func(r *serverless.CreateEndpointRequest) { r.Env = map[string]string{"BAD KEY": "secret-value"} }},
		{"CreateEndpointRequest.FlashBoot", func(r *serverless.CreateEndpointRequest) { r.FlashBoot = runpod.Ptr(serverless.FlashBoot("ON")) }},
		{"CreateEndpointRequest.NetworkVolumes[0]", func(r *serverless.CreateEndpointRequest) { r.NetworkVolumes = []string{""} }},
	}
	for _, tc := range create {
		req := restSpec()
		tc.change(&req)
		_, err := eps.Create(t.Context(), req)
		var invalid *errs.ValidationError
		require.ErrorAs(t, err, &invalid, tc.field)
		assert.Equal(t, tc.field, invalid.Field)
		assert.NotContains(t, err.Error(), "secret-value")
		_, err = eps.Apply(t.Context(), req)
		require.ErrorAs(t, err, &invalid, tc.field)
	}
	update := []struct {
		field string
		req   serverless.UpdateEndpointRequest
	}{
		{"UpdateEndpointRequest.Name", serverless.UpdateEndpointRequest{Name: runpod.Ptr("")}},
		{"UpdateEndpointRequest.CPU", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{}, CPU: []serverless.CreateCPUConfig{{ID: "cpu3c", VCPUCount: 2}}}},
		{"UpdateEndpointRequest.GPU.ExcludedTypes", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{ExcludedTypes: []string{"NVIDIA L4"}}}},
		{"UpdateEndpointRequest.GPU.MinCUDAVersion", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{MinCUDAVersion: runpod.Ptr("twelve")}}},
		{"UpdateEndpointRequest.Registry", serverless.UpdateEndpointRequest{Registry: nullable.NewNullableWithValue("")}},
		{"UpdateEndpointRequest.Workers.Min", serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(-1)}}},
		{"UpdateEndpointRequest.Scaling.QueueDelay", serverless.UpdateEndpointRequest{Scaling: runpod.Ptr(serverless.ScaleByQueueDelay(0))}},
	}
	for _, tc := range update {
		_, err := eps.Update(t.Context(), "ep1", tc.req)
		var invalid *errs.ValidationError
		require.ErrorAs(t, err, &invalid, tc.field)
		assert.Equal(t, tc.field, invalid.Field)
	}
	_, err := eps.Get(t.Context(), "bad/id")
	var invalid *errs.ValidationError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "endpointID", invalid.Field)
	assert.Empty(t, srv.Requests(), "nothing was sent")
}

// TestFakeRefusesWhatTheDocumentRefuses: the same bodies sent raw reach
// the fake, which refuses them naming the field: the rules are the
// document's, not only the SDK's.
func TestFakeRefusesWhatTheDocumentRefuses(t *testing.T) {
	_, rp := epFake(t)
	for _, tc := range []struct{ body, field string }{
		{`{"name":"x","type":"QUEUE","templateId":"tmpl-1","scaling":{"type":"QUEUE_DELAY","queueDelay":4},` +
			`"gpu":{"pools":["ADA_24"]},"cpu":[{"id":"cpu3c","vcpuCount":2}]}`, "cpu"},
		{`{"name":"x","type":"LOAD_BALANCER","templateId":"tmpl-1","scaling":{"type":"QUEUE_DELAY","queueDelay":4},` +
			`"gpu":{"pools":["ADA_24"]}}`, "scaling"},
		{`{"name":"x","type":"QUEUE","templateId":"tmpl-1","scaling":{"type":"QUEUE_DELAY","queueDelay":4},` +
			`"gpu":{"pools":["ADA_24"]},"gpuIds":"ADA_24"}`, "gpuIds"},
	} {
		err := rp.Do(t.Context(), http.MethodPost, "/v2/serverless", json.RawMessage(tc.body), nil)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr, tc.body)
		assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, apiErr.StatusCode, tc.body)
		assert.Contains(t, apiErr.Error(), tc.field, tc.body)
	}
}

// TestDeleteOnlyScaledDown: Delete reads first and refuses an endpoint
// with workers, though the platform would delete it, naming the two ways
// out; nothing is deleted.
func TestDeleteOnlyScaledDown(t *testing.T) {
	srv, rp := epFake(t)
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), restSpec())
	require.NoError(t, err)
	err = rp.Serverless.Endpoints.Delete(t.Context(), ep.ID)
	require.ErrorIs(t, err, serverless.ErrNotScaledDown)
	assert.Contains(t, err.Error(), "max 4")
	assert.Contains(t, err.Error(), "ScaleDownAndDelete")
	assert.Contains(t, err.Error(), "DeleteNow")
	assert.Zero(t, countRoute(srv, routeDelete), "no delete was sent")
	assert.Len(t, srv.Endpoints(), 1)
}

// TestScaleDownAndDeleteWaitsForTheJob: a worker running a job is still
// there after the scale-down, past its drain, so the delete waits until
// the job has ended.
func TestScaleDownAndDeleteWaitsForTheJob(t *testing.T) {
	c := &clock{now: start}
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(c.Now), runpodtest.WithWorkerDrain(10*time.Second))
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	release := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let) // before the fake closes, whatever happens
	ep, q, job := serving(t, srv, rp, func(ctx context.Context, job *worker.Job) (any, error) {
		close(started)
		<-release
		return "done", nil
	}, started)

	var seen []int
	checked := make(chan int, 100)
	done := make(chan error, 1)
	go func() {
		done <- rp.Serverless.Endpoints.ScaleDownAndDelete(t.Context(), ep.ID, option.Poll[int]{Interval: time.Millisecond,
			OnCheck: func(n int) {
				seen = append(seen, n)
				select {
				case checked <- n:
				default:
				}
			}})
	}()
	assert.Equal(t, 1, <-checked, "the worker runs the job")
	c.Add(time.Minute) // past the drain (and within the job's 90 s timeout): the job still holds its worker
	assert.Equal(t, 1, <-checked)
	assert.Equal(t, 1, <-checked)
	assert.Zero(t, countRoute(srv, routeDelete), "not deleted while a job runs")
	let()
	require.NoError(t, <-done)
	assert.Equal(t, 0, seen[len(seen)-1])
	got, err := q.Wait(t.Context(), job.ID, serverless.WaitOptions{})
	if err == nil {
		assert.Equal(t, serverless.JobStatusCompleted, got.Status)
	}
	assert.Empty(t, srv.Endpoints())
}

func TestApplyCreates(t *testing.T) {
	srv, rp := epFake(t)
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.Empty(t, res.Changes)
	assert.Equal(t, "my-endpoint", res.Endpoint.Name)
	assert.Equal(t, 1, countRoute(srv, routeCreate))
}

// TestApplyNoOp: an endpoint that matches is read, and nothing is sent.
func TestApplyNoOp(t *testing.T) {
	srv, rp := epFake(t)
	_, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	n := len(srv.Requests())
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	assert.False(t, res.Created)
	assert.Empty(t, res.Changes)
	for _, r := range srv.Requests()[n:] {
		assert.Equal(t, http.MethodGet, r.Method, "only reads: %s %s", r.Method, r.Path)
	}
}

// TestApplyOneField: one changed setting is one PATCH carrying it alone.
func TestApplyOneField(t *testing.T) {
	srv, rp := epFake(t)
	_, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	spec := restSpec()
	spec.Workers.IdleTimeout = runpod.Ptr(300)
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), spec)
	require.NoError(t, err)
	assert.Equal(t, []serverless.Change{{Field: "workers.idleTimeout", Old: 77, New: 300}}, res.Changes)
	assert.Equal(t, 300, *res.Endpoint.Workers.IdleTimeout)
	require.Equal(t, 1, countRoute(srv, routePatch))
	for _, r := range srv.Requests() {
		if r.Route == routePatch {
			assert.JSONEq(t, `{"workers":{"idleTimeout":300}}`, string(r.Body))
		}
	}
}

// TestApplyChangesEverySetting: a spec that differs everywhere is one
// PATCH, and Changes name every field; environment values never show.
func TestApplyChangesEverySetting(t *testing.T) {
	srv, rp := epFake(t)
	spec := restSpec()
	spec.TemplateID, spec.Image = nil, runpod.Ptr("runpod/worker:1")
	spec.Env = map[string]string{"HF_TOKEN": "hf_secret_one", "MODE": "a"}
	_, err := rp.Serverless.Endpoints.Apply(t.Context(), spec)
	require.NoError(t, err)

	spec.Image = runpod.Ptr("runpod/worker:2")
	spec.Env = map[string]string{"HF_TOKEN": "hf_secret_two"}
	spec.GPU.Pools = []serverless.GPUPool{serverless.GPUPoolAmpere48}
	spec.DataCenterIDs = []string{"EU-RO-1"}
	spec.FlashBoot = runpod.Ptr(serverless.FlashBootOff)
	spec.Scaling = serverless.ScaleByRequestCount(3)
	spec.Timeout = runpod.Ptr(60000)
	spec.Workers.Max = runpod.Ptr(2)
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), spec)
	require.NoError(t, err)
	var fields []string
	for _, c := range res.Changes {
		fields = append(fields, c.Field)
		assert.NotContains(t, c.String(), "hf_secret")
	}
	assert.Equal(t, []string{"image", "env.HF_TOKEN", "env.MODE", "gpu.pools", "dataCenterIds", "flashboot", "scaling", "timeout", "workers.max"}, fields)
	assert.Equal(t, 1, countRoute(srv, routePatch))
	ep := res.Endpoint
	assert.Equal(t, []serverless.GPUPool{serverless.GPUPoolAmpere48}, ep.GPU.Pools)
	assert.Equal(t, serverless.ScaleByRequestCount(3), ep.Scaling)

	again, err := rp.Serverless.Endpoints.Apply(t.Context(), spec)
	require.NoError(t, err)
	assert.Empty(t, again.Changes, "converged")
}

// TestApplyAmbiguousCreate: a create whose answer is lost may have been
// applied; Apply finds the endpoint by name instead of creating another.
func TestApplyAmbiguousCreate(t *testing.T) {
	srv, rp := epFake(t)
	srv.FailNext(routeCreate, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	res, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.Len(t, srv.Endpoints(), 1, "one endpoint, not two")
	assert.Equal(t, 1, countRoute(srv, routeCreate), "the create was not repeated")

	// Lost before the platform acted: nothing exists, Apply says so and
	// creates nothing; applying again creates it.
	srv2, rp2 := epFake(t)
	srv2.FailNext(routeCreate, 1, runpodtest.Fault{Status: http.StatusBadGateway})
	_, err = rp2.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Contains(t, err.Error(), "nothing was created")
	assert.Empty(t, srv2.Endpoints())
	res, err = rp2.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.Len(t, srv2.Endpoints(), 1)
}

// TestApplyDuplicateNames: two endpoints with the spec's name are an
// error, and neither is changed.
func TestApplyDuplicateNames(t *testing.T) {
	srv, rp := epFake(t)
	a := srv.AddEndpoint(runpodtest.Endpoint{Name: "twin", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	b := srv.AddEndpoint(runpodtest.Endpoint{Name: "twin", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})
	spec := restSpec()
	spec.Name = "twin"
	_, err := rp.Serverless.Endpoints.Apply(t.Context(), spec)
	require.ErrorIs(t, err, serverless.ErrDuplicateName)
	var dup *serverless.DuplicateNameError
	require.ErrorAs(t, err, &dup)
	assert.ElementsMatch(t, []string{a, b}, dup.IDs)
	for _, r := range srv.Requests() {
		assert.Equal(t, http.MethodGet, r.Method)
	}
}

// TestApplyTypeIsFixed: a spec of another type than the endpoint's is
// refused, naming Type; nothing is changed.
func TestApplyTypeIsFixed(t *testing.T) {
	srv, rp := epFake(t)
	_, err := rp.Serverless.Endpoints.Apply(t.Context(), restSpec())
	require.NoError(t, err)
	spec := restSpec()
	spec.Type, spec.Scaling = serverless.EndpointTypeLoadBalancer, serverless.ScaleByRequestCount(2)
	_, err = rp.Serverless.Endpoints.Apply(t.Context(), spec)
	var invalid *errs.ValidationError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "CreateEndpointRequest.Type", invalid.Field)
	assert.Zero(t, countRoute(srv, routePatch))
}

func TestScalingJSON(t *testing.T) {
	for _, tc := range []struct {
		s    serverless.Scaling
		wire string
	}{
		{serverless.ScaleByQueueDelay(0.5), `{"type":"QUEUE_DELAY","queueDelay":0.5}`},
		{serverless.ScaleByRequestCount(3), `{"type":"REQUEST_COUNT","requestCount":3}`},
		{serverless.Scaling{Type: "CPU_LOAD"}, `{"type":"CPU_LOAD"}`},
	} {
		b, err := json.Marshal(tc.s)
		require.NoError(t, err)
		assert.JSONEq(t, tc.wire, string(b))
		var back serverless.Scaling
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tc.s, back)
	}
	var s serverless.Scaling
	assert.Error(t, json.Unmarshal([]byte(`{"type":"REQUEST_COUNT","requestCount":1.5}`), &s))
	assert.Error(t, json.Unmarshal([]byte(`[]`), &s))
}

func FuzzScalingJSON(f *testing.F) {
	for _, seed := range []string{`{"type":"QUEUE_DELAY","queueDelay":4}`, `{"type":"REQUEST_COUNT","requestCount":2}`,
		`{"type":"REQUEST_COUNT","requestCount":1e300}`, `{}`, `null`, `{"type":7}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s serverless.Scaling
		if err := json.Unmarshal(b, &s); err != nil {
			return
		}
		out, err := json.Marshal(s)
		require.NoError(t, err)
		var back serverless.Scaling
		require.NoError(t, json.Unmarshal(out, &back))
		if s.Type == serverless.ScalerTypeQueueDelay || s.Type == serverless.ScalerTypeRequestCount || s.Type == "" {
			assert.Equal(t, s, back)
		}
	})
}
