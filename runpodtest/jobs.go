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
	"time"

	"github.com/google/uuid"
)

// Routes of the queue-based serverless runtime, on the inference host.
const (
	RouteRun        = "POST /v2/{endpoint}/run"
	RouteRunSync    = "POST /v2/{endpoint}/runsync"
	RouteStatus     = "GET /v2/{endpoint}/status/{job}"
	RouteStream     = "GET /v2/{endpoint}/stream/{job}"
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
	DefaultJobTTL      = 24 * time.Hour
	DefaultExecution   = 10 * time.Minute
	RunResultKept      = 30 * time.Minute
	RunSyncResultKept  = time.Minute
)

// JobHandler runs one job of a fake endpoint: what a worker's handler does.
// It returns the job's output, or an error that fails the job (its text
// becomes the job's error). Streaming handlers call job.Emit for each chunk.
// ctx ends when the job is cancelled or times out.
type JobHandler func(ctx context.Context, job *Job) (output any, err error)

// Job is a job as its handler sees it.
type Job struct {
	ID    string
	Input json.RawMessage
	// Emit publishes a stream chunk, read through /stream.
	Emit func(chunk any)
}

// QueueOption configures a fake endpoint.
type QueueOption func(*queue)

// WithWorkers sets how many jobs the endpoint runs at once (default 1).
func WithWorkers(n int) QueueOption { return func(q *queue) { q.workers = max(n, 1) } }

// WithFailureStatus makes /runsync and /status answer a FAILED job with
// this HTTP status (the job JSON stays the body), as public models answer
// failures with 400. The default is 200.
func WithFailureStatus(code int) QueueOption { return func(q *queue) { q.failureStatus = code } }

// JobStatus values of the fake's jobs.
const (
	StatusInQueue    = "IN_QUEUE"
	StatusInProgress = "IN_PROGRESS"
	StatusCompleted  = "COMPLETED"
	StatusFailed     = "FAILED"
	StatusCancelled  = "CANCELLED"
	StatusTimedOut   = "TIMED_OUT"
)

// HandleQueue makes endpointID a queue-based endpoint of the fake, whose
// jobs h runs: the full runtime API (/run, /runsync, /status, /stream,
// /cancel, /retry, /purge-queue, /health) then answers for it.
func (s *Server) HandleQueue(endpointID string, h JobHandler, opts ...QueueOption) {
	q := &queue{s: s, id: endpointID, h: h, workers: 1, jobs: map[string]*fakeJob{}}
	for _, o := range opts {
		o(q)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[endpointID] = q
}

// WebhookDelivery is one attempt to deliver a completion webhook.
type WebhookDelivery struct {
	URL     string
	JobID   string
	Attempt int
	// Status is the receiver's HTTP status, 0 when it could not be reached.
	Status int
}

// WebhookDeliveries returns the webhook attempts made so far.
func (s *Server) WebhookDeliveries() []WebhookDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.webhooks)
}

// WithWebhookRetryDelay sets the pause between webhook attempts (the
// platform's is 10 seconds; three attempts in all).
func WithWebhookRetryDelay(d time.Duration) Option { return func(s *Server) { s.webhookDelay = d } }

type queue struct {
	s             *Server
	id            string
	h             JobHandler
	workers       int
	failureStatus int
	external      bool // jobs wait for workers to take them (HandleWorkerQueue)

	// guarded by s.mu
	jobs                       map[string]*fakeJob
	order                      []string
	running                    int
	completed, failed, retried int
}

type fakeJob struct {
	id, status, errMsg string
	input              json.RawMessage
	output             json.RawMessage
	webhook            string
	sync               bool
	submitted          time.Time
	started, finished  time.Time
	ttl, execTimeout   time.Duration
	expires            time.Time
	workerID           string
	chunks             []json.RawMessage
	delivered          int
	cancel             context.CancelFunc
	stopRequested      bool
	stopSent           bool
	progress           []json.RawMessage
	results            int           // result posts received (external workers)
	changed            chan struct{} // closed and replaced on every change
}

func (j *fakeJob) terminal() bool {
	switch j.status {
	case StatusCompleted, StatusFailed, StatusCancelled, StatusTimedOut:
		return true
	}
	return false
}

// touch wakes everyone waiting on the job. s.mu is held.
func (j *fakeJob) touch() {
	close(j.changed)
	j.changed = make(chan struct{})
}

// view is the job as /status shows it.
func (j *fakeJob) view() map[string]any {
	v := map[string]any{"id": j.id, "status": j.status}
	if !j.started.IsZero() {
		v["delayTime"] = j.started.Sub(j.submitted).Milliseconds()
		v["workerId"] = j.workerID
	}
	if !j.finished.IsZero() && !j.started.IsZero() {
		v["executionTime"] = j.finished.Sub(j.started).Milliseconds()
	}
	if j.output != nil {
		v["output"] = j.output
	}
	if j.errMsg != "" {
		v["error"] = j.errMsg
	}
	return v
}

func (s *Server) registerJobs() {
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request, q *queue)) {
		s.Handle(Route{Pattern: pattern, Permission: Inference, Inference: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			q := s.queues[r.PathValue("endpoint")]
			s.mu.Unlock()
			if q == nil {
				Problem(w, http.StatusNotFound, "endpoint not found")
				return
			}
			h(w, r, q)
		}))
	}
	route(RouteRun, func(w http.ResponseWriter, r *http.Request, q *queue) {
		j, err := q.submit(r, MaxRunPayload, false)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		WriteJSON(w, map[string]any{"id": j.id, "status": StatusInQueue})
	})
	route(RouteRunSync, func(w http.ResponseWriter, r *http.Request, q *queue) {
		wait, err := waitParam(r, DefaultRunSyncWait)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		j, err := q.submit(r, MaxRunSyncPayload, true)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		q.waitFor(r.Context(), j, wait, func(j *fakeJob) bool { return j.terminal() })
		q.writeJob(w, j)
	})
	route(RouteStatus, func(w http.ResponseWriter, r *http.Request, q *queue) {
		j := q.lookup(r.PathValue("job"))
		if j == nil {
			Problem(w, http.StatusNotFound, "job not found (it may have expired)")
			return
		}
		s.mu.Lock()
		if v := r.URL.Query().Get("ttl"); v != "" {
			if ms, err := strconv.Atoi(v); err == nil && ms >= 10000 {
				j.ttl = time.Duration(ms) * time.Millisecond
				j.expires = j.submitted.Add(j.ttl)
			}
		}
		s.mu.Unlock()
		q.writeJob(w, j)
	})
	route(RouteStream, func(w http.ResponseWriter, r *http.Request, q *queue) {
		wait, err := waitParam(r, DefaultStreamWait)
		if err != nil {
			Problem(w, http.StatusBadRequest, err.Error())
			return
		}
		j := q.lookup(r.PathValue("job"))
		if j == nil {
			Problem(w, http.StatusNotFound, "job not found (it may have expired)")
			return
		}
		q.waitFor(r.Context(), j, wait, func(j *fakeJob) bool { return j.terminal() || j.delivered < len(j.chunks) })
		s.mu.Lock()
		chunks := make([]map[string]json.RawMessage, 0, len(j.chunks)-j.delivered)
		for _, c := range j.chunks[j.delivered:] {
			chunks = append(chunks, map[string]json.RawMessage{"output": c})
		}
		j.delivered = len(j.chunks)
		out := map[string]any{"status": j.status, "stream": chunks}
		s.mu.Unlock()
		WriteJSON(w, out)
	})
	route(RouteCancel, func(w http.ResponseWriter, r *http.Request, q *queue) {
		j := q.lookup(r.PathValue("job"))
		if j == nil {
			Problem(w, http.StatusNotFound, "job not found (it may have expired)")
			return
		}
		s.mu.Lock()
		switch j.status {
		case StatusInQueue:
			q.finishLocked(j, StatusCancelled, nil, "")
			q.order = slices.DeleteFunc(q.order, func(id string) bool { return id == j.id })
		case StatusInProgress:
			if j.cancel != nil {
				j.cancel() // the runner marks it CANCELLED
			}
			if q.external {
				j.stopRequested = true
				q.s.workAvailable() // wake the worker's job-stop poll
				q.finishLocked(j, StatusCancelled, nil, "")
				q.running--
			} else {
				j.status = StatusCancelled
				j.touch()
			}
		}
		status := j.status
		s.mu.Unlock()
		WriteJSON(w, map[string]any{"id": j.id, "status": status})
	})
	route(RouteRetry, func(w http.ResponseWriter, r *http.Request, q *queue) {
		j := q.lookup(r.PathValue("job"))
		if j == nil {
			Problem(w, http.StatusNotFound, "job not found (it may have expired)")
			return
		}
		s.mu.Lock()
		if j.status != StatusFailed && j.status != StatusTimedOut {
			st := j.status
			s.mu.Unlock()
			Problem(w, http.StatusBadRequest, "only FAILED or TIMED_OUT jobs can be retried; this one is "+st)
			return
		}
		j.status, j.output, j.errMsg, j.chunks, j.delivered = StatusInQueue, nil, "", nil, 0
		j.started, j.finished = time.Time{}, time.Time{}
		j.expires = j.submitted.Add(j.ttl)
		q.retried++
		q.order = append(q.order, j.id)
		j.touch()
		q.dispatchLocked()
		s.mu.Unlock()
		WriteJSON(w, map[string]any{"id": j.id, "status": StatusInQueue})
	})
	route(RoutePurgeQueue, func(w http.ResponseWriter, r *http.Request, q *queue) {
		s.mu.Lock()
		removed := 0
		for _, id := range q.order {
			if j := q.jobs[id]; j != nil && j.status == StatusInQueue {
				q.finishLocked(j, StatusCancelled, nil, "removed by purge-queue")
				removed++
			}
		}
		q.order = nil
		s.mu.Unlock()
		WriteJSON(w, map[string]any{"removed": removed, "status": "completed"})
	})
	route(RouteHealth, func(w http.ResponseWriter, r *http.Request, q *queue) {
		s.mu.Lock()
		inQueue := 0
		for _, id := range q.order {
			if j := q.jobs[id]; j != nil && j.status == StatusInQueue {
				inQueue++
			}
		}
		out := map[string]any{
			"jobs":    map[string]int{"completed": q.completed, "failed": q.failed, "inProgress": q.running, "inQueue": inQueue, "retried": q.retried},
			"workers": map[string]int{"idle": q.workers - q.running, "running": q.running},
		}
		s.mu.Unlock()
		WriteJSON(w, out)
	})
}

// writeJob answers with the job's status JSON, under the queue's failure
// status when it FAILED.
func (q *queue) writeJob(w http.ResponseWriter, j *fakeJob) {
	q.s.mu.Lock()
	v, failed := j.view(), j.status == StatusFailed
	q.s.mu.Unlock()
	if failed && q.failureStatus != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(q.failureStatus)
		_ = json.NewEncoder(w).Encode(v)
		return
	}
	WriteJSON(w, v)
}

func waitParam(r *http.Request, def time.Duration) (time.Duration, error) {
	v := r.URL.Query().Get("wait")
	if v == "" {
		return def, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms < 1000 || ms > 300000 {
		return 0, fmt.Errorf("wait must be 1000 to 300000 milliseconds, got %q", v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// submit validates a /run or /runsync body and queues the job.
func (q *queue) submit(r *http.Request, limit int, sync bool) (*fakeJob, error) {
	body, _ := io.ReadAll(r.Body)
	if len(body) > limit {
		return nil, fmt.Errorf("payload of %d bytes exceeds the %d-byte limit", len(body), limit)
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
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("body must be a JSON object: %v", err)
	}
	if len(req.Input) == 0 || string(req.Input) == "null" {
		return nil, errors.New("input is required")
	}
	exec, ttl := DefaultExecution, DefaultJobTTL
	if p := req.Policy.ExecutionTimeout; p != nil {
		if *p < 5000 || *p > 7*24*3600*1000 {
			return nil, errors.New("policy.executionTimeout must be 5 seconds to 7 days")
		}
		exec = time.Duration(*p) * time.Millisecond
	}
	if p := req.Policy.TTL; p != nil {
		if *p < 10000 || *p > 7*24*3600*1000 {
			return nil, errors.New("policy.ttl must be 10 seconds to 7 days")
		}
		ttl = time.Duration(*p) * time.Millisecond
	}
	if req.Webhook != "" {
		if u, err := url.Parse(req.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, errors.New("webhook must be an http(s) URL")
		}
	}
	s := q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	id := newJobID()
	if sync {
		id = "sync-" + id
	}
	now := s.now()
	j := &fakeJob{id: id, status: StatusInQueue, input: req.Input, webhook: req.Webhook, sync: sync,
		submitted: now, ttl: ttl, execTimeout: exec, expires: now.Add(ttl), changed: make(chan struct{})}
	q.jobs[id] = j
	q.order = append(q.order, id)
	q.dispatchLocked()
	return j, nil
}

// newJobID returns an id of the platform's shape: a random UUID with a
// -u1 suffix.
func newJobID() string { return uuid.NewString() + "-u1" }

// lookup returns a job, or nil when it is unknown or expired (TTL or
// result retention), deleting it then.
func (q *queue) lookup(id string) *fakeJob {
	s := q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	j := q.jobs[id]
	if j == nil {
		return nil
	}
	if !s.now().Before(j.expires) {
		if j.cancel != nil {
			j.cancel()
		}
		delete(q.jobs, id)
		return nil
	}
	return j
}

// waitFor blocks until done(j) holds, wait passes or ctx ends.
func (q *queue) waitFor(ctx context.Context, j *fakeJob, wait time.Duration, done func(*fakeJob) bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		q.s.mu.Lock()
		ok, ch := done(j), j.changed
		q.s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		case <-q.s.closing:
			return
		}
	}
}

// dispatchLocked starts queued jobs while workers are free. s.mu is held.
// Jobs of an external queue wait for a worker to take them.
func (q *queue) dispatchLocked() {
	if q.external {
		for _, j := range q.jobs {
			if j.status == StatusInQueue {
				j.touch() // wake long-polling takers
			}
		}
		q.s.workAvailable()
		return
	}
	for q.running < q.workers && len(q.order) > 0 {
		id := q.order[0]
		q.order = q.order[1:]
		j := q.jobs[id]
		if j == nil || j.status != StatusInQueue {
			continue
		}
		q.running++
		ctx, cancel := context.WithTimeout(q.s.base, j.execTimeout)
		j.cancel = cancel
		j.status, j.started = StatusInProgress, q.s.now()
		j.workerID = fmt.Sprintf("%s-worker-%d", q.id, q.running)
		j.touch()
		q.s.jobsWG.Add(1)
		go q.runJob(ctx, cancel, j)
	}
}

func (q *queue) runJob(ctx context.Context, cancel context.CancelFunc, j *fakeJob) {
	defer q.s.jobsWG.Done()
	defer cancel()
	job := &Job{ID: j.id, Input: j.input, Emit: func(chunk any) {
		b, err := json.Marshal(chunk)
		if err != nil {
			return
		}
		q.s.mu.Lock()
		defer q.s.mu.Unlock()
		if j.status == StatusInProgress {
			j.chunks = append(j.chunks, b)
			j.touch()
		}
	}}
	out, err := safeRun(ctx, q.h, job)

	s := q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	q.running--
	switch {
	case j.status != StatusInProgress:
		// cancelled (or purged) while running: keep that status
		q.finishLocked(j, j.status, nil, "")
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		q.finishLocked(j, StatusTimedOut, nil, "execution timeout exceeded")
	case err != nil:
		q.finishLocked(j, StatusFailed, nil, err.Error())
	default:
		b, merr := json.Marshal(out)
		if merr != nil {
			q.finishLocked(j, StatusFailed, nil, "handler output is not JSON: "+merr.Error())
		} else {
			q.finishLocked(j, StatusCompleted, b, "")
		}
	}
	q.dispatchLocked()
}

// safeRun runs the handler, turning a panic into a failure.
func safeRun(ctx context.Context, h JobHandler, job *Job) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h(ctx, job)
}

// finishLocked moves j to a terminal status. s.mu is held.
func (q *queue) finishLocked(j *fakeJob, status string, output json.RawMessage, errMsg string) {
	now := q.s.now()
	if j.started.IsZero() {
		j.started = now
	}
	j.status, j.output, j.errMsg, j.finished = status, output, errMsg, now
	switch status {
	case StatusCompleted:
		q.completed++
	case StatusFailed, StatusTimedOut:
		q.failed++
	}
	kept := RunResultKept
	if j.sync {
		kept = RunSyncResultKept
	}
	if e := now.Add(kept); e.Before(j.expires) {
		j.expires = e
	}
	j.touch()
	if j.webhook != "" {
		q.s.deliverWebhookLocked(j.webhook, j.id, j.view())
	}
}

// deliverWebhookLocked posts the job's status JSON to url, up to three
// times, in the background. Only loopback receivers are called.
func (s *Server) deliverWebhookLocked(target, jobID string, payload map[string]any) {
	body, _ := json.Marshal(payload)
	s.jobsWG.Add(1)
	go func() {
		defer s.jobsWG.Done()
		u, err := url.Parse(target)
		loopback := err == nil && isLoopbackHost(u.Hostname())
		for attempt := 1; attempt <= 3; attempt++ {
			status := 0
			if loopback {
				req, _ := http.NewRequestWithContext(s.base, http.MethodPost, target, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if resp, err := s.webhookClient.Do(req); err == nil {
					status = resp.StatusCode
					_ = resp.Body.Close()
				}
			}
			s.mu.Lock()
			s.webhooks = append(s.webhooks, WebhookDelivery{URL: target, JobID: jobID, Attempt: attempt, Status: status})
			s.mu.Unlock()
			if status == http.StatusOK || !loopback {
				return
			}
			select {
			case <-time.After(s.webhookDelay):
			case <-s.closing:
				return
			}
		}
	}()
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
