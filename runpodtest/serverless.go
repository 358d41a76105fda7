package runpodtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
	"github.com/runpodkit/runpod-go/serverless"
)

// The REST v2 operations of the Serverless tag that look into an
// endpoint: its workers, its releases and a worker's log stream. The
// endpoints, their workers and their releases are the GraphQL unit's state
// (graphql.go), read under its lock, briefly; the workers' logs are this
// unit's. The wire format is written from the platform's published
// document with structs of the fake's own.
//
// What the fake does, where the document leaves it open:
//
//   - Each worker has an id ("wk" and 8 digits), starts when the endpoint
//     is scaled up and runs the configuration version the endpoint had
//     then. Its status is IDLE, or RUNNING while the endpoint's queue (see
//     HandleQueue) has a job in progress for it, or what SetWorkerStatus
//     set; UNHEALTHY or THROTTLED instead of IDLE while the endpoint's
//     workers crash-loop (CrashLoopWorkers) or wait for a machine
//     (ThrottleWorkers). Workers scaled away are not listed, unless they
//     still run a job.
//   - While its workers crash-loop or wait for a machine, an endpoint with
//     queued jobs lists a worker for each job, up to workers.max in all,
//     UNHEALTHY or THROTTLED, as the platform starts workers for its queue
//     (an endpoint scaled to zero lists none): "a job stuck IN_QUEUE has
//     two causes its status can't tell apart: no capacity, or workers
//     crash-looping (marked UNHEALTHY in the worker list while the job
//     waits)", and THROTTLED is the document's "waiting on compute
//     capacity".
//   - A job in progress always has a worker: the platform starts one for
//     a queued job even on an endpoint with workers.min 0 (createEndpoint
//     in ../shared/reference/platform-openapi-v2.json: an endpoint "starts
//     with no active workers unless workers.min is greater than 0.
//     Workers are provisioned on demand"), and a scale-down lets a worker
//     finish its job. So while the endpoint has more jobs in
//     progress than workers to run them, the fake lists a worker, RUNNING,
//     for each job beyond them, with an id that stays while the count of
//     jobs does not drop (a scale-down and delete waits for it).
//   - An endpoint starts at configuration version 1 with no release. A
//     saveEndpoint that changes a setting makes a MANUAL release, and
//     AddRelease records one of a test's choosing; each raises the
//     version. Workers already running keep their version (isStale) until
//     they are scaled away.
//   - A worker's log begins with a system line, "worker <id> started", at
//     its start; AppendWorkerLog adds lines, SetWorkerStatus adds a system
//     line "status <status>".

// serverlessUnit holds the logs of the endpoints' workers, and what keeps
// an endpoint's workers from running jobs. Its lock is taken last: no
// other lock is taken with it held.
type serverlessUnit struct {
	mu   sync.Mutex
	logs map[string]*workerLog // by endpoint id + "/" + worker id
	held map[string]workerHold // by endpoint id
}

func newServerlessUnit() serverlessUnit {
	return serverlessUnit{logs: map[string]*workerLog{}, held: map[string]workerHold{}}
}

// workerHold is what keeps an endpoint's workers from running jobs.
type workerHold struct {
	crashLoop, throttled bool
}

// status is the status the REST API reports for the held workers that
// run no job: THROTTLED (a worker with no machine runs no container to
// crash), UNHEALTHY, or "" while they are not held.
func (h workerHold) status() serverless.EndpointWorkerStatus {
	switch {
	case h.throttled:
		return serverless.EndpointWorkerStatusThrottled
	case h.crashLoop:
		return serverless.EndpointWorkerStatusUnhealthy
	}
	return ""
}

// CrashLoopWorkers makes the endpoint's workers crash-loop while on, as a
// container that exits as it starts does on the platform: no worker takes
// a job, so new jobs stay IN_QUEUE (jobs in progress go on), and the
// worker list (GET /v2/serverless/{id}/workers) shows each of its workers
// that runs no job UNHEALTHY, failing its health checks, with, while jobs
// are queued, one started for each up to workers.max. Turned off, the
// workers take the queued jobs. It holds the workers of HandleQueue and
// HandleWorkerQueue alike, for the endpoint's queue of now or later.
func (s *Server) CrashLoopWorkers(endpointID string, on bool) {
	s.holdWorkers(endpointID, func(h *workerHold) { h.crashLoop = on })
}

// ThrottleWorkers makes the platform out of capacity for the endpoint
// while on, as when no machine of its GPU types is free: no worker takes a
// job, so new jobs stay IN_QUEUE (jobs in progress go on), and the worker
// list shows each of its workers that runs no job THROTTLED, "waiting on
// compute capacity", unplaced, with, while jobs are queued, one started
// for each up to workers.max. Turned off, the workers take the queued
// jobs. It wins over CrashLoopWorkers: a worker with no machine runs no
// container to crash.
func (s *Server) ThrottleWorkers(endpointID string, on bool) {
	s.holdWorkers(endpointID, func(h *workerHold) { h.throttled = on })
}

// holdWorkers changes what keeps the endpoint's workers from running
// jobs, then wakes its queue's workers to see it.
func (s *Server) holdWorkers(endpointID string, change func(*workerHold)) {
	s.serverless.mu.Lock()
	h := s.serverless.held[endpointID]
	change(&h)
	if h == (workerHold{}) {
		delete(s.serverless.held, endpointID)
	} else {
		s.serverless.held[endpointID] = h
	}
	s.serverless.mu.Unlock()
	s.jobs.mu.Lock()
	q := s.jobs.queues[endpointID]
	s.jobs.mu.Unlock()
	if q != nil {
		q.jq.Wake()
	}
}

// workerHold returns what keeps the endpoint's workers from running jobs.
// It is called with any other lock held (a queue's among them).
func (s *Server) workerHold(endpointID string) workerHold {
	s.serverless.mu.Lock()
	defer s.serverless.mu.Unlock()
	return s.serverless.held[endpointID]
}

// workerLog is one worker's log; changed is closed and replaced when a
// line is added.
type workerLog struct {
	lines   []logLine
	changed chan struct{}
}

// Routes of the REST v2 operations on an endpoint's workers and releases.
const (
	RouteEndpointWorkers  = "GET /v2/serverless/{id}/workers"
	RouteEndpointReleases = "GET /v2/serverless/{id}/releases"
	RouteWorkerLogs       = "GET /v2/serverless/{id}/workers/{workerId}/logs"
)

// Release is a release of an endpoint's configuration as a test records
// it with AddRelease.
type Release struct {
	// Source is what made it: serverless.ReleaseSourceManual (when empty)
	// or serverless.ReleaseSourceGitBuild.
	Source serverless.ReleaseSource
	// BuildID is the build that made a GIT_BUILD release; AddRelease makes
	// one when it is empty. A MANUAL release has none.
	BuildID string
	// Changes lists the settings the release changed.
	Changes []ReleaseChange
}

// ReleaseChange is one setting a release changed.
type ReleaseChange struct {
	// Field names the setting, such as "workers.max" or
	// "template.imageName".
	Field string
	// Old and New are its values before and after, sent as JSON; nil is
	// null (the setting was added or removed).
	Old, New any
}

// release is a recorded release.
type release struct {
	id        string
	version   int
	source    serverless.ReleaseSource
	buildID   *string
	createdAt time.Time
	diff      []ReleaseChange
}

// AddRelease records a release of the endpoint's configuration, made now,
// and returns its id: the endpoint's configuration version goes up by
// one, and the workers running keep the version they started with (they
// are stale) until they are scaled away. A GIT_BUILD release's build is
// recorded too (COMPLETED, as AddBuild records it) unless AddBuild
// recorded it first. It returns "" for an unknown endpoint.
func (s *Server) AddRelease(endpointID string, r Release) string {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	e := s.graphql.endpoints[endpointID]
	if e == nil {
		return ""
	}
	source := r.Source
	if source == "" {
		source = serverless.ReleaseSourceManual
	}
	var build *string
	if source == serverless.ReleaseSourceGitBuild {
		if r.BuildID == "" {
			r.BuildID = fmt.Sprintf("build%05d", s.graphql.releaseSeq+1)
		}
		build = &r.BuildID
		if !s.graphql.hasBuild(endpointID, r.BuildID) {
			s.graphql.addBuild(endpointID, Build{ID: r.BuildID}, s.now())
		}
	}
	return s.graphql.release(e, s.now(), source, build, slices.Clone(r.Changes))
}

// release records a release of e when diff is not empty, raising its
// version, and returns the release's id ("" when nothing changed). g.mu
// is held.
func (g *graphqlUnit) release(e *Endpoint, now time.Time, source serverless.ReleaseSource, build *string, diff []ReleaseChange) string {
	if len(diff) == 0 && source == serverless.ReleaseSourceManual {
		return ""
	}
	g.releaseSeq++
	e.version++
	r := release{id: fmt.Sprintf("rel%05d", g.releaseSeq), version: e.version, source: source, buildID: build, createdAt: now.UTC(), diff: diff}
	e.releases = append(slices.Clip(e.releases), r)
	return r.id
}

// settingsDiff lists the settings a save changed, named as the platform
// names them in a release's diff.
func settingsDiff(old, e *Endpoint) []ReleaseChange {
	var out []ReleaseChange
	add := func(field string, a, b any) {
		if !jsonEqual(a, b) {
			out = append(out, ReleaseChange{Field: field, Old: a, New: b})
		}
	}
	orNil := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	list := func(s []string) any {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	// Env values may be secrets: a release names the variables only.
	envNames := func(env map[string]string) any {
		if env == nil {
			return nil
		}
		return slices.Sorted(maps.Keys(env))
	}
	scalingValue := func(e *Endpoint) any {
		if e.ScalerType == serverless.ScalerTypeQueueDelay {
			return e.QueueDelay
		}
		return e.ScalerValue
	}
	add("name", old.Name, e.Name)
	add("templateId", orNil(old.TemplateID), orNil(e.TemplateID))
	add("gpuIds", orNil(joinList(old.GPUs)), orNil(joinList(e.GPUs)))
	add("gpu.excludedTypes", list(old.ExcludedGPUTypes), list(e.ExcludedGPUTypes))
	add("gpuCount", old.GPUCount, e.GPUCount)
	add("instanceIds", list(old.InstanceIDs), list(e.InstanceIDs))
	add("locations", orNil(joinList(old.Locations)), orNil(joinList(e.Locations)))
	add("dataCenterIds", list(old.DataCenterIDs), list(e.DataCenterIDs))
	add("flashboot", string(old.FlashBoot), string(e.FlashBoot))
	add("scaling.type", string(old.ScalerType), string(e.ScalerType))
	add("scaling.value", scalingValue(old), scalingValue(e))
	add("workers.min", old.WorkersMin, e.WorkersMin)
	add("workers.max", old.WorkersMax, e.WorkersMax)
	add("workers.idleTimeout", old.IdleTimeout, e.IdleTimeout)
	add("timeout", old.ExecutionTimeout.Milliseconds(), e.ExecutionTimeout.Milliseconds())
	add("networkVolumeId", orNil(old.NetworkVolumeID), orNil(e.NetworkVolumeID))
	add("networkVolumes", list(old.NetworkVolumeIDs), list(e.NetworkVolumeIDs))
	add("globalVolumes", list(old.GlobalVolumeIDs), list(e.GlobalVolumeIDs))
	add("gpu.allowedCudaVersions", list(old.AllowedCUDAVersions), list(e.AllowedCUDAVersions))
	add("gpu.minCudaVersion", orNil(old.MinCUDAVersion), orNil(e.MinCUDAVersion))
	add("modelReferences", list(old.ModelReferences), list(e.ModelReferences))
	add("image", orNil(old.Image), orNil(e.Image))
	add("args", orNil(old.Args), orNil(e.Args))
	add("disk", old.Disk, e.Disk)
	if !maps.Equal(old.Env, e.Env) || (old.Env == nil) != (e.Env == nil) {
		out = append(out, ReleaseChange{Field: "env", Old: envNames(old.Env), New: envNames(e.Env)})
	}
	add("ports", old.Ports, e.Ports)
	add("registry", orNil(old.Registry), orNil(e.Registry))
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// SetWorkerStatus sets the status the REST API reports for one of the
// endpoint's workers (serverless.EndpointWorkerStatusUnhealthy, say), in
// place of IDLE, and logs a system line "status <st>" to its log. An
// INITIALIZING or THROTTLED worker reports no start time or uptime, and a
// THROTTLED one no placement. Unknown ids are ignored.
func (s *Server) SetWorkerStatus(endpointID, workerID string, st serverless.EndpointWorkerStatus) {
	s.graphql.mu.Lock()
	w := s.graphql.workerLocked(endpointID, workerID, s.now())
	var since time.Time
	if w != nil {
		w.state, since = st, w.since
	}
	s.graphql.mu.Unlock()
	if w != nil {
		s.appendWorkerLog(endpointID, workerID, since, serverless.LogSourceSystem, "status "+string(st))
	}
}

// WorkerIDs returns the ids of the endpoint's active workers (the ones
// GET /v2/serverless/{id}/workers lists), oldest first.
func (s *Server) WorkerIDs(endpointID string) []string {
	snap, _ := s.endpointSnapshot(endpointID)
	var ids []string
	for _, w := range snap.workers {
		ids = append(ids, w.id)
	}
	return ids
}

// AppendWorkerLog adds a line to the log of one of the endpoint's
// workers, sent to everyone streaming it. Unknown ids are ignored.
func (s *Server) AppendWorkerLog(endpointID, workerID string, source serverless.LogSource, line string) {
	s.graphql.mu.Lock()
	w := s.graphql.workerLocked(endpointID, workerID, s.now())
	var since time.Time
	if w != nil {
		since = w.since
	}
	s.graphql.mu.Unlock()
	if w != nil {
		s.appendWorkerLog(endpointID, workerID, since, source, line)
	}
}

// workerLocked returns the endpoint's worker, active, draining or started
// for a job, or nil when there is none or it is gone. g.mu is held.
func (g *graphqlUnit) workerLocked(endpointID, workerID string, now time.Time) *endpointWorker {
	e := g.endpoints[endpointID]
	if e == nil {
		return nil
	}
	for i := range e.workers {
		w := &e.workers[i]
		if w.id == workerID && !(w.draining && !now.Before(w.goneAt)) {
			return w
		}
	}
	for _, key := range []string{endpointID, endpointID + heldSuffix} {
		jw := g.jobWorkers[key]
		for i := range jw {
			if jw[i].id == workerID {
				return &jw[i]
			}
		}
	}
	return nil
}

// appendWorkerLog adds a line to a worker's log; since is when the worker
// started.
func (s *Server) appendWorkerLog(endpointID, workerID string, since time.Time, source serverless.LogSource, line string) {
	s.serverless.mu.Lock()
	defer s.serverless.mu.Unlock()
	l := s.serverless.logLocked(endpointID, workerID, since)
	l.lines = appendLogLine(l.lines, s.now(), string(source), line)
	close(l.changed)
	l.changed = make(chan struct{})
}

// logLocked returns a worker's log, making it, with its first line, at the
// first use. u.mu is held.
func (u *serverlessUnit) logLocked(endpointID, workerID string, since time.Time) *workerLog {
	key := endpointID + "/" + workerID
	l := u.logs[key]
	if l == nil {
		l = &workerLog{changed: make(chan struct{})}
		l.lines = []logLine{{at: since.UTC(), source: string(serverless.LogSourceSystem), line: "worker " + workerID + " started"}}
		u.logs[key] = l
	}
	return l
}

// endpointSnapshot is what the REST routes read of an endpoint, copied
// under the GraphQL unit's lock.
type endpointSnapshot struct {
	version     int
	gpuCount    int
	gpus        []serverless.GPUPool
	cpu         bool
	workers     []endpointWorker // active ones, oldest first
	releases    []release
	now         time.Time
	jobsRunning int
}

// jobsRunning returns how many jobs of the endpoint's queue are in
// progress (0 without a queue).
func (s *Server) jobsRunning(endpointID string) int { return s.jobCounts(endpointID).Running }

// jobCounts returns the counters of the endpoint's queue (zero without
// one). It takes the jobs lock, and the queue's, which may be taken with
// the graphql lock held (never the other way round).
func (s *Server) jobCounts(endpointID string) jobqueue.Health {
	s.jobs.mu.Lock()
	q := s.jobs.queues[endpointID]
	s.jobs.mu.Unlock()
	if q == nil {
		return jobqueue.Health{}
	}
	return q.jq.Health()
}

// jobWorkersLocked returns the n workers the platform started for jobs in
// progress beyond the endpoint's own workers: the ones listed before keep
// their ids, new ones start now (RUNNING, on the endpoint's configuration
// version), and the newest go when there are fewer jobs. g.mu is held.
func (g *graphqlUnit) jobWorkersLocked(e *Endpoint, n int, now time.Time) []endpointWorker {
	return g.startedLocked(e.ID, e.version, n, now)
}

// heldWorkersLocked returns the n workers the platform started for the
// endpoint's queued jobs while its workers run none (workerHold), in
// status st, kept as jobWorkersLocked keeps its own. g.mu is held.
func (g *graphqlUnit) heldWorkersLocked(e *Endpoint, n int, st serverless.EndpointWorkerStatus, now time.Time) []endpointWorker {
	ws := g.startedLocked(e.ID+heldSuffix, e.version, n, now)
	for i := range ws {
		ws[i].state = st
	}
	return ws
}

// heldSuffix makes the key of g.jobWorkers under which an endpoint's
// held workers are kept (heldWorkersLocked).
const heldSuffix = "/held"

// startedLocked returns the n workers of g.jobWorkers[key], which the
// platform started for jobs: the ones listed before keep their ids, new
// ones start now (RUNNING, on configuration version), and the newest go
// when there are fewer. g.mu is held.
func (g *graphqlUnit) startedLocked(key string, version, n int, now time.Time) []endpointWorker {
	n = max(n, 0)
	ws := g.jobWorkers[key]
	ws = slices.Clone(ws[:min(n, len(ws))])
	for len(ws) < n {
		g.workerSeq++
		ws = append(ws, endpointWorker{id: fmt.Sprintf("wk%08d", g.workerSeq), status: "RUNNING", since: now, version: version})
	}
	if n == 0 {
		delete(g.jobWorkers, key)
	} else {
		g.jobWorkers[key] = ws
	}
	return slices.Clone(ws)
}

// forJobsLocked returns the workers the endpoint lists beyond its own for
// running jobs in progress: draining workers finishing a job (newest
// first), then the workers started for the jobs beyond them
// (jobWorkersLocked). active is the number of its workers not scaled
// away. g.mu is held.
func (g *graphqlUnit) forJobsLocked(e *Endpoint, active, running int, now time.Time) []endpointWorker {
	var draining []endpointWorker
	for _, w := range e.workers {
		if w.draining {
			draining = append(draining, w)
		}
	}
	var out []endpointWorker
	// A worker scaled away while it runs a job finishes the job first (a
	// scale-down stops workers gracefully): it stays listed, RUNNING,
	// however long its drain was, while the endpoint has more jobs in
	// progress than active workers.
	for _, w := range slices.Backward(draining) {
		if active+len(out) >= running {
			break
		}
		w.state = serverless.EndpointWorkerStatusRunning
		out = append(out, w)
	}
	for _, w := range g.jobWorkersLocked(e, max(running-active-len(draining), 0), now) {
		if w.state == "" {
			w.state = serverless.EndpointWorkerStatusRunning
		}
		out = append(out, w)
	}
	return out
}

// endpointSnapshot copies the endpoint's state, and reports false for an
// unknown endpoint. The workers it lists are the active ones, with the
// state the REST API reports: a worker with no status of its own is
// RUNNING while the endpoint's queue runs one of its jobs (one worker per
// job in progress, oldest first), IDLE otherwise (or what holds it:
// workerHold); then the workers that run the jobs in progress beyond
// them (forJobsLocked); then, while the workers are held, those started
// for the queued jobs (heldWorkersLocked).
func (s *Server) endpointSnapshot(endpointID string) (endpointSnapshot, bool) {
	now := s.now()
	jobs := s.jobCounts(endpointID)
	running, held := jobs.Running, s.workerHold(endpointID).status()
	s.graphql.mu.Lock()
	e := s.graphql.endpoints[endpointID]
	if e == nil {
		s.graphql.mu.Unlock()
		return endpointSnapshot{}, false
	}
	snap := endpointSnapshot{version: e.version, gpuCount: e.GPUCount, gpus: slices.Clone(e.GPUs), cpu: len(e.InstanceIDs) > 0,
		releases: slices.Clone(e.releases), now: now, jobsRunning: running}
	for _, w := range e.workers {
		if !w.draining {
			snap.workers = append(snap.workers, w)
		}
	}
	snap.workers = append(snap.workers, s.graphql.forJobsLocked(e, len(snap.workers), running, now)...)
	queuedFor := 0 // the workers to start for queued jobs
	if held != "" {
		queuedFor = min(running+jobs.InQueue, e.WorkersMax) - len(snap.workers)
	}
	snap.workers = append(snap.workers, s.graphql.heldWorkersLocked(e, queuedFor, held, now)...)
	s.graphql.mu.Unlock()

	busy := snap.jobsRunning
	for i := range snap.workers {
		w := &snap.workers[i]
		if w.state == "" {
			w.state = cmp.Or(held, serverless.EndpointWorkerStatusIdle)
			if busy > 0 {
				w.state, busy = serverless.EndpointWorkerStatusRunning, busy-1
			}
		}
	}
	return snap, true
}

// Wire formats, as the REST v2 document describes them.
type (
	endpointWorkerJSON struct {
		ID            string     `json:"id"`
		Status        string     `json:"status"`
		IsStale       bool       `json:"isStale"`
		Version       *int       `json:"version"`
		GPUCount      int        `json:"gpuCount"`
		Image         *string    `json:"image"`
		UptimeSeconds *int       `json:"uptimeSeconds"`
		GPUTypeID     *string    `json:"gpuTypeId"`
		DataCenterID  *string    `json:"dataCenterId"`
		StartedAt     *time.Time `json:"startedAt"`
	}
	workerSummaryJSON struct {
		Running      int `json:"running"`
		Idle         int `json:"idle"`
		Initializing int `json:"initializing"`
		Throttled    int `json:"throttled"`
		Unhealthy    int `json:"unhealthy"`
		Total        int `json:"total"`
	}
	releaseJSON struct {
		ID              string          `json:"id"`
		Version         *int            `json:"version"`
		Source          string          `json:"source"`
		BuildID         *string         `json:"buildId"`
		CreatedByUserID *string         `json:"createdByUserId"`
		WorkerCount     int             `json:"workerCount"`
		CreatedAt       time.Time       `json:"createdAt"`
		Diff            []diffEntryJSON `json:"diff"`
	}
	diffEntryJSON struct {
		Field string `json:"field"`
		Old   any    `json:"old"`
		New   any    `json:"new"`
	}
	rolloutJSON struct {
		InProgress      bool `json:"inProgress"`
		WorkersOnLatest int  `json:"workersOnLatest"`
		WorkersTotal    int  `json:"workersTotal"`
		PercentOnLatest int  `json:"percentOnLatest"`
	}
)

// poolGPU is the GPU type the fake places a worker of a GPU pool on.
var poolGPU = map[serverless.GPUPool]string{
	serverless.GPUPoolAmpere16: "NVIDIA RTX A4000",
	serverless.GPUPoolAmpere24: "NVIDIA RTX A5000",
	serverless.GPUPoolAda24:    "NVIDIA GeForce RTX 4090",
	serverless.GPUPoolAmpere48: "NVIDIA RTX A6000",
	serverless.GPUPoolAda48Pro: "NVIDIA RTX 6000 Ada Generation",
	serverless.GPUPoolAmpere80: "NVIDIA A100 80GB PCIe",
	serverless.GPUPoolAda80Pro: "NVIDIA H100 80GB HBM3",
}

// workerJSON is a worker as GET /v2/serverless/{id}/workers lists it.
func (snap endpointSnapshot) workerJSON(w endpointWorker) endpointWorkerJSON {
	out := endpointWorkerJSON{ID: w.id, Status: string(w.state), IsStale: w.version != snap.version, Version: ptr(w.version)}
	if !snap.cpu {
		out.GPUCount = snap.gpuCount
	}
	placed := w.state != serverless.EndpointWorkerStatusThrottled
	started := placed && w.state != serverless.EndpointWorkerStatusInitializing
	if placed {
		out.DataCenterID = ptr("EU-RO-1")
		if !snap.cpu && len(snap.gpus) > 0 {
			out.GPUTypeID = ptr(cmp.Or(poolGPU[snap.gpus[0]], string(snap.gpus[0])))
		}
	}
	if started {
		out.StartedAt = ptr(w.since.UTC())
		out.UptimeSeconds = ptr(max(int(snap.now.Sub(w.since)/time.Second), 0))
	}
	return out
}

func (s *Server) registerServerless() {
	read := s.routes(PermissionServerlessRead)
	read(RouteEndpointWorkers, func(w http.ResponseWriter, r *http.Request) {
		snap, ok := s.endpointSnapshot(r.PathValue("id"))
		if !ok {
			Problem(w, http.StatusNotFound, "endpoint not found")
			return
		}
		workers := []endpointWorkerJSON{}
		var sum workerSummaryJSON
		for _, wk := range snap.workers {
			workers = append(workers, snap.workerJSON(wk))
			switch wk.state {
			case serverless.EndpointWorkerStatusRunning:
				sum.Running++
			case serverless.EndpointWorkerStatusIdle:
				sum.Idle++
			case serverless.EndpointWorkerStatusInitializing:
				sum.Initializing++
			case serverless.EndpointWorkerStatusThrottled:
				sum.Throttled++
			case serverless.EndpointWorkerStatusUnhealthy:
				sum.Unhealthy++
			}
		}
		sum.Total = len(workers)
		WriteJSON(w, map[string]any{"workers": workers, "summary": sum, "endpointVersion": snap.version})
	})
	read(RouteEndpointReleases, func(w http.ResponseWriter, r *http.Request) {
		snap, ok := s.endpointSnapshot(r.PathValue("id"))
		if !ok {
			Problem(w, http.StatusNotFound, "endpoint not found")
			return
		}
		onVersion := map[int]int{}
		for _, wk := range snap.workers {
			onVersion[wk.version]++
		}
		releases := []releaseJSON{}
		for _, rel := range slices.Backward(snap.releases) {
			diff := []diffEntryJSON{}
			for _, c := range rel.diff {
				diff = append(diff, diffEntryJSON(c))
			}
			releases = append(releases, releaseJSON{ID: rel.id, Version: ptr(rel.version), Source: string(rel.source), BuildID: rel.buildID,
				CreatedByUserID: ptr("user_fake"), WorkerCount: onVersion[rel.version], CreatedAt: rel.createdAt, Diff: diff})
		}
		total, latest := len(snap.workers), onVersion[snap.version]
		rollout := rolloutJSON{InProgress: latest < total, WorkersOnLatest: latest, WorkersTotal: total}
		if total > 0 {
			rollout.PercentOnLatest = (latest*100 + total/2) / total
		}
		WriteJSON(w, map[string]any{"endpointVersion": snap.version, "rollout": rollout, "releases": releases})
	})
	read(RouteWorkerLogs, s.serveWorkerLogs)
}

// serveWorkerLogs streams a worker's log as Server-Sent Events, as
// servePodLogs streams a pod's: history first (tail lines, or what
// follows since / Last-Event-ID), then new lines as they come, until the
// client goes away or the server closes. The document has checked the
// parameters (tail 0 to 5000, a known source, date-times).
func (s *Server) serveWorkerLogs(w http.ResponseWriter, r *http.Request) {
	lr := parseLogRequest(r)
	endpointID, workerID := r.PathValue("id"), r.PathValue("workerId")
	s.graphql.mu.Lock()
	_, known := s.graphql.endpoints[endpointID]
	wk := s.graphql.workerLocked(endpointID, workerID, s.now())
	var started time.Time
	if wk != nil {
		started = wk.since
	}
	s.graphql.mu.Unlock()
	switch {
	case !known:
		Problem(w, http.StatusNotFound, "endpoint not found")
		return
	case wk == nil:
		Problem(w, http.StatusNotFound, "worker not found")
		return
	}

	s.serverless.mu.Lock()
	l := s.serverless.logLocked(endpointID, workerID, started)
	next := lr.first(l.lines)
	s.serverless.mu.Unlock()
	s.streamLog(w, r, lr, next, func(next int) ([]logLine, <-chan struct{}) {
		s.serverless.mu.Lock()
		defer s.serverless.mu.Unlock()
		return slices.Clone(l.lines[next:]), l.changed
	}, nil)
}
