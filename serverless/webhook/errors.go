package webhook

import (
	"errors"
	"net/http"
)

// Reason says why Verify did not hand over a delivery as a new job.
type Reason string

// Reasons, each with the sentinel its *Error matches and the status
// Handler answers with.
const (
	// ReasonUnsigned: the URL has no token (ErrUnsigned, 401).
	ReasonUnsigned Reason = "unsigned"
	// ReasonForged: the URL's token was not minted with this secret for this
	// path: malformed, altered, signed with another key, or minted for
	// another receiver's path (ErrForged, 403).
	ReasonForged Reason = "forged"
	// ReasonExpired: the token is genuine but past its expiry (ErrExpired, 401).
	ReasonExpired Reason = "expired"
	// ReasonWrongMethod: the request is not a POST (ErrWrongMethod, 405).
	ReasonWrongMethod Reason = "wrong method"
	// ReasonOversized: the body is longer than WithMaxBody allows (ErrOversized,
	// 413).
	ReasonOversized Reason = "oversized"
	// ReasonMalformed: the body is not a job's status JSON with an id
	// (ErrMalformed, 400).
	ReasonMalformed Reason = "malformed"
	// ReasonNotTerminal: the job's status is not a finished one (COMPLETED,
	// FAILED, CANCELLED or TIMED_OUT), which the platform never delivers
	// (ErrNotTerminal, 400).
	ReasonNotTerminal Reason = "not terminal"
	// ReasonDuplicate: this job, with this status, was already accepted on this
	// URL: the platform's retry of a delivery whose answer it did not get,
	// or a replay. Handler answers 200, so the platform stops retrying,
	// and does not call its function (ErrDuplicate).
	ReasonDuplicate Reason = "duplicate"
	// ReasonInProgress: this job, with this status, was accepted on this URL and
	// a receiver is still acting on it (Handler's function has not
	// returned, or a Verify caller has not called Done or Forget): the
	// platform's retry of a delivery it gave up waiting for. Handler
	// answers 503 with Retry-After, and the platform delivers again: if
	// acting on the first delivery fails, that attempt is acted on
	// (ErrInProgress).
	ReasonInProgress Reason = "in progress"
)

// Sentinels, matched with errors.Is against the *Error Verify returns:
// each matches an *Error of the Reason named beside it.
var (
	ErrUnsigned    = errors.New("runpod: webhook: the URL carries no token")                      // ReasonUnsigned
	ErrForged      = errors.New("runpod: webhook: the URL's token was not minted by this signer") // ReasonForged
	ErrExpired     = errors.New("runpod: webhook: the URL's token has expired")                   // ReasonExpired
	ErrWrongMethod = errors.New("runpod: webhook: a delivery is a POST")                          // ReasonWrongMethod
	ErrOversized   = errors.New("runpod: webhook: the body is too large")                         // ReasonOversized
	ErrMalformed   = errors.New("runpod: webhook: the body is not a job's status JSON")           // ReasonMalformed
	ErrNotTerminal = errors.New("runpod: webhook: the job has not finished")                      // ReasonNotTerminal
	ErrDuplicate   = errors.New("runpod: webhook: duplicate delivery")                            // ReasonDuplicate
	ErrInProgress  = errors.New("runpod: webhook: the delivery is being handled")                 // ReasonInProgress
)

// sentinel returns the sentinel r's errors match.
func (r Reason) sentinel() error {
	switch r {
	case ReasonUnsigned:
		return ErrUnsigned
	case ReasonForged:
		return ErrForged
	case ReasonExpired:
		return ErrExpired
	case ReasonWrongMethod:
		return ErrWrongMethod
	case ReasonOversized:
		return ErrOversized
	case ReasonMalformed:
		return ErrMalformed
	case ReasonNotTerminal:
		return ErrNotTerminal
	case ReasonDuplicate:
		return ErrDuplicate
	case ReasonInProgress:
		return ErrInProgress
	}
	return nil
}

// StatusCode is the HTTP status Handler answers a delivery refused for r
// with: 401 for ReasonUnsigned and ReasonExpired, 403 for ReasonForged, 405 for
// ReasonWrongMethod, 413 for ReasonOversized, 400 for ReasonMalformed and ReasonNotTerminal, 200
// for ReasonDuplicate and 503 for ReasonInProgress.
func (r Reason) StatusCode() int {
	switch r {
	case ReasonUnsigned, ReasonExpired:
		return http.StatusUnauthorized
	case ReasonForged:
		return http.StatusForbidden
	case ReasonWrongMethod:
		return http.StatusMethodNotAllowed
	case ReasonOversized:
		return http.StatusRequestEntityTooLarge
	case ReasonDuplicate:
		return http.StatusOK
	case ReasonInProgress:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// Error is a delivery Verify did not hand over as a new job. It never
// holds the secret or the token.
type Error struct {
	// Reason says why.
	Reason Reason
	// JobID is the job the body names, once the body was read (ReasonDuplicate,
	// ReasonInProgress, ReasonNotTerminal); empty before.
	JobID string
	// Err is the cause, when there is one: the JSON decoder's error of a
	// ReasonMalformed body.
	Err error

	detail string
}

// Error says why the delivery was refused, and names the job when the
// body was read.
func (e *Error) Error() string {
	msg := "runpod: webhook: " + string(e.Reason)
	if s := e.Reason.sentinel(); s != nil {
		msg = s.Error()
	}
	if e.JobID != "" {
		msg += " (job " + e.JobID + ")"
	}
	if e.detail != "" {
		msg += ": " + e.detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is reports whether target is the sentinel of e's Reason.
func (e *Error) Is(target error) bool {
	s := e.Reason.sentinel()
	return s != nil && target == s
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }
