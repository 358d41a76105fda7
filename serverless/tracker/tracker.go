package tracker

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/webhook"
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

	// The webhooks of submissions (WithWebhooks); signer is nil without.
	signer      *webhook.Signer
	hookBase    string
	execTimeout time.Duration

	mu      sync.Mutex
	jobs    map[string]*entry // the tracked jobs and submissions, by Record.Key
	changed chan struct{}     // closed when a job is added; nil while no one watches
}

// entry is a tracked job, or a submission whose job's id is not known
// yet.
type entry struct {
	rec  Record
	busy bool // a Wait or a Results loop is waiting for it
	// inflight marks a submission whose /run Submit is still sending: no
	// one waits for it until Submit has its answer.
	inflight bool
	// bound is closed when a submission without a job id gets one (a
	// delivery to its webhook); nil for an entry that had one.
	bound chan struct{}
}

// Option configures a Tracker.
type Option func(*Tracker)

// WithClock sets the tracker's clock (default time.Now): the time it
// records a submission at, sees a job end at, classifies a 404 at (see
// LostJobError) and settles a submission whose /run was never answered
// at (see SubmissionState). It is called from several goroutines at
// once. Tests give it the fake platform's clock.
func WithClock(now func() time.Time) Option { return func(t *Tracker) { t.now = now } }

// WithWaitOptions sets how each job is waited for (Queue.Wait's
// options: the hold of each status-sync read, and the poll's interval and
// OnCheck, which is called from the waits' goroutines). The zero value is
// the default.
func WithWaitOptions(o serverless.WaitOptions) Option { return func(t *Tracker) { t.wait = o } }

// WithWebhooks gives every submission its own webhook URL, minted by
// signer for base (Signer.URL, bound to the tracker's endpoint with
// webhook.ForEndpoint), so that a submission whose /run was never
// answered is found again: if the platform accepted the job, its result
// is delivered to that URL, which the Tracker's Handler (served at base's
// path) binds to the submission's record. See SubmissionState for what
// the tracker concludes when no delivery comes. base is checked by New
// (an https URL, or http to a loopback host); RunParams.Webhook must
// then be left empty.
func WithWebhooks(signer *webhook.Signer, base string) Option {
	return func(t *Tracker) { t.signer, t.hookBase = signer, base }
}

// WithExecutionTimeout tells the tracker the endpoint's execution
// timeout (default DefaultExecutionTimeout, the platform's default),
// which bounds how long after its submission an accepted job can end
// when its Policy sets none: see WebhookWindow. An endpoint whose
// execution timeout is turned off has no such bound; give the platform's
// documented maximum, MaxExecutionTimeout, or a Policy.ExecutionTimeout
// on each job. 5 s to 7 days.
func WithExecutionTimeout(d time.Duration) Option { return func(t *Tracker) { t.execTimeout = d } }

// New returns a tracker of the jobs of q's endpoint, keeping its records
// in store. It tracks nothing until Submit, Track or Resume.
func New(q *serverless.Queue, store Store, opts ...Option) (*Tracker, error) {
	if q == nil || strings.TrimSpace(q.ID()) == "" {
		return nil, fail.Invalid("q", "is nil or has no endpoint id")
	}
	if store == nil {
		return nil, fail.Invalid("store", "is nil")
	}
	t := &Tracker{q: q, store: store, now: time.Now, jobs: map[string]*entry{}, execTimeout: DefaultExecutionTimeout}
	for _, o := range opts {
		if o != nil {
			o(t)
		}
	}
	if t.now == nil {
		return nil, fail.Invalid("WithClock", "is nil")
	}
	// Queue.Wait's own rule, checked here so that a bad hold is one error
	// and not one per job.
	if h := t.wait.Hold; h != 0 && (h < time.Second || h > 300*time.Second) {
		return nil, fail.Invalid("WaitOptions.Hold", "must be 1s to 300s, got %s", h)
	}
	if d := t.execTimeout; d < 5*time.Second || d > 7*24*time.Hour {
		return nil, fail.Invalid("WithExecutionTimeout", "must be 5s to 7 days, got %s", d)
	}
	if t.signer != nil {
		// The base and the endpoint id are checked once, here, by minting
		// a URL that is thrown away.
		if _, err := t.signer.URL(t.hookBase, webhook.ForEndpoint(q.ID())); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// clock reads the tracker's clock, without a monotonic reading (records
// are compared across restarts).
func (t *Tracker) clock() time.Time { return t.now().Round(0) }

// Submit submits a job with /run (Queue.Run) and keeps its record until
// its outcome is delivered: the endpoint, the time read just before the
// request was sent, the job's Policy.TTL, label (your own tag for the
// job, empty for none), the submission's id and, once the platform
// answers, the job's id. The job's input is not recorded.
//
// The record is written before /run is sent (a store failure then is a
// *StoreError and nothing is sent), and completed with the job's id once
// the platform answers, so a submission is never lost:
//
//   - The platform answered: Submit returns the job. A failure to store
//     its id is a *StoreError holding it: the job runs (and is billed),
//     and this Tracker still delivers it, but a restart would find only
//     the submission (see below).
//   - The platform answered that it refused the job (a 4xx, or a 5xx the
//     transport knows was not acted on): Submit returns Queue.Run's error
//     and removes the record.
//   - No answer came, or one that says nothing (a reset connection, a
//     502 or 503, ctx ending mid-request: an error matching
//     errs.ErrOutcomeUnknown): the platform may or may not have accepted
//     the job. Submit returns a *SubmissionError (matching
//     errs.ErrOutcomeUnknown too) and the record stays: with WithWebhooks
//     its State is SubmissionStatePending, and Results delivers the job
//     once its webhook's delivery names it, or reports it
//     SubmissionStateNotAccepted once no delivery can come any more;
//     without webhooks its State is SubmissionStateUnknowable, and
//     Results reports it so, once. Do not submit it again before then,
//     or you may pay twice.
//
// The record is written even if ctx ends as the platform answers. With
// WithWebhooks, p.Webhook must be empty: the tracker sets it.
func (t *Tracker) Submit(ctx context.Context, label string, p serverless.RunParams, opts ...option.RequestOption) (*serverless.Job, error) {
	if t.signer != nil && p.Webhook != "" {
		return nil, fail.Invalid("RunParams.Webhook", "is set, but the tracker gives each submission its own webhook URL (WithWebhooks)")
	}
	at := t.clock()
	rec := Record{EndpointID: t.q.ID(), SubmittedAt: at, Label: label}
	if p.Policy != nil {
		rec.TTL = p.Policy.TTL
	}
	if t.signer != nil {
		window, err := t.window(p.Policy)
		if err != nil {
			return nil, err
		}
		hook, tok, err := t.mint(window)
		if err != nil {
			return nil, err
		}
		p.Webhook, rec.Submission, rec.WebhookUntil = hook, tok.Nonce, at.Add(window)
	} else {
		rec.Submission = rand.Text()
	}
	e := &entry{rec: rec, inflight: true, bound: make(chan struct{})}
	t.mu.Lock()
	t.jobs[rec.Key()] = e
	t.mu.Unlock()
	if err := t.store.Put(ctx, rec); err != nil {
		t.forget(rec.Key())
		return nil, &StoreError{Op: "put", Record: rec, Err: err}
	}

	job, err := t.q.Run(ctx, p, opts...)
	if err == nil && strings.TrimSpace(job.ID) == "" {
		err = &errs.ResponseError{Method: http.MethodPost, Path: "/v2/" + t.q.ID() + "/run", StatusCode: http.StatusOK, OutcomeUnknown: true,
			Err: errors.New("the answer has no job id")}
		job = nil
	}
	switch {
	case err == nil:
		return job, t.bind(ctx, e, job.ID)
	case errors.Is(err, errs.ErrOutcomeUnknown):
		t.mu.Lock()
		e.inflight = false
		rec = e.rec
		t.notifyLocked()
		t.mu.Unlock()
		now := t.clock()
		return nil, &SubmissionError{State: rec.State(now), Record: rec, At: now, Err: err}
	default:
		// The platform refused the job: there is nothing to wait for.
		t.forget(rec.Key())
		sctx, cancel := storeContext(ctx)
		defer cancel()
		if derr := t.store.Delete(sctx, rec.EndpointID, rec.Key()); derr != nil {
			return nil, errors.Join(err, &StoreError{Op: "delete", Record: rec, Err: derr})
		}
		return nil, err
	}
}

// forget stops tracking the entry of key.
func (t *Tracker) forget(k string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.jobs, k)
}

// bind gives the submission of e its job's id, from the platform's answer
// to /run: in memory at once, then in the store (a failure is a
// *StoreError holding the id). The answer wins over a delivery that bound
// another id first.
func (t *Tracker) bind(ctx context.Context, e *entry, jobID string) error {
	t.mu.Lock()
	e.inflight = false
	e.rec.JobID = jobID
	rec := e.rec
	if e.bound != nil {
		select {
		case <-e.bound:
		default:
			close(e.bound)
		}
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
	if e := t.jobs[rec.Key()]; e != nil {
		e.rec = rec
	} else {
		t.jobs[rec.Key()] = &entry{rec: rec}
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
// are left as they are; records without an endpoint, or without both a
// job id and a submission id, are skipped). Results and Wait then wait
// for them. A submission whose outcome was unknown when the program
// stopped is taken up as such (see SubmissionState): its ResumedAt is set
// and stored, since a delivery to its webhook made while no receiver ran
// may have been lost.
func (t *Tracker) Resume(ctx context.Context) ([]Record, error) {
	adopted, err := t.adopt(ctx, func(Record) bool { return true })
	if err != nil {
		return nil, err
	}
	now := t.clock()
	for i, r := range adopted {
		if r.JobID != "" {
			continue
		}
		r.ResumedAt = now
		t.mu.Lock()
		if e := t.jobs[r.Key()]; e != nil && e.rec.JobID == "" {
			e.rec.ResumedAt = now
		}
		t.mu.Unlock()
		// Best effort: the mark is kept in memory for this run either way.
		_ = t.store.Put(ctx, r)
		adopted[i] = r
	}
	return adopted, nil
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
		if r.EndpointID != t.q.ID() || r.validate() != nil || t.jobs[r.Key()] != nil || !take(r) {
			continue
		}
		e := &entry{rec: r}
		if r.JobID == "" {
			e.bound = make(chan struct{})
		}
		t.jobs[r.Key()] = e
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
