package errs

import (
	"errors"
	"strconv"
	"strings"
)

// ErrNoCapacity matches a *CapacityError: the platform refused a create
// (or a start) for want of capacity, and nothing was created. Unlike
// ErrOutcomeUnknown, there is nothing to go and look for: the same request
// may be sent again, elsewhere or later.
var ErrNoCapacity = errors.New("runpod: no capacity: nothing was created")

// CapacityReason says why the platform had no room for a request.
type CapacityReason string

const (
	// CapacityReasonOutOfStock: machines that fit the request exist, but none is free
	// now (a stock-out). Another data center, cloud or GPU type, or the
	// same one later, may have room.
	CapacityReasonOutOfStock CapacityReason = "out of stock"
	// CapacityReasonNoMatchingHost: no machine fits the request at all, free or not
	// (its CUDA versions, GPU count or other limits match no host). The
	// same request will not succeed later; a different one may. When
	// every candidate of a fallback answers this, the request itself is
	// the likelier cause.
	CapacityReasonNoMatchingHost CapacityReason = "no matching host"
)

// CapacityError is the platform's answer to a create that found no room:
// HTTP 500 (or a 4xx) whose message is one of the platform's known
// stock-out or no-matching-host wordings, each observed to create
// nothing. Any other 5xx stays an error matching ErrOutcomeUnknown.
type CapacityError struct {
	// Reason is CapacityReasonOutOfStock or CapacityReasonNoMatchingHost.
	Reason CapacityReason
	// Wording is the known wording the platform's message contained, in
	// lower case, such as "no longer any instances available".
	Wording string
	// APIError is the platform's response; its OutcomeUnknown is false,
	// since the answer says that nothing was created.
	APIError *APIError
}

// Error names the request, the reason and the platform's message.
func (e *CapacityError) Error() string {
	var b strings.Builder
	if e.APIError != nil {
		startMessage(&b, e.APIError.Method, e.APIError.Path)
		b.WriteString(strconv.Itoa(e.APIError.StatusCode) + " ")
	} else {
		b.WriteString("runpod: ")
	}
	b.WriteString("no capacity (" + string(e.Reason) + "), nothing was created")
	if e.APIError != nil {
		switch {
		case e.APIError.Detail != "":
			b.WriteString(": " + e.APIError.Detail)
		case e.APIError.Excerpt != "":
			b.WriteString(": " + strconv.Quote(e.APIError.Excerpt))
		}
		if e.APIError.RequestID != "" {
			b.WriteString(" (request id " + e.APIError.RequestID + ")")
		}
	}
	return b.String()
}

// Is reports whether target is ErrNoCapacity.
func (e *CapacityError) Is(target error) bool { return target == ErrNoCapacity }

// Unwrap returns the *APIError, for its status, body and request id.
func (e *CapacityError) Unwrap() error {
	if e.APIError == nil {
		return nil
	}
	return e.APIError
}

// PlacementAttempt is one create a fallback made: the candidate it tried
// and what the platform answered.
type PlacementAttempt struct {
	// GPUTypeID is the GPU type the create asked for; empty for a CPU pod.
	GPUTypeID string
	// DataCenterIDs are the data centers the create allowed; empty for
	// any.
	DataCenterIDs []string
	// Cloud is the cloud the create asked for, SECURE or COMMUNITY; empty
	// for the platform's default.
	Cloud string
	// Err is the create's error: a *CapacityError for every attempt but
	// the last, which may be any error.
	Err error
}

// String names the candidate: the GPU type, the data centers and the cloud
// it set.
func (a PlacementAttempt) String() string {
	var parts []string
	if a.GPUTypeID != "" {
		parts = append(parts, a.GPUTypeID)
	}
	if len(a.DataCenterIDs) > 0 {
		parts = append(parts, "in "+strings.Join(a.DataCenterIDs, "|"))
	}
	if a.Cloud != "" {
		parts = append(parts, "on "+a.Cloud)
	}
	if len(parts) == 0 {
		return "the request as given"
	}
	return strings.Join(parts, " ")
}

// PlacementError is the failure of a create that tried candidates in
// turn. Either every candidate answered that it had no capacity
// (Exhausted: nothing was created anywhere, and the error matches
// ErrNoCapacity), or a candidate failed otherwise and the fallback stopped
// there: then the error is that candidate's, matching what it matches
// (ErrOutcomeUnknown after an ambiguous failure, when a resource may
// exist), and never ErrNoCapacity.
type PlacementError struct {
	// Attempts are the creates made, in order, each with its error.
	Attempts []PlacementAttempt
	// Exhausted is set when every candidate was tried and each answered
	// with a *CapacityError.
	Exhausted bool
}

// Error lists every attempt and its answer.
func (e *PlacementError) Error() string {
	var b strings.Builder
	n := len(e.Attempts)
	if e.Exhausted {
		b.WriteString("runpod: no candidate had capacity, nothing was created (" + strconv.Itoa(n) + " tried")
		if e.AllNoMatchingHost() {
			b.WriteString("; every one matched no host, so the request itself is the likelier cause")
		}
		b.WriteString(")")
	} else {
		b.WriteString("runpod: placement stopped at candidate " + strconv.Itoa(n))
	}
	for i, a := range e.Attempts {
		b.WriteString("; " + strconv.Itoa(i+1) + ". " + a.String() + ": ")
		var c *CapacityError
		if errors.As(a.Err, &c) {
			b.WriteString(string(c.Reason))
		} else if a.Err != nil {
			b.WriteString(a.Err.Error())
		}
	}
	return b.String()
}

// Unwrap returns the attempts' errors when the placement is exhausted
// (all *CapacityError), and only the last attempt's error when it
// stopped, so that the earlier stock-outs do not make a failure whose
// outcome is unknown match ErrNoCapacity.
func (e *PlacementError) Unwrap() []error {
	if len(e.Attempts) == 0 {
		return nil
	}
	if !e.Exhausted {
		return []error{e.Attempts[len(e.Attempts)-1].Err}
	}
	out := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		out[i] = a.Err
	}
	return out
}

// AllNoMatchingHost reports whether the placement is exhausted and every
// candidate answered CapacityReasonNoMatchingHost: no host matched the request anywhere,
// which points at the request (its CUDA versions, GPU count) rather than
// at stock.
func (e *PlacementError) AllNoMatchingHost() bool {
	if !e.Exhausted || len(e.Attempts) == 0 {
		return false
	}
	for _, a := range e.Attempts {
		var c *CapacityError
		if !errors.As(a.Err, &c) || c.Reason != CapacityReasonNoMatchingHost {
			return false
		}
	}
	return true
}
