package redact

import (
	"errors"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// Error removes every secret (see Bytes) from what err carries, in place
// for the SDK's error types: an *errs.APIError's Body, then its Title,
// Detail, Errors and Excerpt (read again from the redacted body and its
// ContentType when Body is not empty, so that an excerpt never ends inside
// a secret) and RequestID; an *errs.ResponseError's Excerpt and the
// message of its Err. When the message of err still holds a secret after
// that (an error of another type quoting it), Error returns an error with
// the redacted message that matches what err matched with errors.Is and
// errors.As but does not unwrap to it.
func Error(err error, secrets ...string) error {
	if err == nil || newMatcher(secrets).empty() {
		return err
	}
	var api *errs.APIError
	if errors.As(err, &api) {
		redactAPIError(api, secrets)
	}
	var resp *errs.ResponseError
	if errors.As(err, &resp) {
		resp.Excerpt = redactString(resp.Excerpt, secrets)
		resp.Err = redactMessage(resp.Err, secrets)
	}
	return redactMessage(err, secrets)
}

// redactAPIError removes secrets from e, reading its fields again from the
// redacted body when there is one.
func redactAPIError(e *errs.APIError, secrets []string) {
	if len(e.Body) > 0 {
		e.Body = Bytes(e.Body, secrets...)
		fail.DecodeBody(e)
	}
	e.Title, e.Detail = redactString(e.Title, secrets), redactString(e.Detail, secrets)
	e.Excerpt, e.RequestID = redactString(e.Excerpt, secrets), redactString(e.RequestID, secrets)
	for i := range e.Errors {
		e.Errors[i] = redactString(e.Errors[i], secrets)
	}
}

func redactString(s string, secrets []string) string {
	return string(Bytes([]byte(s), secrets...))
}

// redactMessage returns err, or a *redactedError in its place when its
// message holds a secret.
func redactMessage(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if r := redactString(msg, secrets); r != msg {
		return &redactedError{msg: r, orig: err}
	}
	return err
}

// redactedError stands for an error whose message held a secret. It does
// not unwrap to that error (whose message would print the secret), but
// errors.Is and errors.As still see through it.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

// Is reports whether the original error matches target.
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

// As finds target in the original error's chain.
func (e *redactedError) As(target any) bool { return errors.As(e.orig, target) }
