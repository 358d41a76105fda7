package worker

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
)

// localServer is the development API server: one process, jobs on the
// module's job engine, up to concurrency handlers at once.
type localServer struct {
	h     Handler
	c     *config
	f     *flags
	log   *logger
	slots chan struct{}
	base  context.Context
	q     *jobqueue.Queue
	wg    sync.WaitGroup
}

// localWorker is the worker id the local server's jobs run under.
const localWorker = "local"

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

// serveLocal runs the local API server (--rp_serve_api) until ctx ends,
// then shuts it down gracefully (running requests get 10 s, then their
// jobs are cancelled). It serves the platform's job API at its root and
// under /v2/{endpoint}/ (see routes), so curl reaches it as
// http://localhost:8000/runsync and the SDK as an inference URL:
// option.WithInferenceURL("http://localhost:8000").
func serveLocal(ctx context.Context, h Handler, c *config, f *flags, log *logger) error {
	base, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	s := newLocalServer(h, c, f, log, base)
	if c.hooks != nil && c.hooks.server != nil {
		c.hooks.server(s)
	}
	var handler http.Handler = hotRoutes{s: s, mux: s.routes()}
	if c.hooks != nil && c.hooks.handler != nil {
		handler = c.hooks.handler(handler)
	}

	l := c.listener
	if l == nil {
		var err error
		l, err = net.Listen("tcp", net.JoinHostPort(f.host, strconv.Itoa(f.port)))
		if err != nil {
			return &ExitError{Code: 1, Err: fmt.Errorf("local API server: %w", err)}
		}
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return base }}
	log.info("", fmt.Sprintf("Local API server listening on http://%s (concurrency %d)", l.Addr(), f.concurrency))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return &ExitError{Code: 1, Err: fmt.Errorf("local API server: %w", err)}
	case <-ctx.Done():
	}
	log.info("", "Shutting down the local API server.")
	s.q.Close() // requests waiting on jobs answer now
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

// hotRoutes answers POST /run and /runsync, at the root and under
// /v2/{endpoint}/, without the mux's pattern matching (a tenth of the
// server's own time per /runsync of a trivial handler), and hands every
// other request, or one whose path was escaped, to mux, which serves the
// same routes.
type hotRoutes struct {
	s   *localServer
	mux http.Handler
}

func (h hotRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.RawPath == "" {
		p, endpoint := r.URL.Path, ""
		if rest, ok := strings.CutPrefix(p, "/v2/"); ok {
			if i := strings.IndexByte(rest, '/'); i > 0 { // the id is not checked (see routes)
				p, endpoint = rest[i:], rest[:i]
			}
		}
		if p == "/runsync" || p == "/run" {
			r.Pattern = hotPattern(p, endpoint) // as the mux sets them
			if endpoint != "" {
				r.SetPathValue("endpoint", endpoint)
			}
			if p == "/run" {
				h.s.run(w, r)
			} else {
				h.s.runSync(w, r)
			}
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// hotPattern is the mux's pattern of a route hotRoutes answers: path
// "/run" or "/runsync", under /v2/{endpoint}/ when endpoint is set. The
// patterns are constants, not joined per request.
func hotPattern(path, endpoint string) string {
	switch {
	case endpoint == "" && path == "/run":
		return "POST /run"
	case endpoint == "":
		return "POST /runsync"
	case path == "/run":
		return "POST /v2/{endpoint}/run"
	default:
		return "POST /v2/{endpoint}/runsync"
	}
}

// routes serves the job API twice: at the root (/runsync, /status/{id}, …),
// and under /v2/{endpoint}/ for any endpoint id (/v2/local/runsync, …), as
// the platform's inference host serves it, so the SDK's serverless.Queue
// works against the server once option.WithInferenceURL points at it. The
// two are the same routes: the endpoint id is not checked, nor is the
// Authorization header the SDK sends. A known route under another method
// is answered 405 with Allow; any other path 404.
func (s *localServer) routes() *http.ServeMux {
	get, post, getOrPost := []string{http.MethodGet}, []string{http.MethodPost}, []string{http.MethodGet, http.MethodPost}
	mux := http.NewServeMux()
	for _, rt := range []struct {
		methods []string
		path    string
		h       http.HandlerFunc
	}{
		{post, "/runsync", s.runSync},
		{post, "/run", s.run},
		{getOrPost, "/status/{id}", s.status},
		{getOrPost, "/status-sync/{id}", s.statusSync},
		{getOrPost, "/stream/{id}", s.stream},
		{post, "/cancel/{id}", s.cancel},
		{post, "/retry/{id}", s.retry},
		{post, "/purge-queue", s.purgeQueue},
		{get, "/health", s.health},
	} {
		for _, m := range rt.methods {
			mux.HandleFunc(m+" "+rt.path, rt.h)
			mux.HandleFunc(m+" /v2/{endpoint}"+rt.path, rt.h)
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := allowed(mux, r); allow != "" {
			w.Header().Set("Allow", allow)
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": r.Method + " is not allowed on " + r.URL.Path})
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no route " + r.Method + " " + r.URL.Path})
	})
	return mux
}

// writeJob answers a job's view (200) as the platform's /status does. It
// writes the JSON encoding/json writes for v.Wire() (a test holds the two
// equal), without reflection or Wire's allocation, as it is the answer to
// every /runsync. The server's outputs are only ever the handlers' returns
// and progress through json.Marshal (normalize, Job.Progress): valid,
// compact, HTML escaped, as encoding/json would write them, so they are
// written as they are.
func writeJob(w http.ResponseWriter, j jobqueue.View) {
	buf := answerBufs.Get().(*[]byte)
	b := slices.Grow((*buf)[:0], 128+len(j.ID)+len(j.WorkerID)+len(j.Output)+len(j.Error))
	b = append(b, `{"id":`...)
	b = appendString(b, j.ID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(j.Status))
	delay, exec, hasDelay, hasExec := j.WireTimes()
	if hasDelay {
		b = strconv.AppendInt(append(b, `,"delayTime":`...), delay, 10)
	}
	if hasExec {
		b = strconv.AppendInt(append(b, `,"executionTime":`...), exec, 10)
	}
	if j.WorkerID != "" {
		b = appendString(append(b, `,"workerId":`...), j.WorkerID)
	}
	if len(j.Output) > 0 {
		b = append(append(b, `,"output":`...), j.Output...)
	}
	if j.Error != "" {
		b = appendString(append(b, `,"error":`...), j.Error)
	}
	if j.Retries != 0 {
		b = strconv.AppendInt(append(b, `,"retries":`...), int64(j.Retries), 10)
	}
	b = append(b, "}\n"...)
	w.Header()["Content-Type"] = []string{"application/json"} // canonical already
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= maxPooledAnswer {
		*buf = b
		answerBufs.Put(buf)
	}
}

// answerBufs holds the buffers writeJob writes answers into: the answer to
// every /runsync is made in one and copied out by the ResponseWriter's
// Write, which keeps no hold on it.
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer is the largest buffer kept in answerBufs: a large output
// is not held for the next, small, answers.
const maxPooledAnswer = 64 << 10

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header()["Content-Type"] = []string{"application/json"} // canonical already
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func badRequest(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": msg})
}

// newLocalServer returns the server's job store and runner, without a
// listener.
func newLocalServer(h Handler, c *config, f *flags, log *logger, base context.Context) *localServer {
	s := &localServer{h: h, c: c, f: f, log: log, slots: make(chan struct{}, f.concurrency), base: base}
	var onEnd func(jobqueue.View)
	if c.hooks != nil && c.hooks.jobEnded != nil {
		onEnd = func(v jobqueue.View) {
			if !v.Sync {
				c.hooks.jobEnded(v.ID)
			}
		}
	}
	s.q = jobqueue.New(jobqueue.Config{
		Now:          c.clock,
		RunRetention: c.retention,
		// A /runsync result goes to the request that made it and is not
		// kept: a development server need not pay for a store of them.
		SyncRetention: -1,
		// A development server does not cut off a handler being debugged.
		ExecutionTimeout: -1,
		MaxKeptJobs:      c.maxKeptJobs,
		MaxKeptBytes:     c.maxKeptBytes,
		MaxQueuedBytes:   c.maxQueuedBytes,
		// A finished job holds its result and stream chunks, which
		// MaxKeptBytes bounds, and nothing else: not its input (there is no
		// retry), nor its last progress (its status no longer shows it).
		DropInputs:   true,
		DropProgress: true,
		Slots:        func() int { return f.concurrency },
		OnEnd:        onEnd,
	})
	return s
}

// withMethod returns a copy of r with another method, to ask the mux
// which methods a path takes.
func withMethod(r *http.Request, method string) *http.Request {
	c := r.Clone(r.Context())
	c.Method = method
	return c
}

// allowed lists the methods the mux serves on r's path ("" for none).
func allowed(mux *http.ServeMux, r *http.Request) string {
	var ms []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if _, pattern := mux.Handler(withMethod(r, m)); pattern != "/" {
			ms = append(ms, m)
		}
	}
	return strings.Join(ms, ", ")
}

// readJob reads a /run or /runsync body: {"input": <non-null>, "webhook"?};
// other keys are ignored. A body that is not one is answered 400 with
// what was expected and what came (see decodeJob). The job is returned as
// the job engine takes it, with a new id. What it counts against
// MaxQueuedBytes is the body it holds: the input is a part of Raw (a
// slice of the body), so it is not counted a second time.
func (s *localServer) readJob(w http.ResponseWriter, r *http.Request) (jobqueue.Spec, bool) {
	body := r.Body // net/http ends it at a Content-Length within the limit
	if r.ContentLength <= 0 || r.ContentLength > s.c.maxBody {
		body = http.MaxBytesReader(w, r.Body, s.c.maxBody)
	}
	raw, err := readBody(body, r.ContentLength, s.c.maxBody)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit)})
			return jobqueue.Spec{}, false
		}
		badRequest(w, "reading the request: "+err.Error())
		return jobqueue.Spec{}, false
	}
	f, err := decodeJob(raw, "body")
	if err != nil {
		badRequest(w, err.Error())
		return jobqueue.Spec{}, false
	}
	webhook, err := stringField("webhook", " (an http or https URL)", f.Webhook)
	if err != nil {
		badRequest(w, err.Error())
		return jobqueue.Spec{}, false
	}
	return jobqueue.Spec{ID: localJobID(), Input: f.Input, Webhook: webhook, Raw: raw,
		Size: int64(max(len(raw), len(f.Input)))}, true
}

// readBody reads body whole: into one buffer of its declared length when
// it has one within limit (net/http ends the body there), else growing.
func readBody(body io.Reader, length, limit int64) ([]byte, error) {
	if length <= 0 || length > limit {
		return io.ReadAll(body)
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// localJobID returns a new id for a local job: "test-" and a random
// (version 4) UUID, as the platform's local server makes them. Its 122
// random bits come from math/rand/v2's generator (ChaCha8, seeded by the
// operating system), not crypto/rand: the id names a job on a development
// server and guards nothing, and it is made for every /runsync.
func localJobID() string {
	const prefix = "test-"
	var u [16]byte
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	var b [len(prefix) + 36]byte
	copy(b[:], prefix)
	hex.Encode(b[len(prefix):], u[:4])
	hex.Encode(b[len(prefix)+9:], u[4:6])
	hex.Encode(b[len(prefix)+14:], u[6:8])
	hex.Encode(b[len(prefix)+19:], u[8:10])
	hex.Encode(b[len(prefix)+24:], u[10:])
	for _, i := range []int{8, 13, 18, 23} {
		b[len(prefix)+i] = '-'
	}
	return string(b[:])
}

// submit queues a job; false (after answering) when it cannot be.
func (s *localServer) submit(w http.ResponseWriter, job jobqueue.Spec) (string, bool) {
	v, err := s.q.Submit(job)
	if err != nil {
		s.refuse(w, err)
		return "", false
	}
	return v.ID, true
}

// refuse answers a job the engine would not take.
func (s *localServer) refuse(w http.ResponseWriter, err error) {
	if errors.Is(err, jobqueue.ErrQueueFull) {
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": fmt.Sprintf("too many queued jobs: their inputs pass %d bytes; run or cancel some first", s.c.maxQueuedBytes)})
		return
	}
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
}

// runID runs the queued job id now, in this goroutine, once a slot is
// free, and returns its view at its end; false when it was not queued
// (started or cancelled already) or ctx ended first.
func (s *localServer) runID(ctx context.Context, id string) (jobqueue.View, bool) {
	if !s.acquire(ctx, id) {
		return jobqueue.View{}, false
	}
	defer func() { <-s.slots }()
	t, ok := s.q.TakeID(ctx, id, localWorker)
	if !ok {
		return jobqueue.View{}, false
	}
	return s.runJob(t)
}

// runJob runs the job taken, in this goroutine, and returns its view at
// its end; false when it was forgotten meanwhile. Its handler's ctx is
// t.Stopped: it ends with the context the job was taken under, or when
// the job is cancelled.
func (s *localServer) runJob(t jobqueue.Taken) (jobqueue.View, bool) {
	s.log.debug(t.ID, "Started.")
	res, _ := runTaken(t.Stopped, s.h, s.c, false, s.q, t)
	// A request to replace the worker (refresh_worker, WithRefreshWorker)
	// has no effect on the development server, as on the platform's
	// Python one: it keeps running jobs.
	res.StopPod = false
	if res.Error != "" {
		s.log.error(t.ID, "Job failed: "+res.Error)
	}
	v, _, err := s.q.FinishView(t.ID, res)
	return v, err == nil
}

// acquire takes a slot for the queued job id, waiting for one to be free;
// false when ctx ends first, or the job stops being queued (cancelled,
// purged, taken by another request) or the queue closes while it waits.
func (s *localServer) acquire(ctx context.Context, id string) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	waiting, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		_, _ = s.q.Wait(waiting, id, math.MaxInt64, func(v jobqueue.View) bool { return v.Status != jobqueue.InQueue })
		stop()
	}()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-waiting.Done():
		return false
	}
}

// queued reports whether the job is waiting to run.
func (s *localServer) queued(id string) bool {
	v, err := s.q.Get(id)
	return err == nil && v.Status == jobqueue.InQueue
}

// start runs a queued job in the background (once).
func (s *localServer) start(id string) {
	s.wg.Go(func() { s.runID(s.base, id) })
}

// runSync runs the job in the request's goroutine and answers its result;
// the handler's ctx ends if the client leaves first. With ?wait=<ms> (1000
// to 300000, as the platform takes it; the SDK sends it when its context
// has a deadline), the request is held for that long at most, as the
// platform holds it: see runHeld.
func (s *localServer) runSync(w http.ResponseWriter, r *http.Request) {
	hold, ok := waitParam(w, r, 0, time.Second)
	if !ok {
		return
	}
	job, ok := s.readJob(w, r)
	if !ok {
		return
	}
	if hold > 0 {
		s.runHeld(w, r, job, hold)
		return
	}
	job.Sync = true // its result goes to this request and is not kept
	var v jobqueue.View
	id := job.ID
	select {
	case s.slots <- struct{}{}:
		// A slot is free: the job starts at once, never seen queued.
		t, err := s.q.SubmitTake(r.Context(), job, localWorker)
		if err != nil {
			<-s.slots
			s.refuse(w, err)
			return
		}
		v, ok = s.runJob(t)
		<-s.slots
	default:
		if id, ok = s.submit(w, job); !ok {
			return
		}
		v, ok = s.runID(r.Context(), id)
	}
	switch {
	case ok:
		writeJob(w, v)
	case r.Context().Err() != nil:
		_, _ = s.q.Cancel(id) // the client left before a slot was free
	case s.q.Closed():
		_, _ = s.q.Cancel(id)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the local API server is shutting down"})
	default: // cancelled (/cancel, /purge-queue) before it started or as it ran
		writeJSON(w, http.StatusOK, map[string]string{"id": id, "status": string(jobqueue.Cancelled)})
	}
}

// runHeld runs a /runsync?wait= job as the platform does: it starts at
// once, in the background, and the request answers when it ends or when
// hold has passed, whichever comes first. A job still queued or running
// then is answered with its id and status (200), runs on, and is kept like
// a /run job, so /status and /status-sync can follow it to its result.
func (s *localServer) runHeld(w http.ResponseWriter, r *http.Request, job jobqueue.Spec, hold time.Duration) {
	id, ok := s.submit(w, job)
	if !ok {
		return
	}
	s.start(id)
	s.writeEnded(w, r, id, hold)
}

func (s *localServer) run(w http.ResponseWriter, r *http.Request) {
	job, ok := s.readJob(w, r)
	if !ok {
		return
	}
	id, ok := s.submit(w, job)
	if !ok {
		return
	}
	if s.c.background {
		s.start(id)
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id, "status": string(jobqueue.InQueue)})
}

// writeView answers the job's status JSON, or 404 when it is unknown or
// forgotten.
func (s *localServer) writeView(w http.ResponseWriter, id string) {
	v, err := s.q.Get(id)
	if err != nil {
		notFound(w, id)
		return
	}
	writeJob(w, v)
}

// writeEnded answers the job's status JSON once it has ended or when hold
// has passed, whichever comes first; 404 when it is unknown or forgotten.
func (s *localServer) writeEnded(w http.ResponseWriter, r *http.Request, id string, hold time.Duration) {
	v, err := s.q.Wait(r.Context(), id, hold, func(v jobqueue.View) bool { return v.Status.Terminal() })
	if err != nil {
		notFound(w, id)
		return
	}
	writeJob(w, v)
}

func notFound(w http.ResponseWriter, id string) {
	writeJSON(w, http.StatusNotFound, map[string]string{"id": id, "status": string(jobqueue.Failed), "error": "Job ID not found"})
}

// status answers a job's state; a job /run only queued is run now (as the
// platform's local server does), unless jobs run in the background.
func (s *localServer) status(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.c.background && s.queued(id) {
		s.runID(r.Context(), id)
	}
	s.writeView(w, id)
}

// statusSync answers a job's state once it has ended, or when ?wait=
// milliseconds (1 to 300000, default 90 s) have passed; a job /run only
// queued is run first, unless jobs run in the background.
func (s *localServer) statusSync(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	wait, ok := waitParam(w, r, 90*time.Second, time.Millisecond)
	if !ok {
		return
	}
	if !s.c.background && s.queued(id) {
		s.start(id)
	}
	s.writeEnded(w, r, id, wait)
}

// waitParam reads the ?wait= hold in milliseconds, least to 300000 (300
// s); def when it is absent. A bad one is answered 400 (false).
func waitParam(w http.ResponseWriter, r *http.Request, def, least time.Duration) (time.Duration, bool) {
	if r.URL.RawQuery == "" {
		return def, true
	}
	v := r.URL.Query().Get("wait")
	if v == "" {
		return def, true
	}
	ms, err := strconv.Atoi(v)
	if err != nil || time.Duration(ms)*time.Millisecond < least || ms > 300000 {
		badRequest(w, fmt.Sprintf("wait must be %d to 300000 milliseconds, got %q", least.Milliseconds(), v))
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// stream answers the chunks a job streamed since the last call, with its
// status. A queued job is started; a running one is waited for (up to
// 10 s) until it streams or ends.
func (s *localServer) stream(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, err := s.q.Get(id)
	if err != nil {
		notFound(w, id)
		return
	}
	if v.Status == jobqueue.InQueue {
		s.start(id)
	}
	chunks, v, err := s.q.Chunks(r.Context(), id, 10*time.Second)
	switch {
	case errors.Is(err, jobqueue.ErrNotFound):
		notFound(w, id)
		return
	case err != nil:
		return // the client left
	}
	out := make([]map[string]json.RawMessage, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, map[string]json.RawMessage{"output": c})
	}
	m := map[string]any{"id": v.ID, "status": v.Status, "stream": out}
	if v.Error != "" {
		m["error"] = v.Error
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *localServer) cancel(w http.ResponseWriter, r *http.Request) {
	v, err := s.q.Cancel(r.PathValue("id"))
	if err != nil {
		notFound(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": v.ID, "status": string(v.Status)})
}

// retry is answered 501: the local server drops a job's input once it
// has run, so it cannot run the job again under its id.
func (s *localServer) retry(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusNotImplemented, map[string]string{"error": "the local API server does not retry jobs: submit the job again with /run or /runsync"})
}

// purgeQueue cancels the jobs waiting to run (running ones go on), as the
// platform's purge-queue does, and answers how many it removed.
func (s *localServer) purgeQueue(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"removed": s.q.Purge(), "status": "completed"})
}

func (s *localServer) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.q.Health().Wire())
}
