package runpodtest

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
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
func WithWorkerLongPoll(d time.Duration) Option { return func(s *Server) { s.takeWait = d } }

// Ping is one heartbeat a worker sent.
type Ping struct {
	Endpoint, Worker string
	// JobIDs are the jobs the worker said it was running.
	JobIDs  []string
	Version string
	Time    time.Time
}

// HandleWorkerQueue makes endpointID a queue-based endpoint whose jobs are
// run by external workers: jobs submitted with /run or /runsync wait until
// a worker takes them (job-take), and finish when it posts their result
// (job-done). Use it to test a worker's production loop end to end.
func (s *Server) HandleWorkerQueue(endpointID string, opts ...QueueOption) {
	s.HandleQueue(endpointID, nil, append([]QueueOption{func(q *queue) { q.external = true }}, opts...)...)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pings)
}

// JobResults returns how many times a worker posted the final result of
// a job, and the progress updates it posted. Only the first result counts
// (a retried post is a duplicate); the job's status shows it.
func (s *Server) JobResults(endpointID, jobID string) (posts int, progress []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queues[endpointID]; q != nil {
		if j := q.jobs[jobID]; j != nil {
			return j.results, slices.Clone(j.progress)
		}
	}
	return 0, nil
}

// workAvailable wakes long-polling takers. s.mu is held.
func (s *Server) workAvailable() {
	close(s.work)
	s.work = make(chan struct{})
}

func (s *Server) registerWorkerQueue() {
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request, q *queue)) {
		s.Handle(Route{Pattern: pattern, Permission: Inference, Inference: true, RawKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			q := s.queues[r.PathValue("endpoint")]
			s.mu.Unlock()
			if q == nil || !q.external {
				Problem(w, http.StatusNotFound, "no worker queue for this endpoint")
				return
			}
			h(w, r, q)
		}))
	}
	take := func(w http.ResponseWriter, r *http.Request, q *queue, batch int) {
		s.longPoll(w, r, func() any {
			var taken []map[string]any
			now := s.now()
			for _, id := range q.order {
				j := q.jobs[id]
				if j == nil || j.status != StatusInQueue || len(taken) == batch {
					continue
				}
				j.status, j.started, j.workerID = StatusInProgress, now, r.PathValue("worker")
				q.running++
				j.touch()
				job := map[string]any{"id": j.id, "input": j.input}
				if j.webhook != "" {
					job["webhook"] = j.webhook
				}
				taken = append(taken, job)
			}
			q.order = slices.DeleteFunc(q.order, func(id string) bool {
				j := q.jobs[id]
				return j == nil || j.status != StatusInQueue
			})
			switch {
			case len(taken) == 0:
				return nil
			case !strings.Contains(r.URL.Path, "/job-take-batch/"):
				return taken[0]
			}
			return taken
		})
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
		s.mu.Lock()
		defer s.mu.Unlock()
		j := q.jobs[r.PathValue("job")]
		if j == nil {
			Problem(w, http.StatusNotFound, "job not found")
			return
		}
		if res.Status == StatusInProgress {
			if j.status == StatusInProgress {
				j.progress = append(j.progress, res.Output)
			}
			WriteJSON(w, map[string]string{"status": "ok"})
			return
		}
		j.results++
		if j.status == StatusInProgress { // the first result counts; a retried post is a duplicate
			q.running--
			if res.Error != "" {
				q.finishLocked(j, StatusFailed, nil, res.Error)
			} else {
				q.finishLocked(j, StatusCompleted, res.Output, "")
			}
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
		s.mu.Lock()
		defer s.mu.Unlock()
		j := q.jobs[r.PathValue("job")]
		if j == nil {
			Problem(w, http.StatusNotFound, "job not found")
			return
		}
		if j.status == StatusInProgress {
			j.chunks = append(j.chunks, chunk.Output)
			j.touch()
		}
		WriteJSON(w, map[string]string{"status": "ok"})
	})
	route(RoutePing, func(w http.ResponseWriter, r *http.Request, q *queue) {
		p := Ping{Endpoint: q.id, Worker: r.PathValue("worker"), Version: r.URL.Query().Get("runpod_version"), Time: s.now()}
		if ids := r.URL.Query().Get("job_id"); ids != "" {
			p.JobIDs = strings.Split(ids, ",")
		}
		s.mu.Lock()
		s.pings = append(s.pings, p)
		s.mu.Unlock()
		WriteJSON(w, map[string]string{"status": "ok"})
	})
	route(RouteJobStop, func(w http.ResponseWriter, r *http.Request, q *queue) {
		s.longPoll(w, r, func() any {
			var ids []string
			for _, j := range q.jobs {
				if j.stopRequested && !j.stopSent && j.workerID == r.PathValue("worker") {
					j.stopSent = true
					ids = append(ids, j.id)
				}
			}
			if len(ids) == 0 {
				return nil
			}
			return map[string][]string{"jobsToStop": ids}
		})
	})
}

// longPoll answers with what next returns (called with s.mu held) as soon
// as it returns something, waking up whenever worker work changes, or
// with 204 after the long-poll wait.
func (s *Server) longPoll(w http.ResponseWriter, r *http.Request, next func() any) {
	deadline := time.NewTimer(s.takeWait)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		v, ch := next(), s.work
		s.mu.Unlock()
		if v != nil {
			WriteJSON(w, v)
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			w.WriteHeader(http.StatusNoContent)
			return
		case <-r.Context().Done():
			return
		case <-s.closing:
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
}
