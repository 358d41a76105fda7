package runpodtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// templateIDs returns the ids of the fake's templates.
func templateIDs(srv *runpodtest.Server) []string {
	var ids []string
	for _, t := range srv.Templates() {
		ids = append(ids, t.ID)
	}
	return ids
}

// TestRESTDeleteServingEndpoint: DELETE /v2/serverless/{id} does what the
// REST v2 document says, on an endpoint with workers: 204, no refusal;
// its running job's handler is stopped and the job and the one queued
// behind it end CANCELLED, as /status shows; its workers and the endpoint
// are gone, and its job API takes no more jobs. The template the fake made
// for an endpoint's inline image (its bound template) goes with it; an
// account template an endpoint was created from stays, used by nothing,
// so it can be deleted. GraphQL's deleteEndpoint still refuses an
// endpoint that is not scaled to zero.
func TestRESTDeleteServingEndpoint(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-1")
	started, stopped := make(chan string, 1), make(chan struct{})
	srv.HandleTemplate("tmpl-1", func(ctx context.Context, job *worker.Job) (any, error) {
		started <- job.ID
		<-ctx.Done()
		close(stopped)
		return "too late", nil
	})
	gpu := `"gpu":{"pools":["ADA_24"]},"scaling":{"type":"QUEUE_DELAY","queueDelay":4},"workers":{"min":1,"max":2}`
	status, m := podCall(t, srv, "POST", "/v2/serverless", `{"name":"serving","type":"QUEUE","templateId":"tmpl-1",`+gpu+`}`)
	require.Equal(t, http.StatusCreated, status, m)
	ep := m["id"].(string)
	status, m = podCall(t, srv, "POST", "/v2/serverless", `{"name":"inline","type":"QUEUE","image":"acme/worker:1",`+gpu+`}`)
	require.Equal(t, http.StatusCreated, status, m)
	inline := m["id"].(string)
	inlineTemplate := stored(t, srv, inline).TemplateID
	require.Contains(t, templateIDs(srv), inlineTemplate, "the fake made the inline image's template")

	_, m = call(t, srv, "POST", "/v2/"+ep+"/run", `{"input":"run"}`)
	running := m["id"].(string)
	assert.Equal(t, running, <-started)
	_, m = call(t, srv, "POST", "/v2/"+ep+"/run", `{"input":"wait"}`)
	queued := m["id"].(string)
	assert.Equal(t, "IN_QUEUE", m["status"], "the one worker is busy")
	require.NotEmpty(t, srv.WorkerIDs(ep))

	status, m = podCall(t, srv, "DELETE", "/v2/serverless/"+ep, "")
	require.Equal(t, http.StatusNoContent, status, m)
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the running job's handler was not stopped")
	}
	for _, id := range []string{running, queued} {
		resp, m := call(t, srv, "GET", "/v2/"+ep+"/status/"+id, "")
		assert.Equal(t, http.StatusOK, resp.StatusCode, id)
		assert.Equal(t, "CANCELLED", m["status"], id)
		assert.Nil(t, m["output"], "no result of a stopped job")
	}
	for _, path := range []string{"/run", "/runsync", "/health"} {
		method := http.MethodPost
		if path == "/health" {
			method = http.MethodGet
		}
		resp, _ := call(t, srv, method, "/v2/"+ep+path, `{"input":1}`)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s on a deleted endpoint", path)
	}
	status, _ = podCall(t, srv, "GET", "/v2/serverless/"+ep, "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = podCall(t, srv, "GET", "/v2/serverless/"+ep+"/workers", "")
	assert.Equal(t, http.StatusNotFound, status, "its workers are gone")
	assert.Empty(t, srv.WorkerIDs(ep))
	assert.Contains(t, templateIDs(srv), "tmpl-1", "the account's template it was created from stays")
	status, m = podCall(t, srv, "DELETE", "/v2/templates/tmpl-1", "")
	assert.Equal(t, http.StatusNoContent, status, "used by no endpoint now: %v", m)

	status, m = podCall(t, srv, "DELETE", "/v2/serverless/"+inline, "")
	require.Equal(t, http.StatusNoContent, status, m)
	assert.NotContains(t, templateIDs(srv), inlineTemplate, "its bound template went with it")
	status, _ = podCall(t, srv, "GET", "/v2/templates/"+inlineTemplate, "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Empty(t, srv.Endpoints())

	// GraphQL keeps its rule; the jobs an endpoint scaled to zero still
	// has queued end as REST's delete ends them.
	srv.AddTemplate("tmpl-2")
	gql := srv.AddEndpoint(runpodtest.Endpoint{Name: "gql", TemplateID: "tmpl-2", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 1})
	const del = `mutation($id: String!) { deleteEndpoint(id: $id) }`
	_, errs := gqlCall(t, srv, del, map[string]any{"id": gql})
	require.Len(t, errs, 1)
	assert.Contains(t, fmt.Sprint(errs[0]), "workersMin and workersMax set to 0")
	assert.Len(t, srv.Endpoints(), 1)
	status, m = podCall(t, srv, "PATCH", "/v2/serverless/"+gql, `{"workers":{"min":0,"max":0}}`)
	require.Equal(t, http.StatusOK, status, m)
	_, m = call(t, srv, "POST", "/v2/"+gql+"/run", `{"input":"left"}`)
	left := m["id"].(string)
	_, errs = gqlCall(t, srv, del, map[string]any{"id": gql})
	require.Empty(t, errs)
	_, m = call(t, srv, "GET", "/v2/"+gql+"/status/"+left, "")
	assert.Equal(t, "CANCELLED", m["status"])
	assert.Empty(t, srv.Endpoints())
	assert.Contains(t, templateIDs(srv), "tmpl-2", "the account's template stays")
}

// TestNoWorkerQueuesForever: an endpoint whose template has no handler is
// listed, and its jobs are queued and never taken, as on the platform when
// no worker starts: /run answers IN_QUEUE, /status answers, /health counts
// them (and no worker), /cancel and /purge-queue work. A handler
// registered later takes over the jobs still queued.
func TestNoWorkerQueuesForever(t *testing.T) {
	srv := newServer(t)
	srv.AddTemplate("tmpl-none")
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	ep, err := rp.Serverless.Endpoints.Create(ctx, queueRequest("no-worker", "tmpl-none"))
	require.NoError(t, err)
	list, err := rp.Serverless.Endpoints.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)

	var ids []string
	for i := range 3 {
		resp, m := call(t, srv, "POST", "/v2/"+ep.ID+"/run", fmt.Sprintf(`{"input":%d}`, i))
		require.Equal(t, http.StatusOK, resp.StatusCode, m)
		assert.Equal(t, "IN_QUEUE", m["status"])
		ids = append(ids, m["id"].(string))
	}
	resp, m := call(t, srv, "GET", "/v2/"+ep.ID+"/status/"+ids[0], "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "IN_QUEUE", m["status"])
	assert.Nil(t, m["workerId"])
	_, m = call(t, srv, "GET", "/v2/"+ep.ID+"/health", "")
	assert.Equal(t, map[string]any{"completed": 0.0, "failed": 0.0, "inProgress": 0.0, "inQueue": 3.0, "retried": 0.0}, m["jobs"])
	workers := m["workers"].(map[string]any)
	assert.Equal(t, 0.0, workers["idle"])
	assert.Equal(t, 0.0, workers["ready"])
	assert.Equal(t, 0.0, workers["running"])

	_, m = call(t, srv, "POST", "/v2/"+ep.ID+"/cancel/"+ids[0], "")
	assert.Equal(t, "CANCELLED", m["status"])
	_, m = call(t, srv, "GET", "/v2/"+ep.ID+"/status/"+ids[0], "")
	assert.Equal(t, "CANCELLED", m["status"])
	_, m = call(t, srv, "POST", "/v2/"+ep.ID+"/purge-queue", "")
	assert.Equal(t, 2.0, m["removed"])
	_, m = call(t, srv, "GET", "/v2/"+ep.ID+"/status/"+ids[2], "")
	assert.Equal(t, "CANCELLED", m["status"])
	_, m = call(t, srv, "GET", "/v2/"+ep.ID+"/health", "")
	assert.Equal(t, 0.0, m["jobs"].(map[string]any)["inQueue"])

	// The platform runs what waits in the queue once a worker starts.
	job, err := rp.Serverless.Queue(ep.ID).Run(ctx, serverless.RunParams{Input: "late"})
	require.NoError(t, err)
	srv.HandleTemplate("tmpl-none", echoHandler)
	done, err := rp.Serverless.Queue(ep.ID).Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, done.Status)
	assert.JSONEq(t, `"late"`, string(done.Output))
}

// TestNoWorkerRunSyncAnswersQueued: /runsync on an endpoint with no worker
// holds the request for its wait and answers 200 with the job still
// IN_QUEUE, as the platform answers a /runsync whose job has not ended;
// the SDK's RunSync then goes on waiting, and gives the job's id and
// status when its context ends. On the bubble's clock: no real time.
func TestNoWorkerRunSyncAnswersQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := runpodtest.NewServer(runpodtest.WithMemoryNetwork())
		defer srv.Close()
		srv.AddTemplate("tmpl-none")
		ep := srv.AddEndpoint(runpodtest.Endpoint{Name: "no-worker", TemplateID: "tmpl-none", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})

		start := time.Now()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.InferenceURL+"/v2/"+ep+"/runsync", strings.NewReader(`{"input":1}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", srv.APIKey)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		var job map[string]any
		require.NoError(t, json.Unmarshal(body, &job))
		assert.Equal(t, "IN_QUEUE", job["status"])
		assert.NotEmpty(t, job["id"])
		assert.Equal(t, runpodtest.DefaultRunSyncWait, time.Since(start), "held for the whole wait")

		rp, err := srv.NewClient()
		require.NoError(t, err)
		defer rp.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		_, err = rp.Serverless.Queue(ep).RunSync(ctx, serverless.RunParams{Input: 2}, serverless.WaitOptions{})
		var we *serverless.WaitError
		require.ErrorAs(t, err, &we)
		assert.NotEmpty(t, we.JobID)
		assert.Equal(t, serverless.JobStatusInQueue, we.LastStatus)
		h, err := rp.Serverless.Queue(ep).Health(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 2, h.Jobs.InQueue, "both still queued")
	})
}
