package runpodtest_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
	"github.com/runpodkit/runpod-go/templates"
)

// The rules of this file are what the platform refuses and the fake used
// to accept (issue 26, item 12), so that a test that passes against the
// fake does not fail in production: references to network volumes, GPU
// types and counts the catalog has, the workers a running job keeps, and
// the catalog's prices.

// refusal asserts a 400 problem whose errors name field and say what.
func refusal(t *testing.T, status int, body map[string]any, field, what string) {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, status, body)
	errs := problemErrors(body)
	require.Len(t, errs, 1, body)
	assert.True(t, strings.HasPrefix(errs[0], "$."+field+": "), "the field is named: %q", errs[0])
	assert.Contains(t, errs[0], what)
}

// TestEndpointNetworkVolumeRules: an endpoint's network volumes must
// exist, and be in one of its data centers when it names some, on a REST
// create and update and a GraphQL save; nothing is stored when refused.
func TestEndpointNetworkVolumeRules(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-1")
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-ro", DataCenter: "EU-RO-1"})
	create := func(extra string) (int, map[string]any) {
		return podCall(t, srv, "POST", "/v2/serverless", `{"name":"e","type":"QUEUE","scaling":{"type":"QUEUE_DELAY","queueDelay":4},`+
			`"templateId":"tmpl-1","gpu":{"pools":["ADA_24"]}`+extra+`}`)
	}

	status, body := create(`,"networkVolumes":["vol-ro","vol-nope"]`)
	refusal(t, status, body, "networkVolumes[1]", "network volume vol-nope not found")
	status, body = create(`,"networkVolumes":["vol-ro"],"dataCenterIds":["US-TX-3"]`)
	refusal(t, status, body, "networkVolumes[0]", "network volume vol-ro is in data center EU-RO-1")
	assert.Empty(t, srv.Endpoints(), "nothing stored")
	status, _ = podCall(t, srv, "DELETE", "/v2/templates/tmpl-1", "")
	assert.Equal(t, http.StatusNoContent, status, "no refused create counts as a user of the template")
	srv.AddTemplate("tmpl-1")

	status, body = create(`,"networkVolumes":["vol-ro"],"dataCenterIds":["EU-RO-1","US-TX-3"]`)
	require.Equal(t, http.StatusCreated, status, body)
	id := body["id"].(string)
	status, body = podCall(t, srv, "PATCH", "/v2/serverless/"+id, `{"networkVolumes":["vol-nope"]}`)
	refusal(t, status, body, "networkVolumes[0]", "not found")
	status, body = podCall(t, srv, "PATCH", "/v2/serverless/"+id, `{"dataCenterIds":["US-TX-3"]}`)
	refusal(t, status, body, "dataCenterIds", "network volume vol-ro is in data center EU-RO-1")
	assert.Equal(t, []string{"vol-ro"}, stored(t, srv, id).NetworkVolumeIDs, "unchanged")
	assert.Equal(t, []string{"EU-RO-1", "US-TX-3"}, stored(t, srv, id).DataCenterIDs, "unchanged")

	// GraphQL's saveEndpoint: locations carries the data centers.
	save := `mutation($input: EndpointInput!) { saveEndpoint(input: $input) { id } }`
	input := func(extra map[string]any) map[string]any {
		in := map[string]any{"name": "gql-endpoint", "templateId": "tmpl-1", "gpuIds": "ADA_24"}
		for k, v := range extra {
			in[k] = v
		}
		return map[string]any{"input": in}
	}
	for name, c := range map[string]struct {
		extra map[string]any
		want  string
	}{
		"unknown volume":         {map[string]any{"networkVolumeId": "vol-nope"}, "networkVolumeId: network volume vol-nope not found"},
		"unknown of the list":    {map[string]any{"networkVolumeIds": []any{map[string]any{"networkVolumeId": "vol-nope"}}}, "networkVolumeIds: network volume vol-nope not found"},
		"outside its locations":  {map[string]any{"networkVolumeId": "vol-ro", "locations": "US-TX-3"}, "network volume vol-ro is in data center EU-RO-1"},
		"outside on an existing": {map[string]any{"id": id, "networkVolumeId": "vol-ro", "locations": "AP-JP-1"}, "network volume vol-ro is in data center EU-RO-1"},
	} {
		data, errs := gqlCall(t, srv, save, input(c.extra))
		require.Len(t, errs, 1, name)
		e := errs[0].(map[string]any)
		assert.Contains(t, e["message"], c.want, name)
		assert.Equal(t, "BAD_USER_INPUT", e["extensions"].(map[string]any)["code"], name)
		assert.Nil(t, data["saveEndpoint"], name)
	}
	assert.Len(t, srv.Endpoints(), 1, "no save stored anything")
	_, errs := gqlCall(t, srv, save, input(map[string]any{"networkVolumeId": "vol-ro", "locations": "US,EU-RO-1"}))
	require.Empty(t, errs, "a volume in its data center")
}

// TestNetworkVolumeInUseIsNotDeleted: a volume an endpoint, a pod or a
// cluster's pod mounts is not deleted (400 naming the user); once nothing
// uses it, it is. An unknown data center is named as such.
func TestNetworkVolumeInUseIsNotDeleted(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-1")
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-KS-2"})
	del := func() (int, map[string]any) { return podCall(t, srv, "DELETE", "/v2/network-volumes/"+vol, "") }

	status, body := podCall(t, srv, "POST", "/v2/serverless", `{"name":"e","type":"QUEUE","scaling":{"type":"QUEUE_DELAY","queueDelay":4},`+
		`"templateId":"tmpl-1","gpu":{"pools":["ADA_24"]},"networkVolumes":["`+vol+`"]}`)
	require.Equal(t, http.StatusCreated, status, body)
	ep := body["id"].(string)
	status, body = del()
	require.Equal(t, http.StatusBadRequest, status, body)
	assert.Equal(t, "network volume is in use by serverless endpoint "+ep+" and cannot be deleted: remove it from every pod and serverless endpoint first", body["detail"])
	status, body = podCall(t, srv, "PATCH", "/v2/serverless/"+ep, `{"networkVolumes":[]}`)
	require.Equal(t, http.StatusOK, status, body)

	status, body = podCall(t, srv, "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA RTX A6000","count":1},"mounts":{"network":[{"volumeId":"`+vol+`","path":"/v"}]}}`)
	require.Equal(t, http.StatusCreated, status, body)
	assert.Equal(t, "US-KS-2", body["dataCenterId"], "a pod runs where its network volume is")
	pod := body["id"].(string)
	status, body = del()
	require.Equal(t, http.StatusBadRequest, status, body)
	assert.Contains(t, body["detail"], "in use by pod "+pod)
	status, _ = podCall(t, srv, "DELETE", "/v2/pods/"+pod, "")
	require.Equal(t, http.StatusNoContent, status)

	status, body = podCall(t, srv, "POST", "/v2/clusters", `{"name":"c","type":"TRAINING","image":"x","compute":{"gpuTypeId":"NVIDIA RTX A6000","gpuCountPerPod":2,"podCount":2},`+
		`"mounts":{"network":[{"volumeId":"`+vol+`","path":"/v"}]}}`)
	require.Equal(t, http.StatusCreated, status, body)
	assert.Equal(t, "US-KS-2", body["dataCenterId"], "a cluster runs where its network volume is")
	cluster := body["id"].(string)
	status, body = del()
	require.Equal(t, http.StatusBadRequest, status, body)
	assert.Contains(t, body["detail"], "of cluster "+cluster)
	status, _ = podCall(t, srv, "DELETE", "/v2/clusters/"+cluster, "")
	require.Equal(t, http.StatusNoContent, status)

	status, body = del()
	require.Equal(t, http.StatusNoContent, status, body)
	assert.Empty(t, srv.NetworkVolumes())

	// A pod or cluster on a volume that does not exist, or outside the
	// data centers it names, is refused.
	other := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	status, body = podCall(t, srv, "POST", "/v2/pods", `{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2},"mounts":{"network":[{"volumeId":"`+vol+`","path":"/v"}]}}`)
	refusal(t, status, body, "mounts.network[0].volumeId", "network volume "+vol+" not found")
	status, body = podCall(t, srv, "POST", "/v2/pods", `{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2},"dataCenterIds":["US-TX-3"],`+
		`"mounts":{"network":[{"volumeId":"`+other+`","path":"/v"}]}}`)
	refusal(t, status, body, "mounts.network[0].volumeId", "is in data center EU-RO-1")
	status, body = podCall(t, srv, "POST", "/v2/clusters", `{"name":"c","type":"TRAINING","image":"x","compute":{"gpuTypeId":"NVIDIA RTX A6000","gpuCountPerPod":1,"podCount":2},`+
		`"mounts":{"network":[{"volumeId":"nope","path":"/v"}]}}`)
	refusal(t, status, body, "mounts.network[0].volumeId", "network volume nope not found")
	assert.Empty(t, srv.Clusters())

	// Item 17: an unknown data center is said to be unknown.
	status, body = podCall(t, srv, "POST", "/v2/network-volumes", `{"name":"v","size":10,"dataCenter":"NOPE-1"}`)
	refusal(t, status, body, "dataCenter", `unknown data center "NOPE-1"`)
	srv.AddDataCenter(runpodtest.DataCenter{ID: "XX-NOVOL-1"})
	status, body = podCall(t, srv, "POST", "/v2/network-volumes", `{"name":"v","size":10,"dataCenter":"XX-NOVOL-1"}`)
	refusal(t, status, body, "dataCenter", "data center XX-NOVOL-1 offers no network volumes")
}

// TestPodAndClusterGPUsFromTheCatalog: a pod or cluster of a GPU type the
// catalog does not have, not offered on the pod's cloud, or with more
// GPUs per pod than the type's maxCount there, is refused, and nothing is
// made.
func TestPodAndClusterGPUsFromTheCatalog(t *testing.T) {
	srv := newServer(t)
	for _, c := range []struct {
		body, field, what string
	}{
		{`{"name":"p","image":"x","gpu":{"id":"NVIDIA Nope"}}`, "gpu.id", `unknown GPU type "NVIDIA Nope"`},
		{`{"name":"p","image":"x","gpu":{"id":"NVIDIA H100 80GB HBM3","count":16}}`, "gpu.count", "at most 8 GPUs of type NVIDIA H100 80GB HBM3 fit one pod on SECURE cloud, got 16"},
		{`{"name":"p","image":"x","cloud":"COMMUNITY","gpu":{"id":"NVIDIA GeForce RTX 4090","count":5}}`, "gpu.count", "at most 4 GPUs"},
		{`{"name":"p","image":"x","cloud":"COMMUNITY","gpu":{"id":"NVIDIA L4"}}`, "gpu.id", "GPU type NVIDIA L4 is not offered on COMMUNITY cloud"},
		{`{"name":"p","image":"x","cpu":{"id":"cpu9z","vcpuCount":2}}`, "cpu.id", `unknown CPU flavor "cpu9z"`},
	} {
		status, body := podCall(t, srv, "POST", "/v2/pods", c.body)
		refusal(t, status, body, c.field, c.what)
	}
	assert.Empty(t, srv.Pods())
	status, body := podCall(t, srv, "POST", "/v2/pods", `{"name":"p","image":"x","gpu":{"id":"NVIDIA H100 80GB HBM3","count":8}}`)
	require.Equal(t, http.StatusCreated, status, body, "the most the type allows")

	cluster := func(gpu string, perPod int) (int, map[string]any) {
		return podCall(t, srv, "POST", "/v2/clusters", `{"name":"c","type":"TRAINING","image":"x","compute":{"gpuTypeId":"`+gpu+
			`","gpuCountPerPod":`+strconv.Itoa(perPod)+`,"podCount":2}}`)
	}
	status, body = cluster("NVIDIA Nope", 1)
	refusal(t, status, body, "compute.gpuTypeId", `unknown GPU type "NVIDIA Nope"`)
	status, body = cluster("NVIDIA H100 80GB HBM3", 16)
	refusal(t, status, body, "compute.gpuCountPerPod", "at most 8 GPUs")
	assert.Empty(t, srv.Clusters())
	assert.Len(t, srv.Pods(), 1, "no cluster pod was made")
}

// TestPodCostFromTheCatalog: a pod costs the catalog's price of its GPU
// type on its cloud times its GPUs (or of its CPU flavor times its
// vCPUs), nothing while it is stopped; a cluster's pods alike.
func TestPodCostFromTheCatalog(t *testing.T) {
	srv := newServer(t)
	srv.AddGPUType(runpodtest.GPUType{ID: "ACME X1", SecurePrice: 1.25, CommunityPrice: 0.5, MaxSecure: 4, MaxCommunity: 2})
	for _, c := range []struct {
		body string
		cost float64
	}{
		{`{"name":"p","image":"x","gpu":{"id":"NVIDIA L4","count":2}}`, 0.86},
		{`{"name":"p","image":"x","cloud":"COMMUNITY","gpu":{"id":"NVIDIA GeForce RTX 4090","count":1}}`, 0.34},
		{`{"name":"p","image":"x","gpu":{"id":"NVIDIA H100 80GB HBM3","count":4}}`, 11.96},
		{`{"name":"p","image":"x","gpu":{"id":"ACME X1","count":3}}`, 3.75},
		{`{"name":"p","image":"x","cloud":"COMMUNITY","gpu":{"id":"ACME X1","count":2}}`, 1},
		{`{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":4}}`, 0.2},
	} {
		status, body := podCall(t, srv, "POST", "/v2/pods", c.body)
		require.Equal(t, http.StatusCreated, status, body)
		assert.InDelta(t, c.cost, body["cost"], 1e-9, c.body)
		status, body = podCall(t, srv, "POST", "/v2/pods/"+body["id"].(string)+"/action", `{"action":"stop"}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.Zero(t, body["cost"], "0.0 when EXITED")
	}

	id := srv.AddPod(runpodtest.Pod{Name: "fixture", Image: "x", GPU: "NVIDIA A100 80GB PCIe", GPUCount: 2})
	_, body := podCall(t, srv, "GET", "/v2/pods/"+id, "")
	assert.InDelta(t, 3.28, body["cost"], 1e-9)

	status, body := podCall(t, srv, "POST", "/v2/clusters", `{"name":"c","type":"TRAINING","image":"x","compute":{"gpuTypeId":"NVIDIA H100 80GB HBM3","gpuCountPerPod":8,"podCount":2}}`)
	require.Equal(t, http.StatusCreated, status, body)
	_, body = podCall(t, srv, "GET", "/v2/clusters/"+body["id"].(string)+"/pods", "")
	members := body["pods"].([]any)
	require.Len(t, members, 2)
	for _, m := range members {
		assert.InDelta(t, 23.92, m.(map[string]any)["cost"], 1e-9)
	}
}

// TestScaleDownAndDeleteWaitsForARunningJob: a job in progress on an
// endpoint with workers.min 0 has a worker, listed RUNNING by GET
// /v2/serverless/{id}/workers (and by GraphQL's pods) with the same id
// until the job ends, so ScaleDownAndDelete waits for the job before it
// deletes the endpoint.
func TestScaleDownAndDeleteWaitsForARunningJob(t *testing.T) {
	srv := newServer(t)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.HandleTemplate("tmpl-slow", func(ctx context.Context, _ *worker.Job) (any, error) {
		once.Do(func() { close(started) })
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	ep, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("slow", "tmpl-slow"))
	require.NoError(t, err)
	require.Equal(t, runpod.Ptr(0), ep.Workers.Min)
	ws, err := rp.Serverless.Endpoints.Workers(ctx, ep.ID)
	require.NoError(t, err)
	assert.Empty(t, ws.Workers, "no job, no worker")

	job, err := rp.Serverless.Queue(ep.ID).Run(ctx, serverless.RunParams{Input: "x"})
	require.NoError(t, err)
	<-started
	first, err := rp.Serverless.Endpoints.Workers(ctx, ep.ID)
	require.NoError(t, err)
	require.Len(t, first.Workers, 1, "the job's worker")
	assert.Equal(t, serverless.EndpointWorkerStatusRunning, first.Workers[0].Status)
	assert.Equal(t, 1, first.Summary.Running)
	again, err := rp.Serverless.Endpoints.Workers(ctx, ep.ID)
	require.NoError(t, err)
	require.Len(t, again.Workers, 1)
	assert.Equal(t, first.Workers[0].ID, again.Workers[0].ID, "a stable id while the job runs")
	data, errs := gqlCall(t, srv, `{ myself { endpoints { id pods { desiredStatus } } } }`, nil)
	require.Empty(t, errs)
	eps := data["myself"].(map[string]any)["endpoints"].([]any)
	require.Len(t, eps, 1)
	assert.Equal(t, []any{map[string]any{"desiredStatus": "RUNNING"}}, eps[0].(map[string]any)["pods"], "GraphQL lists it too")

	checks := make(chan int, 1024)
	done := make(chan error, 1)
	go func() {
		done <- rp.Serverless.Endpoints.ScaleDownAndDelete(ctx, ep.ID, option.Poll[int]{OnCheck: func(n int) {
			select {
			case checks <- n:
			default:
			}
		}})
	}()
	select {
	case n := <-checks:
		assert.Equal(t, 1, n, "the running job's worker is counted")
	case err := <-done:
		require.FailNow(t, "ScaleDownAndDelete returned while the job was in progress", "err: %v", err)
	}
	assert.Len(t, srv.Endpoints(), 1, "not deleted while the job runs")
	close(release)
	require.NoError(t, <-done)
	assert.Empty(t, srv.Endpoints())
	got, err := rp.Serverless.Queue(ep.ID).Status(ctx, job.ID)
	if err == nil {
		assert.Equal(t, serverless.JobStatusCompleted, got.Status, "the job ended before the delete")
	}
}

// TestHandleTemplateNamedAndAny: a program under test creates its
// template (rp.Templates.Create) and then an endpoint of it; the handler
// registered for the template's name runs its jobs, and HandleAnyTemplate
// runs those of every endpoint with no handler of its own, existing or
// new, without taking over an endpoint whose jobs are served already.
func TestHandleTemplateNamedAndAny(t *testing.T) {
	srv := newServer(t)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	by := func(name string) worker.Handler {
		return func(_ context.Context, job *worker.Job) (any, error) {
			return map[string]any{"by": name, "input": job.Input}, nil
		}
	}
	run := func(endpointID string) any {
		t.Helper()
		job, err := rp.Serverless.Queue(endpointID).RunSync(ctx, serverless.RunParams{Input: "x"}, serverless.WaitOptions{})
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, job.Decode(&out))
		return out["by"]
	}
	served := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "served", TemplateID: "tmpl-served"}, by("own"))
	idle := srv.AddEndpoint(runpodtest.Endpoint{Name: "idle", TemplateID: "tmpl-idle"})
	srv.HandleTemplateNamed("my-worker", by("named"))
	srv.HandleAnyTemplate(by("any"))
	assert.Equal(t, "own", run(served), "served already: kept")
	assert.Equal(t, "any", run(idle), "an existing endpoint without a handler")

	// The program under test: its template, then its endpoint.
	tmpl, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "my-worker", Image: "acme/worker:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	ep, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("mine", tmpl.ID))
	require.NoError(t, err)
	assert.Equal(t, "named", run(ep.ID), "by its template's name")

	other, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "another", Image: "acme/other:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	ep2, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("theirs", other.ID))
	require.NoError(t, err)
	assert.Equal(t, "any", run(ep2.ID), "the fallback")
	inline := queueRequest("inline", "")
	inline.TemplateID, inline.Image = nil, runpod.Ptr("acme/inline:1")
	ep3, err := rp.Serverless.Endpoints.Create(ctx, inline)
	require.NoError(t, err)
	assert.Equal(t, "any", run(ep3.ID), "an inline image without a handler")

	// Moved to the named template, an endpoint runs the named handler; a
	// handler of the template's id wins over its name's.
	_, err = rp.Serverless.Endpoints.Update(ctx, ep2.ID, serverless.UpdateEndpointRequest{TemplateID: &tmpl.ID})
	require.NoError(t, err)
	assert.Equal(t, "named", run(ep2.ID))
	srv.HandleTemplate(tmpl.ID, by("id"))
	assert.Equal(t, "id", run(ep.ID))

	// A name registered after the endpoint exists takes it over from the
	// fallback.
	late, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "late", Image: "acme/late:1", Serverless: runpod.Ptr(true)})
	require.NoError(t, err)
	ep4, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("late", late.ID))
	require.NoError(t, err)
	assert.Equal(t, "any", run(ep4.ID))
	srv.HandleTemplateNamed("late", by("late"))
	assert.Equal(t, "late", run(ep4.ID))

	var apiErr *errs.APIError
	_, err = rp.Serverless.Queue("ep-unknown").Run(ctx, serverless.RunParams{Input: 1})
	require.True(t, errors.As(err, &apiErr), "an endpoint that does not exist is still not served: %v", err)
}
