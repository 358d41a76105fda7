package webhook

import (
	"context"
	"errors"
	"net/http"

	"github.com/runpodkit/runpod-go/serverless"
)

// Handler returns the http.Handler of a webhook receiver: it verifies
// each delivery (see Verify) and calls fn with the job of each new one,
// under the request's context, which also carries the URL's Token (read
// it with TokenFrom). It answers:
//
//   - 200 when fn returned nil, and for a Duplicate, without calling fn:
//     the platform stops retrying;
//   - 401 (Unsigned, Expired), 403 (Forged), 405 with Allow: POST
//     (WrongMethod), 413 (Oversized) or 400 (Malformed, NotTerminal) for a
//     refused delivery, without calling fn, with a one-line reason that
//     never holds the token;
//   - 500 when fn returned an error or panicked, or the SeenStore failed,
//     after undoing what Verify recorded (Forget), so that the platform's
//     retry is accepted and fn called again. fn's error is not sent.
//
// The platform retries a delivery that was not answered 200 two more
// times, 10 seconds apart: return an error from fn only for a failure
// that a retry may mend. A delivery that comes back while fn still runs
// for it is a Duplicate (200): keep fn short (hand long work to a queue)
// so that its outcome is known before the platform's next attempt.
// Handler panics if fn is nil.
func (s *Signer) Handler(fn func(ctx context.Context, job *serverless.Job) error) http.Handler {
	if fn == nil {
		panic("webhook: Handler with a nil function")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := s.verify(r)
		var refused *Error
		switch {
		case errors.As(err, &refused):
			if refused.Reason == WrongMethod {
				w.Header().Set("Allow", http.MethodPost)
			}
			reply(w, refused.Reason.StatusCode(), string(refused.Reason))
		case err != nil:
			reply(w, http.StatusInternalServerError, "the delivery could not be recorded")
		case s.run(context.WithValue(r.Context(), tokenKey{}, d.token), fn, d) != nil:
			reply(w, http.StatusInternalServerError, "the receiver failed")
		default:
			reply(w, http.StatusOK, "accepted")
		}
	})
}

// run calls fn with the delivery's job and, when fn fails or panics,
// forgets the delivery before the answer goes out, so that the
// platform's retry is accepted.
func (s *Signer) run(ctx context.Context, fn func(context.Context, *serverless.Job) error, d delivery) (err error) {
	handled := false
	defer func() {
		if !handled {
			_ = s.seen.Forget(context.WithoutCancel(ctx), d.key)
		}
	}()
	err = fn(ctx, d.job)
	handled = err == nil
	return err
}

// reply writes a one-line plain-text answer.
func reply(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}

// tokenKey is the context key of a delivery's Token.
type tokenKey struct{}

// TokenFrom returns the Token of the delivery whose context ctx is (or
// derives from), as Handler passes it to its function; ok is false for
// any other context.
func TokenFrom(ctx context.Context) (tok Token, ok bool) {
	tok, ok = ctx.Value(tokenKey{}).(Token)
	return tok, ok
}
