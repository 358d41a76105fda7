package serverless_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/serverless"
)

// clock is a fake platform clock the tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

var start = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// restFake is a fake on a clock of the test's, with a template and an
// endpoint of two 2-GPU workers.
func restFake(t *testing.T) (*runpodtest.Server, *runpod.Client, *clock, string) {
	t.Helper()
	c := &clock{now: start}
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(c.Now), runpodtest.WithWorkerDrain(time.Minute), fakegraphql.Serve())
	t.Cleanup(srv.Close)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-1", DataCenter: "US-KS-2"})
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "sdxl", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, GPUCount: 2, WorkersMin: 2})
	return srv, rp, c, id
}

func lastREST(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

func TestWorkers(t *testing.T) {
	srv, rp, c, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	c.Add(90 * time.Second)

	list, err := eps.Workers(ctx, id)
	require.NoError(t, err)
	r := lastREST(srv)
	assert.Equal(t, runpodtest.RouteEndpointWorkers, r.Route)
	assert.Equal(t, "/v2/serverless/"+id+"/workers", r.Path)
	assert.Equal(t, 1, *list.EndpointVersion)
	assert.Equal(t, serverless.EndpointWorkerSummary{Idle: 2, Total: 2}, list.Summary)
	require.Len(t, list.Workers, 2)
	w := list.Workers[0]
	assert.Equal(t, srv.WorkerIDs(id), []string{list.Workers[0].ID, list.Workers[1].ID})
	assert.Equal(t, serverless.EndpointWorkerStatusIdle, w.Status)
	assert.False(t, w.IsStale)
	assert.Equal(t, 1, *w.Version)
	assert.Equal(t, 2, w.GPUCount)
	assert.Equal(t, "NVIDIA GeForce RTX 4090", *w.GPUTypeID)
	assert.NotNil(t, w.DataCenterID)
	assert.Equal(t, start, *w.StartedAt)
	assert.Equal(t, 90, *w.UptimeSeconds)

	// Statuses of the test's choosing; a throttled worker is not placed.
	srv.SetWorkerStatus(id, list.Workers[0].ID, serverless.EndpointWorkerStatusThrottled)
	srv.SetWorkerStatus(id, list.Workers[1].ID, serverless.EndpointWorkerStatusUnhealthy)
	list, err = eps.Workers(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, serverless.EndpointWorkerSummary{Throttled: 1, Unhealthy: 1, Total: 2}, list.Summary)
	w = list.Workers[0]
	assert.Equal(t, serverless.EndpointWorkerStatusThrottled, w.Status)
	assert.Nil(t, w.GPUTypeID)
	assert.Nil(t, w.DataCenterID)
	assert.Nil(t, w.StartedAt)
	assert.Nil(t, w.UptimeSeconds)

	// Scaled away: not listed any more (GraphQL still shows them
	// draining: TestGraphQLListsDrainingPods).
	_, err = eps.ScaleToZero(ctx, id)
	require.NoError(t, err)
	list, err = eps.Workers(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, list.Workers)
	assert.Equal(t, serverless.EndpointWorkerSummary{}, list.Summary)
}

// TestWorkersRunningJobs: a worker is RUNNING while the endpoint's queue
// runs a job, IDLE otherwise.
func TestWorkersRunningJobs(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	release := make(chan struct{})
	id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "slow", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 2},
		untilReleased(release))
	q := rp.Serverless.Queue(id)
	job, err := q.Run(ctx, serverless.RunParams{Input: map[string]int{"n": 1}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		j, err := q.Status(ctx, job.ID)
		return err == nil && j.Status == serverless.JobStatusInProgress
	}, 5*time.Second, 5*time.Millisecond)

	list, err := rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, serverless.EndpointWorkerSummary{Running: 1, Idle: 1, Total: 2}, list.Summary)
	assert.Equal(t, serverless.EndpointWorkerStatusRunning, list.Workers[0].Status)

	close(release)
	_, err = q.Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	list, err = rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, serverless.EndpointWorkerSummary{Idle: 2, Total: 2}, list.Summary)
}

// TestReleases: a change of settings is a MANUAL release with its diff;
// workers started before it are stale until new ones replace them; a
// build's release carries its build id; the newest comes first.
func TestReleases(t *testing.T) {
	srv, rp, c, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints

	rel, err := eps.Releases(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "/v2/serverless/"+id+"/releases", lastREST(srv).Path)
	assert.Equal(t, 1, *rel.EndpointVersion)
	assert.Empty(t, rel.Releases)
	assert.Equal(t, serverless.RolloutSummary{WorkersOnLatest: 2, WorkersTotal: 2, PercentOnLatest: 100}, rel.Rollout)

	c.Add(time.Minute)
	_, err = eps.Update(ctx, id, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Max: runpod.Ptr(5)}})
	require.NoError(t, err)
	_, err = eps.Update(ctx, id, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Max: runpod.Ptr(5)}})
	require.NoError(t, err)
	rel, err = eps.Releases(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 2, *rel.EndpointVersion, "a save that changes nothing makes no release")
	require.Len(t, rel.Releases, 1)
	r := rel.Releases[0]
	assert.Equal(t, serverless.ReleaseSourceManual, r.Source)
	assert.Equal(t, 2, *r.Version)
	assert.Nil(t, r.BuildID)
	assert.Equal(t, start.Add(time.Minute), r.CreatedAt)
	assert.Zero(t, r.WorkerCount, "both workers still run version 1")
	require.Len(t, r.Diff, 1)
	assert.Equal(t, "workers.max", r.Diff[0].Field)
	assert.JSONEq(t, "3", string(r.Diff[0].Old))
	assert.JSONEq(t, "5", string(r.Diff[0].New))
	assert.Equal(t, serverless.RolloutSummary{InProgress: true, WorkersTotal: 2}, rel.Rollout)

	workers, err := eps.Workers(ctx, id)
	require.NoError(t, err)
	assert.True(t, workers.Workers[0].IsStale)

	// A third worker starts on version 2.
	_, err = eps.Update(ctx, id, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(3)}})
	require.NoError(t, err)
	rel, err = eps.Releases(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 3, *rel.EndpointVersion)
	assert.Equal(t, serverless.RolloutSummary{InProgress: true, WorkersOnLatest: 1, WorkersTotal: 3, PercentOnLatest: 33}, rel.Rollout)
	assert.Equal(t, 1, rel.Releases[0].WorkerCount)

	buildRel := srv.AddRelease(id, runpodtest.Release{Source: serverless.ReleaseSourceGitBuild,
		Changes: []runpodtest.ReleaseChange{{Field: "template.imageName", Old: "org/sdxl:1", New: "org/sdxl:2"}}})
	rel, err = eps.Releases(ctx, id)
	require.NoError(t, err)
	require.Len(t, rel.Releases, 3)
	assert.Equal(t, buildRel, rel.Releases[0].ID, "newest first")
	assert.Equal(t, serverless.ReleaseSourceGitBuild, rel.Releases[0].Source)
	assert.NotEmpty(t, *rel.Releases[0].BuildID)
	assert.Equal(t, []int{4, 3, 2}, []int{*rel.Releases[0].Version, *rel.Releases[1].Version, *rel.Releases[2].Version})
	var image string
	require.NoError(t, json.Unmarshal(rel.Releases[0].Diff[0].New, &image))
	assert.Equal(t, "org/sdxl:2", image)
	assert.Empty(t, srv.AddRelease("nosuch", runpodtest.Release{}))
}

func TestWorkerLogs(t *testing.T) {
	srv, rp, c, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	wid := srv.WorkerIDs(id)[0]
	c.Add(time.Second)
	for _, l := range []string{"one", "two", "three"} {
		srv.AppendWorkerLog(id, wid, serverless.LogSourceContainer, l)
	}

	// The whole history: the platform's first line, then the worker's.
	var got []string
	for line, err := range eps.WorkerLogs(ctx, id, wid, serverless.GetWorkerLogsParams{}) {
		require.NoError(t, err)
		got = append(got, string(line.Source)+": "+line.Line)
		if len(got) == 4 {
			break
		}
	}
	assert.Equal(t, []string{"system: worker " + wid + " started", "container: one", "container: two", "container: three"}, got)
	r := lastREST(srv)
	assert.Equal(t, runpodtest.RouteWorkerLogs, r.Route)
	assert.Equal(t, "/v2/serverless/"+id+"/workers/"+wid+"/logs", r.Path)
	assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))

	// Two lines of history, one source, then live lines.
	got = nil
	var lastID string
	var lastTime time.Time
	for line, err := range eps.WorkerLogs(ctx, id, wid, serverless.GetWorkerLogsParams{Tail: runpod.Ptr(2), Source: runpod.Ptr(serverless.LogSourceContainer)}) {
		require.NoError(t, err)
		got = append(got, line.Line)
		assert.Equal(t, serverless.LogSourceContainer, line.Source)
		lastID, lastTime = line.ID, line.Time
		if len(got) == 2 {
			srv.AppendWorkerLog(id, wid, serverless.LogSourceSystem, "filtered out")
			srv.AppendWorkerLog(id, wid, serverless.LogSourceContainer, "live")
		}
		if len(got) == 3 {
			break
		}
	}
	assert.Equal(t, []string{"two", "three", "live"}, got)
	assert.Equal(t, "source=container&tail=2", lastREST(srv).RawQuery)

	// Resume after the last line seen.
	srv.AppendWorkerLog(id, wid, serverless.LogSourceContainer, "after")
	for line, err := range eps.WorkerLogs(ctx, id, wid, serverless.GetWorkerLogsParams{LastEventID: &lastTime, Source: runpod.Ptr(serverless.LogSourceContainer)}) {
		require.NoError(t, err)
		assert.Equal(t, "after", line.Line)
		break
	}
	assert.Equal(t, lastID, lastREST(srv).Header.Get("Last-Event-ID"), "the line's time is sent as the stream gave it")

	// Since: the lines from a time on.
	got = nil
	for line, err := range eps.WorkerLogs(ctx, id, wid, serverless.GetWorkerLogsParams{Since: runpod.Ptr(start.Add(time.Second))}) {
		require.NoError(t, err)
		got = append(got, line.Line)
		if len(got) == 2 {
			break
		}
	}
	assert.Equal(t, []string{"one", "two"}, got)
}

// TestWorkerLogsEndCleanlyOnCancel: cancelling ctx ends the iteration
// without an error, and the connection is closed (the goroutine-leak
// check at the end sees to it).
func TestWorkerLogsEndCleanlyOnCancel(t *testing.T) {
	srv, rp, _, id := restFake(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	for _, err := range rp.Serverless.Endpoints.WorkerLogs(ctx, id, srv.WorkerIDs(id)[0], serverless.GetWorkerLogsParams{}) {
		require.NoError(t, err)
		n++
		cancel() // after the first line, stop following
	}
	assert.Equal(t, 1, n)
}

// TestNothingSentUntilTheLoopStarts: WorkerLogs sends its request when
// the caller ranges, not when it is called.
func TestNothingSentUntilTheLoopStarts(t *testing.T) {
	srv, rp, _, id := restFake(t)
	before := srv.Count("*")
	seq := rp.Serverless.Endpoints.WorkerLogs(t.Context(), id, srv.WorkerIDs(id)[0], serverless.GetWorkerLogsParams{})
	assert.Equal(t, before, srv.Count("*"))
	for range seq {
		break
	}
	assert.Equal(t, before+1, srv.Count("*"))
}

func TestRESTNotFound(t *testing.T) {
	srv, rp, _, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	_, err := eps.Workers(ctx, "nosuch")
	require.ErrorIs(t, err, errs.ErrNotFound)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	_, err = eps.Releases(ctx, "nosuch")
	require.ErrorIs(t, err, errs.ErrNotFound)

	for _, tc := range []struct{ endpoint, worker string }{{"nosuch", "wk00000001"}, {id, "nosuch"}} {
		var got []error
		for _, err := range eps.WorkerLogs(ctx, tc.endpoint, tc.worker, serverless.GetWorkerLogsParams{}) {
			got = append(got, err)
		}
		require.Len(t, got, 1, "the error is the first and only value")
		assert.ErrorIs(t, got[0], errs.ErrNotFound)
	}

	// A worker that was scaled away and has drained is gone.
	wid := srv.WorkerIDs(id)[0]
	_, err = eps.ScaleToZero(ctx, id)
	require.NoError(t, err)
	for _, err := range eps.WorkerLogs(ctx, id, wid, serverless.GetWorkerLogsParams{}) {
		require.NoError(t, err, "a draining worker's log is still there")
		break
	}
}

// TestRESTValidation: bad ids and parameters are refused before anything
// is sent, naming the field.
func TestRESTValidation(t *testing.T) {
	srv, rp, _, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	before := srv.Count("*")
	for _, bad := range []string{"", "a/b", "..", "ep 1", "ep?x", "ép"} {
		_, err := eps.Workers(ctx, bad)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%q", bad)
		assert.Equal(t, "endpointID", ve.Field)
		_, err = eps.Releases(ctx, bad)
		require.ErrorIs(t, err, errs.ErrValidation, "%q", bad)
		for _, err := range eps.WorkerLogs(ctx, id, bad, serverless.GetWorkerLogsParams{}) {
			require.ErrorAs(t, err, &ve, "%q", bad)
			assert.Equal(t, "workerID", ve.Field)
		}
	}
	cases := map[string]serverless.GetWorkerLogsParams{
		"GetWorkerLogsParams.Tail":        {Tail: runpod.Ptr(5001)},
		"GetWorkerLogsParams.Source":      {Source: runpod.Ptr[serverless.LogSource]("stdout")},
		"GetWorkerLogsParams.Since":       {Since: &time.Time{}},
		"GetWorkerLogsParams.LastEventID": {LastEventID: &time.Time{}},
	}
	for field, p := range cases {
		n := 0
		for _, err := range eps.WorkerLogs(ctx, id, "wk00000001", p) {
			var ve *errs.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, field, ve.Field)
			n++
		}
		assert.Equal(t, 1, n)
	}
	_, err := eps.Workers(ctx, "ep_abc-123")
	require.ErrorIs(t, err, errs.ErrNotFound, "letters, digits, '-' and '_' pass")
	assert.Equal(t, before+1, srv.Count("*"), "nothing else was sent")
}

// TestRESTRetries: the three reads are retried after a connection that
// failed, and succeed.
func TestRESTRetries(t *testing.T) {
	srv, rp, _, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	srv.FailNext(runpodtest.RouteEndpointWorkers, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	list, err := eps.Workers(ctx, id)
	require.NoError(t, err)
	assert.Len(t, list.Workers, 2)
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteEndpointWorkers))

	srv.FailNext(runpodtest.RouteEndpointReleases, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err = eps.Releases(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteEndpointReleases))

	srv.FailNext(runpodtest.RouteWorkerLogs, 1, runpodtest.Fault{Drop: runpodtest.DropBefore})
	for line, err := range eps.WorkerLogs(ctx, id, srv.WorkerIDs(id)[0], serverless.GetWorkerLogsParams{}) {
		require.NoError(t, err)
		assert.Contains(t, line.Line, "started")
		break
	}
	assert.Equal(t, 2, srv.Count(runpodtest.RouteWorkerLogs))
}

// TestRESTKeepsTheDocument sends the three REST operations through the
// fake, which checks every request and response against the REST v2
// document, in every state the fake can report: none may be refused or a
// 500.
func TestRESTKeepsTheDocument(t *testing.T) {
	srv, rp, c, id := restFake(t)
	ctx := t.Context()
	eps := rp.Serverless.Endpoints
	cpu := srv.AddEndpoint(runpodtest.Endpoint{Name: "cpu", TemplateID: "tmpl-1", InstanceIDs: []string{"cpu3c-2-4"}, WorkersMin: 1})
	ids := srv.WorkerIDs(id)
	for i, st := range []serverless.EndpointWorkerStatus{serverless.EndpointWorkerStatusInitializing, serverless.EndpointWorkerStatusThrottled} {
		srv.SetWorkerStatus(id, ids[i], st)
	}
	srv.AddRelease(id, runpodtest.Release{Source: serverless.ReleaseSourceGitBuild, BuildID: "build_1",
		Changes: []runpodtest.ReleaseChange{{Field: "template.env", Old: nil, New: map[string]string{"A": "1"}}}})
	_, err := eps.Update(ctx, id, serverless.UpdateEndpointRequest{
		DataCenterIDs:  &[]string{"US-KS-2"},
		NetworkVolumes: &[]string{"vol-1"},
		Timeout:        runpod.Ptr(60000),
	})
	require.NoError(t, err)
	c.Add(time.Hour)
	for _, ep := range []string{id, cpu} {
		_, err := eps.Workers(ctx, ep)
		require.NoError(t, err)
		_, err = eps.Releases(ctx, ep)
		require.NoError(t, err)
		for _, err := range eps.WorkerLogs(ctx, ep, srv.WorkerIDs(ep)[0], serverless.GetWorkerLogsParams{Tail: runpod.Ptr(0), Since: runpod.Ptr(start)}) {
			require.NoError(t, err)
			break
		}
	}
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		seen[r.Route] = true
		// A stream the client left may still be closing: its status is
		// then not recorded yet (0).
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
		assert.Less(t, r.Status, 300, "%s %s", r.Method, r.Path)
	}
	for _, route := range []string{runpodtest.RouteEndpointWorkers, runpodtest.RouteEndpointReleases, runpodtest.RouteWorkerLogs} {
		assert.True(t, seen[route], "%s was sent", route)
	}
}
