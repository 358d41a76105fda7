package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Job states of the local server.
const (
	statusInQueue    = "IN_QUEUE"
	statusInProgress = "IN_PROGRESS"
	statusCompleted  = "COMPLETED"
	statusFailed     = "FAILED"
	statusCancelled  = "CANCELLED"
)

// localServer is the development API server: one process, one job store,
// up to concurrency handlers at once.
type localServer struct {
	h     Handler
	c     *config
	f     *flags
	log   *logger
	slots chan struct{}
	base  context.Context

	mu   sync.Mutex
	jobs map[string]*localJob // jobs /run queued, for /status, /stream, /cancel
	wg   sync.WaitGroup
	// ended lists the finished jobs still kept, oldest first; kept is the
	// bytes their results hold, queuedBytes the bytes of queued inputs.
	ended       []*localJob
	kept        int64
	queuedBytes int64

	// Counters for /health.
	queued, running, completed, failed atomic.Int64
}

type localJob struct {
	job       *Job
	status    string
	res       result
	cancel    context.CancelFunc
	started   bool
	delivered int
	done      chan struct{}
	changed   chan struct{}
	inBytes   int64     // the input's bytes, while queued
	endedAt   time.Time // when it finished
	size      int64     // the bytes its result holds, once finished
}

// The local server keeps /run jobs as the platform keeps their results: for
// a while after they finish, within bounds, so a long session of /run calls
// does not grow without end.
const (
	// DefaultResultRetention is how long a finished /run job's result stays
	// readable (the platform keeps /run results for 30 minutes).
	DefaultResultRetention = 30 * time.Minute
	// DefaultMaxKeptJobs is how many finished /run jobs are kept at most;
	// the oldest goes first.
	DefaultMaxKeptJobs = 1000
	// DefaultMaxKeptBytes bounds the bytes finished results hold (256 MiB);
	// the oldest go first.
	DefaultMaxKeptBytes = 256 << 20
	// DefaultMaxQueuedBytes bounds the inputs of jobs /run queued and not
	// yet run (512 MiB); a /run beyond it is answered 429.
	DefaultMaxQueuedBytes = 512 << 20
)

// serveLocal runs the local API server until ctx ends, then shuts it down
// gracefully (running requests get 10 s, then their jobs are cancelled).
func serveLocal(ctx context.Context, h Handler, c *config, f *flags, log *logger) error {
	base, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	s := &localServer{h: h, c: c, f: f, log: log, slots: make(chan struct{}, f.concurrency), base: base, jobs: map[string]*localJob{}}
	if c.hooks != nil && c.hooks.server != nil {
		c.hooks.server(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /runsync", s.runSync)
	mux.HandleFunc("POST /run", s.run)
	mux.HandleFunc("GET /status/{id}", s.status)
	mux.HandleFunc("POST /status/{id}", s.status)
	mux.HandleFunc("GET /stream/{id}", s.stream)
	mux.HandleFunc("POST /stream/{id}", s.stream)
	mux.HandleFunc("POST /cancel/{id}", s.cancel)
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no route " + r.Method + " " + r.URL.Path})
	})

	l := c.listener
	if l == nil {
		var err error
		l, err = net.Listen("tcp", net.JoinHostPort(f.host, strconv.Itoa(f.port)))
		if err != nil {
			return &ExitError{Code: 1, Err: fmt.Errorf("local API server: %w", err)}
		}
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return base }}
	log.info("", fmt.Sprintf("Local API server listening on http://%s (concurrency %d)", l.Addr(), f.concurrency))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return &ExitError{Code: 1, Err: fmt.Errorf("local API server: %w", err)}
	case <-ctx.Done():
	}
	log.info("", "Shutting down the local API server.")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdown)
	cancelJobs()
	s.wg.Wait()
	<-errc
	if err != nil {
		return fmt.Errorf("local API server shutdown: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func badRequest(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": msg})
}

// readJob reads a /run or /runsync body: {"input": <non-null>, "webhook"?}.
func (s *localServer) readJob(w http.ResponseWriter, r *http.Request) (*Job, bool) {
	var body struct {
		Input   json.RawMessage `json:"input"`
		Webhook string          `json:"webhook"`
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.c.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit)})
			return nil, false
		}
		badRequest(w, "reading the request: "+err.Error())
		return nil, false
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		badRequest(w, "request body must be a JSON object: "+err.Error())
		return nil, false
	}
	if len(body.Input) == 0 || string(body.Input) == "null" {
		badRequest(w, `the request has no "input"`)
		return nil, false
	}
	return &Job{ID: "test-" + uuid.NewString(), Input: body.Input, Webhook: body.Webhook, Raw: raw}, true
}

// add queues a /run job; it returns nil when the queued inputs would pass
// their bound.
func (s *localServer) add(job *Job) *localJob {
	n := int64(len(job.Raw) + len(job.Input))
	lj := &localJob{job: job, status: statusInQueue, done: make(chan struct{}), changed: make(chan struct{}), inBytes: n}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictLocked()
	if s.queuedBytes+n > s.c.maxQueuedBytes {
		return nil
	}
	s.queuedBytes += n
	s.jobs[job.ID] = lj
	s.queued.Add(1)
	return lj
}

// dropInputLocked forgets a job's input once it left the queue.
func (s *localServer) dropInputLocked(lj *localJob) {
	s.queuedBytes -= lj.inBytes
	lj.inBytes = 0
	lj.job.Input, lj.job.Raw = nil, nil
}

// evictLocked forgets finished jobs past their retention, then the oldest
// while more are kept than the bounds allow.
func (s *localServer) evictLocked() {
	now := s.c.clock()
	for len(s.ended) > 0 {
		lj := s.ended[0]
		if now.Sub(lj.endedAt) < s.c.retention && len(s.ended) <= s.c.maxKeptJobs && s.kept <= s.c.maxKeptBytes {
			break
		}
		// Clear the slot as well: the backing array would otherwise keep
		// the forgotten job, and its result, reachable.
		s.ended[0] = nil
		s.ended = s.ended[1:]
		s.kept -= lj.size
		delete(s.jobs, lj.job.ID)
	}
	if len(s.ended) == 0 {
		s.ended = nil // let the backing array go
	}
}

// retained reports what the store holds: the finished jobs it keeps, the
// bytes their results hold, and the bytes of the inputs still queued.
func (s *localServer) retained() (jobs int, resultBytes, queuedBytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ended), s.kept, s.queuedBytes
}

// endedHook reports a job's recorded end to the tests' hook, if any.
func (s *localServer) endedHook(id string) {
	if s.c.hooks != nil && s.c.hooks.jobEnded != nil {
		s.c.hooks.jobEnded(id)
	}
}

// start runs a queued job (once) in its own goroutine, when a slot is
// free; it returns false when the job was not queued.
func (s *localServer) start(lj *localJob) bool {
	ctx, ok := s.claim(lj, s.base)
	if !ok {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.execute(ctx, lj)
	}()
	return true
}

// claim marks a queued job as started and gives it a context; false when
// it was started or cancelled already.
func (s *localServer) claim(lj *localJob, parent context.Context) (context.Context, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lj.started || lj.status != statusInQueue {
		return nil, false
	}
	lj.started = true
	ctx, cancel := context.WithCancel(parent)
	lj.cancel = cancel
	lj.job.emit = func(json.RawMessage) error { s.touch(lj); return nil }
	return ctx, true
}

// execute waits for a slot, runs the handler and records the result.
func (s *localServer) execute(ctx context.Context, lj *localJob) {
	defer lj.cancel()
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		s.mu.Lock()
		if lj.status == statusInQueue { // not counted out by cancelJob
			s.queued.Add(-1)
		}
		s.mu.Unlock()
		s.finish(lj, result{}, statusCancelled)
		return
	}
	s.mu.Lock()
	if lj.status != statusInQueue { // cancelled while it waited for the slot
		s.mu.Unlock()
		<-s.slots
		s.finish(lj, result{}, statusCancelled)
		return
	}
	lj.status = statusInProgress
	s.queuedBytes -= lj.inBytes // the handler holds the input now
	lj.inBytes = 0
	s.mu.Unlock()
	s.queued.Add(-1)
	s.running.Add(1)
	s.touch(lj)
	s.log.debug(lj.job.ID, "Started.")
	t0 := time.Now()
	out, err := execute(ctx, s.h, lj.job)
	lj.job.finish()
	// Free the slot and settle the counters before the job is seen as
	// finished, so /health agrees with /status from then on.
	<-s.slots
	s.running.Add(-1)
	res := normalize(out, err, lj.job, s.c, false, time.Since(t0))
	status := statusCompleted
	if res.Error != "" {
		status = statusFailed
		s.log.error(lj.job.ID, "Job failed: "+res.Error)
	}
	s.finish(lj, res, status)
}

// finish records a job's end (unless it was cancelled first).
func (s *localServer) finish(lj *localJob, res result, status string) {
	s.mu.Lock()
	select {
	case <-lj.done:
		s.mu.Unlock()
		return
	default:
	}
	if lj.status == statusCancelled {
		status = statusCancelled
	}
	lj.status, lj.res = status, res
	s.count(status)
	close(lj.done)
	s.keepLocked(lj)
	s.mu.Unlock()
	s.touch(lj)
	s.endedHook(lj.job.ID)
}

// keepLocked files a finished job for retention: its input is dropped and
// its result counted against the bounds.
func (s *localServer) keepLocked(lj *localJob) {
	s.dropInputLocked(lj)
	lj.endedAt = s.c.clock()
	lj.size = int64(len(lj.res.Output) + len(lj.res.Error))
	for _, c := range lj.job.Chunks() {
		lj.size += int64(len(c))
	}
	s.kept += lj.size
	s.ended = append(s.ended, lj)
	s.evictLocked()
}

func (s *localServer) count(status string) {
	switch status {
	case statusCompleted:
		s.completed.Add(1)
	case statusFailed:
		s.failed.Add(1)
	}
}

func (s *localServer) touch(lj *localJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(lj.changed)
	lj.changed = make(chan struct{})
}

// jobView is a job as /runsync and /status answer it.
type jobView struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

func (s *localServer) view(lj *localJob) jobView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return jobView{ID: lj.job.ID, Status: lj.status, Output: lj.res.Output, Error: lj.res.Error}
}

func (s *localServer) runSync(w http.ResponseWriter, r *http.Request) {
	job, ok := s.readJob(w, r)
	if !ok {
		return
	}
	// The job runs in this request's goroutine and is not stored: nothing
	// else can see it, so no lock is needed.
	s.queued.Add(1)
	select {
	case s.slots <- struct{}{}:
	case <-r.Context().Done():
		s.queued.Add(-1)
		return
	}
	s.queued.Add(-1)
	s.running.Add(1)
	t0 := time.Now()
	out, err := execute(r.Context(), s.h, job)
	job.finish()
	<-s.slots
	s.running.Add(-1)
	res := normalize(out, err, job, s.c, false, time.Since(t0))
	status := statusCompleted
	if res.Error != "" {
		status = statusFailed
		s.log.error(job.ID, "Job failed: "+res.Error)
	}
	s.count(status)
	writeJSON(w, http.StatusOK, jobView{ID: job.ID, Status: status, Output: res.Output, Error: res.Error})
}

func (s *localServer) run(w http.ResponseWriter, r *http.Request) {
	job, ok := s.readJob(w, r)
	if !ok {
		return
	}
	lj := s.add(job)
	if lj == nil {
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": fmt.Sprintf("too many queued jobs: their inputs pass %d bytes; run or cancel some first", s.c.maxQueuedBytes)})
		return
	}
	if s.c.background {
		s.start(lj)
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": job.ID, "status": statusInQueue})
}

func (s *localServer) lookup(w http.ResponseWriter, r *http.Request) (*localJob, bool) {
	s.mu.Lock()
	s.evictLocked()
	lj := s.jobs[r.PathValue("id")]
	s.mu.Unlock()
	if lj == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"id": r.PathValue("id"), "status": statusFailed, "error": "Job ID not found"})
		return nil, false
	}
	return lj, true
}

// status answers a job's state; a job /run only queued is run now (as the
// platform's local server does), unless jobs run in the background.
func (s *localServer) status(w http.ResponseWriter, r *http.Request) {
	lj, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if !s.c.background && s.start(lj) {
		select {
		case <-lj.done:
		case <-r.Context().Done():
			return
		}
	}
	writeJSON(w, http.StatusOK, s.view(lj))
}

// stream answers the chunks a job streamed since the last call, with its
// status. A queued job is run first; a running one is waited for (up to
// 10 s) until it streams or ends.
func (s *localServer) stream(w http.ResponseWriter, r *http.Request) {
	lj, ok := s.lookup(w, r)
	if !ok {
		return
	}
	s.start(lj)
	wait := time.NewTimer(10 * time.Second)
	defer wait.Stop()
	for {
		s.mu.Lock()
		chunks := lj.job.Chunks()
		fresh := chunks[min(lj.delivered, len(chunks)):]
		finished := lj.status != statusInQueue && lj.status != statusInProgress
		ch := lj.changed
		s.mu.Unlock()
		if len(fresh) > 0 || finished {
			break
		}
		select {
		case <-ch:
		case <-wait.C:
			writeJSON(w, http.StatusOK, map[string]any{"id": lj.job.ID, "status": s.statusOf(lj), "stream": []any{}})
			return
		case <-r.Context().Done():
			return
		}
	}
	s.mu.Lock()
	chunks := lj.job.Chunks()
	out := make([]map[string]json.RawMessage, 0, len(chunks)-lj.delivered)
	for _, c := range chunks[min(lj.delivered, len(chunks)):] {
		out = append(out, map[string]json.RawMessage{"output": c})
	}
	lj.delivered = len(chunks)
	v := map[string]any{"id": lj.job.ID, "status": lj.status, "stream": out}
	if lj.res.Error != "" {
		v["error"] = lj.res.Error
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, v)
}

func (s *localServer) statusOf(lj *localJob) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lj.status
}

func (s *localServer) cancel(w http.ResponseWriter, r *http.Request) {
	lj, ok := s.lookup(w, r)
	if !ok {
		return
	}
	s.cancelJob(lj)
	writeJSON(w, http.StatusOK, map[string]string{"id": lj.job.ID, "status": s.statusOf(lj)})
}

// cancelJob cancels a queued or running job; a finished one is left alone.
func (s *localServer) cancelJob(lj *localJob) {
	s.mu.Lock()
	if lj.status != statusInQueue && lj.status != statusInProgress {
		s.mu.Unlock()
		return
	}
	if lj.status == statusInQueue {
		s.queued.Add(-1)
	}
	neverStarted := !lj.started
	lj.status = statusCancelled
	cancel := lj.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel() // a started job's goroutine records the end
	}
	if neverStarted {
		s.mu.Lock()
		close(lj.done)
		s.keepLocked(lj)
		s.mu.Unlock()
		s.touch(lj)
		s.endedHook(lj.job.ID)
	}
}

func (s *localServer) health(w http.ResponseWriter, _ *http.Request) {
	running := s.running.Load()
	writeJSON(w, http.StatusOK, map[string]any{
		"jobs": map[string]int64{"completed": s.completed.Load(), "failed": s.failed.Load(), "inProgress": running,
			"inQueue": s.queued.Load(), "retried": 0},
		"workers": map[string]int64{"idle": int64(s.f.concurrency) - running, "running": running},
	})
}
