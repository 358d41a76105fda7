package tracker

import (
	"errors"
	"fmt"
	"time"
)

// How long the platform keeps a job and its result, as it documents them.
const (
	// RunRetention is how long the result of a job submitted with /run
	// (Queue.Run, Tracker.Submit) stays readable after the job ends.
	RunRetention = 30 * time.Minute
	// RunSyncRetention is how long the result of a job submitted with
	// /runsync stays readable after the job ends, by default.
	RunSyncRetention = time.Minute
	// RunSyncMaxRetention is the longest the platform keeps a /runsync
	// result (a /runsync that asked for a longer wait keeps it longer
	// than RunSyncRetention, up to this).
	RunSyncMaxRetention = 5 * time.Minute
	// DefaultTTL is how long a job may live from submission, queue time
	// included, when its Policy.TTL is zero; after it the platform deletes
	// the job, even while it runs.
	DefaultTTL = 24 * time.Hour
)

// Reason says why the platform answers 404 for a job: see LostJobError.
type Reason string

// The reasons of a LostJobError.
const (
	// ReasonExpired: the platform had the job and dropped it, or may have: its
	// result outlived the retention, or the job its TTL.
	ReasonExpired Reason = "expired"
	// ReasonUnknown: the platform never had this job on this endpoint: the id
	// is not tracked, or its record is younger than any expiry could be
	// (a wrong id, or a job of another endpoint).
	ReasonUnknown Reason = "unknown"
)

// Sentinels matched by a *LostJobError of the same Reason, with
// errors.Is.
var (
	ErrExpired    = errors.New("runpod: job expired")                  // matches a *LostJobError whose Reason is ReasonExpired
	ErrUnknownJob = errors.New("runpod: job unknown on this endpoint") // matches a *LostJobError whose Reason is ReasonUnknown
)

// LostJobError reports a job the platform answers 404 for, which it does
// alike for a job whose result has expired and for an id it never had on
// the endpoint. The tracker tells them apart from the job's record, on
// its clock (WithClock), now being when the 404 was read:
//
//  1. No record of the job: ReasonUnknown.
//  2. The tracker saw the job end (Record.CompletedAt is set): ReasonExpired.
//     The platform had the job; once now − CompletedAt is past the
//     longest retention (RunRetention for /run, RunSyncMaxRetention for
//     /runsync) the result has certainly been dropped.
//  3. Otherwise the job cannot have expired before SubmittedAt + the
//     shorter of the shortest retention (RunRetention for /run,
//     RunSyncRetention for /runsync) and its TTL (Record.TTL, else
//     DefaultTTL): it might have ended right after its submission, and
//     been dropped that much later. From then on: ReasonExpired (it may have
//     ended unseen and been dropped, or outlived its TTL). Before then:
//     ReasonUnknown, as no expiry can explain the 404.
//
// It matches ErrExpired or ErrUnknownJob with errors.Is, and unwraps to
// the failed read (a *serverless.WaitError holding the *errs.APIError),
// so it matches errs.ErrNotFound too.
type LostJobError struct {
	EndpointID string    // the endpoint the job was looked for on
	JobID      string    // the job that was looked for
	Reason     Reason    // ReasonExpired or ReasonUnknown, by the rules above
	Record     Record    // the job's record; the zero Record when it had none
	At         time.Time // when the 404 was classified, on the tracker's clock
	Err        error     // the failed read: the 404
}

// Error names the job and the endpoint, and says how the reason was
// reached.
func (e *LostJobError) Error() string {
	head := "runpod: job " + e.JobID + " on endpoint " + e.EndpointID
	r := e.Record
	switch {
	case e.Reason == ReasonUnknown && r.JobID == "":
		return head + " is unknown: it is not tracked, and the platform answers 404"
	case e.Reason == ReasonUnknown:
		return fmt.Sprintf("%s is unknown: submitted %s ago, too recently for any result to have expired, yet the platform answers 404: it never had this job on this endpoint",
			head, ago(e.At, r.SubmittedAt))
	case !r.CompletedAt.IsZero():
		_, most := r.retention()
		verb := "has expired"
		if e.At.Sub(r.CompletedAt) < most {
			verb = "is gone"
		}
		return fmt.Sprintf("%s %s: the tracker saw it end %s ago, and %s", head, verb, ago(e.At, r.CompletedAt), r.keptText())
	default:
		return fmt.Sprintf("%s may have expired: submitted %s ago, and %s (a job lives at most %s); the platform answers 404",
			head, ago(e.At, r.SubmittedAt), r.keptText(), r.ttl())
	}
}

// keptText says how long the platform keeps the result of a job
// submitted as r was.
func (r Record) keptText() string {
	least, most := r.retention()
	if r.Sync {
		return fmt.Sprintf("/runsync results are kept %s to %s after the job ends", least, most)
	}
	return fmt.Sprintf("/run results are kept %s after the job ends", least)
}

// Is matches ErrExpired or ErrUnknownJob, by Reason.
func (e *LostJobError) Is(target error) bool {
	switch target {
	case ErrExpired:
		return e.Reason == ReasonExpired
	case ErrUnknownJob:
		return e.Reason == ReasonUnknown
	}
	return false
}

// Unwrap returns the failed read.
func (e *LostJobError) Unwrap() error { return e.Err }

// ago is the time from then to now, to the second.
func ago(now, then time.Time) time.Duration { return now.Sub(then).Round(time.Second) }

// classify reads a 404 for the job id on endpointID at now: rec is its
// record, tracked whether it has one.
func classify(endpointID, jobID string, rec Record, tracked bool, now time.Time, cause error) *LostJobError {
	e := &LostJobError{EndpointID: endpointID, JobID: jobID, Reason: ReasonUnknown, At: now, Err: cause}
	if !tracked {
		return e
	}
	e.Record = rec
	least, _ := rec.retention()
	if !rec.CompletedAt.IsZero() || !now.Before(rec.SubmittedAt.Add(min(least, rec.ttl()))) {
		e.Reason = ReasonExpired
	}
	return e
}
