// Package jobstatus names a serverless job's states as the platform
// writes them on the wire, once for the whole module: serverless.JobStatus
// (the client), the worker runtime's local queue (internal/jobqueue) and
// the OpenTelemetry module all take them from here. It imports nothing, so
// the worker runtime links no part of the client through it.
package jobstatus

// Status is a job's state as the platform names it on the wire.
type Status string

// The platform's job states. InQueue and InProgress are transient; the
// others are terminal.
const (
	InQueue    Status = "IN_QUEUE"
	InProgress Status = "IN_PROGRESS"
	Completed  Status = "COMPLETED"
	Failed     Status = "FAILED"
	Cancelled  Status = "CANCELLED"
	TimedOut   Status = "TIMED_OUT"
)

// Terminal reports whether s is a state a job ends in (COMPLETED, FAILED,
// CANCELLED or TIMED_OUT).
func (s Status) Terminal() bool {
	switch s {
	case Completed, Failed, Cancelled, TimedOut:
		return true
	}
	return false
}
