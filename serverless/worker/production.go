package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/version"
	"github.com/runpodkit/runpod-go/internal/wait"
)

// Timing of the production loop.
const (
	longPoll        = 90 * time.Second // client timeout of job-take and job-stop
	postTimeout     = 30 * time.Second // one attempt to post a result
	maxPostBackoff  = 30 * time.Second
	maxTakeBackoff  = 30 * time.Second // after failed takes in a row
	minPingInterval = time.Second
	defaultPing     = 10 * time.Second
	rateLimitPause  = 5 * time.Second
	// finalPostGrace is how long a result may still take to post once the
	// hard stop (a second signal) has cancelled the jobs.
	finalPostGrace = 10 * time.Second
	// takeGrace is how long a job-take in flight may still answer once
	// shutdown begins.
	takeGrace = 2 * time.Second
	// handlerGrace is how long a handler may take to return once the hard
	// stop cancelled it; then its job is reported without it, within
	// finalPostGrace of the hard stop.
	handlerGrace = finalPostGrace / 2
	// maxTakeBody caps a job-take answer.
	maxTakeBody = 64 << 20
)

// production is the job loop a worker runs on the platform.
type production struct {
	h         Handler
	c         *config
	f         *flags
	log       *logger
	client    *http.Client
	ownClient bool // made here, not given with WithHTTPClient
	workerID  string
	key       string
	takeURL   string
	doneURL   string
	streamURL string
	pingURL   string
	stopURL   string
	interval  time.Duration
	userAgent string

	mu       sync.Mutex
	running  map[string]*runningJob
	capacity int
	freed    chan struct{}
	jobs     sync.WaitGroup
}

type runningJob struct {
	cancel  context.CancelFunc
	stopped bool
}

// runProduction takes and runs jobs until graceful ends (or, with
// WithRefreshWorker, until the first job is done), then stops taking and
// waits for the running jobs, whose results are posted until delivered
// or until hard ends.
func runProduction(graceful, hard context.Context, h Handler, c *config, f *flags, log *logger) error {
	p, err := newProduction(h, c, f, log)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	log.info("", fmt.Sprintf("Worker %s taking jobs (runpod-go %s).", p.workerID, version.Version))

	bgCtx, stopBG := context.WithCancel(hard)
	var bg sync.WaitGroup
	if p.key != "" && c.env("RUNPOD_POD_ID") != "" && p.pingURL != "" {
		bg.Go(func() { p.heartbeat(bgCtx) })
	} else {
		log.debug("", "Heartbeat off: RUNPOD_AI_API_KEY, RUNPOD_POD_ID and RUNPOD_WEBHOOK_PING are needed.")
	}
	if p.stopURL != "" {
		bg.Go(func() { p.stopSignals(bgCtx) })
	} else {
		log.warn("", "The job-take URL has no /job-take/: stop signals are off.")
	}

	take, stopTaking := context.WithCancel(graceful)
	defer stopTaking()
	p.takeLoop(take, hard, stopTaking)
	log.info("", "No longer taking jobs; waiting for the running ones.")
	p.jobs.Wait()
	stopBG()
	bg.Wait()
	if p.ownClient {
		p.client.CloseIdleConnections()
	}
	log.info("", "Worker stopped.")
	return nil
}

func newProduction(h Handler, c *config, f *flags, log *logger) (*production, error) {
	p := &production{h: h, c: c, f: f, log: log, running: map[string]*runningJob{}, freed: make(chan struct{}, 1), capacity: 1}
	p.workerID = c.env("RUNPOD_POD_ID")
	if p.workerID == "" {
		p.workerID = uuid.NewString()
	}
	p.key = c.env("RUNPOD_AI_API_KEY")
	fill := func(tmpl string) string { return strings.ReplaceAll(tmpl, "$RUNPOD_POD_ID", p.workerID) }
	p.takeURL = strings.ReplaceAll(fill(c.env("RUNPOD_WEBHOOK_GET_JOB")), "$ID", p.workerID)
	p.doneURL = fill(c.env("RUNPOD_WEBHOOK_POST_OUTPUT"))
	p.streamURL = fill(c.env("RUNPOD_WEBHOOK_POST_STREAM"))
	p.pingURL = strings.ReplaceAll(fill(c.env("RUNPOD_WEBHOOK_PING")), "$ID", p.workerID)
	if p.doneURL == "" {
		return nil, errors.New("RUNPOD_WEBHOOK_POST_OUTPUT is not set: results could not be delivered")
	}
	for name, u := range map[string]string{"RUNPOD_WEBHOOK_GET_JOB": p.takeURL, "RUNPOD_WEBHOOK_POST_OUTPUT": p.doneURL} {
		if pu, err := url.Parse(strings.ReplaceAll(u, "$ID", "x")); err != nil || pu.Host == "" {
			return nil, fmt.Errorf("%s is not a URL: %q", name, u)
		}
	}
	if strings.Contains(p.takeURL, "/job-take/") {
		p.stopURL = strings.Replace(p.takeURL, "/job-take/", "/job-stop/", 1)
	}
	p.interval = defaultPing
	if v := c.env("RUNPOD_PING_INTERVAL"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("RUNPOD_PING_INTERVAL must be milliseconds, got %q", v)
		}
		p.interval = max(time.Duration(ms)*time.Millisecond, minPingInterval)
	}
	integration := ""
	if ua := c.env("RUNPOD_UA_INTEGRATION"); ua != "" {
		integration = "Integration/" + ua
	}
	p.userAgent = version.UserAgent("runpod-go-worker", integration)
	if c.client != nil {
		p.client = c.client
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		p.client = &http.Client{Transport: tr}
		p.ownClient = true
	}
	return p, nil
}

// capacityNow asks the concurrency modifier (at once, whatever runs).
func (p *production) capacityNow() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c.concurrency != nil {
		if n := p.c.concurrency(p.capacity); n >= 1 {
			p.capacity = n
		}
	}
	return p.capacity
}

func (p *production) inFlight() (n int, ids []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.running {
		ids = append(ids, id)
	}
	return len(p.running), ids
}

// takeLoop takes jobs while there is room, until ctx ends.
func (p *production) takeLoop(ctx, hard context.Context, stopTaking context.CancelFunc) {
	failures := 0 // failed takes in a row
	for ctx.Err() == nil {
		free := p.capacityNow()
		n, _ := p.inFlight()
		free -= n
		if free <= 0 {
			select {
			case <-p.freed:
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
			continue
		}
		start := time.Now()
		jobs, pause, err := p.take(ctx, hard, free, n > 0)
		if err != nil {
			p.log.error("", "Failed to get job: "+err.Error())
			// Failures in a row back off (with jitter, so that a fleet of
			// workers does not return to a recovering platform at once).
			pause = max(pause, wait.Backoff(pause, maxTakeBackoff, failures))
			failures++
		} else {
			failures = 0
		}
		// Taken jobs run even when shutdown began meanwhile: the platform
		// handed them over, and would otherwise learn of them only when
		// they time out.
		for _, job := range jobs {
			p.launch(job, hard, stopTaking)
		}
		if len(jobs) == 0 && pause == 0 && time.Since(start) < 500*time.Millisecond {
			pause = 500*time.Millisecond - time.Since(start) // do not spin on servers that answer at once
		}
		if pause > 0 && len(jobs) == 0 {
			_ = wait.Sleep(ctx, pause)
		}
	}
}

// take asks for up to n jobs (one at /job-take/, more at
// /job-take-batch/). pause says how long to wait before the next try.
//
// The platform hands a job over when it answers, so the request is bound
// to neither graceful nor hard directly (see takeGuard): a long poll still
// silent is given up on shutdown, but an answer that has begun is read
// whole and its jobs returned, to be run, or reported if the hard stop
// came first.
func (p *production) take(graceful, hard context.Context, n int, busy bool) ([]*Job, time.Duration, error) {
	raw := p.takeURL
	params := []string{"job_in_progress", "0"}
	if busy {
		params[1] = "1"
	}
	if n > 1 && strings.Contains(raw, "/job-take/") {
		raw = strings.Replace(raw, "/job-take/", "/job-take-batch/", 1)
		params = append(params, "batch_size", strconv.Itoa(n))
	}
	u, err := withQuery(raw, params...)
	if err != nil {
		return nil, time.Second, err
	}
	if graceful.Err() != nil {
		return nil, 0, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(hard), longPoll)
	defer cancel()
	g := &takeGuard{cancel: cancel, onAnswer: func() { p.log.debug("", "The platform is answering the job take.") }}
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotFirstResponseByte: g.answered})
	stopGraceful := context.AfterFunc(graceful, func() { g.after(takeGrace, g.abandonIfSilent) })
	stopHard := context.AfterFunc(hard, g.hardStop)
	defer func() {
		stopGraceful()
		stopHard()
		g.end()
	}()
	resp, err := p.do(ctx, http.MethodGet, u, nil, "", "")
	if err != nil {
		switch {
		case g.state() == takeAbandoned:
			p.log.debug("", "Stopped waiting for jobs: shutting down.")
			return nil, 0, nil
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && hard.Err() == nil:
			return nil, 0, nil // the long poll ran out: ask again
		}
		return nil, time.Second, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTakeBody+1))
	switch {
	case resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusBadRequest:
		return nil, 0, nil
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, rateLimitPause, nil
	case resp.StatusCode >= 300:
		return nil, time.Second, fmt.Errorf("job-take answered %s", resp.Status)
	case err != nil && g.state() == takeCut:
		return nil, 0, fmt.Errorf("the forced shutdown cut off a job-take answer after %s: the jobs in it are lost: %w", finalPostGrace, err)
	case err != nil:
		return nil, time.Second, fmt.Errorf("reading the job: %w (the jobs in the answer are lost)", err)
	case len(body) > maxTakeBody:
		return nil, time.Second, fmt.Errorf("the job-take answer passes %d MiB: the jobs in it are dropped", maxTakeBody>>20)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" || len(bytes.TrimSpace(body)) == 0 {
		return nil, 0, nil
	}
	body = bytes.TrimSpace(body)
	var raws []json.RawMessage
	if body[0] == '[' {
		if err := json.Unmarshal(body, &raws); err != nil {
			return nil, time.Second, fmt.Errorf("the job batch is not JSON (the jobs in it are dropped): %w", err)
		}
	} else {
		raws = []json.RawMessage{body}
	}
	var jobs []*Job
	for _, r := range raws {
		job, err := parseJob(r, "")
		if err != nil || job.ID == "" {
			p.log.error("", fmt.Sprintf("Ignoring a job without id or input: %.200s", r))
			continue
		}
		jobs = append(jobs, job)
	}
	if len(jobs) > 0 && graceful.Err() != nil {
		p.log.info("", fmt.Sprintf("The platform handed over %d job(s) as shutdown began: they are run or reported.", len(jobs)))
	}
	return jobs, 0, nil
}

// States of a job-take in flight.
const (
	takeWaiting   = iota // no answer yet
	takeAnswered         // the platform began to answer: its jobs are handed over
	takeAbandoned        // given up on shutdown before any answer came
	takeCut              // given up while the answer arrived, finalPostGrace after the hard stop
)

// takeGuard decides when a job-take in flight is given up. A silent long
// poll is abandoned takeGrace after graceful shutdown begins (the grace
// lets an answer already on its way arrive), or at once on the hard stop.
// An answer that has begun is read whole: only the hard stop cuts it off,
// after finalPostGrace.
type takeGuard struct {
	cancel   context.CancelFunc
	onAnswer func()

	mu     sync.Mutex
	st     int
	ended  bool
	timers []*time.Timer
}

func (g *takeGuard) state() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st
}

// answered is the first byte of the answer arriving.
func (g *takeGuard) answered() {
	g.mu.Lock()
	first := g.st == takeWaiting
	if first {
		g.st = takeAnswered
	}
	g.mu.Unlock()
	if first {
		g.onAnswer()
	}
}

// after runs f in d, unless the take ended first.
func (g *takeGuard) after(d time.Duration, f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		g.timers = append(g.timers, time.AfterFunc(d, f))
	}
}

func (g *takeGuard) abandonIfSilent() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.st == takeWaiting {
		g.st = takeAbandoned
		g.cancel()
	}
}

func (g *takeGuard) hardStop() {
	g.abandonIfSilent()
	g.after(finalPostGrace, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.st == takeAnswered && !g.ended {
			g.st = takeCut
			g.cancel()
		}
	})
}

// end stops the timers once the take is done.
func (g *takeGuard) end() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ended = true
	for _, t := range g.timers {
		t.Stop()
	}
}

// launch runs a job in its own goroutine and posts its result.
func (p *production) launch(job *Job, hard context.Context, stopTaking context.CancelFunc) {
	ctx, cancel := context.WithCancel(hard)
	rj := &runningJob{cancel: cancel}
	p.mu.Lock()
	p.running[job.ID] = rj
	p.mu.Unlock()
	p.log.info(job.ID, "Started.")
	p.jobs.Add(1)
	go func() {
		defer p.jobs.Done()
		defer cancel()
		defer func() {
			p.mu.Lock()
			delete(p.running, job.ID)
			p.mu.Unlock()
			select {
			case p.freed <- struct{}{}:
			default:
			}
		}()
		job.out = &postOutlet{p: p, ctx: hard, job: job}
		t0 := time.Now()
		out, herr := p.runHandler(ctx, hard, job)
		job.finish()
		switch {
		case errors.Is(herr, errNotRun):
			herr = fmt.Errorf("worker shutting down: %w", herr)
			p.log.warn(job.ID, "Taken as the forced shutdown began: not run; posting its error result.")
		case herr != nil && hard.Err() != nil:
			herr = fmt.Errorf("worker shutting down: the job was cancelled: %w", herr)
			p.log.warn(job.ID, "Cancelled by the forced shutdown; posting its error result.")
		}
		p.mu.Lock()
		stopped := rj.stopped
		p.mu.Unlock()
		if stopped {
			p.log.info(job.ID, "Job stopped.")
			return // the platform stopped it: no result
		}
		res := normalize(out, herr, job, p.c, p.f.debugger, time.Since(t0))
		streamed := len(job.Chunks()) > 0
		if streamed && out == nil && herr == nil && !p.c.aggregate {
			res.Output = json.RawMessage("[]")
		}
		if res.Error != "" {
			p.log.error(job.ID, "Job failed: "+res.Error)
		}
		body, _ := json.Marshal(res)
		// The result is posted even after the hard stop cancelled the job,
		// within a short grace, so the platform learns of it now rather
		// than when the job times out.
		postCtx, endPost := graceAfter(hard, finalPostGrace)
		defer endPost()
		if err := p.postResult(postCtx, job.ID, p.doneURL, streamed, body); err != nil {
			p.log.error(job.ID, "Failed to return job results: "+err.Error())
		} else {
			p.log.info(job.ID, "Finished.")
		}
		if p.c.refresh {
			stopTaking()
		}
	}()
}

// errNotRun is the failure of a job taken as the hard stop came: it is
// reported without running.
var errNotRun = errors.New("the job arrived as the worker was stopped and did not run")

// runHandler runs the handler on job. Once the hard stop has come, the
// job is not started, and a handler that has not returned handlerGrace
// after it is left behind (the process is about to exit) so that its job
// can still be reported.
func (p *production) runHandler(ctx, hard context.Context, job *Job) (any, error) {
	if hard.Err() != nil {
		return nil, errNotRun
	}
	type outcome struct {
		out any
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		out, err := execute(ctx, p.h, job)
		done <- outcome{out, err}
	}()
	select {
	case o := <-done:
		return o.out, o.err
	case <-hard.Done():
	}
	grace := time.NewTimer(p.c.handlerGrace)
	defer grace.Stop()
	select {
	case o := <-done:
		return o.out, o.err
	case <-grace.C:
		p.log.error(job.ID, fmt.Sprintf("The handler did not return within %s of being cancelled; reporting the job without it.", p.c.handlerGrace))
		return nil, fmt.Errorf("the handler did not return within %s of being cancelled: %w", p.c.handlerGrace, context.Canceled)
	}
}

// postResult posts body to the template URL for job id, retrying 5xx,
// 429 and connection errors (with backoff) until it is delivered, a 4xx
// refuses it, or ctx ends: a result is never dropped while the process
// lives.
func (p *production) postResult(ctx context.Context, jobID, tmpl string, isStream bool, body []byte) error {
	u, err := withQuery(strings.ReplaceAll(tmpl, "$ID", jobID), "isStream", strconv.FormatBool(isStream))
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, postTimeout)
		resp, err := p.do(actx, http.MethodPost, u, body, "application/x-www-form-urlencoded", jobID)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
		}
		cancel()
		switch {
		case err == nil && resp.StatusCode < 300:
			return nil
		case err == nil && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
			return fmt.Errorf("the platform refused the result: %s", resp.Status)
		case ctx.Err() != nil:
			return fmt.Errorf("gave up after %d attempts: %w", attempt, ctx.Err())
		}
		reason := "connection failed"
		pause := wait.Backoff(time.Second, maxPostBackoff, attempt-1)
		if err == nil {
			reason = resp.Status
			if asked, ok := fail.ServerWait(resp.Header, time.Now()); ok {
				pause = min(asked, maxPostBackoff) // the platform's wait, within our cap
			}
		}
		p.log.warn(jobID, fmt.Sprintf("Posting the result failed (%s); retrying in %s.", reason, pause.Round(time.Millisecond)))
		if err := wait.Sleep(ctx, pause); err != nil {
			return fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
	}
}

// postOutlet posts a running job's chunks and progress to the platform
// under ctx (the loop's hard stop).
type postOutlet struct {
	p   *production
	ctx context.Context
	job *Job
}

func (o *postOutlet) stream(chunk json.RawMessage) error { return o.p.postChunk(o.ctx, o.job, chunk) }

func (o *postOutlet) progress(progress json.RawMessage) error {
	return o.p.postProgress(o.ctx, o.job, progress)
}

func (p *production) postChunk(ctx context.Context, job *Job, chunk json.RawMessage) error {
	if p.streamURL == "" {
		return errors.New("RUNPOD_WEBHOOK_POST_STREAM is not set: the chunk cannot be streamed")
	}
	body, _ := json.Marshal(map[string]json.RawMessage{"output": chunk})
	// The platform expects isStream=false on chunk posts.
	return p.postResult(ctx, job.ID, p.streamURL, false, body)
}

// postProgress posts an IN_PROGRESS update before returning, so it cannot
// overtake the result; it is tried three times, then dropped.
func (p *production) postProgress(ctx context.Context, job *Job, progress json.RawMessage) error {
	body, _ := json.Marshal(map[string]json.RawMessage{"status": json.RawMessage(`"IN_PROGRESS"`), "output": progress})
	actx, cancel := context.WithTimeout(ctx, 3*postTimeout)
	defer cancel()
	var err error
	for range 3 {
		u, _ := withQuery(strings.ReplaceAll(p.doneURL, "$ID", job.ID), "isStream", "false")
		var resp *http.Response
		resp, err = p.do(actx, http.MethodPost, u, body, "application/x-www-form-urlencoded", job.ID)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode < 300 {
				return nil
			}
			err = fmt.Errorf("progress post answered %s", resp.Status)
		}
		if wait.Sleep(actx, 500*time.Millisecond) != nil {
			return err
		}
	}
	return err
}

// heartbeat pings the platform at once and then every interval, with the
// ids of the jobs in progress.
func (p *production) heartbeat(ctx context.Context) {
	for {
		_, ids := p.inFlight()
		params := []string{"runpod_version", "runpod-go/" + version.Version}
		if len(ids) > 0 {
			params = append(params, "job_id", strings.Join(ids, ","))
		}
		if u, err := withQuery(p.pingURL, params...); err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*p.interval)
			resp, err := p.do(pctx, http.MethodGet, u, nil, "", "")
			if err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode >= 300 {
					p.log.warn("", "Heartbeat answered "+resp.Status)
				}
			} else if ctx.Err() == nil {
				p.log.warn("", "Heartbeat failed: "+err.Error())
			}
			cancel()
		}
		if wait.Sleep(ctx, p.interval) != nil {
			return
		}
	}
}

// stopSignals long-polls the stop channel and cancels the jobs the
// platform stops (no result is posted for them).
func (p *production) stopSignals(ctx context.Context) {
	for ctx.Err() == nil {
		pause := time.Second
		sctx, cancel := context.WithTimeout(ctx, longPoll)
		resp, err := p.do(sctx, http.MethodGet, p.stopURL, nil, "", "")
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			_ = resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusTooManyRequests:
				pause = rateLimitPause
			case resp.StatusCode == http.StatusOK:
				var msg struct {
					JobsToStop []json.RawMessage `json:"jobsToStop"`
				}
				_ = json.Unmarshal(body, &msg)
				for _, raw := range msg.JobsToStop {
					var id string
					if json.Unmarshal(raw, &id) == nil {
						p.stop(id)
					}
				}
			}
		}
		cancel()
		_ = wait.Sleep(ctx, pause)
	}
}

func (p *production) stop(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rj := p.running[id]; rj != nil {
		p.log.info(id, "Stopping job.")
		rj.stopped = true
		rj.cancel()
	}
}

// graceAfter returns a context that ends grace after hard ends (or when
// the returned cancel is called).
func graceAfter(hard context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(hard))
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(hard, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, cancel)
	})
	return ctx, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}

// do sends one request with the worker's headers: the key as the raw
// Authorization value (no Bearer, as the platform expects) and the job id
// as X-Request-ID, set on this request only.
func (p *production) do(ctx context.Context, method, u string, body []byte, contentType, jobID string) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	if p.key != "" {
		req.Header.Set("Authorization", p.key)
	}
	req.Header.Set("User-Agent", p.userAgent)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("charset", "utf-8")
	}
	if jobID != "" {
		req.Header.Set("X-Request-ID", jobID)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err // the URL may carry the platform's parameters; keep it out of logs
		}
		return nil, err
	}
	return resp, nil
}

// withQuery sets query parameters on raw, keeping the ones it has.
func withQuery(raw string, kv ...string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad URL: %w", err)
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}
