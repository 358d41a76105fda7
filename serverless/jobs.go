package serverless

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/jobstatus"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// JobStatus is a job's state. Values the SDK does not know still decode.
type JobStatus string

// Job states, as the platform writes them (the worker runtime in
// serverless/worker uses the same). JobStatusInQueue and
// JobStatusInProgress are transient; the rest are terminal.
const (
	JobStatusInQueue    = JobStatus(jobstatus.InQueue)    // waiting for a worker
	JobStatusInProgress = JobStatus(jobstatus.InProgress) // a worker is running it
	JobStatusCompleted  = JobStatus(jobstatus.Completed)  // the handler returned; Output holds its result
	JobStatusFailed     = JobStatus(jobstatus.Failed)     // the handler failed; Error says why
	JobStatusCancelled  = JobStatus(jobstatus.Cancelled)  // stopped by Queue.Cancel
	JobStatusTimedOut   = JobStatus(jobstatus.TimedOut)   // expired before a worker took it, or ran past its execution timeout
)

// Terminal reports whether the job has finished (COMPLETED, FAILED,
// CANCELLED or TIMED_OUT).
func (s JobStatus) Terminal() bool { return jobstatus.Status(s).Terminal() }

// Job is a job's state as the platform reports it: what Run, RunSync,
// Wait, Status, Cancel and Retry return, and the body of a webhook.
type Job struct {
	// ID is the job's id, made by the platform when the job is
	// submitted; Status, Wait, Stream, Cancel and Retry take it.
	ID string
	// Status is the job's state when it was read; Terminal tells whether
	// it will still change.
	Status JobStatus
	// DelayTime is the time the job waited in the queue (the platform's
	// delayTime, in milliseconds on the wire); 0 until a worker takes it.
	DelayTime time.Duration
	// ExecutionTime is the time the handler ran (executionTime, in
	// milliseconds on the wire); 0 until it has run.
	ExecutionTime time.Duration
	// WorkerID is the worker that ran the job, when reported.
	WorkerID string
	// Output is the handler's output, as JSON: its result once
	// COMPLETED, or, while the job runs, the latest progress update the
	// handler posted. nil when there is none. Read it with Decode or
	// Output.
	Output json.RawMessage
	// Error is the failure text of a FAILED job: a string, or the
	// handler's error object as JSON text (see JobError). Empty otherwise.
	Error string
	// Queued says why the job is still IN_QUEUE, from the endpoint's
	// worker list. Only the waits (Wait, and RunSync past the platform's
	// hold) set it, on the statuses they read once the job has been
	// queued for WaitOptions.QueuedAfter; nil otherwise, and on what
	// the platform sends (it is not part of the job's JSON).
	Queued *QueueDiagnosis `json:"-"`
}

// wireJob is the platform's JSON for a job.
type wireJob struct {
	ID            string          `json:"id"`
	Status        JobStatus       `json:"status"`
	DelayTime     int64           `json:"delayTime"`
	ExecutionTime int64           `json:"executionTime"`
	WorkerID      string          `json:"workerId"`
	Output        json.RawMessage `json:"output"`
	Error         json.RawMessage `json:"error"`
}

func (w wireJob) job() *Job {
	j := &Job{ID: w.ID, Status: w.Status, WorkerID: w.WorkerID,
		DelayTime: time.Duration(w.DelayTime) * time.Millisecond, ExecutionTime: time.Duration(w.ExecutionTime) * time.Millisecond}
	if len(w.Output) > 0 && string(w.Output) != "null" {
		j.Output = w.Output
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		var s string
		if json.Unmarshal(w.Error, &s) == nil {
			j.Error = s
		} else {
			j.Error = string(w.Error) // a handler's error object, kept as JSON
		}
	}
	return j
}

// UnmarshalJSON reads the platform's job JSON (times in milliseconds).
func (j *Job) UnmarshalJSON(b []byte) error {
	var w wireJob
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*j = *w.job()
	return nil
}

// Decode unmarshals the job's output into v.
func (j *Job) Decode(v any) error {
	if len(j.Output) == 0 {
		return fmt.Errorf("runpod: job %s (%s) has no output", j.ID, j.Status)
	}
	if err := json.Unmarshal(j.Output, v); err != nil {
		return fmt.Errorf("runpod: job %s: decoding output: %w", j.ID, err)
	}
	return nil
}

// Output decodes a job's output into a T.
func Output[T any](j *Job) (T, error) {
	var v T
	err := j.Decode(&v)
	return v, err
}

// JobError is a job that ended without success: FAILED (with the
// handler's error), CANCELLED or TIMED_OUT. Job holds everything the
// platform reported.
type JobError struct {
	// ID is the job's id.
	ID string
	// Status is how the job ended: JobStatusFailed, JobStatusCancelled or JobStatusTimedOut.
	Status JobStatus
	// Message is the failure text. A worker reports its handler's error
	// as a JSON object in a string ({"error_type", "error_message",
	// "error_traceback", "hostname", "worker_id", …}); Message is then its
	// error_message, Type its error_type, and Job.Error the whole text.
	Message string
	// Type is the handler's error_type (such as "ValueError"), when the
	// worker reported one; empty otherwise.
	Type string
	// Job is the job as the platform last reported it, never nil.
	Job *Job
}

// newJobError reads the failure of j.
func newJobError(id string, j *Job) *JobError {
	e := &JobError{ID: id, Status: j.Status, Message: j.Error, Job: j}
	if strings.HasPrefix(strings.TrimSpace(j.Error), "{") {
		var worker struct {
			Type    string `json:"error_type"`
			Message string `json:"error_message"`
		}
		if json.Unmarshal([]byte(j.Error), &worker) == nil && worker.Message != "" {
			e.Message, e.Type = worker.Message, worker.Type
		}
	}
	return e
}

// Error names the job, its status and the failure text.
func (e *JobError) Error() string {
	msg := "runpod: job " + e.ID + " " + string(e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// WaitError reports that waiting for a job ended before it did: the
// context ended or the status could not be read. JobID is the job to come
// back to, with Queue.Status or Queue.Wait.
type WaitError struct {
	// JobID is the job that was being waited for; it may still be
	// running.
	JobID string
	// LastStatus is the last status read before the wait ended; empty
	// when none was read.
	LastStatus JobStatus
	// Queued says why the job was still queued, when the last status read
	// found it IN_QUEUE after WaitOptions.QueuedAfter: its Cause is what
	// the endpoint's worker list showed (workers unhealthy, no capacity,
	// no workers, …). nil otherwise.
	Queued *QueueDiagnosis
	// Err is why the wait ended: the context's error, or the error of the
	// status read that failed.
	Err error
}

// Error names the job so it is never lost, its last status when one was
// read, and why it was queued when that is known.
func (e *WaitError) Error() string {
	switch {
	case e.LastStatus == "":
		return fmt.Sprintf("runpod: stopped waiting for job %s: %v", e.JobID, e.Err)
	case e.Queued != nil:
		return fmt.Sprintf("runpod: stopped waiting for job %s (last status %s; %s): %v", e.JobID, e.LastStatus, e.Queued, e.Err)
	}
	return fmt.Sprintf("runpod: stopped waiting for job %s (last status %s): %v", e.JobID, e.LastStatus, e.Err)
}

// waitError is the *WaitError of a wait for last that ended with err.
func waitError(last *Job, err error) *WaitError {
	return &WaitError{JobID: last.ID, LastStatus: last.Status, Queued: last.Queued, Err: err}
}

// Unwrap returns the cause (context.Canceled, a *errs.APIError, …).
func (e *WaitError) Unwrap() error { return e.Err }

// RunParams is a job request: the input handed to the worker's handler
// and the request's optional parts.
type RunParams struct {
	// Input is encoded as the request's "input" and handed to the
	// handler. It is required: a nil Input is an error.
	Input any
	// Webhook, when set, receives the job's status JSON by POST when it
	// finishes. The platform signs nothing, so mint it with package
	// serverless/webhook (webhook.Signer.URL), whose Signer.Handler then
	// verifies each delivery, refusing forgeries and replays; ReadWebhook
	// only reads a delivery, unauthenticated.
	Webhook string
	// Policy overrides the endpoint's execution policy for this job; nil
	// keeps the endpoint's.
	Policy *Policy
	// S3 is handed to the worker for its own uploads; the platform does
	// not use it. nil sends none.
	S3 *S3Config
}

// WaitOptions tune how RunSync and Wait wait for a job. The zero value
// is a good default.
type WaitOptions struct {
	// Hold is how long each held request asks the platform to hold it
	// before answering with the job still running. It is 1 s to 300 s
	// (the range of /runsync's wait), and cut to what ctx leaves.
	//
	// /runsync is held for Hold, or the platform's default of 90 s when
	// zero. Each status-sync read is held for Hold, but never longer than
	// 90 s, the most the platform's own client asks for (90 s when zero),
	// nor than 30 s while more jobs are waited for on the endpoint than
	// its WaitBudget long-polls at once, nor past the moment a queued job
	// has waited QueuedAfter. When less than a second is left before ctx
	// ends, the status is read with a plain /status instead; a wait
	// makes its last read before ctx ends, whatever time it had left.
	Hold time.Duration
	// IDFirst makes RunSync submit with /run, which answers with the job's
	// id at once, and then wait for the job by id, so that a cancelled
	// wait always returns the id (a *WaitError). It costs one more round
	// trip than /runsync for a job that ends quickly (see BENCHMARKS.md).
	// Wait and Queue.Run ignore it.
	IDFirst bool
	// QueuedAfter is how long the wait sees the job IN_QUEUE before it
	// reads the endpoint's worker list (Endpoints.Workers) to say why:
	// workers unhealthy (crash-looping), no capacity, no workers, … (see
	// QueueCause). The statuses read from then on, which OnCheck gets,
	// carry it in Job.Queued, and so does a *WaitError. The waits on
	// one endpoint share the list, read at most once every 15 s however
	// many jobs are queued; it is not a status request and does not count
	// against WaitBudget. Zero is DefaultQueuedAfter (30 s); negative
	// never reads it.
	QueuedAfter time.Duration
	// Poll tunes the wait: OnCheck is called with each status read (for
	// progress display), and Interval is the pause between /status reads
	// where the platform does not serve status-sync.
	Poll option.Poll[*Job]
}

// queuedAfter is o.QueuedAfter, DefaultQueuedAfter when zero.
func (o WaitOptions) queuedAfter() time.Duration {
	return cmp.Or(o.QueuedAfter, DefaultQueuedAfter)
}

func (o WaitOptions) validate() error {
	if o.Hold != 0 && (o.Hold < minHold || o.Hold > maxRunSyncHold) {
		return fail.Invalid("WaitOptions.Hold", "must be 1s to 300s, got %s", o.Hold)
	}
	return nil
}

// Policy is a job's execution policy.
type Policy struct {
	// ExecutionTimeout limits the run (5 s to 7 days, sent in whole
	// milliseconds); zero keeps the endpoint's, by default 10 minutes.
	ExecutionTimeout time.Duration
	// TTL is how long the job may live from submission, queue time
	// included (10 s to 7 days, sent in whole milliseconds); zero keeps
	// the platform's 24 h. After it, the job is deleted, even while
	// running, and Status fails with an error matching
	// errs.ErrNotFound.
	TTL time.Duration
	// LowPriority jobs do not make the endpoint scale up; they wait for
	// a worker that is already running.
	LowPriority bool
}

// S3Config is storage the worker may upload results to. Printing it hides
// AccessSecret.
type S3Config struct {
	// AccessID is the access key id the worker signs with.
	AccessID string `json:"accessId"`
	// AccessSecret is the secret access key; never printed.
	AccessSecret string `json:"accessSecret"`
	// BucketName is the bucket to upload to.
	BucketName string `json:"bucketName"`
	// EndpointURL is the S3-compatible service's URL, such as
	// "https://s3.us-east-1.amazonaws.com".
	EndpointURL string `json:"endpointUrl"`
}

// String describes the configuration without its secret.
func (c S3Config) String() string {
	return fmt.Sprintf("S3Config{AccessID:%s AccessSecret:[REDACTED] BucketName:%s EndpointURL:%s}", c.AccessID, c.BucketName, c.EndpointURL)
}

// GoString describes the configuration without its secret.
func (c S3Config) GoString() string { return c.String() }

// Format prints String for every verb.
func (c S3Config) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// Health is an endpoint's job and worker counters, as /health reports
// them.
type Health struct {
	// Jobs counts the endpoint's jobs by state.
	Jobs struct {
		// Completed is the number of jobs that completed, as the
		// platform counts them.
		Completed int `json:"completed"`
		// Failed is the number of jobs that failed, as the platform
		// counts them.
		Failed int `json:"failed"`
		// InProgress is the number of jobs a worker is running now.
		InProgress int `json:"inProgress"`
		// InQueue is the number of jobs waiting for a worker now.
		InQueue int `json:"inQueue"`
		// Retried is the number of jobs that were queued again, as the
		// platform counts them.
		Retried int `json:"retried"`
	} `json:"jobs"`
	// Workers counts workers by state (idle, running, initializing, …);
	// the platform documents idle and running.
	Workers map[string]int `json:"workers"`
}

// Queue runs jobs on one queue-based endpoint (or public model). Get
// it with Service.Queue.
type Queue struct {
	t            *transport.Transport
	id           string
	noStatusSync *atomic.Bool    // shared by the client's queues
	waits        *waitSchedulers // shared by the client's queues
	// The URLs of /run and /runsync without a query, made once: calls
	// only read them (the transport sends a copy).
	runURL, runSyncURL *url.URL
}

// Queue returns the handle of a queue-based endpoint or public
// model, addressed as {inference URL}/v2/<id>/….
func (s *Service) Queue(id string) *Queue {
	q := &Queue{t: s.t, id: id, noStatusSync: s.noStatusSync, waits: s.waits}
	q.runURL, q.runSyncURL = q.url("/run", nil), q.url("/runsync", nil)
	return q
}

// ID returns the endpoint's id.
func (r *Queue) ID() string { return r.id }

// Run submits a job and returns at once with its id (status IN_QUEUE).
// Run is never repeated after
// the request may have reached the platform: after an ambiguous failure
// the error matches errs.ErrOutcomeUnknown.
func (r *Queue) Run(ctx context.Context, p RunParams, opts ...option.RequestOption) (*Job, error) {
	body, err := r.body(p)
	if err != nil {
		return nil, err
	}
	var w wireJob
	if err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: r.runURL, Route: routeRun, Body: body}, &w, opts...); err != nil {
		return nil, err
	}
	return w.job(), nil
}

// RunSync runs a job and waits for it, until it finishes or ctx ends. A
// FAILED, CANCELLED or TIMED_OUT job is a *JobError. The submission is
// never repeated after an ambiguous failure.
//
// By default the job is submitted with /runsync: the platform holds the
// request for o.Hold (90 s when zero) and answers with the result of a
// job that ends within it, in one round trip; when the job is still
// running after that, RunSync waits for it as Wait does. So that the id is
// not lost to a deadline, the hold asked for is cut to what ctx leaves,
// less a margin (a fifth of the time left, 250 ms to 2 s); when that is
// under the platform's minimum of one second, the job is submitted with
// /run instead, and its status read with /status before ctx ends, at the
// last moment that leaves the answer its margin, however little time was
// left.
//
// With o.IDFirst, the job is always submitted with /run, which answers
// with its id at once, and then waited for by id (one more round trip,
// see BENCHMARKS.md).
//
// What a cancellation (or a deadline) returns:
//
//   - before anything was sent (for example while a rate limit is waited
//     for): ctx's error; nothing was submitted.
//   - while the submission is in flight, in either mode: an error
//     matching errs.ErrOutcomeUnknown and ctx's error, without a job
//     id; the job may have been accepted. By default that is the whole
//     /runsync hold (up to 90 s); with o.IDFirst only the /run request,
//     which the platform answers at once.
//   - once the platform has answered with the job's id: a *WaitError
//     whose JobID is the job (and LastStatus its last status read),
//     matching ctx's error; the job may still run, and Wait or Status
//     finds it.
func (r *Queue) RunSync(ctx context.Context, p RunParams, o WaitOptions, opts ...option.RequestOption) (*Job, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	body, err := r.body(p)
	if err != nil {
		return nil, err
	}
	hold, ok := syncHold(ctx, o.Hold)
	sent := time.Now() // the job is queued from then on, for QueuedAfter
	if o.IDFirst || !ok {
		// Submit with /run, which answers with the id at once, and wait
		// for the result by id: a wait cut short keeps the id. Without
		// IDFirst this is the case where too little time is left for the
		// platform to hold the request and still answer before ctx ends.
		var w wireJob
		if err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: r.runURL, Route: routeRun, Body: body}, &w, opts...); err != nil {
			return nil, err
		}
		j := w.job()
		wait.Saw(o.Poll, j)
		if j.Status.Terminal() {
			return finished(j)
		}
		return r.wait(ctx, j, sent, o, opts)
	}
	u, refit := r.runSyncURL, platformRefit
	if hold > 0 {
		u, refit = r.url("/runsync", holdQuery(hold)), refitHold(hold, minHold)
	}
	var w wireJob
	err = r.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: u, Route: routeRunSync, Body: body, Refit: refit}, &w, opts...)
	j, err := jobOf(w, err)
	if err != nil {
		var je *JobError
		if !errors.As(err, &je) {
			return nil, err
		}
		j = je.Job
	}
	wait.Saw(o.Poll, j)
	if j.Status.Terminal() {
		return finished(j)
	}
	return r.wait(ctx, j, sent, o, opts)
}

// How long the platform holds a /runsync request: 90 s without a wait
// parameter, and a wait from 1 s to 300 s.
const (
	platformHold   = 90 * time.Second
	minHold        = time.Second
	maxRunSyncHold = 300 * time.Second
)

// syncHold returns the wait RunSync asks the platform for: asked (0 for
// the platform's default), or less when ctx would end first, so that the
// platform answers, with the job's id, while ctx is still alive. It keeps
// a margin of a fifth of the time left (at least 250 ms, at most 2 s) for
// the answer to travel. ok is false when that leaves under a second, the
// shortest hold the platform takes.
func syncHold(ctx context.Context, asked time.Duration) (hold time.Duration, ok bool) {
	deadline, has := ctx.Deadline()
	if !has {
		return asked, true
	}
	remaining := time.Until(deadline)
	margin := wait.AnswerMargin(remaining)
	want := asked
	if want == 0 {
		want = platformHold
	}
	if remaining-margin >= want {
		return asked, true
	}
	hold = (remaining - margin).Truncate(time.Millisecond)
	if hold < minHold {
		return 0, false
	}
	return hold, true
}

// Status reads a job's status. A job the platform no longer knows
// (expired, or past its TTL) is an error matching errs.ErrNotFound.
func (r *Queue) Status(ctx context.Context, jobID string, opts ...option.RequestOption) (*Job, error) {
	if err := validJobID(jobID); err != nil {
		return nil, err
	}
	var w wireJob
	err := r.t.DoJSON(ctx, r.statusRequest(jobID), &w, opts...)
	return jobOf(w, err)
}

// statusRequest is the request of a /status read.
func (r *Queue) statusRequest(jobID string) *transport.Request {
	return &transport.Request{Method: http.MethodGet, URL: r.url("/status/"+url.PathEscape(jobID), nil), Route: routeStatus, Idempotent: true}
}

// Wait waits for a job to finish, or for ctx to end; see RunSync for the
// errors. It reads the job's status with /status first (so that a wait
// cut short reports the job's last status), then long-polls the
// platform's status-sync route, which answers the moment the job ends
// (each request held for o.Hold, at most 90 s, or what ctx leaves), and
// calls o.Poll.OnCheck with every status it reads. Where the platform
// does not serve status-sync (404 or 405 for the route), the client polls
// /status every o.Poll.Interval from then on.
//
// A wait never sleeps through ctx's deadline: when its next read would
// come too late to be answered before ctx ends, it is made at the last
// moment that leaves the answer its margin. A job still IN_QUEUE after
// o.QueuedAfter (30 s by default) is told apart by the endpoint's worker
// list: workers unhealthy (crash-looping), no capacity, no workers, …
// (QueueCause), in Job.Queued and in the *WaitError.
//
// The waits of a service on one endpoint, RunSync's included, share the
// endpoint's status budget (WaitBudget; Service.SetWaitBudget), whatever
// Queue handle they use: each request waits its turn, so that they never
// send more than the platform allows. When more jobs are waited for than
// the budget long-polls at once, the running and oldest jobs are
// long-polled and the others read with /status in turn, spread over the
// budget's rate: a job's end may then be seen up to a round of those
// reads later.
func (r *Queue) Wait(ctx context.Context, jobID string, o WaitOptions, opts ...option.RequestOption) (*Job, error) {
	if err := validJobID(jobID); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return r.wait(ctx, &Job{ID: jobID}, time.Time{}, o, opts)
}

// How long a status-sync read is held: from 1 s to 90 s, the range the
// platform's own client (the JavaScript SDK) asks for; with less than
// minStatusSyncHold left, the status is read with /status. A status-sync
// answer is waited for statusSyncGrace past its hold.
const (
	minStatusSyncHold = time.Second
	maxStatusSyncHold = 90 * time.Second
	statusSyncGrace   = 30 * time.Second
)

// wait waits for the job last was read as; since is when it was
// submitted (zero when not known), from which it has been queued.
func (r *Queue) wait(ctx context.Context, last *Job, since time.Time, o WaitOptions, opts []option.RequestOption) (*Job, error) {
	interval := r.t.PollInterval(o.Poll.Interval)
	// Each request of the wait is granted by the endpoint's scheduler,
	// which keeps the service's waits within the endpoint's status budget
	// and says which jobs to long-poll and which to read with /status.
	sched := r.scheduler()
	deadline, _ := ctx.Deadline()
	turn := sched.join(last.Status, interval, deadline)
	defer turn.leave()
	listOpts := opts // the worker list's: not a status request
	opts = turn.options(opts)
	queued := queuedFor{after: o.queuedAfter()}
	queued.saw(last.Status, since)
	early := false // the last status-sync answered well before its hold
	for {
		if early {
			// The last hold came back long before its time with the
			// job still running: pace the next one like a poll, so a
			// server that does not hold cannot make this loop spin.
			if err := wait.Sleep(ctx, turn.pause(interval)); err != nil {
				return nil, waitError(last, err)
			}
		}
		g, err := turn.next(ctx, r.canHold(ctx, last.Status, o.Hold))
		if err != nil {
			return nil, waitError(last, err)
		}
		var j *Job
		hold := queued.hold(statusSyncHold(ctx, o.Hold), time.Now())
		if g.maxHold > 0 {
			hold = min(hold, g.maxHold)
		}
		if g.hold && hold > 0 {
			// The requests of the wait are sent from here, not from a
			// helper, so that they are as few calls deep as any other. A
			// server that holds past the wait it was given, or never
			// answers, does not hold the caller for ever: the long poll is
			// given up a while after its hold (then /status is read).
			asked := time.Now()
			sctx, cancel := context.WithTimeout(ctx, hold+statusSyncGrace)
			var w wireJob
			err = r.t.DoJSON(sctx, r.statusSyncRequest(last.ID, hold), &w, opts...)
			givenUp := err != nil && ctx.Err() == nil && sctx.Err() != nil
			cancel()
			j, err = r.statusSynced(ctx, last.ID, w, err, givenUp, turn.charge, opts)
			early = err == nil && !j.Status.Terminal() && time.Since(asked) < hold/2
		} else {
			var w wireJob
			err = r.t.DoJSON(ctx, r.statusRequest(last.ID), &w, opts...)
			j, err = jobOf(w, err)
			early = false
		}
		again := err == nil && !j.Status.Terminal() && !early
		var status JobStatus
		if err == nil {
			status = j.Status
		}
		turn.done(status, interval, again, again && r.canHold(ctx, status, o.Hold))
		if err != nil {
			var je *JobError
			if errors.As(err, &je) {
				wait.Saw(o.Poll, je.Job)
				return je.Job, err
			}
			return nil, waitError(last, err)
		}
		now := time.Now()
		if queued.saw(j.Status, now); queued.due(now) {
			j.Queued = r.whyQueued(ctx, &sched.workers, &queued, listOpts)
		}
		wait.Saw(o.Poll, j)
		if j.Status.Terminal() {
			return finished(j)
		}
		last = j
	}
}

// statusSyncHold is how long to ask status-sync to hold the request:
// asked (its limit when zero), at most 90 s, less a margin when ctx would
// end first (as for /runsync); 0 when that is under a second, and a plain
// /status read is made instead.
func statusSyncHold(ctx context.Context, asked time.Duration) time.Duration {
	want := min(cmp.Or(asked, maxStatusSyncHold), maxStatusSyncHold)
	deadline, has := ctx.Deadline()
	if !has {
		return want
	}
	remaining := time.Until(deadline)
	margin := wait.AnswerMargin(remaining)
	hold := min(remaining-margin, want).Truncate(time.Millisecond)
	if hold < minStatusSyncHold {
		return 0
	}
	return hold
}

// statusSynced reads the answer to a status-sync request (GET
// /status-sync/{job}?wait=<ms>, which the platform answers once the job
// has ended or its hold has passed): w decoded, or the request's err.
// givenUp says the request was given up after its hold and grace: the
// job's status is then read with /status. When the platform has no
// status-sync route (405, or 404 while /status knows the job), it is
// remembered for the service and the status is read with /status instead.
// read is called before each of these /status reads, which the wait's
// grant did not cover.
func (r *Queue) statusSynced(ctx context.Context, id string, w wireJob, err error, givenUp bool, read func(), opts []option.RequestOption) (*Job, error) {
	if givenUp {
		read()
		return r.Status(ctx, id, opts...)
	}
	j, err := jobOf(w, err)
	var apiErr *errs.APIError
	if !errors.As(err, &apiErr) || (apiErr.StatusCode != http.StatusNotFound && apiErr.StatusCode != http.StatusMethodNotAllowed) {
		return j, err
	}
	// Is it the route or the job that is missing? /status tells.
	read()
	j, serr := r.Status(ctx, id, opts...)
	var sErr *errs.APIError
	if apiErr.StatusCode == http.StatusMethodNotAllowed || serr == nil || !errors.As(serr, &sErr) || sErr.StatusCode != http.StatusNotFound {
		if r.noStatusSync != nil {
			r.noStatusSync.Store(true)
		}
	}
	return j, serr
}

// statusSyncRequest is the request of a status-sync read held for hold;
// a retry asks for what still fits in the context (refitHold).
func (r *Queue) statusSyncRequest(jobID string, hold time.Duration) *transport.Request {
	return &transport.Request{Method: http.MethodGet, URL: r.url("/status-sync/"+url.PathEscape(jobID), holdQuery(hold)),
		Route: routeStatusSync, Idempotent: true, Refit: refitHold(hold, minStatusSyncHold)}
}

// holdQuery is the query that asks the platform to hold a request for
// hold: wait=<milliseconds>.
func holdQuery(hold time.Duration) url.Values {
	return url.Values{"wait": {strconv.FormatInt(hold.Milliseconds(), 10)}}
}

// platformRefit is the Refit of a /runsync that asks for the platform's
// default hold, made once.
var platformRefit = refitHold(platformHold, minHold)

// refitHold is the Refit of a long poll that asks the platform, in its
// wait query parameter (milliseconds), to hold it for hold. Before a
// retry it cuts the hold to what the context will have left less the
// answer's margin (wait.AnswerMargin), and answers that no retry fits
// when that is under least: a retried long poll that outlasted the
// context could submit a job whose id never comes back. Without a
// deadline (left < 0) the hold stays as asked. A retry that is made asks
// for least at the least, a hold the platform takes.
func refitHold(hold, least time.Duration) func(u *url.URL, left time.Duration) bool {
	return func(u *url.URL, left time.Duration) bool {
		if left < 0 {
			return true
		}
		fit := min(hold, left-wait.AnswerMargin(left)).Truncate(time.Millisecond)
		if u != nil {
			q := u.Query()
			q.Set("wait", strconv.FormatInt(max(fit, least).Milliseconds(), 10))
			u.RawQuery = q.Encode()
		}
		return fit >= least
	}
}

// finished returns a terminal job, or a *JobError for one that failed.
func finished(j *Job) (*Job, error) {
	if j.Status == JobStatusCompleted {
		return j, nil
	}
	return j, newJobError(j.ID, j)
}

// StreamChunk is one piece of a streaming handler's output.
type StreamChunk struct {
	// Output is the chunk as JSON.
	Output json.RawMessage
	// Status is the job's status when the chunk was read.
	Status JobStatus
}

// Stream reads a streaming job's chunks as they come, until the job
// finishes, then stops; breaking out of the loop stops it early. Each
// chunk is read from the platform once, so /stream calls are not repeated
// after an ambiguous failure (the error says so). A job that ends FAILED
// ends the iteration with a *JobError.
func (r *Queue) Stream(ctx context.Context, jobID string, opts ...option.RequestOption) iter.Seq2[StreamChunk, error] {
	return func(yield func(StreamChunk, error) bool) {
		if err := validJobID(jobID); err != nil {
			yield(StreamChunk{}, err)
			return
		}
		for {
			var page struct {
				Status JobStatus `json:"status"`
				Stream []struct {
					Output json.RawMessage `json:"output"`
				} `json:"stream"`
				Error json.RawMessage `json:"error"`
			}
			err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: r.url("/stream/"+url.PathEscape(jobID), nil), Route: routeStream}, &page, opts...)
			if err != nil {
				yield(StreamChunk{}, &WaitError{JobID: jobID, Err: err})
				return
			}
			for _, c := range page.Stream {
				if !yield(StreamChunk{Output: c.Output, Status: page.Status}, nil) {
					return
				}
			}
			if page.Status.Terminal() && len(page.Stream) == 0 {
				if page.Status != JobStatusCompleted {
					yield(StreamChunk{Status: page.Status}, r.failure(ctx, jobID, page.Status, opts))
				}
				return
			}
			if len(page.Stream) == 0 {
				// Nothing new: pause before asking again, in case the
				// platform answers at once rather than holding the request.
				if err := wait.Sleep(ctx, streamPause); err != nil {
					yield(StreamChunk{}, &WaitError{JobID: jobID, LastStatus: page.Status, Err: err})
					return
				}
			}
		}
	}
}

// streamPause is the pause between /stream calls that returned nothing.
const streamPause = time.Second

// failure reads a job that ended without success and returns its
// *JobError (or the error reading it).
func (r *Queue) failure(ctx context.Context, jobID string, status JobStatus, opts []option.RequestOption) error {
	j, err := r.Status(ctx, jobID, opts...)
	if err != nil {
		return err
	}
	if j.Status == JobStatusCompleted {
		return nil
	}
	return newJobError(jobID, j)
}

// Cancel stops a running job or removes a queued one, and returns its
// status.
func (r *Queue) Cancel(ctx context.Context, jobID string, opts ...option.RequestOption) (*Job, error) {
	if err := validJobID(jobID); err != nil {
		return nil, err
	}
	var w wireJob
	err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: r.url("/cancel/"+url.PathEscape(jobID), nil), Route: routeCancel, Idempotent: true}, &w, opts...)
	if err != nil {
		return nil, err
	}
	return w.job(), nil
}

// Retry queues a FAILED or TIMED_OUT job again under the same id, with its
// original input. It is not repeated after an ambiguous failure.
func (r *Queue) Retry(ctx context.Context, jobID string, opts ...option.RequestOption) (*Job, error) {
	if err := validJobID(jobID); err != nil {
		return nil, err
	}
	var w wireJob
	if err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: r.url("/retry/"+url.PathEscape(jobID), nil), Route: routeRetry}, &w, opts...); err != nil {
		return nil, err
	}
	return w.job(), nil
}

// Purge removes the endpoint's queued jobs (running ones continue)
// and returns how many it removed.
func (r *Queue) Purge(ctx context.Context, opts ...option.RequestOption) (int, error) {
	var out struct {
		Removed int `json:"removed"`
	}
	if err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: r.url("/purge-queue", nil), Route: routePurge}, &out, opts...); err != nil {
		return 0, err
	}
	return out.Removed, nil
}

// Health returns the endpoint's job and worker counters.
func (r *Queue) Health(ctx context.Context, opts ...option.RequestOption) (*Health, error) {
	var h Health
	if err := r.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: r.url("/health", nil), Route: routeHealth, Idempotent: true}, &h, opts...); err != nil {
		return nil, err
	}
	return &h, nil
}

// jobOf reads the answer to a request answered with a job: w, decoded
// from a 2xx body, or the request's err. A 400 whose body is a FAILED job
// (as public models answer failures) is that job's *JobError.
func jobOf(w wireJob, err error) (*Job, error) {
	if err != nil {
		var apiErr *errs.APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
			var fw wireJob
			if json.Unmarshal(apiErr.Body, &fw) == nil && fw.Status == JobStatusFailed && fw.ID != "" {
				return finished(fw.job())
			}
		}
		return nil, err
	}
	return w.job(), nil
}

// The job API's route templates, for middleware, attempt hooks and logs.
const (
	routeRun        = "/v2/{endpointId}/run"
	routeRunSync    = "/v2/{endpointId}/runsync"
	routeStatus     = "/v2/{endpointId}/status/{jobId}"
	routeStatusSync = "/v2/{endpointId}/status-sync/{jobId}"
	routeStream     = "/v2/{endpointId}/stream/{jobId}"
	routeCancel     = "/v2/{endpointId}/cancel/{jobId}"
	routeRetry      = "/v2/{endpointId}/retry/{jobId}"
	routePurge      = "/v2/{endpointId}/purge-queue"
	routeHealth     = "/v2/{endpointId}/health"
)

func (r *Queue) url(path string, q url.Values) *url.URL {
	u := r.t.InferenceURL("/v2/", url.PathEscape(r.id), path)
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	return u
}

// body encodes a /run or /runsync request after checking it.
func (r *Queue) body(o RunParams) ([]byte, error) {
	if strings.TrimSpace(r.id) == "" {
		return nil, fail.Invalid("endpoint id", "is empty")
	}
	// The input is encoded once, straight into the body, and the optional
	// parts after it: a large input is not encoded twice.
	var buf bytes.Buffer
	buf.WriteString(`{"input":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o.Input); err != nil {
		return nil, fail.Invalid("RunParams.Input", "cannot be encoded as JSON: %v", err)
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	if bytes.Equal(buf.Bytes()[len(`{"input":`):], []byte("null")) {
		return nil, fail.Invalid("RunParams.Input", "is required")
	}
	rest := struct {
		Webhook string    `json:"webhook,omitempty"`
		Policy  *policy   `json:"policy,omitempty"`
		S3      *S3Config `json:"s3Config,omitempty"`
	}{S3: o.S3}
	if o.Webhook != "" {
		u, err := url.Parse(o.Webhook)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fail.Invalid("RunParams.Webhook", "want an http(s) URL, got %q", o.Webhook)
		}
		rest.Webhook = o.Webhook
	}
	if p := o.Policy; p != nil {
		wp := &policy{LowPriority: p.LowPriority}
		if p.ExecutionTimeout != 0 {
			if p.ExecutionTimeout < 5*time.Second || p.ExecutionTimeout > 7*24*time.Hour {
				return nil, fail.Invalid("Policy.ExecutionTimeout", "must be 5s to 7 days, got %s", p.ExecutionTimeout)
			}
			wp.ExecutionTimeout = p.ExecutionTimeout.Milliseconds()
		}
		if p.TTL != 0 {
			if p.TTL < 10*time.Second || p.TTL > 7*24*time.Hour {
				return nil, fail.Invalid("Policy.TTL", "must be 10s to 7 days, got %s", p.TTL)
			}
			wp.TTL = p.TTL.Milliseconds()
		}
		rest.Policy = wp
	}
	if rest.Webhook == "" && rest.Policy == nil && rest.S3 == nil {
		buf.WriteByte('}')
		return buf.Bytes(), nil
	}
	tail, err := transport.MarshalBody(rest)
	if err != nil {
		return nil, err
	}
	buf.WriteByte(',')
	buf.Write(tail[1:]) // the fields and the closing brace
	return buf.Bytes(), nil
}

type policy struct {
	ExecutionTimeout int64 `json:"executionTimeout,omitempty"`
	LowPriority      bool  `json:"lowPriority,omitempty"`
	TTL              int64 `json:"ttl,omitempty"`
}

func validJobID(id string) error {
	if strings.TrimSpace(id) == "" {
		return fail.Invalid("jobID", "is empty")
	}
	return nil
}
