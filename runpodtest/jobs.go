package runpodtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// jobsUnit holds the queue-based endpoints (the fake's and the workers'),
// the webhook deliveries and the worker pings.
type jobsUnit struct {
	mu            sync.Mutex
	queues        map[string]*queue
	webhooks      []WebhookDelivery
	webhookDelay  time.Duration
	webhookClient *http.Client
	takeWait      time.Duration // how long a worker's job-take is held
	pings         []Ping
}

func newJobsUnit() jobsUnit {
	return jobsUnit{
		queues:        map[string]*queue{},
		webhookDelay:  10 * time.Second,
		webhookClient: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		takeWait:      time.Second,
	}
}

// Routes of the queue-based serverless runtime, on the inference host.
// Status, status-sync and stream take GET and POST, as the platform does;
// another method on a known route is answered 405 with Allow.
const (
	RouteRun        = "POST /v2/{endpoint}/run"
	RouteRunSync    = "POST /v2/{endpoint}/runsync"
	RouteStatus     = "/v2/{endpoint}/status/{job}"
	RouteStatusSync = "/v2/{endpoint}/status-sync/{job}"
	RouteStream     = "/v2/{endpoint}/stream/{job}"
	RouteCancel     = "POST /v2/{endpoint}/cancel/{job}"
	RouteRetry      = "POST /v2/{endpoint}/retry/{job}"
	RoutePurgeQueue = "POST /v2/{endpoint}/purge-queue"
	RouteHealth     = "GET /v2/{endpoint}/health"
)

// Limits and defaults of the runtime, as the platform documents them.
const (
	MaxRunPayload      = 10 << 20
	MaxRunSyncPayload  = 20 << 20
	DefaultRunSyncWait = 90 * time.Second
	DefaultStreamWait  = 10 * time.Second
	// DefaultStatusSyncWait is how long status-sync holds a request that
	// gives no wait.
	DefaultStatusSyncWait = 90 * time.Second
	DefaultJobTTL         = jobqueue.DefaultTTL
	DefaultExecution      = jobqueue.DefaultExecutionTimeout
	RunResultKept         = jobqueue.RunRetention
	RunSyncResultKept     = jobqueue.SyncRetention
)

// QueueOption configures a fake endpoint.
type QueueOption func(*queue)

// WithWorkers sets how many jobs the endpoint runs at once (default 1):
// that many workers, each running one job at a time.
func WithWorkers(n int) QueueOption { return func(q *queue) { q.workers = max(n, 1) } }

// WithFailureStatus makes /runsync, /status and /status-sync answer a
// FAILED job with this HTTP status (the job JSON stays the body), as
// public models answer failures with 400. The default is 200.
func WithFailureStatus(code int) QueueOption { return func(q *queue) { q.failureStatus = code } }

// HandleQueue makes endpointID a queue-based endpoint of the fake whose
// jobs h runs, as the platform runs a deployed worker: each of the
// endpoint's workers is the worker runtime's production loop
// (serverless/worker's Run) taking the endpoint's jobs through the worker
// routes (job-take, job-done, job-stream, job-stop), and the job's state
// is what the worker posts there, read by the platform's rules. So the
// handler's output, errors, stream chunks (job.Stream), progress
// (job.Progress) and refresh requests (job.RefreshWorker) reach the job
// API as they would from a deployed worker. The full job API then answers
// for it: /run, /runsync, /status, /status-sync, /stream, /cancel,
// /retry, /purge-queue and /health.
//
// A job's ctx ends when it is cancelled or passes its execution timeout
// (the worker is told to stop it, on job-stop), and when the server
// closes, the endpoint is deleted or it is handled anew (its workers
// stop; the jobs of the old handler go with them, but the jobs an
// endpoint with no handler queued wait for this one). A job whose
// result asks for a refresh retires its worker; a fresh one takes its
// place. The workers' requests stay in the process (they are not in the
// request log, and injected faults and latency do not reach them). It
// panics if h is nil.
func (s *Server) HandleQueue(endpointID string, h worker.Handler, opts ...QueueOption) {
	if h == nil {
		panic("runpodtest: HandleQueue of " + endpointID + " with a nil handler")
	}
	q := s.newQueue(endpointID, opts)
	for n := 1; n <= q.workers; n++ {
		s.jobsWG.Go(func() { q.runWorkers(n, h) })
	}
}

// runner runs one job taken from a queue and returns its result: one of
// the platform's own models, which is not a worker of the SDK's.
type runner func(ctx context.Context, q *jobqueue.Queue, t jobqueue.Taken) jobqueue.Result

// serveQueue registers a queue whose jobs a model of the fake's own runs,
// one runner per worker slot.
func (s *Server) serveQueue(endpointID string, run runner, opts []QueueOption) *queue {
	q := s.newQueue(endpointID, opts)
	for slot := 1; slot <= q.workers; slot++ {
		s.jobsWG.Go(func() { q.work(slot, run) })
	}
	return q
}

// work is one worker slot of a model's queue: it takes a job, runs it and
// records its result.
func (q *queue) work(slot int, run runner) {
	id := fmt.Sprintf("%s-worker-%d", q.id, slot)
	// A queue that is closed (the server closing, or the endpoint handled
	// anew) hands out nothing more: its workers stop.
	for q.ctx.Err() == nil && !q.jq.Closed() {
		for _, t := range q.jq.WaitTake(q.ctx, id, 1, time.Hour) {
			_, _ = q.jq.Finish(t.ID, run(q.ctx, q.jq, t))
		}
	}
}

// WebhookDelivery is one attempt to deliver a completion webhook.
type WebhookDelivery struct {
	// URL is the receiver's URL, the job's webhook.
	URL string
	// JobID is the finished job's id.
	JobID string
	// Attempt counts the attempts for this job, from 1.
	Attempt int
	// Status is the receiver's HTTP status, 0 when it could not be reached.
	Status int
}

// WebhookDeliveries returns the webhook attempts made so far.
func (s *Server) WebhookDeliveries() []WebhookDelivery {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	return slices.Clone(s.jobs.webhooks)
}

// WithWebhookRetryDelay sets the pause between webhook attempts (the
// platform's is 10 seconds; three attempts in all).
func WithWebhookRetryDelay(d time.Duration) Option {
	return func(s *Server) { s.jobs.webhookDelay = d }
}

// queue is a fake endpoint: its jobs, on the module's job engine, and how
// the fake answers for them.
type queue struct {
	s             *Server
	id            string
	jq            *jobqueue.Queue
	workers       int
	failureStatus int
	external      bool // jobs wait for workers to take them (HandleWorkerQueue)
	// idle marks the queue of an endpoint no worker serves (awaitWorker):
	// its jobs stay queued until a handler comes, whose queue takes them
	// over (installLocked).
	idle bool
	// slots is the count of worker slots /health reports (workers; 0 for
	// an idle queue), shared with the queue that takes this one's jobs
	// over.
	slots *atomic.Int64
	// deleted marks the queue of a deleted endpoint (endJobs): its jobs
	// are read, nothing else is served.
	deleted atomic.Bool
	// ctx ends when the queue is closed: the server closing, or the
	// endpoint handled anew. Its own workers run under it.
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	live map[string]context.CancelFunc // the workers HandleQueue runs, by id: each one's stop
}

func (s *Server) newQueue(endpointID string, opts []QueueOption) *queue {
	q := s.makeQueue(endpointID, opts)
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	s.installLocked(q)
	return q
}

// makeQueue returns the queue of endpointID that opts describe, not
// installed yet: installLocked gives it its jobs.
func (s *Server) makeQueue(endpointID string, opts []QueueOption) *queue {
	q := &queue{s: s, id: endpointID, workers: 1, live: map[string]context.CancelFunc{}}
	for _, o := range opts {
		o(q)
	}
	q.ctx, q.cancel = context.WithCancel(s.base)
	return q
}

// installLocked makes q the queue of its endpoint, in place of the one it
// had, whose workers stop. q takes over the jobs of an idle queue (the
// platform runs the jobs an endpoint queued before its first worker
// started, once one does); otherwise it starts empty and the old queue's
// jobs go with it. s.jobs.mu is held.
func (s *Server) installLocked(q *queue) {
	old := s.jobs.queues[q.id]
	switch {
	case old != nil && old.idle && !old.deleted.Load() && !q.external:
		q.jq, q.slots = old.jq, old.slots
	default:
		q.slots = new(atomic.Int64)
		id := q.id
		cfg := jobqueue.Config{
			Now: s.now,
			// No worker takes a job while the endpoint's are held
			// (CrashLoopWorkers, ThrottleWorkers).
			Held: func() bool { return s.workerHold(id).status() != "" },
			OnEnd: func(v jobqueue.View) {
				s.recordRun(id, v) // the run bills (metering.go)
				if v.Webhook != "" {
					s.deliverWebhook(v.Webhook, v.ID, v.Wire())
				}
			},
		}
		if !q.external {
			// The fake's own workers go with their queue.
			slots := q.slots
			cfg.Slots = func() int { return int(slots.Load()) }
			cfg.StopOnClose = true
		}
		q.jq = jobqueue.New(cfg)
		if old != nil {
			old.jq.Close()
		}
	}
	if !q.idle {
		q.slots.Store(int64(q.workers))
	}
	if old != nil {
		old.cancel()
	}
	s.jobs.queues[q.id] = q
}

// awaitWorker gives queue-based endpoint endpointID a queue no worker
// serves, unless it has a queue already (that of a deleted endpoint of
// the same id aside): the platform queues the jobs of an endpoint whose
// workers never start (its template's image has no handler, say) and
// answers for them, so /run queues a job that stays IN_QUEUE, /health
// counts it, /status, /cancel and /purge-queue work, and /runsync answers
// with it, IN_QUEUE, once its wait passes. A job not taken within its TTL
// is dropped, as any. A handler registered later (HandleTemplate, say)
// takes the jobs over.
func (s *Server) awaitWorker(endpointID string) {
	q := s.makeQueue(endpointID, []QueueOption{func(q *queue) { q.idle, q.workers = true, 0 }})
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	if old := s.jobs.queues[endpointID]; old != nil && !old.deleted.Load() {
		q.cancel()
		return
	}
	s.installLocked(q)
}

// endJobs ends the jobs of endpoint endpointID, which was deleted, as the
// REST v2 document's deleteEndpoint says a delete does: "all workers are
// terminated and any queued or in-progress jobs are cancelled". Its
// queued and running jobs end CANCELLED at once (a running handler's ctx
// ends, as on /cancel), its workers stop, and nothing more is queued. The
// document says no more of the endpoint's job API: the fake goes on
// answering /status, /status-sync and /stream for its jobs while their
// results are kept (RunResultKept), so that a caller sees them cancelled,
// and answers everything else 404 "endpoint not found".
func (s *Server) endJobs(endpointID string) {
	s.jobs.mu.Lock()
	q := s.jobs.queues[endpointID]
	s.jobs.mu.Unlock()
	if q == nil {
		return
	}
	q.deleted.Store(true)
	q.jq.CancelAll()
	q.cancel()
}

func (s *Server) registerJobs() {
	route := func(pattern string, methods []string, h func(w http.ResponseWriter, r *http.Request, q *queue)) {
		s.Handle(Route{Pattern: pattern, Permission: PermissionInference, Inference: true, RawKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if methods != nil && !slices.Contains(methods, r.Method) {
				w.Header().Set("Allow", strings.Join(methods, ", "))
				Problem(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here")
				return
			}
			s.jobs.mu.Lock()
			q := s.jobs.queues[r.PathValue("endpoint")]
			s.jobs.mu.Unlock()
			if q == nil || q.deleted.Load() && !jobReads[pattern] {
				Problem(w, http.StatusNotFound, "endpoint not found")
				return
			}
			h(w, r, q)
		}))
	}
	getOrPost := []string{http.MethodGet, http.MethodPost}
	route(RouteRun, nil, func(w http.ResponseWriter, r *http.Request, q *queue) {
		v, err := q.submit(r, MaxRunPayload, false)
		if err != nil {
			q.refuse(w, err)
			return
		}
		WriteJSON(w, map[string]any{"id": v.ID, "status": v.Status})
	})
	route(RouteRunSync, nil, func(w http.ResponseWriter, r *http.Request, q *queue) {
		wait, err := waitParam(r, DefaultRunSyncWait, time.Second)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		v, err := q.submit(r, MaxRunSyncPayload, true)
		if err != nil {
			q.refuse(w, err)
			return
		}
		q.waitAndWrite(w, r, v.ID, wait)
	})
	route(RouteStatus, getOrPost, func(w http.ResponseWriter, r *http.Request, q *queue) {
		if v := r.URL.Query().Get("ttl"); v != "" {
			if ms, err := strconv.Atoi(v); err == nil && ms >= 10000 {
				_ = q.jq.SetTTL(r.PathValue("job"), time.Duration(ms)*time.Millisecond)
			}
		}
		v, err := q.jq.Get(r.PathValue("job"))
		if err != nil {
			Problem(w, http.StatusNotFound, err.Error())
			return
		}
		q.writeJob(w, v)
	})
	route(RouteStatusSync, getOrPost, func(w http.ResponseWriter, r *http.Request, q *queue) {
		wait, err := waitParam(r, DefaultStatusSyncWait, time.Millisecond)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		q.waitAndWrite(w, r, r.PathValue("job"), wait)
	})
	route(RouteStream, getOrPost, func(w http.ResponseWriter, r *http.Request, q *queue) {
		wait, err := waitParam(r, DefaultStreamWait, time.Second)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		chunks, v, err := q.jq.Chunks(r.Context(), r.PathValue("job"), wait)
		if errors.Is(err, jobqueue.ErrNotFound) {
			Problem(w, http.StatusNotFound, err.Error())
			return
		}
		stream := make([]map[string]json.RawMessage, 0, len(chunks))
		for _, c := range chunks {
			stream = append(stream, map[string]json.RawMessage{"output": c})
		}
		WriteJSON(w, map[string]any{"id": v.ID, "status": v.Status, "stream": stream})
	})
	route(RouteCancel, nil, func(w http.ResponseWriter, r *http.Request, q *queue) {
		v, err := q.jq.Cancel(r.PathValue("job"))
		if err != nil {
			Problem(w, http.StatusNotFound, err.Error())
			return
		}
		WriteJSON(w, map[string]any{"id": v.ID, "status": v.Status})
	})
	route(RouteRetry, nil, func(w http.ResponseWriter, r *http.Request, q *queue) {
		v, err := q.jq.Retry(r.PathValue("job"))
		switch {
		case errors.Is(err, jobqueue.ErrNotRetryable):
			Problem(w, http.StatusBadRequest, err.Error()+"; this one is "+string(v.Status))
		case err != nil:
			Problem(w, http.StatusNotFound, err.Error())
		default:
			WriteJSON(w, map[string]any{"id": v.ID, "status": v.Status})
		}
	})
	route(RoutePurgeQueue, nil, func(w http.ResponseWriter, r *http.Request, q *queue) {
		WriteJSON(w, map[string]any{"removed": q.jq.Purge(), "status": "completed"})
	})
	route(RouteHealth, nil, func(w http.ResponseWriter, r *http.Request, q *queue) {
		WriteJSON(w, q.jq.Health().Wire())
	})
}

// jobReads are the routes that read a job: the only ones a deleted
// endpoint still answers (endJobs).
var jobReads = map[string]bool{RouteStatus: true, RouteStatusSync: true, RouteStream: true}

// waitAndWrite holds the request until the job ends or wait passes, then
// answers with the job (a job still running is answered 200 with its
// status, as the platform does).
func (q *queue) waitAndWrite(w http.ResponseWriter, r *http.Request, id string, wait time.Duration) {
	v, err := q.jq.Wait(r.Context(), id, wait, func(v jobqueue.View) bool { return v.Status.Terminal() })
	if err != nil {
		Problem(w, http.StatusNotFound, err.Error())
		return
	}
	q.writeJob(w, v)
}

// writeJob answers with the job's status JSON, under the queue's failure
// status when it FAILED.
func (q *queue) writeJob(w http.ResponseWriter, v jobqueue.View) {
	if v.Status == jobqueue.Failed && q.failureStatus != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(q.failureStatus)
		_ = json.NewEncoder(w).Encode(v.Wire())
		return
	}
	WriteJSON(w, v.Wire())
}

// waitParam reads the wait query parameter in milliseconds, from least to
// 300 s; def when absent.
func waitParam(r *http.Request, def, least time.Duration) (time.Duration, error) {
	v := r.URL.Query().Get("wait")
	if v == "" {
		return def, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || time.Duration(ms)*time.Millisecond < least || ms > 300000 {
		return 0, fmt.Errorf("wait must be %d to 300000 milliseconds, got %q", least.Milliseconds(), v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// refuse answers a /run or /runsync whose job was not queued: 404 when
// the endpoint was deleted meanwhile, else 400 saying why.
func (q *queue) refuse(w http.ResponseWriter, err error) {
	if errors.Is(err, jobqueue.ErrClosed) && q.deleted.Load() {
		Problem(w, http.StatusNotFound, "endpoint not found")
		return
	}
	Problem(w, http.StatusBadRequest, err.Error())
}

// submit validates a /run or /runsync body and queues the job.
func (q *queue) submit(r *http.Request, limit int, sync bool) (jobqueue.View, error) {
	body, _ := io.ReadAll(r.Body)
	if len(body) > limit {
		return jobqueue.View{}, fmt.Errorf("payload of %d bytes exceeds the %d-byte limit", len(body), limit)
	}
	var req struct {
		Input   json.RawMessage `json:"input"`
		Webhook string          `json:"webhook"`
		Policy  struct {
			ExecutionTimeout *int64 `json:"executionTimeout"`
			LowPriority      bool   `json:"lowPriority"`
			TTL              *int64 `json:"ttl"`
		} `json:"policy"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return jobqueue.View{}, fmt.Errorf("body must be a JSON object: %v", err)
	}
	if len(req.Input) == 0 || string(req.Input) == "null" {
		return jobqueue.View{}, errors.New("input is required")
	}
	spec := jobqueue.Spec{Input: req.Input, Webhook: req.Webhook, Sync: sync}
	if p := req.Policy.ExecutionTimeout; p != nil {
		if *p < 5000 || *p > 7*24*3600*1000 {
			return jobqueue.View{}, errors.New("policy.executionTimeout must be 5 seconds to 7 days")
		}
		spec.ExecutionTimeout = time.Duration(*p) * time.Millisecond
	}
	if p := req.Policy.TTL; p != nil {
		if *p < 10000 || *p > 7*24*3600*1000 {
			return jobqueue.View{}, errors.New("policy.ttl must be 10 seconds to 7 days")
		}
		spec.TTL = time.Duration(*p) * time.Millisecond
	}
	if req.Webhook != "" {
		if u, err := url.Parse(req.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return jobqueue.View{}, errors.New("webhook must be an http(s) URL")
		}
	}
	return q.jq.Submit(spec)
}

// deliverWebhook posts the job's status JSON to url, up to three times,
// in the background. Only loopback receivers are called.
func (s *Server) deliverWebhook(target, jobID string, payload any) {
	body, _ := json.Marshal(payload)
	s.jobsWG.Go(func() {
		u, err := url.Parse(target)
		loopback := err == nil && isLoopbackHost(u.Hostname())
		for attempt := 1; attempt <= 3; attempt++ {
			status := 0
			if loopback {
				req, _ := http.NewRequestWithContext(s.base, http.MethodPost, target, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if resp, err := s.jobs.webhookClient.Do(req); err == nil {
					status = resp.StatusCode
					_ = resp.Body.Close()
				}
			}
			s.jobs.mu.Lock()
			s.jobs.webhooks = append(s.jobs.webhooks, WebhookDelivery{URL: target, JobID: jobID, Attempt: attempt, Status: status})
			s.jobs.mu.Unlock()
			if status == http.StatusOK || !loopback {
				return
			}
			select {
			case <-time.After(s.jobs.webhookDelay):
			case <-s.closing:
				return
			}
		}
	})
}

// isLoopbackHost reports whether host is this machine ("localhost", a
// name under .localhost, or a loopback address): the only webhook
// receivers the fake calls, so a test never reaches the network.
func isLoopbackHost(host string) bool {
	host = strings.ToLower(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
