// Package jobqueue is the job state machine of a queue-based serverless
// endpoint, as the platform runs it: jobs go IN_QUEUE → IN_PROGRESS →
// COMPLETED, FAILED, CANCELLED or TIMED_OUT; they carry progress and
// stream chunks while they run; they can be cancelled, retried and purged;
// a job not taken within its TTL is dropped, one running past its
// execution timeout is TIMED_OUT and its worker told to stop; finished
// results are kept for a while, within bounds; waiters (runsync,
// status-sync, stream, job-take, job-stop) wake the moment what they wait
// for happens.
//
// It is data and waiting only: it knows neither the SDK's client nor the
// worker runtime. The worker's local API server runs handlers on it in
// process; runpodtest serves the platform's job API from it, and the
// workers behind its endpoints (the worker runtime's production loop)
// reach it only through the worker routes (job-take, job-done,
// job-stream, job-stop). Who runs a job is not its business: a worker
// takes jobs (Take, TakeID, WaitTake), reports progress, chunks and the
// result, and watches Taken.Stopped or WaitStops.
package jobqueue

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/runpodkit/runpod-go/internal/jobstatus"
)

// Status is a job's state; the states and which are terminal are
// package jobstatus's, shared with the SDK's client.
type Status = jobstatus.Status

// The platform's job states (jobstatus).
const (
	InQueue    = jobstatus.InQueue
	InProgress = jobstatus.InProgress
	Completed  = jobstatus.Completed
	Failed     = jobstatus.Failed
	Cancelled  = jobstatus.Cancelled
	TimedOut   = jobstatus.TimedOut
)

// Defaults the platform documents.
const (
	DefaultTTL              = 24 * time.Hour
	DefaultExecutionTimeout = 10 * time.Minute
	// RunRetention is how long a /run job's result stays readable.
	RunRetention = 30 * time.Minute
	// SyncRetention is how long a /runsync job's result stays readable.
	SyncRetention = time.Minute
)

// Errors of the queue's operations.
var (
	ErrNotFound     = errors.New("job not found (it may have expired)")
	ErrQueueFull    = errors.New("too many queued jobs")
	ErrNotRetryable = errors.New("only FAILED or TIMED_OUT jobs can be retried")
	ErrClosed       = errors.New("the queue is closed")
)

// Config sets a queue's clock, defaults and bounds. The zero Config is
// the platform's defaults with no bounds.
type Config struct {
	// Now is the queue's clock (default time.Now).
	Now func() time.Time
	// TTL and ExecutionTimeout apply to jobs whose Spec leaves them zero
	// (defaults DefaultTTL and DefaultExecutionTimeout; a negative
	// ExecutionTimeout is none).
	TTL, ExecutionTimeout time.Duration
	// RunRetention and SyncRetention are how long results stay readable
	// after a job ends (defaults RunRetention and SyncRetention; a
	// negative SyncRetention keeps no /runsync result: its request reads
	// it from FinishView).
	RunRetention, SyncRetention time.Duration
	// MaxKeptJobs and MaxKeptBytes bound the finished jobs kept (0: no
	// bound); past either the oldest is forgotten.
	MaxKeptJobs  int
	MaxKeptBytes int64
	// MaxQueuedBytes bounds the inputs of queued jobs (0: no bound); a
	// Submit past it fails with ErrQueueFull.
	MaxQueuedBytes int64
	// DropInputs forgets a job's input once it is taken (the local server
	// has no retry); otherwise it is kept for Retry.
	DropInputs bool
	// DropProgress forgets a job's latest progress once it ends, so that a
	// finished job holds only what MaxKeptBytes counts (its result and
	// stream chunks); Posts then reports none. Otherwise it is kept, for
	// Posts, as long as the job.
	DropProgress bool
	// Slots is how many jobs the endpoint's workers run at once, for the
	// health counts (default: one per worker seen that has not retired).
	Slots func() int
	// Held, when set, is asked (with the queue's lock held) before each
	// take: while it reports true the queue hands out no job, as when the
	// endpoint's workers crash as they start or wait for a machine. Queued
	// jobs stay queued; call Wake when what it reports changes.
	Held func() bool
	// OnEnd is called, without the queue's lock, when a job ends.
	OnEnd func(View)
	// StopOnClose makes Close stop the running jobs as well, for a queue
	// whose workers go with it: each one's Taken.Stopped ends and its
	// worker is told to stop it (WaitStops still answers once the queue
	// is closed). The jobs are left as they were.
	StopOnClose bool
}

// Spec is a job to submit.
type Spec struct {
	// ID is the job's id; empty makes one of the platform's shape (a UUID
	// with a -u1 suffix, prefixed "sync-" for Sync).
	ID      string
	Input   json.RawMessage
	Webhook string
	// Raw is the job object as received, handed to the worker with it.
	Raw json.RawMessage
	// Sync marks a /runsync job (its result is kept SyncRetention).
	Sync bool
	// TTL and ExecutionTimeout override the queue's defaults.
	TTL, ExecutionTimeout time.Duration
	// Size is what the job counts against MaxQueuedBytes (default the
	// input's length).
	Size int64
}

// Result is what a worker reports at a job's end.
type Result struct {
	Output json.RawMessage
	// Error fails the job with this text.
	Error string
	// StopPod asks for the worker to be replaced (refresh_worker).
	StopPod bool
}

// Taken is a job handed to a worker.
type Taken struct {
	ID      string
	Input   json.RawMessage
	Webhook string
	Raw     json.RawMessage
	// Worker is the worker it was handed to.
	Worker string
	// Stopped is done when the job stops being the worker's: it ended,
	// or was cancelled, timed out or deleted under it.
	Stopped context.Context
}

// View is a job's state at an instant.
type View struct {
	ID     string
	Status Status
	// Output is the result; while the job runs, its latest progress.
	Output   json.RawMessage
	Error    string
	WorkerID string
	// DelayTime is the time it waited in the queue; ExecutionTime the time
	// it ran (both zero until known).
	DelayTime, ExecutionTime time.Duration
	// Retries counts Retry calls.
	Retries int
	// Webhook is the URL the job's end is posted to ("" for none).
	Webhook string
	// Sync marks a /runsync job.
	Sync bool
}

// WireJob is a job as the platform's /status answers it.
type WireJob struct {
	ID            string          `json:"id"`
	Status        Status          `json:"status"`
	DelayTime     *int64          `json:"delayTime,omitempty"`
	ExecutionTime *int64          `json:"executionTime,omitempty"`
	WorkerID      string          `json:"workerId,omitempty"`
	Output        json.RawMessage `json:"output,omitempty"`
	Error         string          `json:"error,omitempty"`
	Retries       int             `json:"retries,omitempty"`
}

// Wire is the job as the platform's /status answers it: delay and
// execution times in milliseconds once known.
func (v View) Wire() WireJob {
	w := WireJob{ID: v.ID, Status: v.Status, WorkerID: v.WorkerID, Output: v.Output, Error: v.Error, Retries: v.Retries}
	delay, exec, hasDelay, hasExec := v.WireTimes()
	if hasDelay {
		ms := &[2]int64{delay, exec}
		w.DelayTime = &ms[0]
		if hasExec {
			w.ExecutionTime = &ms[1]
		}
	}
	return w
}

// WireTimes is what Wire answers for the job's delay and execution
// times, in milliseconds, and whether it answers each: the delay once a
// worker took the job, the execution time once it has also ended. (For a
// writer of the JSON that does not go through WireJob's pointers.)
func (v View) WireTimes() (delayMs, execMs int64, hasDelay, hasExec bool) {
	if v.WorkerID == "" {
		return 0, 0, false, false
	}
	return v.DelayTime.Milliseconds(), v.ExecutionTime.Milliseconds(), true, v.Status.Terminal()
}

// Health is the endpoint's counters, as /health answers them.
type Health struct {
	Completed, Failed, InProgress, InQueue, Retried int
	// Idle and Running count worker slots.
	Idle, Running int
}

// Wire is the health as the platform answers it: the job counters and
// every worker state its clients read (initializing, ready, throttled and
// unhealthy are zero here: a fake or local worker is ready at once; ready
// counts the idle ones).
func (h Health) Wire() map[string]any {
	return map[string]any{
		"jobs": map[string]int{"completed": h.Completed, "failed": h.Failed, "inProgress": h.InProgress,
			"inQueue": h.InQueue, "retried": h.Retried},
		"workers": map[string]int{"idle": h.Idle, "initializing": 0, "ready": h.Idle, "running": h.Running,
			"throttled": 0, "unhealthy": 0},
	}
}

type job struct {
	id       string
	status   Status
	input    json.RawMessage
	raw      json.RawMessage
	webhook  string
	sync     bool
	size     int64 // counted against MaxQueuedBytes while queued
	kept     int64 // counted against MaxKeptBytes once ended
	ttl      time.Duration
	exec     time.Duration
	result   Result
	progress json.RawMessage
	chunks   []json.RawMessage
	sent     int // chunks read through Chunks
	worker   string
	retries  int
	posts    int // results reported, duplicates included

	submitted, started, ended time.Time
	expires                   time.Time   // unreadable from then on
	stop                      *stopCtx    // Taken.Stopped
	timer                     *time.Timer // wakes waiters at the execution deadline
}

// Queue is one endpoint's jobs. Its methods are safe for concurrent use.
type Queue struct {
	cfg Config

	mu      sync.Mutex
	jobs    map[string]*job
	queued  []*job // IN_QUEUE jobs, oldest first
	ended   []*job // finished jobs, oldest first
	pending []View // ends not yet passed to OnEnd
	// stopping are the contexts of jobs that left their workers, stopped
	// by unlock once the lock is released (stopping one takes its own
	// lock and its parent's).
	stopping []*stopCtx
	workers  map[string]time.Time
	retired  map[string]bool
	stops    map[string][]string // per worker, jobs it must stop and has not been told of
	changed  chan struct{}       // closed on the next change; nil while no one waits
	closed   bool
	// due is the earliest instant a queued or running job can pass its
	// TTL or execution timeout (zero: none can); sweepLocked has nothing
	// to do before it.
	due time.Time
	// now is the clock's reading when the lock was taken (see lock): every
	// operation reads the clock once.
	now      time.Time
	queuedB  int64
	keptB    int64
	counters Health
}

// New returns an empty queue.
func New(cfg Config) *Queue {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.ExecutionTimeout == 0 {
		cfg.ExecutionTimeout = DefaultExecutionTimeout
	}
	if cfg.RunRetention == 0 {
		cfg.RunRetention = RunRetention
	}
	if cfg.SyncRetention == 0 {
		cfg.SyncRetention = SyncRetention
	}
	return &Queue{cfg: cfg, jobs: map[string]*job{}, workers: map[string]time.Time{},
		retired: map[string]bool{}, stops: map[string][]string{}}
}

// lock takes the queue's lock and applies the clock (see sweepLocked).
// Every operation starts with it (or lockAt) and ends with unlock.
func (q *Queue) lock() {
	q.mu.Lock()
	q.sweepLocked(q.cfg.Now())
}

// lockAt is lock with the clock read before the lock was taken (now), for
// the paths every /runsync of the local API server takes, so the lock is
// held for no clock read. Another operation may have read a later time
// and taken the lock first: the queue's time does not go back for it.
func (q *Queue) lockAt(now time.Time) {
	q.mu.Lock()
	if now.Before(q.now) {
		now = q.now
	}
	q.sweepLocked(now)
}

// unlock releases the lock, then stops the contexts of the jobs that left
// their workers meanwhile and passes the jobs that ended to OnEnd.
func (q *Queue) unlock() {
	ended := q.pending
	q.pending = nil
	var few [4]*stopCtx // one, nearly always: copied out, q.stopping's array is kept
	stopping := append(few[:0], q.stopping...)
	clear(q.stopping)
	q.stopping = q.stopping[:0]
	q.mu.Unlock()
	for _, c := range stopping {
		c.stop()
	}
	if q.cfg.OnEnd != nil {
		for _, v := range ended {
			q.cfg.OnEnd(v)
		}
	}
}

// Close ends every wait and stops the queue's timers; the queue hands out
// nothing afterwards. With Config.StopOnClose it also stops the running
// jobs.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closeLocked()
}

// CancelAll cancels every queued and running job (the running ones'
// workers are told to stop) and closes the queue, in one step, so that no
// job submitted meanwhile is left queued on a closed queue: what becomes
// of the jobs of an endpoint that is deleted. It returns how many jobs it
// cancelled.
func (q *Queue) CancelAll() int {
	q.lock()
	defer q.unlock()
	ending := slices.Clone(q.queued)
	for _, j := range q.jobs {
		if j.status == InProgress {
			ending = append(ending, j)
		}
	}
	for _, j := range ending {
		q.endLocked(j, Cancelled, Result{})
	}
	q.closeLocked()
	return len(ending)
}

// closeLocked is Close with q.mu held.
func (q *Queue) closeLocked() {
	if q.closed {
		return
	}
	q.closed = true
	for _, j := range q.jobs {
		if j.status != InProgress {
			continue
		}
		if j.timer != nil {
			j.timer.Stop()
		}
		if q.cfg.StopOnClose {
			j.stop.stop()
			q.stops[j.worker] = append(q.stops[j.worker], j.id)
		}
	}
	q.touchLocked()
}

// touchLocked wakes every waiter.
func (q *Queue) touchLocked() {
	if q.changed != nil {
		close(q.changed)
		q.changed = nil
	}
}

// changedLocked returns a channel closed on the queue's next change.
func (q *Queue) changedLocked() <-chan struct{} {
	if q.changed == nil {
		q.changed = make(chan struct{})
	}
	return q.changed
}

// Submit queues a job.
func (q *Queue) Submit(s Spec) (View, error) {
	j := q.newJob(s)
	q.lock()
	defer q.unlock()
	if err := q.submitLocked(j); err != nil {
		return View{}, err
	}
	q.queued = append(q.queued, j)
	q.touchLocked()
	return j.view(), nil
}

// SubmitTake submits a job and hands it to worker at once, as TakeID
// would (its Stopped a child of ctx), for a worker with a free slot: the
// job is never seen queued. It fails as Submit does, or with ErrClosed
// when worker may take no job.
//
// It is the local API server's path for every /runsync, which many
// requests take at once: what can be made before the queue's lock is
// (the job, its context), so the lock is held for map and counter
// updates only. A lock held across an allocation (which may assist the
// garbage collector) is one the other requests queue behind.
func (q *Queue) SubmitTake(ctx context.Context, s Spec, worker string) (Taken, error) {
	j, stop := q.newJob(s), newStopCtx(ctx)
	q.lockAt(q.cfg.Now())
	defer q.unlock()
	now := q.now
	if !q.takerLocked(worker, now) {
		return Taken{}, ErrClosed
	}
	if err := q.submitLocked(j); err != nil {
		return Taken{}, err
	}
	t := q.startLocked(stop, j, worker, now)
	q.touchLocked()
	return t, nil
}

// newJob makes the job s describes, not yet filed (no lock needed).
func (q *Queue) newJob(s Spec) *job {
	size := s.Size
	if size == 0 {
		size = int64(len(s.Input))
	}
	id := s.ID
	if id == "" {
		id = uuid.NewString() + "-u1"
		if s.Sync {
			id = "sync-" + id
		}
	}
	j := freeJobs.Get().(*job)
	*j = job{id: id, status: InQueue, input: s.Input, raw: s.Raw, webhook: s.Webhook, sync: s.Sync, size: size,
		ttl: cmpOr(s.TTL, q.cfg.TTL), exec: cmpOr(s.ExecutionTimeout, q.cfg.ExecutionTimeout)}
	return j
}

// submitLocked files the new job j as queued (submitted now), without
// putting it on q.queued.
func (q *Queue) submitLocked(j *job) error {
	if q.closed {
		return ErrClosed
	}
	if q.cfg.MaxQueuedBytes > 0 && q.queuedB+j.size > q.cfg.MaxQueuedBytes {
		return ErrQueueFull
	}
	j.submitted = q.now
	j.expires = j.submitted.Add(j.ttl)
	q.dueLocked(j.expires)
	q.jobs[j.id] = j
	q.queuedB += j.size
	q.counters.InQueue++
	return nil
}

func cmpOr(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// findLocked returns the job id, or nil when it is unknown or past its
// retention (it is forgotten then).
func (q *Queue) findLocked(id string) *job {
	j := q.jobs[id]
	if j != nil && j.status.Terminal() && !q.now.Before(j.expires) {
		// Retention differs by kind (a /runsync result goes before an
		// older /run one), so a job can expire behind the oldest.
		q.ended = slices.DeleteFunc(q.ended, func(x *job) bool { return x == j })
		q.keptB -= j.kept
		delete(q.jobs, id)
		return nil
	}
	return j
}

// Get returns a job's state; ErrNotFound when it is unknown or expired.
func (q *Queue) Get(id string) (View, error) {
	return q.viewAfter(id, func(*job) error { return nil })
}

// viewAfter runs f on a job under the lock, and returns the job's view
// then and f's error; ErrNotFound when the job is unknown or expired.
func (q *Queue) viewAfter(id string, f func(*job) error) (View, error) {
	q.lock()
	defer q.unlock()
	j := q.findLocked(id)
	if j == nil {
		return View{}, ErrNotFound
	}
	err := f(j)
	return j.view(), err
}

// SetTTL changes a job's TTL (counted from its submission), as
// /status?ttl= does.
func (q *Queue) SetTTL(id string, ttl time.Duration) error {
	q.lock()
	defer q.unlock()
	j := q.findLocked(id)
	if j == nil {
		return ErrNotFound
	}
	j.ttl = ttl
	if !j.status.Terminal() {
		j.expires = j.submitted.Add(ttl)
		q.dueLocked(j.expires)
	}
	return nil
}

func (j *job) view() View {
	v := View{ID: j.id, Status: j.status, Output: j.result.Output, Error: j.result.Error, WorkerID: j.worker, Retries: j.retries, Webhook: j.webhook, Sync: j.sync}
	if j.status == InProgress && j.progress != nil {
		v.Output = j.progress
	}
	if !j.started.IsZero() {
		v.DelayTime = j.started.Sub(j.submitted)
		if !j.ended.IsZero() {
			v.ExecutionTime = j.ended.Sub(j.started)
		}
	}
	return v
}

// Take hands up to n queued jobs to worker, oldest first, and marks them
// IN_PROGRESS. A worker that asked to be replaced gets none.
func (q *Queue) Take(worker string, n int) []Taken {
	q.lock()
	defer q.unlock()
	return q.takeLocked(context.Background(), worker, n)
}

// TakeID hands the queued job id to worker; false when it is not queued.
// The job's Taken.Stopped also ends when ctx does, so a worker running it
// at once can give the handler Stopped as its context.
func (q *Queue) TakeID(ctx context.Context, id, worker string) (Taken, bool) {
	stop := newStopCtx(ctx) // made before the lock (see SubmitTake)
	q.lock()
	defer q.unlock()
	now := q.now
	if !q.takerLocked(worker, now) {
		return Taken{}, false
	}
	j := q.jobs[id]
	if j == nil || j.status != InQueue {
		return Taken{}, false
	}
	if i := slices.Index(q.queued, j); i >= 0 {
		q.queued = slices.Delete(q.queued, i, i+1)
	}
	t := q.startLocked(stop, j, worker, now)
	q.touchLocked()
	return t, true
}

// takeLocked hands worker up to n queued jobs, oldest first; each one's
// Stopped is a child of parent.
func (q *Queue) takeLocked(parent context.Context, worker string, n int) []Taken {
	now := q.now
	if !q.takerLocked(worker, now) {
		return nil
	}
	var out []Taken
	q.queued = slices.DeleteFunc(q.queued, func(j *job) bool {
		if len(out) == n {
			return false
		}
		out = append(out, q.startLocked(newStopCtx(parent), j, worker, now))
		return true
	})
	if len(out) > 0 {
		q.touchLocked()
	}
	return out
}

// takerLocked records that worker asked for work at now, and reports
// whether it may be given any (the queue is open and not held, and the
// worker has not asked to be replaced).
func (q *Queue) takerLocked(worker string, now time.Time) bool {
	q.workers[worker] = now
	return !q.closed && !q.retired[worker] && (q.cfg.Held == nil || !q.cfg.Held())
}

// startLocked marks the queued job j (already off q.queued) IN_PROGRESS
// on worker and returns it as handed over, stop its Stopped.
func (q *Queue) startLocked(stop *stopCtx, j *job, worker string, now time.Time) Taken {
	j.status, j.started, j.worker = InProgress, now, worker
	j.stop = stop
	q.queuedB -= j.size
	q.counters.InQueue--
	q.counters.InProgress++
	t := Taken{ID: j.id, Input: j.input, Webhook: j.webhook, Raw: j.raw, Worker: worker, Stopped: j.stop}
	if q.cfg.DropInputs {
		j.input, j.raw = nil, nil
	}
	// Wake the waiters at the execution deadline (the sweep then finds the
	// job TIMED_OUT).
	if j.exec > 0 {
		j.timer = time.AfterFunc(j.exec, q.wake)
		q.dueLocked(now.Add(j.exec))
	}
	return t
}

// Wake wakes the waiters, the workers waiting to take a job among them:
// for a change the queue cannot see (what Config.Held reports).
func (q *Queue) Wake() { q.wake() }

// wake applies the clock now and wakes the waiters.
func (q *Queue) wake() {
	q.lock()
	defer q.unlock()
	q.touchLocked()
}

// Seen records that worker is alive (a heartbeat).
func (q *Queue) Seen(worker string) {
	q.lock()
	defer q.unlock()
	q.workers[worker] = q.now
}

// Closed reports whether Close was called: the queue hands out nothing
// more.
func (q *Queue) Closed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// Retired reports whether worker asked to be replaced (a result with
// StopPod); it is handed no more jobs.
func (q *Queue) Retired(worker string) bool {
	q.lock()
	defer q.unlock()
	return q.retired[worker]
}

// Progress records a running job's progress update, shown as its output
// until it ends. It is ignored once the job has ended.
func (q *Queue) Progress(id string, v json.RawMessage) error {
	return q.update(id, func(j *job) { j.progress = v })
}

// Stream appends a chunk to a running job's stream. It is ignored once
// the job has ended.
func (q *Queue) Stream(id string, chunk json.RawMessage) error {
	return q.update(id, func(j *job) { j.chunks = append(j.chunks, chunk) })
}

func (q *Queue) update(id string, f func(*job)) error {
	q.lock()
	defer q.unlock()
	j := q.findLocked(id)
	if j == nil {
		return ErrNotFound
	}
	if j.status == InProgress {
		f(j)
		q.touchLocked()
	}
	return nil
}

// Finish records a running job's result: COMPLETED, or FAILED when it
// carries an error. A result for a job that has already ended (cancelled,
// timed out, or a repeated post) is counted and otherwise ignored; first
// reports whether this one ended the job.
func (q *Queue) Finish(id string, r Result) (first bool, err error) {
	_, first, err = q.FinishView(id, r)
	return first, err
}

// FinishView is Finish, and also returns the job's view after it (which
// a job kept no time cannot be read for afterwards).
func (q *Queue) FinishView(id string, r Result) (v View, first bool, err error) {
	v, first, forgotten, err := q.finish(id, r)
	if forgotten != nil {
		// Not kept (a /runsync result with a negative SyncRetention): no
		// one holds it any more (the queue's references all went with it;
		// every other hold on a job is under the lock), so it is made
		// again for the next job rather than left to the collector.
		*forgotten = job{}
		freeJobs.Put(forgotten)
	}
	return v, first, err
}

// finish is FinishView under the lock; forgotten is the job when it ended
// and was not kept.
func (q *Queue) finish(id string, r Result) (v View, first bool, forgotten *job, err error) {
	q.lockAt(q.cfg.Now())
	defer q.unlock()
	j := q.findLocked(id)
	if j == nil {
		return View{}, false, nil, ErrNotFound
	}
	j.posts++
	if r.StopPod && j.worker != "" {
		q.retired[j.worker] = true
	}
	if j.status != InProgress {
		return j.view(), false, nil, nil
	}
	status := Completed
	if r.Error != "" {
		status = Failed
	}
	q.endLocked(j, status, r)
	v = j.view()
	if q.jobs[id] != j {
		forgotten = j
	}
	return v, true, forgotten, nil
}

// freeJobs holds jobs forgotten as they ended, for newJob: on the local
// API server's /runsync path a job is made and forgotten per request.
var freeJobs = sync.Pool{New: func() any { return new(job) }}

// Posts returns how many results were reported for a job, duplicates
// included, and its latest progress.
func (q *Queue) Posts(id string) (posts int, progress json.RawMessage) {
	q.lock()
	defer q.unlock()
	if j := q.jobs[id]; j != nil {
		return j.posts, j.progress
	}
	return 0, nil
}

// endLocked moves j to a terminal status and files it for retention.
func (q *Queue) endLocked(j *job, status Status, r Result) {
	now := q.now
	switch j.status {
	case InQueue:
		q.counters.InQueue--
		q.queuedB -= j.size
		q.queued = slices.DeleteFunc(q.queued, func(x *job) bool { return x == j })
	case InProgress:
		q.leaveLocked(j, status != Completed && status != Failed)
	}
	j.status, j.result, j.ended = status, r, now
	switch status {
	case Completed:
		q.counters.Completed++
	case Failed, TimedOut:
		q.counters.Failed++
	}
	if q.cfg.DropInputs {
		j.input, j.raw = nil, nil
	}
	if q.cfg.DropProgress {
		j.progress = nil
	}
	kept := q.cfg.RunRetention
	if j.sync {
		kept = q.cfg.SyncRetention
	}
	if kept < 0 {
		// Not kept: the job is gone as it ends.
		delete(q.jobs, j.id)
		q.touchLocked()
		q.endedLocked(j)
		return
	}
	if e := now.Add(kept); e.Before(j.expires) {
		j.expires = e
	}
	j.kept = int64(len(r.Output) + len(r.Error))
	for _, c := range j.chunks {
		j.kept += int64(len(c))
	}
	q.keptB += j.kept
	q.ended = append(q.ended, j)
	q.evictLocked(now)
	q.touchLocked()
	q.endedLocked(j)
}

// endedLocked files j's end for OnEnd, which unlock calls.
func (q *Queue) endedLocked(j *job) {
	if q.cfg.OnEnd != nil {
		q.pending = append(q.pending, j.view())
	}
}

// leaveLocked takes a running job off its worker; stop tells the worker
// to stop it (the job was cancelled, timed out or deleted under it).
func (q *Queue) leaveLocked(j *job, stop bool) {
	q.counters.InProgress--
	// Neither is needed again (a retried job gets its own), and the job
	// may be kept long after: the cancel function would keep the context
	// it was taken under, and its parents, alive as long.
	q.stopping = append(q.stopping, j.stop) // stopped by unlock
	j.stop = nil
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
	if stop {
		q.stops[j.worker] = append(q.stops[j.worker], j.id)
	}
}

// Cancel cancels a queued or running job (a running one's worker is told
// to stop); a finished one is left as it is.
func (q *Queue) Cancel(id string) (View, error) {
	return q.viewAfter(id, func(j *job) error {
		if !j.status.Terminal() {
			q.endLocked(j, Cancelled, Result{})
		}
		return nil
	})
}

// Retry queues a FAILED or TIMED_OUT job again, under the same id and
// input, its old result cleared.
func (q *Queue) Retry(id string) (View, error) {
	return q.viewAfter(id, q.retryLocked)
}

// retryLocked queues a FAILED or TIMED_OUT job again; ErrNotRetryable for
// any other.
func (q *Queue) retryLocked(j *job) error {
	if j.status != Failed && j.status != TimedOut {
		return ErrNotRetryable
	}
	q.ended = slices.DeleteFunc(q.ended, func(x *job) bool { return x == j })
	q.keptB -= j.kept
	j.status, j.result, j.chunks, j.sent, j.worker = InQueue, Result{}, nil, 0, ""
	j.progress, j.started, j.ended, j.kept = nil, time.Time{}, time.Time{}, 0
	j.expires = q.now.Add(j.ttl)
	q.dueLocked(j.expires)
	j.retries++
	q.counters.Retried++
	q.counters.InQueue++
	q.queuedB += j.size
	q.queued = append(q.queued, j)
	q.touchLocked()
	return nil
}

// Purge cancels every queued job; running jobs go on. It returns how many
// it removed.
func (q *Queue) Purge() int {
	q.lock()
	defer q.unlock()
	queued := slices.Clone(q.queued)
	for _, j := range queued {
		q.endLocked(j, Cancelled, Result{})
	}
	return len(queued)
}

// Health returns the counters. Running counts the jobs in progress; Idle
// the free slots (Config.Slots, or one per worker seen that has not
// retired).
func (q *Queue) Health() Health {
	q.lock()
	defer q.unlock()
	h := q.counters
	slots := 0
	if q.cfg.Slots != nil {
		slots = q.cfg.Slots()
	} else {
		for w := range q.workers {
			if !q.retired[w] {
				slots++
			}
		}
	}
	h.Running = h.InProgress
	h.Idle = max(slots-h.InProgress, 0)
	return h
}

// Retained reports what the queue holds: the finished jobs it keeps, the
// bytes their results hold, and the bytes of the queued inputs.
func (q *Queue) Retained() (jobs int, resultBytes, queuedBytes int64) {
	q.lock()
	defer q.unlock()
	return len(q.ended), q.keptB, q.queuedB
}

// sweepLocked applies the clock: jobs past their TTL (counted from
// submission, over queue and run time) are deleted, never handed out or,
// when running, stopped; running jobs past their execution timeout are
// TIMED_OUT, their workers told to stop; finished jobs past their
// retention are forgotten.
func (q *Queue) sweepLocked(now time.Time) {
	q.now = now
	if q.due.IsZero() || now.Before(q.due) {
		// No queued or running job can have expired yet.
		q.evictLocked(now)
		return
	}
	q.due = time.Time{}
	q.queued = slices.DeleteFunc(q.queued, func(j *job) bool {
		if now.Before(j.expires) {
			q.dueLocked(j.expires)
			return false
		}
		q.counters.InQueue--
		q.queuedB -= j.size
		delete(q.jobs, j.id)
		return true
	})
	for _, j := range q.jobs {
		if j.status != InProgress {
			continue
		}
		switch {
		case !now.Before(j.expires):
			// The TTL covers run time too: the job is deleted, even while
			// it runs.
			q.leaveLocked(j, true)
			delete(q.jobs, j.id)
			q.touchLocked()
		case j.exec > 0 && !now.Before(j.started.Add(j.exec)):
			q.endLocked(j, TimedOut, Result{Error: "execution timeout exceeded"})
		default:
			q.dueLocked(j.expires)
			if j.exec > 0 {
				q.dueLocked(j.started.Add(j.exec))
			}
		}
	}
	q.evictLocked(now)
}

// dueLocked notes that a queued or running job expires or times out at t.
func (q *Queue) dueLocked(t time.Time) {
	if q.due.IsZero() || t.Before(q.due) {
		q.due = t
	}
}

// evictLocked forgets finished jobs past their retention, then the oldest
// while more are kept than the bounds allow.
func (q *Queue) evictLocked(now time.Time) {
	for len(q.ended) > 0 {
		j := q.ended[0]
		over := (q.cfg.MaxKeptJobs > 0 && len(q.ended) > q.cfg.MaxKeptJobs) ||
			(q.cfg.MaxKeptBytes > 0 && q.keptB > q.cfg.MaxKeptBytes)
		if now.Before(j.expires) && !over {
			break
		}
		q.ended[0] = nil // the backing array must not keep the result alive
		q.ended = q.ended[1:]
		q.keptB -= j.kept
		delete(q.jobs, j.id)
	}
	if len(q.ended) == 0 {
		q.ended = nil
	}
}

// Wait blocks until until(view) holds, d passes, ctx ends or the queue
// closes, and returns the job's view then.
func (q *Queue) Wait(ctx context.Context, id string, d time.Duration, until func(View) bool) (View, error) {
	v, _, err := q.watch(ctx, id, d, func(j *job) bool { return until(j.view()) })
	if errors.Is(err, ErrNotFound) {
		return View{}, err
	}
	return v, nil
}

// Chunks waits up to d for chunks of the job's stream not yet read, or
// for its end, and returns them (marking them read) with the job's view.
func (q *Queue) Chunks(ctx context.Context, id string, d time.Duration) ([]json.RawMessage, View, error) {
	var fresh []json.RawMessage
	v, _, err := q.watch(ctx, id, d, func(j *job) bool {
		if j.sent == len(j.chunks) && !j.status.Terminal() {
			return false
		}
		fresh = slices.Clone(j.chunks[j.sent:])
		j.sent = len(j.chunks)
		return true
	})
	return fresh, v, err
}

// watch calls ready with the job, under the lock, until it returns true,
// d passes, ctx ends (its error is returned) or the queue closes; it
// returns the job's view at that moment and what ready said.
func (q *Queue) watch(ctx context.Context, id string, d time.Duration, ready func(*job) bool) (View, bool, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		q.lock()
		j := q.findLocked(id)
		if j == nil {
			q.unlock()
			return View{}, false, ErrNotFound
		}
		ok := ready(j)
		v, ch, closed := j.view(), q.changedLocked(), q.closed
		q.unlock()
		if ok || closed {
			return v, ok, nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return v, false, nil
		case <-ctx.Done():
			return v, false, ctx.Err()
		}
	}
}

// WaitTake long-polls for up to n jobs for worker: it returns as soon as
// there are any, or nil after d, when ctx ends or the queue closes.
func (q *Queue) WaitTake(ctx context.Context, worker string, n int, d time.Duration) []Taken {
	return longPoll(ctx, q, d, func() []Taken { return q.takeLocked(context.Background(), worker, n) })
}

// WaitStops long-polls for the ids of worker's jobs it must stop
// (cancelled, timed out or deleted while it ran them, or running when a
// queue with Config.StopOnClose closed), each told once. Once the queue
// is closed it answers at once.
func (q *Queue) WaitStops(ctx context.Context, worker string, d time.Duration) []string {
	return longPoll(ctx, q, d, func() []string {
		q.workers[worker] = q.now
		ids := q.stops[worker]
		delete(q.stops, worker)
		return ids
	})
}

// longPoll calls next (with the lock held) until it returns something, d
// passes, ctx ends or the queue closes (a closed queue gives next one
// call, not waited on).
func longPoll[T any](ctx context.Context, q *Queue, d time.Duration, next func() []T) []T {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		q.lock()
		v, closed := next(), q.closed
		var ch <-chan struct{}
		if !closed {
			ch = q.changedLocked()
		}
		q.unlock()
		if len(v) > 0 || closed {
			return v
		}
		select {
		case <-ch:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
