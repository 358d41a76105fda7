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
//   - 200 when fn returned nil, and for a ReasonDuplicate, without calling fn:
//     the platform stops retrying;
//   - 503 with Retry-After: 10 for a delivery whose fn is still running
//     (ReasonInProgress), without calling fn again: the platform's retry of a
//     delivery it gave up waiting for;
//   - 401 (ReasonUnsigned, ReasonExpired), 403 (ReasonForged), 405 with Allow: POST
//     (ReasonWrongMethod), 413 (ReasonOversized) or 400 (ReasonMalformed, ReasonNotTerminal) for a
//     refused delivery, without calling fn, with a one-line reason that
//     never holds the token;
//   - 500 when fn returned an error or panicked, or the SeenStore failed,
//     after undoing the claim (Forget), so that the platform's retry is
//     acted on and fn called again. fn's error is not sent.
//
// The platform retries a delivery that was not answered 200 (any other
// status, or no answer in time) two more times, 10 seconds apart, and
// then never again. So:
//
//   - fn runs at most once at a time for a delivery, and once it returned
//     nil, never again for it while the SeenStore remembers it (see
//     MemoryStore for the default store's bound, and WithSeenStore for a
//     persistent one);
//   - a job is not lost when fn fails, as long as the platform has an
//     attempt left: a retry that arrived while fn ran was answered 503,
//     not 200, so the platform comes back, and its next attempt calls fn.
//     fn's failure on the platform's last attempt (about 20 seconds after
//     the first) is final: return an error only for a failure that a
//     retry may mend, keep fn short, and hand long work to a durable
//     queue of your own.
//
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
			switch refused.Reason {
			case ReasonWrongMethod:
				w.Header().Set("Allow", http.MethodPost)
			case ReasonInProgress:
				w.Header().Set("Retry-After", retryAfterSeconds)
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

// retryAfterSeconds is the Retry-After of an ReasonInProgress answer: the
// platform's pause between attempts.
const retryAfterSeconds = "10"

// run calls fn with the delivery's job, then records the delivery as
// handled when fn returned nil, or forgets it when fn failed or panicked,
// before the answer goes out, so that the platform's retry is acted on.
func (s *Signer) run(ctx context.Context, fn func(context.Context, *serverless.Job) error, d delivery) (err error) {
	handled := false
	defer func() {
		store := context.WithoutCancel(ctx)
		if handled {
			// fn did its work: the answer is 200 even if the store
			// cannot say so, and the claim then keeps retries from
			// calling fn again.
			_ = s.seen.Done(store, d.key)
			return
		}
		_ = s.seen.Forget(store, d.key)
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
