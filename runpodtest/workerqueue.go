package runpodtest

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
	"github.com/runpodkit/runpod-go/serverless"
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

// WithWorkerLongPoll sets how long job-take and job-stop hold a request
// when there is nothing to hand out (default 1 s; the platform holds
// longer).
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

func (s *Server) registerWorkerQueue() {
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request, q *queue)) {
		s.Handle(Route{Pattern: pattern, Permission: Inference, Inference: true, RawKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.jobs.mu.Lock()
			q := s.jobs.queues[r.PathValue("endpoint")]
			s.jobs.mu.Unlock()
			if q == nil || !q.external {
				Problem(w, http.StatusNotFound, "no worker queue for this endpoint")
				return
			}
			h(w, r, q)
		}))
	}
	take := func(w http.ResponseWriter, r *http.Request, q *queue, batch int) {
		taken := q.jq.WaitTake(r.Context(), r.PathValue("worker"), batch, s.jobs.takeWait)
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
	route(RouteJobTake, func(w http.ResponseWriter, r *http.Request, q *queue) { take(w, r, q, 1) })
	route(RouteJobTakeBatch, func(w http.ResponseWriter, r *http.Request, q *queue) {
		n, err := strconv.Atoi(r.URL.Query().Get("batch_size"))
		if err != nil || n < 1 {
			Problem(w, http.StatusBadRequest, "batch_size must be a positive integer")
			return
		}
		take(w, r, q, n)
	})
	route(RouteJobDone, func(w http.ResponseWriter, r *http.Request, q *queue) {
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
		if res.Status == string(serverless.InProgress) {
			err = q.jq.Progress(id, res.Output)
		} else {
			_, err = q.jq.Finish(id, jobqueue.Result{Output: res.Output, Error: res.Error, StopPod: res.StopPod})
		}
		if err != nil {
			Problem(w, http.StatusNotFound, "job not found")
			return
		}
		WriteJSON(w, map[string]string{"status": "ok"})
	})
	route(RouteJobStream, func(w http.ResponseWriter, r *http.Request, q *queue) {
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
	})
	route(RoutePing, func(w http.ResponseWriter, r *http.Request, q *queue) {
		p := Ping{Endpoint: q.id, Worker: r.PathValue("worker"), Version: r.URL.Query().Get("runpod_version"), Time: s.now()}
		if ids := r.URL.Query().Get("job_id"); ids != "" {
			p.JobIDs = strings.Split(ids, ",")
		}
		q.jq.Seen(p.Worker)
		s.jobs.mu.Lock()
		s.jobs.pings = append(s.jobs.pings, p)
		s.jobs.mu.Unlock()
		WriteJSON(w, map[string]string{"status": "ok"})
	})
	route(RouteJobStop, func(w http.ResponseWriter, r *http.Request, q *queue) {
		ids := q.jq.WaitStops(r.Context(), r.PathValue("worker"), s.jobs.takeWait)
		if len(ids) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		WriteJSON(w, map[string][]string{"jobsToStop": ids})
	})
}
