package tracker

import (
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Record is what the tracker keeps of a job so that it can be found again
// after a restart: where it runs, when it was submitted and how, and when
// the tracker saw it end. It holds no input and no secret (of a webhook
// URL it keeps the nonce, which is not what makes the URL genuine). Its
// JSON is the shape the file store writes; a database can store the
// fields as columns, keyed by (EndpointID, Key()).
//
// A record Submit wrote before sending /run has a Submission and no JobID
// until the platform's answer (or a delivery to the submission's webhook)
// gives the job's id: see SubmissionState and Record.State.
type Record struct {
	// EndpointID is the queue-based endpoint the job was submitted to.
	EndpointID string `json:"endpointId"`
	// JobID is the job's id, as the platform made it; empty while a
	// submission's outcome is not known (see Submission).
	JobID string `json:"jobId,omitempty"`
	// Submission is the id Submit gave the submission before sending
	// /run: the nonce of the submission's webhook URL (webhook.Token's
	// Nonce) when the tracker has webhooks (WithWebhooks), a random id
	// otherwise. Empty for a job adopted with Track.
	Submission string `json:"submission,omitempty"`
	// WebhookUntil is, for a submission with a webhook URL, the last
	// moment a delivery to it can arrive if the platform accepted the job
	// (see WebhookWindow); zero when the submission has no webhook, so
	// that an unanswered /run can never be settled.
	WebhookUntil time.Time `json:"webhookUntil,omitzero"`
	// ResumedAt is when a tracker last took up this submission from the
	// store while its outcome was unknown (Resume after a restart): a
	// delivery made while no receiver ran may have been lost. Zero when
	// it never was.
	ResumedAt time.Time `json:"resumedAt,omitzero"`
	// SubmittedAt is a time no later than the job's submission: the
	// tracker reads its clock before it sends the request. Results can
	// expire no sooner than the retention after it (see LostJobError).
	SubmittedAt time.Time `json:"submittedAt"`
	// Sync marks a job submitted with /runsync, whose result the platform
	// keeps RunSyncRetention (at most RunSyncMaxRetention) rather than
	// RunRetention.
	Sync bool `json:"sync,omitempty"`
	// TTL is the job's Policy.TTL, how long it may live from submission,
	// queue time included; zero for the platform's DefaultTTL.
	TTL time.Duration `json:"ttl,omitempty"`
	// Label is the caller's own tag for the job, empty for none.
	Label string `json:"label,omitempty"`
	// CompletedAt is when the tracker first read the job in a terminal
	// status (COMPLETED, FAILED, CANCELLED or TIMED_OUT); zero until then.
	// It is no earlier than the job's end, so the platform has dropped
	// the result once the retention has passed after it.
	CompletedAt time.Time `json:"completedAt,omitzero"`
}

// submissionKeyPrefix starts the Key of a record that has a Submission.
// A job id never holds a '/' (it is a path segment of the job routes).
const submissionKeyPrefix = "submission/"

// Key is the record's identity within its endpoint, what a Store keys it
// by (with EndpointID): "submission/" + Submission for a record Submit
// wrote (it keeps its key once the job's id is known, so that one Put
// replaces the record of the submission by that of its job), else JobID.
func (r Record) Key() string {
	if r.Submission != "" {
		return submissionKeyPrefix + r.Submission
	}
	return r.JobID
}

// key is a record's identity in a store.
type key struct{ endpointID, id string }

func (r Record) key() key { return key{r.EndpointID, r.Key()} }

// validate reports a record a store cannot keep: one without an endpoint,
// or with neither a job id nor a submission id.
func (r Record) validate() error {
	if strings.TrimSpace(r.EndpointID) == "" {
		return fail.Invalid("Record.EndpointID", "is empty")
	}
	if strings.TrimSpace(r.JobID) == "" && strings.TrimSpace(r.Submission) == "" {
		return fail.Invalid("Record.JobID", "is empty, and so is Record.Submission")
	}
	return nil
}

// retention returns the shortest and the longest time the platform keeps
// the result of a job submitted as r was, after the job ends.
func (r Record) retention() (least, most time.Duration) {
	if r.Sync {
		return RunSyncRetention, RunSyncMaxRetention
	}
	return RunRetention, RunRetention
}

// ttl is the job's time to live: its own, or the platform's default.
func (r Record) ttl() time.Duration {
	if r.TTL > 0 {
		return r.TTL
	}
	return DefaultTTL
}
