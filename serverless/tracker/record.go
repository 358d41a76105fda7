package tracker

import (
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Record is what the tracker keeps of a job so that it can be found again
// after a restart: where it runs, when it was submitted and how, and when
// the tracker saw it end. It holds no input and no secret. Its JSON is
// the shape the file store writes; a database can store the fields as
// columns, keyed by (EndpointID, JobID).
type Record struct {
	// EndpointID is the queue-based endpoint the job was submitted to.
	EndpointID string `json:"endpointId"`
	// JobID is the job's id, as the platform made it.
	JobID string `json:"jobId"`
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

// key is a record's identity in a store.
type key struct{ endpointID, jobID string }

func (r Record) key() key { return key{r.EndpointID, r.JobID} }

// validate reports a record a store cannot keep: one without an endpoint
// or a job id.
func (r Record) validate() error {
	if strings.TrimSpace(r.EndpointID) == "" {
		return fail.Invalid("Record.EndpointID", "is empty")
	}
	if strings.TrimSpace(r.JobID) == "" {
		return fail.Invalid("Record.JobID", "is empty")
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
