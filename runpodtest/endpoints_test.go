package runpodtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// gqlCall sends a GraphQL document as the platform's clients send it (a
// JSON body with a bearer key) and returns data and errors as decoded.
func gqlCall(t *testing.T, srv *runpodtest.Server, query string, vars map[string]any) (map[string]any, []any) {
	t.Helper()
	body := map[string]any{"query": query}
	if vars != nil {
		body["variables"] = vars
	}
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/graphql", bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out.Data, out.Errors
}

// stored returns the fake's record of endpoint id.
func stored(t *testing.T, srv *runpodtest.Server, id string) runpodtest.Endpoint {
	t.Helper()
	for _, e := range srv.Endpoints() {
		if e.ID == id {
			return e
		}
	}
	require.FailNow(t, "no such endpoint", id)
	return runpodtest.Endpoint{}
}

// problemErrors returns a problem's errors list.
func problemErrors(m map[string]any) []string {
	var out []string
	list, _ := m["errors"].([]any)
	for _, e := range list {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

// TestRESTEndpointCRUD: the five operations through the SDK, every answer
// checked against the document by the fake: a create answers 201 with the
// document's defaults and the queue's job URLs, reads and lists find it,
// an update changes what it sends, and a delete of an endpoint scaled to
// zero answers 204.
func TestRESTEndpointCRUD(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	srv := newServer(t, runpodtest.WithClock(func() time.Time { return at }))
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	srv.AddTemplate("tmpl-1")

	created, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("crud", "tmpl-1"))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteCreateEndpoint))
	reqs := srv.Requests()
	assert.Equal(t, http.StatusCreated, reqs[len(reqs)-1].Status)
	assert.Equal(t, serverless.FlashBootOff, created.FlashBoot)
	assert.Equal(t, 300000, created.Timeout)
	assert.Equal(t, serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(3), IdleTimeout: runpod.Ptr(10)}, created.Workers)
	assert.Equal(t, serverless.ScaleByQueueDelay(4), created.Scaling)
	require.NotNil(t, created.GPU)
	assert.Equal(t, []serverless.GPUPool{serverless.GPUPoolAda24}, created.GPU.Pools)
	assert.Equal(t, runpod.Ptr(1), created.GPU.Count)
	assert.Nil(t, created.GPU.MinCUDAVersion)
	assert.Empty(t, created.CPU)
	assert.Equal(t, runpod.Ptr(serverless.EndpointTypeQueue), created.Type)
	assert.Equal(t, runpod.Ptr("runpod/worker-basic:latest"), created.Image, "the template's container")
	assert.Equal(t, at, created.CreatedAt, "by the fake's clock")
	base := srv.InferenceURL + "/v2/" + created.ID
	require.NotNil(t, created.RequestURLs)
	assert.Equal(t, serverless.RequestURLs{Run: base + "/run", RunSync: base + "/runsync", Status: base + "/status", Stream: base + "/stream",
		Cancel: base + "/cancel", Retry: base + "/retry", PurgeQueue: base + "/purge-queue", Health: base + "/health"}, *created.RequestURLs)

	got, err := rp.Serverless.Endpoints.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Equal(t, created, got)
	list, err := rp.Serverless.Endpoints.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, *created, list[0])

	updated, err := rp.Serverless.Endpoints.Update(ctx, created.ID, serverless.UpdateEndpointRequest{
		Name: runpod.Ptr("crud-2"), Scaling: runpod.Ptr(serverless.ScaleByQueueDelay(2.5)), Timeout: runpod.Ptr(90000),
	})
	require.NoError(t, err)
	assert.Equal(t, "crud-2", updated.Name)
	assert.Equal(t, serverless.ScaleByQueueDelay(2.5), updated.Scaling)
	assert.Equal(t, 90000, updated.Timeout)
	rec := stored(t, srv, created.ID)
	assert.Equal(t, 2.5, rec.QueueDelay)
	assert.Equal(t, 3, rec.ScalerValue, "GraphQL's Int spelling, rounded up")
	assert.Equal(t, 90*time.Second, rec.ExecutionTimeout)

	_, err = rp.Serverless.Endpoints.Get(ctx, "ep-nope")
	require.ErrorIs(t, err, errs.ErrNotFound)
	require.NoError(t, rp.Serverless.Endpoints.ScaleDownAndDelete(ctx, created.ID, option.Poll[int]{}))
	_, err = rp.Serverless.Endpoints.Get(ctx, created.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	reqs = srv.Requests()
	assert.Equal(t, http.StatusNoContent, reqs[len(reqs)-2].Status, "the delete, before the last read")
	assert.Empty(t, srv.Endpoints())

	// A load balancer's URLs are on the host the fake serves load
	// balancers on; a CPU endpoint reports cpu and a null gpu.
	lb, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "lb", Type: serverless.EndpointTypeLoadBalancer, Scaling: serverless.ScaleByRequestCount(5),
		TemplateID: runpod.Ptr("tmpl-1"), CPU: []serverless.CreateCPUConfig{{ID: "cpu3c", VCPUCount: 4}},
	})
	require.NoError(t, err)
	lbBase := strings.Replace(srv.InferenceURL, "://", "://"+lb.ID+".", 1)
	assert.Equal(t, serverless.RequestURLs{Base: lbBase, Health: lbBase + "/ping"}, *lb.RequestURLs)
	srv.HandleLoadBalancer(lb.ID, http.NotFoundHandler())
	ping, err := http.NewRequestWithContext(ctx, "GET", lb.RequestURLs.Health, nil)
	require.NoError(t, err)
	ping.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := srv.Client().Do(ping)
	require.NoError(t, err, "the fake's client reaches <id>.localhost, HTTP_PROXY or not")
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "health is served where requestUrls says")
	assert.Equal(t, []serverless.CPUConfig{{ID: "cpu3c", VCPUCount: 4, Memory: 8}}, lb.CPU)
	assert.Equal(t, []string{"cpu3c-4-8"}, stored(t, srv, lb.ID).InstanceIDs, "GraphQL's spelling of the same flavour")
	status, raw := podCall(t, srv, "GET", "/v2/serverless/"+lb.ID, "")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, raw, "gpu")
	assert.Nil(t, raw["gpu"], "a CPU endpoint's gpu is null")
}

// TestRESTEndpointRefusals: each rule, with the field named. The
// document's own rules are refused before the handler (422, not acted);
// the rules beyond the schema by the handler (400).
func TestRESTEndpointRefusals(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-1")
	podTmpl := srv.StoreTemplate(runpodtest.Template{Name: "pod", Image: "img"})
	gpu := `"gpu":{"pools":["ADA_24"]}`
	qd := `"scaling":{"type":"QUEUE_DELAY","queueDelay":4}`
	cases := []struct {
		name, method, body string
		status             int
		field              string
		acted              bool
	}{
		{"gpu and cpu together", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1",` + gpu + `,"cpu":[{"id":"cpu3c","vcpuCount":2}]}`, 400, "$.cpu:", true},
		{"neither gpu nor cpu", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1"}`, 400, "$.gpu:", true},
		{"templateId and image", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1","image":"a/b:1",` + gpu + `}`, 400, "$.image:", true},
		{"neither templateId nor image", "POST", `{"name":"x","type":"QUEUE",` + qd + `,` + gpu + `}`, 422, "$: missing property 'image'", false},
		{"unknown template", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"nosuch",` + gpu + `}`, 400, "$.templateId: template not found", true},
		{"pod template", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"` + podTmpl + `",` + gpu + `}`, 400, "$.templateId:", true},
		{"load balancer by queue delay", "POST", `{"name":"x","type":"LOAD_BALANCER",` + qd + `,"templateId":"tmpl-1",` + gpu + `}`, 422, "$.scaling", false},
		{"unknown field", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1",` + gpu + `,"bogus":1}`, 422, "$.bogus: property not allowed", false},
		{"unknown field inside gpu", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1","gpu":{"pools":["ADA_24"],"bogus":1}}`, 422, "$.gpu.bogus: property not allowed", false},
		{"workers max below min", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1",` + gpu + `,"workers":{"min":5}}`, 400, "$.workers.max:", true},
		{"cpu memory is not sent", "POST", `{"name":"x","type":"QUEUE",` + qd + `,"templateId":"tmpl-1","cpu":[{"id":"cpu3c","vcpuCount":2,"memory":4}]}`, 422, "$.cpu.0.memory: property not allowed", false},
	}
	for _, c := range cases {
		before := srv.Acted(runpodtest.RouteCreateEndpoint)
		status, m := podCall(t, srv, c.method, "/v2/serverless", c.body)
		assert.Equal(t, c.status, status, c.name)
		assert.True(t, strings.HasPrefix(strings.Join(problemErrors(m), "\n"), c.field) || containsPrefix(problemErrors(m), c.field),
			"%s: %v names %s", c.name, problemErrors(m), c.field)
		assert.Equal(t, c.acted, srv.Acted(runpodtest.RouteCreateEndpoint) > before, c.name)
	}
	assert.Empty(t, srv.Endpoints(), "nothing was created")

	lb := srv.AddEndpoint(runpodtest.Endpoint{Name: "lb", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24},
		Type: serverless.EndpointTypeLoadBalancer, ScalerType: serverless.ScalerTypeRequestCount, ScalerValue: 2, WorkersMin: 1})
	patches := []struct {
		name, body string
		status     int
		field      string
	}{
		{"load balancer by queue delay", `{"scaling":{"type":"QUEUE_DELAY","queueDelay":4}}`, 400, "$.scaling.type:"},
		{"type cannot change", `{"type":"QUEUE"}`, 422, "$.type: property not allowed"},
		{"unknown field", `{"name":"y","bogus":true}`, 422, "$.bogus: property not allowed"},
		{"gpu and cpu together", `{` + gpu + `,"cpu":[{"id":"cpu3c","vcpuCount":2}]}`, 400, "$.cpu:"},
		{"templateId and image", `{"templateId":"tmpl-1","image":"a/b:1"}`, 400, "$.image:"},
		{"workers max below min", `{"workers":{"max":0}}`, 400, "$.workers.max:"},
		{"workers min above max", `{"workers":{"min":9}}`, 400, "$.workers.min:"},
		{"excluded types need pools", `{"gpu":{"excludedTypes":["NVIDIA L4"]}}`, 422, "$.gpu: properties 'pools' required"},
		{"unknown template", `{"templateId":"nosuch"}`, 400, "$.templateId:"},
	}
	before := stored(t, srv, lb)
	for _, c := range patches {
		status, m := podCall(t, srv, "PATCH", "/v2/serverless/"+lb, c.body)
		assert.Equal(t, c.status, status, c.name)
		assert.True(t, containsPrefix(problemErrors(m), c.field), "%s: %v names %s", c.name, problemErrors(m), c.field)
	}
	assert.Equal(t, before, stored(t, srv, lb), "a refused change changes nothing")

	// The document's delete has no refusal for the endpoint's workers
	// (GraphQL's has).
	status, _ := podCall(t, srv, "DELETE", "/v2/serverless/"+lb, "")
	assert.Equal(t, 204, status, "deleted with a worker running")
	status, _ = podCall(t, srv, "DELETE", "/v2/serverless/"+lb, "")
	assert.Equal(t, 404, status)

	// The permissions of the GraphQL routes.
	reader := srv.NewKey(runpodtest.PermissionServerlessRead)
	req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/v2/serverless", strings.NewReader(cases[0].body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+reader)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = get(t, srv.URL+"/v2/serverless", "Authorization", "Bearer "+reader)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestRESTPatchKeepsEverythingElse: each PATCH changes what it sends and
// nothing else (the whole stored record compared before and after); a list
// is replaced whole, [] clears it, "registry": null removes the
// credentials, minCudaVersion "" removes the floor; a change of settings
// records a MANUAL release, no change none.
func TestRESTPatchKeepsEverythingElse(t *testing.T) {
	srv := newServer(t)
	ctx := t.Context()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	srv.AddTemplate("tmpl-other")
	for _, id := range []string{"vol-a", "vol-b", "vol-c"} {
		srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: id, DataCenter: "EU-RO-1"})
	}

	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
		Name: "full", Type: serverless.EndpointTypeQueue, Scaling: serverless.ScaleByQueueDelay(6),
		Image: runpod.Ptr("acme/worker:1"), Args: runpod.Ptr("python handler.py"), Disk: runpod.Ptr(25),
		Env: map[string]string{"MODEL": "m1", "HF_TOKEN": "hf_secret"}, Ports: []string{"8000/http"},
		Registry: nullable.NewNullableWithValue("reg-1"),
		GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere48}, Count: runpod.Ptr(2),
			ExcludedTypes: []string{"NVIDIA L4"}, AllowedCUDAVersions: []string{"12.4", "12.6"}, MinCUDAVersion: runpod.Ptr("12.1")},
		DataCenterIDs: []string{"EU-RO-1", "US-TX-3"}, NetworkVolumes: []string{"vol-a", "vol-b"},
		Timeout: runpod.Ptr(120000), FlashBoot: runpod.Ptr(serverless.FlashBootOn),
		Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(1), Max: runpod.Ptr(4), IdleTimeout: runpod.Ptr(30)},
	})
	require.NoError(t, err)
	rec := stored(t, srv, ep.ID)
	assert.Equal(t, "vol-a", rec.NetworkVolumeID)
	assert.Equal(t, []string{"vol-a", "vol-b"}, rec.NetworkVolumeIDs)
	assert.Equal(t, 6.0, rec.QueueDelay)
	assert.NotEmpty(t, rec.TemplateID, "the fake made the inline image's template")

	cases := []struct {
		name string
		req  serverless.UpdateEndpointRequest
		want func(*runpodtest.Endpoint)
	}{
		{"nothing", serverless.UpdateEndpointRequest{}, func(*runpodtest.Endpoint) {}},
		{"name", serverless.UpdateEndpointRequest{Name: runpod.Ptr("renamed")}, func(e *runpodtest.Endpoint) { e.Name = "renamed" }},
		{"workers max only", serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Max: runpod.Ptr(7)}},
			func(e *runpodtest.Endpoint) { e.WorkersMax = 7 }},
		{"idle timeout only", serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{IdleTimeout: runpod.Ptr(99)}},
			func(e *runpodtest.Endpoint) { e.IdleTimeout = 99 }},
		{"scaling", serverless.UpdateEndpointRequest{Scaling: runpod.Ptr(serverless.ScaleByRequestCount(3))},
			func(e *runpodtest.Endpoint) {
				e.ScalerType, e.ScalerValue, e.QueueDelay = serverless.ScalerTypeRequestCount, 3, 0
			}},
		{"timeout", serverless.UpdateEndpointRequest{Timeout: runpod.Ptr(5000)}, func(e *runpodtest.Endpoint) { e.ExecutionTimeout = 5 * time.Second }},
		{"flashboot", serverless.UpdateEndpointRequest{FlashBoot: runpod.Ptr(serverless.FlashBootOff)},
			func(e *runpodtest.Endpoint) { e.FlashBoot = serverless.FlashBootOff }},
		{"data centers replaced", serverless.UpdateEndpointRequest{DataCenterIDs: &[]string{"EU-RO-1"}},
			func(e *runpodtest.Endpoint) { e.DataCenterIDs = []string{"EU-RO-1"} }},
		{"data centers cleared", serverless.UpdateEndpointRequest{DataCenterIDs: &[]string{}}, func(e *runpodtest.Endpoint) { e.DataCenterIDs = nil }},
		{"network volumes replaced", serverless.UpdateEndpointRequest{NetworkVolumes: &[]string{"vol-c"}},
			func(e *runpodtest.Endpoint) { e.NetworkVolumeID, e.NetworkVolumeIDs = "vol-c", []string{"vol-c"} }},
		{"network volumes cleared", serverless.UpdateEndpointRequest{NetworkVolumes: &[]string{}},
			func(e *runpodtest.Endpoint) { e.NetworkVolumeID, e.NetworkVolumeIDs = "", nil }},
		{"gpu count", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{Count: runpod.Ptr(4)}},
			func(e *runpodtest.Endpoint) { e.GPUCount = 4 }},
		{"cuda floor removed", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{MinCUDAVersion: runpod.Ptr("")}},
			func(e *runpodtest.Endpoint) { e.MinCUDAVersion = "" }},
		{"cuda versions cleared", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{AllowedCUDAVersions: &[]string{}}},
			func(e *runpodtest.Endpoint) { e.AllowedCUDAVersions = nil }},
		{"pools and exclusions", serverless.UpdateEndpointRequest{GPU: &serverless.UpdateEndpointGPUConfig{
			Pools: []serverless.GPUPool{serverless.GPUPoolAmpere80}, ExcludedTypes: []string{"NVIDIA A100 80GB PCIe"}}},
			func(e *runpodtest.Endpoint) {
				e.GPUs, e.ExcludedGPUTypes = []serverless.GPUPool{serverless.GPUPoolAmpere80}, []string{"NVIDIA A100 80GB PCIe"}
			}},
		{"env replaced", serverless.UpdateEndpointRequest{Env: &map[string]string{"MODEL": "m2"}},
			func(e *runpodtest.Endpoint) { e.Env = map[string]string{"MODEL": "m2"} }},
		{"ports cleared", serverless.UpdateEndpointRequest{Ports: &[]string{}}, func(e *runpodtest.Endpoint) { e.Ports = []string{} }},
		{"registry removed", serverless.UpdateEndpointRequest{Registry: nullable.NewNullNullable[string]()},
			func(e *runpodtest.Endpoint) { e.Registry = "" }},
		{"args and disk", serverless.UpdateEndpointRequest{Args: runpod.Ptr("serve"), Disk: runpod.Ptr(40)},
			func(e *runpodtest.Endpoint) { e.Args, e.Disk = "serve", 40 }},
		{"image", serverless.UpdateEndpointRequest{Image: runpod.Ptr("acme/worker:2")}, func(e *runpodtest.Endpoint) { e.Image = "acme/worker:2" }},
	}
	for _, c := range cases {
		before := stored(t, srv, ep.ID)
		releases, err := rp.Serverless.Endpoints.Releases(ctx, ep.ID)
		require.NoError(t, err)
		_, err = rp.Serverless.Endpoints.Update(ctx, ep.ID, c.req)
		require.NoError(t, err, c.name)
		want := before
		c.want(&want)
		assert.Equal(t, want, stored(t, srv, ep.ID), c.name)
		after, err := rp.Serverless.Endpoints.Releases(ctx, ep.ID)
		require.NoError(t, err)
		if c.name == "nothing" {
			assert.Equal(t, releases.EndpointVersion, after.EndpointVersion, "no change, no release")
			continue
		}
		require.NotNil(t, releases.EndpointVersion)
		assert.Equal(t, runpod.Ptr(*releases.EndpointVersion+1), after.EndpointVersion, c.name)
		require.NotEmpty(t, after.Releases)
		assert.Equal(t, serverless.ReleaseSourceManual, after.Releases[0].Source, c.name)
	}

	got, err := rp.Serverless.Endpoints.Get(ctx, ep.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"MODEL": "m2"}, got.Env.Reveal())
	assert.Empty(t, got.Ports)
	assert.False(t, got.Registry.IsSpecified() && !got.Registry.IsNull(), "no registry")
	assert.Equal(t, runpod.Ptr("acme/worker:2"), got.Image)
	tmpl := stored(t, srv, ep.ID).TemplateID
	for _, tm := range srv.Templates() {
		if tm.ID == tmpl {
			assert.Equal(t, "acme/worker:2", tm.Image, "the inline image's template follows it")
			assert.Equal(t, 40, tm.Disk)
		}
	}

	// Moving to a template drops the inline image (and its template);
	// moving back makes a new one.
	_, err = rp.Serverless.Endpoints.Update(ctx, ep.ID, serverless.UpdateEndpointRequest{TemplateID: runpod.Ptr("tmpl-other")})
	require.NoError(t, err)
	rec = stored(t, srv, ep.ID)
	assert.Equal(t, "tmpl-other", rec.TemplateID)
	assert.Empty(t, rec.Image)
	assert.Nil(t, rec.Env)
	for _, tm := range srv.Templates() {
		assert.NotEqual(t, tmpl, tm.ID, "the inline image's template went with it")
	}
	got, err = rp.Serverless.Endpoints.Get(ctx, ep.ID)
	require.NoError(t, err)
	assert.Equal(t, runpod.Ptr("runpod/worker-basic:latest"), got.Image, "the template's")
}

// TestRESTEndpointSharedWithGraphQLAndJobs: an endpoint created over REST
// with an inline image runs jobs with the image's handler (registered
// before or after) and is listed by GraphQL, with the template the fake
// made for the image and its env; one saved over GraphQL is read over
// REST in the document's shape.
func TestRESTEndpointSharedWithGraphQLAndJobs(t *testing.T) {
	srv := newServer(t)
	ctx := t.Context()
	rp, err := srv.NewClient()
	require.NoError(t, err)

	srv.HandleImage("acme/echo:1", echoHandler)
	inline := func(name, image string) serverless.CreateEndpointRequest {
		return serverless.CreateEndpointRequest{
			Name: name, Type: serverless.EndpointTypeQueue, Scaling: serverless.ScaleByQueueDelay(1.5), Image: runpod.Ptr(image),
			Env: map[string]string{"GREETING": "hi"}, GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		}
	}
	before, err := rp.Serverless.Endpoints.Create(ctx, inline("before", "acme/echo:1"))
	require.NoError(t, err)
	later, err := rp.Serverless.Endpoints.Create(ctx, inline("later", "acme/upper:1"))
	require.NoError(t, err)
	srv.HandleImage("acme/upper:1", func(_ context.Context, job *worker.Job) (any, error) {
		var s string
		err := job.Decode(&s)
		return strings.ToUpper(s), err
	})
	job, err := rp.Serverless.Queue(before.ID).RunSync(ctx, serverless.RunParams{Input: "x"}, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `"x"`, string(job.Output))
	job, err = rp.Serverless.Queue(later.ID).RunSync(ctx, serverless.RunParams{Input: "y"}, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `"Y"`, string(job.Output))

	data, errs := gqlCall(t, srv, `query { myself { endpoints { id name templateId type scalerType scalerValue gpuIds env { key value } } } }`, nil)
	require.Empty(t, errs)
	eps := data["myself"].(map[string]any)["endpoints"].([]any)
	require.Len(t, eps, 2)
	first := eps[0].(map[string]any)
	assert.Equal(t, before.ID, first["id"])
	assert.Equal(t, stored(t, srv, before.ID).TemplateID, first["templateId"])
	assert.NotEmpty(t, first["templateId"])
	assert.Equal(t, "QB", first["type"])
	assert.EqualValues(t, 2, first["scalerValue"], "1.5 s rounded up")
	assert.Equal(t, []any{map[string]any{"key": "GREETING", "value": "hi"}}, first["env"])

	// Saved over GraphQL, read over REST.
	srv.AddTemplate("tmpl-gql")
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-gql", DataCenter: "EU-RO-1"})
	data, errs = gqlCall(t, srv, `mutation($input: EndpointInput!) { saveEndpoint(input: $input) { id locations instanceIds computeType networkVolume { id dataCenterId } } }`,
		map[string]any{"input": map[string]any{"name": "cpu-gql", "templateId": "tmpl-gql", "instanceIds": []string{"cpu3g-4-16"},
			"locations": "US,EU-RO-1", "networkVolumeId": "vol-gql", "type": "QB", "scalerType": "REQUEST_COUNT", "scalerValue": 2}})
	require.Empty(t, errs)
	saved := data["saveEndpoint"].(map[string]any)
	assert.Equal(t, "US,EU-RO-1", saved["locations"])
	assert.Equal(t, "CPU", saved["computeType"])
	assert.Equal(t, map[string]any{"id": "vol-gql", "dataCenterId": "EU-RO-1"}, saved["networkVolume"])
	id := saved["id"].(string)
	got, err := rp.Serverless.Endpoints.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, []serverless.CPUConfig{{ID: "cpu3g", VCPUCount: 4, Memory: 16}}, got.CPU)
	assert.Nil(t, got.GPU)
	assert.Equal(t, []string{"EU-RO-1"}, got.DataCenterIDs, "the data center of locations")
	assert.Equal(t, []string{"vol-gql"}, got.NetworkVolumes)
	assert.Equal(t, serverless.ScaleByRequestCount(2), got.Scaling)
	assert.Equal(t, 600000, got.Timeout, "GraphQL's default")
	list, err := rp.Serverless.Endpoints.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 3)
}

// TestRetireGraphQL: retired, the GraphQL API answers 410 Gone with a
// problem+json saying to use REST API v2, to every caller, key or not,
// before anything else; REST serves on; the switch turns back.
func TestRetireGraphQL(t *testing.T) {
	srv := newServer(t)
	fakegraphql.Retire(srv, true)
	post := func(header ...string) (int, map[string]any) {
		req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/graphql", strings.NewReader(`{"query":"{ myself { id } }"}`))
		require.NoError(t, err)
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusGone {
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
		}
		var m map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	status, m := post("Authorization", "Bearer "+srv.APIKey)
	assert.Equal(t, http.StatusGone, status)
	assert.Equal(t, "Gone", m["title"])
	assert.EqualValues(t, 410, m["status"])
	assert.Contains(t, m["detail"], "GraphQL API is retired")
	assert.Contains(t, m["detail"], "REST API v2")
	status, _ = post()
	assert.Equal(t, http.StatusGone, status, "no key: still 410, as the retired REST v1 answered everyone")
	status, _ = post("Authorization", "Bearer rpa_BAD")
	assert.Equal(t, http.StatusGone, status)
	assert.Equal(t, 3, srv.Count(fakegraphql.Route))
	assert.Zero(t, srv.Acted(fakegraphql.Route))

	resp, _ := get(t, srv.URL+"/v2/serverless", "Authorization", "Bearer "+srv.APIKey)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "REST serves on")

	fakegraphql.Retire(srv, false)
	status, _ = post("Authorization", "Bearer "+srv.APIKey)
	assert.Equal(t, http.StatusOK, status)
	status, _ = post()
	assert.Equal(t, http.StatusUnauthorized, status)
	fakegraphql.Retire(srv, true)
	status, _ = post("Authorization", "Bearer "+srv.APIKey)
	assert.Equal(t, http.StatusGone, status)

	// The SDK's GraphQL path sees the 410 as an error.
	rp, err := srv.NewClient()
	require.NoError(t, err)
	_, err = graphqlendpoints.NewFromConfig(rp.Config()).List(t.Context())
	require.Error(t, err)
}

// TestUpdateEndpointTemplate: the mutation as runpodctl sends it (a
// nullable input variable) changes the template and nothing else, with a
// MANUAL release; an unknown template or endpoint is an error.
func TestUpdateEndpointTemplate(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-a", "tmpl-b")
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "switch", TemplateID: "tmpl-a", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24},
		WorkersMin: 1, WorkersStandby: 1, AllowedCUDAVersions: []string{"12.4"}, DataCenterIDs: []string{"EU-RO-1"}})
	before := stored(t, srv, id)

	const doc = `
		mutation Mutation($input: UpdateEndpointTemplateInput) {
			updateEndpointTemplate(input: $input) {
			  id
			  templateId
			}
		  }
	`
	data, errs := gqlCall(t, srv, doc, map[string]any{"input": map[string]any{"endpointId": id, "templateId": "tmpl-b"}})
	require.Empty(t, errs)
	assert.Equal(t, map[string]any{"id": id, "templateId": "tmpl-b"}, data["updateEndpointTemplate"])
	want := before
	want.TemplateID = "tmpl-b"
	assert.Equal(t, want, stored(t, srv, id), "only the template changed")
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "updateEndpointTemplate"))

	rp, err := srv.NewClient()
	require.NoError(t, err)
	rel, err := rp.Serverless.Endpoints.Releases(t.Context(), id)
	require.NoError(t, err)
	require.Len(t, rel.Releases, 1)
	assert.Equal(t, "templateId", rel.Releases[0].Diff[0].Field)

	_, errs = gqlCall(t, srv, doc, map[string]any{"input": map[string]any{"endpointId": id, "templateId": "nosuch"}})
	require.NotEmpty(t, errs)
	assert.Contains(t, fmt.Sprint(errs[0]), "template not found")
	_, errs = gqlCall(t, srv, doc, map[string]any{"input": map[string]any{"endpointId": "nope", "templateId": "tmpl-a"}})
	require.NotEmpty(t, errs)
	assert.Contains(t, fmt.Sprint(errs[0]), "endpoint not found")
	assert.Equal(t, "tmpl-b", stored(t, srv, id).TemplateID)
}

// TestSaveEndpointRetention: saveEndpoint replaces the endpoint whole, an
// input it leaves out reset to its default (allowedCudaVersions too), but
// workersStandby is no input: no save changes it, and a save naming it is
// refused.
func TestSaveEndpointRetention(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-1")
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "standby", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersStandby: 2})
	const save = `mutation($input: EndpointInput!) { saveEndpoint(input: $input) { id allowedCudaVersions workersStandby } }`
	input := map[string]any{"id": id, "name": "standby", "templateId": "tmpl-1", "gpuIds": "ADA_24", "allowedCudaVersions": "12.1,12.2"}
	data, errs := gqlCall(t, srv, save, map[string]any{"input": input})
	require.Empty(t, errs)
	assert.Equal(t, map[string]any{"id": id, "allowedCudaVersions": "12.1,12.2", "workersStandby": float64(2)}, data["saveEndpoint"])
	assert.Equal(t, []string{"12.1", "12.2"}, stored(t, srv, id).AllowedCUDAVersions)

	delete(input, "allowedCudaVersions")
	data, errs = gqlCall(t, srv, save, map[string]any{"input": input})
	require.Empty(t, errs)
	assert.Equal(t, map[string]any{"id": id, "allowedCudaVersions": nil, "workersStandby": float64(2)}, data["saveEndpoint"])
	assert.Nil(t, stored(t, srv, id).AllowedCUDAVersions, "reset when a save leaves it out")
	assert.Equal(t, 2, stored(t, srv, id).WorkersStandby, "kept across saves")

	input["workersStandby"] = 5
	_, errs = gqlCall(t, srv, save, map[string]any{"input": input})
	require.NotEmpty(t, errs, "workersStandby is not an EndpointInput field")
	assert.Equal(t, 2, stored(t, srv, id).WorkersStandby)
}

// TestRunpodPythonDocuments: the GraphQL documents runpod-python's
// endpoint helpers send (runpod/api/queries/endpoints.py QUERY_ENDPOINT;
// runpod/api/mutations/endpoints.py generate_endpoint_mutation and
// update_endpoint_template_mutation, as they format them), sent as the
// client sends them, get data and no error.
func TestRunpodPythonDocuments(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	srv := newServer(t, runpodtest.WithClock(func() time.Time { return at }))
	srv.AddTemplate("tmpl-py", "tmpl-py2")
	srv.StoreTemplate(runpodtest.Template{ID: "tmpl-py", Image: "acme/py:1", Serverless: true, Env: map[string]string{"A": "1"}})

	// generate_endpoint_mutation("test", "tmpl-py", flashboot=True,
	// allowed_cuda_versions="12.1,12.2", gpu_count=1)
	const save = `
    mutation {
        saveEndpoint(
            input: {
                flashBootType: FLASHBOOT, name: "test", templateId: "tmpl-py", gpuIds: "AMPERE_16", networkVolumeId: "", locations: "", idleTimeout: 5, scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3, allowedCudaVersions: "12.1,12.2", gpuCount: 1
            }
        ) {
            id
            name
            templateId
            gpuIds
            networkVolumeId
            locations
            idleTimeout
            scalerType
            scalerValue
            workersMin
            workersMax
            allowedCudaVersions
            gpuCount
            flashBootType
        }
    }
    `
	data, errs := gqlCall(t, srv, save, nil)
	require.Empty(t, errs)
	ep := data["saveEndpoint"].(map[string]any)
	id := ep["id"].(string)
	assert.Equal(t, "12.1,12.2", ep["allowedCudaVersions"])
	assert.Equal(t, "FLASHBOOT", ep["flashBootType"])
	assert.Nil(t, ep["networkVolumeId"])
	assert.Equal(t, "", ep["locations"])

	const query = `
query Query {
  myself {
    endpoints {
      aiKey
      gpuIds
      id
      idleTimeout
      name
      networkVolumeId
      locations
      scalerType
      scalerValue
      templateId
      type
      userId
      version
      workersMax
      workersMin
      workersStandby
      gpuCount
      env {
        key
        value
      }
      createdAt
      networkVolume {
        id
        dataCenterId
      }
    }
  }
}
`
	data, errs = gqlCall(t, srv, query, nil)
	require.Empty(t, errs)
	eps := data["myself"].(map[string]any)["endpoints"].([]any)
	require.Len(t, eps, 1)
	got := eps[0].(map[string]any)
	assert.Equal(t, id, got["id"])
	assert.Equal(t, []any{map[string]any{"key": "A", "value": "1"}}, got["env"])
	assert.NotEmpty(t, got["aiKey"])
	assert.NotEmpty(t, got["userId"])
	assert.EqualValues(t, 1, got["version"])
	assert.EqualValues(t, 0, got["workersStandby"])
	assert.Nil(t, got["networkVolume"])
	assert.Equal(t, "2026-11-20T09:30:00Z", got["createdAt"], "by the fake's clock")
	again, _ := gqlCall(t, srv, query, nil)
	assert.Equal(t, got["aiKey"], again["myself"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["aiKey"], "a stable key")
	assert.Equal(t, got["createdAt"], again["myself"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["createdAt"], "a stable time")

	// update_endpoint_template_mutation(id, "tmpl-py2")
	update := `
    mutation {
        updateEndpointTemplate(input: {templateId: "tmpl-py2", endpointId: "` + id + `"}) {
            id
            templateId
        }
    }
    `
	data, errs = gqlCall(t, srv, update, nil)
	require.Empty(t, errs)
	assert.Equal(t, map[string]any{"id": id, "templateId": "tmpl-py2"}, data["updateEndpointTemplate"])
}
