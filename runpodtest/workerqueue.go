package runpodtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// Routes of the worker side of the queue: what a serverless worker's job
// loop calls (the key as the raw Authorization value).
const (
	RouteJobTake      = "GET /v2/{endpoint}/job-take/{worker}"
	RouteJobTakeBatch = "GET /v2/{endpoint}/job-take-batch/{worker}"
	RouteJobDone      = "POST /v2/{endpoint}/job-done/{worker}/{job}"
	RouteJobStream    = "POST /v2/{endpoint}/job-stream/{worker}/{job}"
	RoutePing         = "GET /v2/{endpoint}/ping/{worker}"
	RouteJobStop      = "GET /v2/{endpoint}/job-stop/{worker}"
)

// WithWorkerLongPoll sets how long job-take and job-stop hold an external
// worker's request (HandleWorkerQueue) when there is nothing to hand out
// (default 1 s; the platform holds longer, as it does for the workers
// HandleQueue runs).
func WithWorkerLongPoll(d time.Duration) Option { return func(s *Server) { s.jobs.takeWait = d } }

// Ping is one heartbeat a worker sent.
type Ping struct {
	// Endpoint is the endpoint the worker serves.
	Endpoint string
	// Worker is the worker's id.
	Worker string
	// JobIDs are the jobs the worker said it was running.
	JobIDs []string
	// Version is the worker runtime version it reported.
	Version string
	// Time is when the ping arrived, by the server's clock.
	Time time.Time
}

// HandleWorkerQueue makes endpointID a queue-based endpoint whose jobs are
// run by external workers: jobs submitted with /run or /runsync wait until
// a worker takes them (job-take), and finish when it posts their result
// (job-done). Use it to test a worker's production loop end to end.
//
// As on the platform, a progress update a worker posts shows as the job's
// output on /status while it runs; a job past its execution timeout is
// TIMED_OUT and its worker told to stop (job-stop); a job not taken within
// its TTL is never handed out; a worker whose result asks for a refresh
// (stopPod) is handed no more jobs.
func (s *Server) HandleWorkerQueue(endpointID string, opts ...QueueOption) {
	s.newQueue(endpointID, append([]QueueOption{func(q *queue) { q.external = true }}, opts...))
}

// WorkerEnv returns the environment a worker's production loop needs to
// work for endpointID against the fake (RUNPOD_WEBHOOK_* URLs, key, pod id,
// ping interval in milliseconds).
func (s *Server) WorkerEnv(endpointID, workerID string, pingInterval time.Duration) map[string]string {
	base := s.InferenceURL + "/v2/" + endpointID
	return map[string]string{
		"RUNPOD_WEBHOOK_GET_JOB":     base + "/job-take/$ID?gpu=NVIDIA+L4",
		"RUNPOD_WEBHOOK_POST_OUTPUT": base + "/job-done/$RUNPOD_POD_ID/$ID?gpu=NVIDIA+L4",
		"RUNPOD_WEBHOOK_POST_STREAM": base + "/job-stream/$RUNPOD_POD_ID/$ID?gpu=NVIDIA+L4",
		"RUNPOD_WEBHOOK_PING":        base + "/ping/$RUNPOD_POD_ID?gpu=NVIDIA+L4",
		"RUNPOD_PING_INTERVAL":       strconv.FormatInt(pingInterval.Milliseconds(), 10),
		"RUNPOD_AI_API_KEY":          s.APIKey,
		"RUNPOD_POD_ID":              workerID,
		"RUNPOD_ENDPOINT_ID":         endpointID,
	}
}

// Pings returns the heartbeats received.
func (s *Server) Pings() []Ping {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	return slices.Clone(s.jobs.pings)
}

// JobResults returns how many times a worker posted the final result of
// a job, and its latest progress update. Only the first result counts (a
// retried post is a duplicate); the job's status shows it.
func (s *Server) JobResults(endpointID, jobID string) (posts int, progress json.RawMessage) {
	s.jobs.mu.Lock()
	q := s.jobs.queues[endpointID]
	s.jobs.mu.Unlock()
	if q == nil {
		return 0, nil
	}
	return q.jq.Posts(jobID)
}

// workerRoute is a route of the worker side of the queue.
type workerRoute struct {
	pattern string
	serve   func(w http.ResponseWriter, r *http.Request, q *queue)
}

// registerWorkerQueue serves the worker routes to external workers (the
// queues of HandleWorkerQueue), through the gateway like every route.
func (s *Server) registerWorkerQueue() {
	for _, rt := range workerRoutes() {
		s.Handle(Route{Pattern: rt.pattern, Permission: PermissionInference, Inference: true, RawKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.jobs.mu.Lock()
			q := s.jobs.queues[r.PathValue("endpoint")]
			s.jobs.mu.Unlock()
			if q == nil || !q.external {
				Problem(w, http.StatusNotFound, "no worker queue for this endpoint")
				return
			}
			rt.serve(w, r, q)
		}))
	}
}

// workerRoutes returns the worker side of a queue's job API, what a
// worker's production loop calls: the same for external workers and for
// the workers HandleQueue runs. Bodies are read by the platform's rules,
// whatever runtime posted them.
func workerRoutes() []workerRoute {
	take := func(w http.ResponseWriter, r *http.Request, q *queue, batch int) {
		taken := q.jq.WaitTake(r.Context(), r.PathValue("worker"), batch, q.longPoll())
		if len(taken) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		jobs := make([]map[string]any, 0, len(taken))
		for _, t := range taken {
			job := map[string]any{"id": t.ID, "input": t.Input}
			if t.Webhook != "" {
				job["webhook"] = t.Webhook
			}
			jobs = append(jobs, job)
		}
		if strings.Contains(r.URL.Path, "/job-take-batch/") {
			WriteJSON(w, jobs)
			return
		}
		WriteJSON(w, jobs[0])
	}
	return []workerRoute{
		{RouteJobTake, func(w http.ResponseWriter, r *http.Request, q *queue) { take(w, r, q, 1) }},
		{RouteJobTakeBatch, func(w http.ResponseWriter, r *http.Request, q *queue) {
			n, err := strconv.Atoi(r.URL.Query().Get("batch_size"))
			if err != nil || n < 1 {
				Problem(w, http.StatusBadRequest, "batch_size must be a positive integer")
				return
			}
			take(w, r, q, n)
		}},
		{RouteJobDone, func(w http.ResponseWriter, r *http.Request, q *queue) {
			body, _ := io.ReadAll(r.Body)
			var res struct {
				Output  json.RawMessage `json:"output"`
				Error   string          `json:"error"`
				Status  string          `json:"status"`
				StopPod bool            `json:"stopPod"`
			}
			if err := json.Unmarshal(body, &res); err != nil {
				Problem(w, http.StatusBadRequest, "result body must be JSON")
				return
			}
			id := r.PathValue("job")
			var err error
			if res.Status == string(jobqueue.InProgress) {
				err = q.jq.Progress(id, res.Output)
			} else {
				_, err = q.jq.Finish(id, jobqueue.Result{Output: res.Output, Error: res.Error, StopPod: res.StopPod})
			}
			if err != nil {
				Problem(w, http.StatusNotFound, "job not found")
				return
			}
			if res.StopPod {
				// The platform stops the worker that asked to be
				// replaced; it is handed no more jobs either way.
				q.retire(r.PathValue("worker"))
			}
			WriteJSON(w, map[string]string{"status": "ok"})
		}},
		{RouteJobStream, func(w http.ResponseWriter, r *http.Request, q *queue) {
			body, _ := io.ReadAll(r.Body)
			var chunk struct {
				Output json.RawMessage `json:"output"`
			}
			if err := json.Unmarshal(body, &chunk); err != nil {
				Problem(w, http.StatusBadRequest, "stream body must be JSON")
				return
			}
			if err := q.jq.Stream(r.PathValue("job"), chunk.Output); err != nil {
				Problem(w, http.StatusNotFound, "job not found")
				return
			}
			WriteJSON(w, map[string]string{"status": "ok"})
		}},
		{RoutePing, func(w http.ResponseWriter, r *http.Request, q *queue) {
			s := q.s
			p := Ping{Endpoint: q.id, Worker: r.PathValue("worker"), Version: r.URL.Query().Get("runpod_version"), Time: s.now()}
			if ids := r.URL.Query().Get("job_id"); ids != "" {
				p.JobIDs = strings.Split(ids, ",")
			}
			q.jq.Seen(p.Worker)
			s.jobs.mu.Lock()
			s.jobs.pings = append(s.jobs.pings, p)
			s.jobs.mu.Unlock()
			WriteJSON(w, map[string]string{"status": "ok"})
		}},
		{RouteJobStop, func(w http.ResponseWriter, r *http.Request, q *queue) {
			ids := q.jq.WaitStops(r.Context(), r.PathValue("worker"), q.longPoll())
			if len(ids) == 0 {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			WriteJSON(w, map[string][]string{"jobsToStop": ids})
		}},
	}
}

// ownHold is how long job-take and job-stop hold the requests of the
// workers HandleQueue runs: long, as the platform holds them (within the
// 90 s a worker waits), so that a job or a stop reaches an idle worker
// the moment there is one.
const ownHold = 80 * time.Second

// longPoll is how long q's job-take and job-stop hold a request when
// there is nothing to hand out.
func (q *queue) longPoll() time.Duration {
	if q.external {
		return q.s.jobs.takeWait
	}
	return ownHold
}

// runWorkers is worker slot n of q, a queue HandleQueue serves: the
// worker runtime's production loop (worker.Run, as a deployed worker
// runs it) running h, one job at a time, against q's worker routes. The
// platform stops a worker whose result asks for a refresh; a fresh one,
// under a new id, takes its place. It returns once q is closed (the
// server closing, or the endpoint handled anew) and its worker has
// stopped: q's job-take and job-stop answer at once then, and the jobs
// still running are stopped (jobqueue.Config.StopOnClose).
func (q *queue) runWorkers(n int, h worker.Handler) {
	api := q.workerAPI()
	for gen := 1; q.ctx.Err() == nil; gen++ {
		id := fmt.Sprintf("%s-worker-%d", q.id, n)
		if gen > 1 {
			id = fmt.Sprintf("%s-worker-%d-%d", q.id, n, gen)
		}
		ctx, cancel := context.WithCancel(q.ctx)
		q.mu.Lock()
		q.live[id] = cancel
		q.mu.Unlock()
		env := q.s.WorkerEnv(q.id, id, 0)
		// Its liveness is not in question: no heartbeat, so that Pings
		// lists only the pings of external workers.
		delete(env, "RUNPOD_WEBHOOK_PING")
		delete(env, "RUNPOD_PING_INTERVAL")
		err := worker.Run(ctx, h,
			worker.WithArgs([]string{}),
			worker.WithEnv(func(name string) string { return env[name] }),
			worker.WithOutput(io.Discard),
			worker.WithConcurrency(1),
			worker.WithHTTPClient(&http.Client{Transport: wireTransport{api}}))
		cancel()
		q.mu.Lock()
		delete(q.live, id)
		q.mu.Unlock()
		if err != nil {
			panic("runpodtest: the worker of " + q.id + " could not start: " + err.Error())
		}
	}
}

// retire stops the worker id of q if HandleQueue runs it (the platform
// replacing a worker that asked for a refresh).
func (q *queue) retire(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if cancel := q.live[id]; cancel != nil {
		cancel()
	}
}

// workerAPI returns the worker routes of q alone, as the workers
// HandleQueue runs reach them. They pass no gateway: the request log,
// injected faults, latency and limits are the test's clients' (a
// FailNext("*", …) is for them). The key is checked as the platform
// checks a worker's: the raw Authorization value.
func (q *queue) workerAPI() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range workerRoutes() {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != q.s.APIKey {
				Problem(w, http.StatusUnauthorized, "invalid or expired api key")
				return
			}
			rt.serve(w, r, q)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		Problem(w, http.StatusNotFound, "resource not found")
	})
	return mux
}

// wireTransport carries a worker's requests to h in memory, as HTTP/1.1
// messages: each request is written out and read back as a server reads
// it, and the answer likewise, so the worker and the fake share nothing
// but the bytes of the exchange. The request's context reaches h, as a
// dropped connection would. A worker loop on it holds no socket: it
// outlives the fake's listeners while it drains, and never meets a proxy.
type wireTransport struct{ h http.Handler }

// RoundTrip serves req with h and returns h's answer, even when req's
// context ended meanwhile (an answer the platform sent hands its jobs
// over).
func (t wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		return nil, err
	}
	in, err := http.ReadRequest(bufio.NewReader(&wire))
	if err != nil {
		return nil, err
	}
	in = in.WithContext(req.Context())
	in.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	var answer bytes.Buffer
	if err := rec.Result().Write(&answer); err != nil {
		return nil, err
	}
	return http.ReadResponse(bufio.NewReader(&answer), req)
}
