package tracker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/webhook"
)

// How long after a submission a delivery to its webhook can still come,
// from the platform's documents (docs.runpod.io, "Send API requests":
// execution policies and webhook notifications; "Endpoint settings":
// execution timeout and job TTL; read 2026-11):
//
//   - A job waits in the queue at most its TTL (Policy.TTL, 24 hours by
//     default, 10 seconds to a week). The two pages word it differently
//     ("maximum job lifetime", "maximum time a job remains in the queue"),
//     so the tracker takes the longer reading: the TTL bounds the wait in
//     the queue, and the run comes on top.
//   - A run lasts at most the execution timeout: the job's
//     Policy.ExecutionTimeout, else the endpoint's (10 minutes by
//     default, at most 24 hours; it can be turned off, see
//     WithExecutionTimeout).
//   - When the job ends, the platform POSTs its status to the webhook,
//     and tries twice more, 10 seconds apart, until it is answered 200;
//     then never again.
//
// The platform documents neither how soon after the end the first
// attempt goes nor how long it waits for an answer, so the tracker adds
// DeliveryGrace, as long as the platform keeps a /run result.
const (
	// DefaultExecutionTimeout is the platform's default execution timeout
	// of an endpoint, which WithExecutionTimeout overrides.
	DefaultExecutionTimeout = 10 * time.Minute
	// MaxExecutionTimeout is the longest execution timeout an endpoint
	// can have, as documented.
	MaxExecutionTimeout = 24 * time.Hour
	// WebhookRetryWindow is how long after its first attempt the platform
	// makes its last one: two retries, 10 seconds apart.
	WebhookRetryWindow = 2 * 10 * time.Second
	// DeliveryGrace is what the tracker adds for what the platform does
	// not document: the delay of a first attempt and the time each takes.
	DeliveryGrace = RunRetention
)

// WebhookWindow is how long after its submission a job's webhook can
// still be delivered, if the platform accepted it: ttl (DefaultTTL when
// zero) in the queue, execTimeout running, then WebhookRetryWindow and
// DeliveryGrace. A submission whose /run was never answered, and whose
// webhook received nothing in that time, was not accepted.
func WebhookWindow(ttl, execTimeout time.Duration) time.Duration {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return ttl + execTimeout + WebhookRetryWindow + DeliveryGrace
}

// window is the WebhookWindow of a job submitted with policy p.
func (t *Tracker) window(p *serverless.Policy) (time.Duration, error) {
	ttl, exec := time.Duration(0), t.execTimeout
	if p != nil {
		ttl = p.TTL
		if p.ExecutionTimeout > 0 {
			exec = p.ExecutionTimeout
		}
	}
	w := WebhookWindow(ttl, exec)
	if w > webhook.MaxExpiry {
		return 0, fail.Invalid("RunParams.Policy", "TTL and execution timeout make a webhook window of %s, longer than a webhook token lives (%s)", w, webhook.MaxExpiry)
	}
	return w, nil
}

// mint returns a webhook URL for one submission, valid for window, and
// its token.
func (t *Tracker) mint(window time.Duration) (string, webhook.Token, error) {
	hook, err := t.signer.URL(t.hookBase, webhook.ForEndpoint(t.q.ID()), webhook.ValidFor(window))
	if err != nil {
		return "", webhook.Token{}, err
	}
	u, err := url.Parse(hook)
	if err != nil {
		return "", webhook.Token{}, err
	}
	tok, err := t.signer.Token(&http.Request{Method: http.MethodPost, URL: u})
	return hook, tok, err
}

// SubmissionState says what is known of a submission Submit recorded:
// Record.State reads it.
type SubmissionState string

// The states of a submission.
const (
	// SubmissionStateAccepted: the platform accepted the job, and its id
	// is known (from the answer to /run, or from a delivery to the
	// submission's webhook). Results delivers its outcome.
	SubmissionStateAccepted SubmissionState = "accepted"
	// SubmissionStatePending: /run was sent, no answer has given the
	// job's id, and a delivery to the submission's webhook may still come
	// (until Record.WebhookUntil). Do not submit the job again yet.
	SubmissionStatePending SubmissionState = "pending"
	// SubmissionStateNotAccepted: /run was never answered, and no
	// delivery came to the submission's webhook in the time one would
	// have had the platform accepted the job (WebhookWindow). The job was
	// not accepted, so submitting it again does not pay for it twice —
	// provided your receiver answered throughout that time (see
	// SubmissionError).
	SubmissionStateNotAccepted SubmissionState = "not accepted"
	// SubmissionStateUnknowable: /run was never answered and the
	// submission had no webhook (the tracker has no WithWebhooks): the
	// queue API lists no jobs, so nothing can tell whether the platform
	// accepted it. Submitting it again may pay twice; not submitting it
	// may lose it.
	SubmissionStateUnknowable SubmissionState = "unknowable"
)

// State says what is known of the submission r records at now: Accepted
// once it has a job id, else Pending until WebhookUntil and NotAccepted
// from then on, or Unknowable when it had no webhook.
func (r Record) State(now time.Time) SubmissionState {
	switch {
	case r.JobID != "":
		return SubmissionStateAccepted
	case r.WebhookUntil.IsZero():
		return SubmissionStateUnknowable
	case now.Before(r.WebhookUntil):
		return SubmissionStatePending
	}
	return SubmissionStateNotAccepted
}

// Sentinels matched by a *SubmissionError of the same State, with
// errors.Is.
var (
	// ErrPending matches a *SubmissionError whose State is
	// SubmissionStatePending.
	ErrPending = errors.New("runpod: submission pending: the platform's answer did not come, and its webhook may still")
	// ErrNotAccepted matches a *SubmissionError whose State is
	// SubmissionStateNotAccepted.
	ErrNotAccepted = errors.New("runpod: submission not accepted")
	// ErrUnknowable matches a *SubmissionError whose State is
	// SubmissionStateUnknowable.
	ErrUnknowable = errors.New("runpod: the outcome of the submission cannot be known")
)

// SubmissionError reports a submission whose /run was not answered with
// a job id. Submit returns it, wrapping Queue.Run's error (so it matches
// errs.ErrOutcomeUnknown), with State SubmissionStatePending (with
// webhooks) or SubmissionStateUnknowable (without). Results yields it
// once for a submission that is settled without a job:
// SubmissionStateNotAccepted or SubmissionStateUnknowable, after which
// its record is removed; and, not settled, SubmissionStatePending with
// ctx's error when the loop's context ends first.
//
// NotAccepted rests on your receiver having answered the platform while
// the submission was pending: the platform makes three attempts over
// WebhookRetryWindow, so a receiver down longer than that may have missed
// the delivery of a job that was accepted. Record.ResumedAt is set when
// the program restarted while the submission was pending, and the
// error's text then says so.
type SubmissionError struct {
	State  SubmissionState // what is known of the submission
	Record Record          // the submission's record
	At     time.Time       // when the state was read, on the tracker's clock
	Err    error           // Queue.Run's error (from Submit), or ctx's (from Results); nil otherwise
}

// Error names the submission and says what is known of it.
func (e *SubmissionError) Error() string {
	r := e.Record
	head := fmt.Sprintf("runpod: submission %s", r.Submission)
	if r.Label != "" {
		head += fmt.Sprintf(" (%q)", r.Label)
	}
	head += " to endpoint " + r.EndpointID
	var msg string
	switch e.State {
	case SubmissionStatePending:
		msg = fmt.Sprintf("%s: no answer gave the job's id; if the platform accepted the job, its webhook delivers it by %s: do not submit it again before then",
			head, r.WebhookUntil.UTC().Format(time.RFC3339))
	case SubmissionStateNotAccepted:
		msg = fmt.Sprintf("%s was not accepted: no answer gave the job's id, and no delivery came to its webhook by %s; submitting it again pays once",
			head, r.WebhookUntil.UTC().Format(time.RFC3339))
		if !r.ResumedAt.IsZero() {
			msg += fmt.Sprintf(" (but the program restarted while it was pending, last at %s: a delivery made while no receiver answered may have been lost)",
				r.ResumedAt.UTC().Format(time.RFC3339))
		}
	case SubmissionStateUnknowable:
		msg = head + ": its outcome cannot be known: no answer gave the job's id, and it had no webhook to be found by (tracker.WithWebhooks); submitting it again may pay twice"
	case SubmissionStateAccepted:
		msg = fmt.Sprintf("%s: no answer came, but a delivery to its webhook gave its job, %s", head, r.JobID)
	default:
		msg = head + ": " + string(e.State)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is matches ErrPending, ErrNotAccepted or ErrUnknowable, by State.
func (e *SubmissionError) Is(target error) bool {
	switch target {
	case ErrPending:
		return e.State == SubmissionStatePending
	case ErrNotAccepted:
		return e.State == SubmissionStateNotAccepted
	case ErrUnknowable:
		return e.State == SubmissionStateUnknowable
	}
	return false
}

// Unwrap returns Queue.Run's or ctx's error.
func (e *SubmissionError) Unwrap() error { return e.Err }

// Handler returns the receiver of the webhooks WithWebhooks mints: serve
// it at the path of the base URL given there. It verifies each delivery
// with the Signer (webhook.Signer.Handler: forgeries, expired tokens and
// bad bodies are refused) and, when the delivery is to a submission whose
// job's id is not known yet, binds the job's id to the submission's
// record and stores it before answering 200 (a store failure is a 500,
// and the platform delivers again). Results then reads the job from the
// platform (the delivered body is not trusted) and delivers it once.
//
// Deliveries to a submission that already has its job (the answer to
// /run came, or an earlier delivery), retries and replays are answered
// 200 and change nothing; one naming another job than the one bound is
// refused (500). A delivery for a submission the tracker does not track
// is looked for in the store (as after a restart before Resume), and
// answered 200 when it is not there: it was settled. Without WithWebhooks
// every request is answered 404.
func (t *Tracker) Handler() http.Handler {
	if t.signer == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "the tracker has no webhooks", http.StatusNotFound)
		})
	}
	return t.signer.Handler(t.delivered)
}

// errOtherJob is the error of a delivery that names another job than the
// one its submission has.
var errOtherJob = errors.New("runpod: the delivery names another job than its submission's")

// delivered binds the job of a verified delivery to its submission.
func (t *Tracker) delivered(ctx context.Context, job *serverless.Job) error {
	tok, _ := webhook.TokenFrom(ctx)
	if tok.EndpointID != t.q.ID() {
		return nil // not a submission of this tracker
	}
	k := submissionKeyPrefix + tok.Nonce
	t.mu.Lock()
	e := t.jobs[k]
	t.mu.Unlock()
	if e == nil {
		if _, err := t.adopt(ctx, func(r Record) bool { return r.Key() == k }); err != nil {
			return err
		}
		t.mu.Lock()
		e = t.jobs[k]
		t.mu.Unlock()
		if e == nil {
			return nil // settled, or never this tracker's
		}
	}
	t.mu.Lock()
	rec := e.rec
	t.mu.Unlock()
	switch {
	case rec.JobID == job.ID:
		return nil
	case rec.JobID != "":
		return fmt.Errorf("%w: submission %s has job %s, the delivery names %s", errOtherJob, rec.Submission, rec.JobID, job.ID)
	}
	rec.JobID = job.ID
	if err := t.store.Put(ctx, rec); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.rec.JobID == "" {
		e.rec.JobID = job.ID
		if e.bound != nil {
			close(e.bound)
		}
		t.notifyLocked()
	}
	return nil
}

// maxDeadlineCheck bounds the pause between two readings of the clock
// while a pending submission waits for its deadline, so that a clock that
// jumps (a test's) is noticed.
const maxDeadlineCheck = time.Minute

// waitSubmission waits until the submission of e gets its job's id (then
// waits for the job, as waitFor does) or its webhook window passes, or ctx
// ends. rec is its record as claimed.
func (t *Tracker) waitSubmission(ctx context.Context, e *entry, rec Record, opts []option.RequestOption) outcome {
	for {
		t.mu.Lock()
		if e.rec.JobID != "" {
			rec = e.rec
			t.mu.Unlock()
			return t.waitFor(ctx, rec, true, opts)
		}
		rec = e.rec
		t.mu.Unlock()
		now := t.clock()
		if state := rec.State(now); state != SubmissionStatePending {
			return outcome{rec: rec, tracked: true, final: true, err: &SubmissionError{State: state, Record: rec, At: now}}
		}
		timer := time.NewTimer(min(rec.WebhookUntil.Sub(now), maxDeadlineCheck))
		select {
		case <-e.bound:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			now := t.clock()
			return outcome{rec: rec, tracked: true, err: &SubmissionError{State: rec.State(now), Record: rec, At: now, Err: ctx.Err()}}
		}
		timer.Stop()
	}
}
