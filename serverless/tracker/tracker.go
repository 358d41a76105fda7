package tracker

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

// storeTimeout bounds a store write the tracker makes after the platform
// has answered (a job's record after its submission, its removal after
// its delivery): the write is not abandoned because ctx ended a moment
// after the answer, but it does not hang for ever either.
const storeTimeout = 30 * time.Second

// Tracker submits jobs to one queue-based endpoint and keeps a record of
// each in a Store until its outcome is delivered, so that a program that
// restarts finds its jobs again (Resume) instead of losing them. Its
// methods are safe for concurrent use.
type Tracker struct {
	q     *serverless.Queue
	store Store
	now   func() time.Time
	wait  serverless.WaitOptions

	mu      sync.Mutex
	jobs    map[string]*entry // the tracked jobs, by id
	changed chan struct{}     // closed when a job is added; nil while no one watches
}

// entry is a tracked job.
type entry struct {
	rec  Record
	busy bool // a Wait or a Results loop is waiting for it
}

// Option configures a Tracker.
type Option func(*Tracker)

// WithClock sets the tracker's clock (default time.Now): the time it
// records a submission at, sees a job end at, and classifies a 404 at
// (see LostJobError). It is called from several goroutines at once.
// Tests give it the fake platform's clock.
func WithClock(now func() time.Time) Option { return func(t *Tracker) { t.now = now } }

// WithWaitOptions sets how each job is waited for (Queue.Wait's
// options: the hold of each status-sync read, and the poll's interval and
// OnCheck, which is called from the waits' goroutines). The zero value is
// the default.
func WithWaitOptions(o serverless.WaitOptions) Option { return func(t *Tracker) { t.wait = o } }

// New returns a tracker of the jobs of q's endpoint, keeping its records
// in store. It tracks nothing until Submit, Track or Resume.
func New(q *serverless.Queue, store Store, opts ...Option) (*Tracker, error) {
	if q == nil || strings.TrimSpace(q.ID()) == "" {
		return nil, fail.Invalid("q", "is nil or has no endpoint id")
	}
	if store == nil {
		return nil, fail.Invalid("store", "is nil")
	}
	t := &Tracker{q: q, store: store, now: time.Now, jobs: map[string]*entry{}}
	for _, o := range opts {
		o(t)
	}
	if t.now == nil {
		return nil, fail.Invalid("WithClock", "is nil")
	}
	// Queue.Wait's own rule, checked here so that a bad hold is one error
	// and not one per job.
	if h := t.wait.Hold; h != 0 && (h < time.Second || h > 300*time.Second) {
		return nil, fail.Invalid("WaitOptions.Hold", "must be 1s to 300s, got %s", h)
	}
	return t, nil
}

// clock reads the tracker's clock, without a monotonic reading (records
// are compared across restarts).
func (t *Tracker) clock() time.Time { return t.now().Round(0) }

// Submit submits a job with /run (Queue.Run) and records it before it
// returns: the record holds the endpoint, the job's id, the time read just
// before the request was sent, the job's Policy.TTL and label, your own
// tag for the job (empty for none). The job's input is not recorded.
//
// When the submission fails, the error is Queue.Run's and nothing is
// recorded. When the record cannot be stored, Submit returns the job and
// a *StoreError holding its id: the job runs (and is billed), and this
// Tracker still delivers it, but a restart would lose it. The record is
// written even if ctx ends as the platform answers.
func (t *Tracker) Submit(ctx context.Context, label string, p serverless.RunParams, opts ...option.RequestOption) (*serverless.Job, error) {
	at := t.clock()
	job, err := t.q.Run(ctx, p, opts...)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(job.ID) == "" {
		return job, &errs.ResponseError{Method: http.MethodPost, Path: "/v2/" + t.q.ID() + "/run", StatusCode: http.StatusOK, OutcomeUnknown: true,
			Err: errors.New("the answer has no job id")}
	}
	rec := Record{EndpointID: t.q.ID(), JobID: job.ID, SubmittedAt: at, Label: label}
	if p.Policy != nil {
		rec.TTL = p.Policy.TTL
	}
	return job, t.keep(ctx, rec)
}

// Track records a job submitted some other way, such as a RunSync whose
// wait ended before the job did (its *serverless.WaitError holds the id;
// set Sync, since it was submitted with /runsync unless
// WaitOptions.IDFirst was set). r.EndpointID may be left empty; r.JobID
// and r.SubmittedAt, a time no later than the submission, are required.
// A store failure is a *StoreError, and the job stays tracked by this
// Tracker, as with Submit.
func (t *Tracker) Track(ctx context.Context, r Record) error {
	if r.EndpointID == "" {
		r.EndpointID = t.q.ID()
	}
	switch {
	case r.EndpointID != t.q.ID():
		return fail.Invalid("Record.EndpointID", "is %q, not the tracker's endpoint %q", r.EndpointID, t.q.ID())
	case strings.TrimSpace(r.JobID) == "":
		return fail.Invalid("Record.JobID", "is empty")
	case r.SubmittedAt.IsZero():
		return fail.Invalid("Record.SubmittedAt", "is zero: give a time no later than the job's submission")
	}
	return t.keep(ctx, r)
}

// keep tracks rec and stores it. The job is tracked first, so that this
// Tracker delivers it even when the store fails.
func (t *Tracker) keep(ctx context.Context, rec Record) error {
	t.mu.Lock()
	if e := t.jobs[rec.JobID]; e != nil {
		e.rec = rec
	} else {
		t.jobs[rec.JobID] = &entry{rec: rec}
	}
	t.notifyLocked()
	t.mu.Unlock()
	sctx, cancel := storeContext(ctx)
	defer cancel()
	if err := t.store.Put(sctx, rec); err != nil {
		return &StoreError{Op: "put", Record: rec, Err: err}
	}
	return nil
}

// storeContext is the context of a store write made after the platform
// answered: ctx's values, not its end, and storeTimeout.
func storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
}

// Resume tracks the jobs the store holds for the tracker's endpoint, after
// a restart, and returns the records it took up (jobs it already tracks
// are left as they are; records without a job id are skipped). Results
// and Wait then wait for them.
func (t *Tracker) Resume(ctx context.Context) ([]Record, error) {
	return t.adopt(ctx, func(Record) bool { return true })
}

// adopt tracks the records of the store for which take is true.
func (t *Tracker) adopt(ctx context.Context, take func(Record) bool) ([]Record, error) {
	recs, err := t.store.List(ctx, t.q.ID())
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var adopted []Record
	for _, r := range recs {
		if r.EndpointID != t.q.ID() || r.validate() != nil || t.jobs[r.JobID] != nil || !take(r) {
			continue
		}
		t.jobs[r.JobID] = &entry{rec: r}
		adopted = append(adopted, r)
	}
	if len(adopted) > 0 {
		t.notifyLocked()
	}
	return adopted, nil
}

// notifyLocked wakes the Results loops watching for new jobs.
func (t *Tracker) notifyLocked() {
	if t.changed != nil {
		close(t.changed)
		t.changed = nil
	}
}
