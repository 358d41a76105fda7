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
	// Unsigned: the URL has no token (ErrUnsigned, 401).
	Unsigned Reason = "unsigned"
	// Forged: the URL's token was not minted with this secret for this
	// path: malformed, altered, signed with another key, or minted for
	// another receiver's path (ErrForged, 403).
	Forged Reason = "forged"
	// Expired: the token is genuine but past its expiry (ErrExpired, 401).
	Expired Reason = "expired"
	// WrongMethod: the request is not a POST (ErrWrongMethod, 405).
	WrongMethod Reason = "wrong method"
	// Oversized: the body is longer than WithMaxBody allows (ErrOversized,
	// 413).
	Oversized Reason = "oversized"
	// Malformed: the body is not a job's status JSON with an id
	// (ErrMalformed, 400).
	Malformed Reason = "malformed"
	// NotTerminal: the job's status is not a finished one (COMPLETED,
	// FAILED, CANCELLED or TIMED_OUT), which the platform never delivers
	// (ErrNotTerminal, 400).
	NotTerminal Reason = "not terminal"
	// Duplicate: this job, with this status, was already accepted on this
	// URL: the platform's retry of a delivery whose answer it did not get,
	// or a replay. Handler answers 200, so the platform stops retrying,
	// and does not call its function (ErrDuplicate).
	Duplicate Reason = "duplicate"
	// InProgress: this job, with this status, was accepted on this URL and
	// a receiver is still acting on it (Handler's function has not
	// returned, or a Verify caller has not called Done or Forget): the
	// platform's retry of a delivery it gave up waiting for. Handler
	// answers 503 with Retry-After, and the platform delivers again: if
	// acting on the first delivery fails, that attempt is acted on
	// (ErrInProgress).
	InProgress Reason = "in progress"
)

// Sentinels, matched with errors.Is against the *Error Verify returns:
// each matches an *Error of the Reason named beside it.
var (
	ErrUnsigned    = errors.New("runpod: webhook: the URL carries no token")                      // Unsigned
	ErrForged      = errors.New("runpod: webhook: the URL's token was not minted by this signer") // Forged
	ErrExpired     = errors.New("runpod: webhook: the URL's token has expired")                   // Expired
	ErrWrongMethod = errors.New("runpod: webhook: a delivery is a POST")                          // WrongMethod
	ErrOversized   = errors.New("runpod: webhook: the body is too large")                         // Oversized
	ErrMalformed   = errors.New("runpod: webhook: the body is not a job's status JSON")           // Malformed
	ErrNotTerminal = errors.New("runpod: webhook: the job has not finished")                      // NotTerminal
	ErrDuplicate   = errors.New("runpod: webhook: duplicate delivery")                            // Duplicate
	ErrInProgress  = errors.New("runpod: webhook: the delivery is being handled")                 // InProgress
)

// sentinel returns the sentinel r's errors match.
func (r Reason) sentinel() error {
	switch r {
	case Unsigned:
		return ErrUnsigned
	case Forged:
		return ErrForged
	case Expired:
		return ErrExpired
	case WrongMethod:
		return ErrWrongMethod
	case Oversized:
		return ErrOversized
	case Malformed:
		return ErrMalformed
	case NotTerminal:
		return ErrNotTerminal
	case Duplicate:
		return ErrDuplicate
	case InProgress:
		return ErrInProgress
	}
	return nil
}

// StatusCode is the HTTP status Handler answers a delivery refused for r
// with: 401 for Unsigned and Expired, 403 for Forged, 405 for
// WrongMethod, 413 for Oversized, 400 for Malformed and NotTerminal, 200
// for Duplicate and 503 for InProgress.
func (r Reason) StatusCode() int {
	switch r {
	case Unsigned, Expired:
		return http.StatusUnauthorized
	case Forged:
		return http.StatusForbidden
	case WrongMethod:
		return http.StatusMethodNotAllowed
	case Oversized:
		return http.StatusRequestEntityTooLarge
	case Duplicate:
		return http.StatusOK
	case InProgress:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// Error is a delivery Verify did not hand over as a new job. It never
// holds the secret or the token.
type Error struct {
	// Reason says why.
	Reason Reason
	// JobID is the job the body names, once the body was read (Duplicate,
	// InProgress, NotTerminal); empty before.
	JobID string
	// Err is the cause, when there is one: the JSON decoder's error of a
	// Malformed body.
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
