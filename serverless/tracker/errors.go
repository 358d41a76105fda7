package tracker

import (
	"errors"
	"fmt"
)

// ErrAlreadyWaiting is returned by Wait for a job that another Wait or a
// Results loop of the same Tracker is waiting for: each result is
// delivered once, to whichever took the job first.
var ErrAlreadyWaiting = errors.New("runpod: the tracker is already waiting for this job")

// StoreError reports a record the tracker could not write to or remove
// from its Store. Record.JobID is the job, so that it is never lost.
//
// From Submit or Track (Op "put"): the job is submitted (and billed) and
// this Tracker still tracks it, but a restart would lose it unless you
// keep Record yourself. From Wait or Results (Op "delete"): the job's
// outcome was delivered, but its record stays in the store, so a restart
// delivers it again (or reports it lost once its result has expired).
type StoreError struct {
	Op     string // the store operation that failed: "put" or "delete"
	Record Record // the record that was being written or removed
	Err    error  // the store's error
}

// Error names the job, the endpoint and what failed.
func (e *StoreError) Error() string {
	if e.Op == "put" {
		return fmt.Sprintf("runpod: job %s on endpoint %s was submitted but its record could not be stored (keep the job id): %v",
			e.Record.JobID, e.Record.EndpointID, e.Err)
	}
	return fmt.Sprintf("runpod: the record of job %s on endpoint %s could not be removed after its outcome was delivered: %v",
		e.Record.JobID, e.Record.EndpointID, e.Err)
}

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }
