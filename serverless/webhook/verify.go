package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/serverless"
)

// maxJobID bounds the job id a body may name; the platform's are a UUID
// with a short prefix or suffix.
const maxJobID = 256

// Verify checks a delivery and returns its job, in this order:
//
//   - the method is POST (else ReasonWrongMethod);
//   - the URL's token is genuine and not expired (see Token: else
//     ReasonUnsigned, ReasonForged or ReasonExpired), before a byte of the body is read;
//   - the body is at most WithMaxBody's limit (else ReasonOversized), and
//     decodes as a job's status JSON into a serverless.Job with an id
//     (else ReasonMalformed) and a finished status (else ReasonNotTerminal);
//   - the delivery is claimed in the SeenStore, under the token's nonce,
//     the job's id and its status. When a receiver acted on it already,
//     Verify returns the job with an *Error whose Reason is ReasonDuplicate
//     (matching ErrDuplicate): answer it 200, or the platform retries,
//     and do not act on it again. When a receiver is still acting on it,
//     the Reason is ReasonInProgress (matching ErrInProgress): answer it 503
//     (Handler adds Retry-After), so that the platform delivers again
//     and the job is not lost if that receiver then fails. A job you
//     Retry that then ends with another status is a new delivery.
//
// Every refusal is an *Error matching its Reason's sentinel. An error
// of the SeenStore is returned wrapped, not as an *Error: answer it with
// a 5xx so the platform retries. A delivery Verify hands over is claimed
// for you: once you have acted on it, call Done before you answer 200;
// if acting on it failed, call Forget before you answer with a 5xx, so
// that the platform's retry is acted on. Handler does all of this.
func (s *Signer) Verify(r *http.Request) (*serverless.Job, error) {
	d, err := s.verify(r)
	return d.job, err
}

// delivery is a verified delivery: its job, its URL's token and the key
// it is recorded under.
type delivery struct {
	job   *serverless.Job
	token Token
	key   string
}

func (s *Signer) verify(r *http.Request) (delivery, error) {
	if r != nil && r.Method != http.MethodPost {
		return delivery{}, &Error{Reason: ReasonWrongMethod, detail: "got " + r.Method}
	}
	tok, err := s.Token(r)
	if err != nil {
		return delivery{}, err
	}
	body, err := readBody(r, s.maxBody)
	if err != nil {
		return delivery{}, err
	}
	job, err := decodeJob(body)
	if err != nil {
		return delivery{}, err
	}
	d := delivery{job: job, token: tok, key: seenKey(tok, job)}
	state, err := s.seen.Claim(r.Context(), d.key, tok.Expires)
	switch {
	case err != nil:
		return delivery{}, fmt.Errorf("runpod: webhook: recording the delivery of job %s: %w", job.ID, err)
	case state == DeliveryStateHandled:
		return d, &Error{Reason: ReasonDuplicate, JobID: job.ID, detail: "already accepted with status " + string(job.Status)}
	case state == DeliveryStateHandling:
		return d, &Error{Reason: ReasonInProgress, JobID: job.ID, detail: "a receiver is still acting on its delivery with status " + string(job.Status)}
	}
	return d, nil
}

// readBody reads r's body, refusing one longer than limit.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &Error{Reason: ReasonOversized, detail: fmt.Sprintf("%d bytes, more than the limit of %d", r.ContentLength, limit)}
	}
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, &Error{Reason: ReasonMalformed, detail: "reading the body", Err: err}
	}
	if int64(len(body)) > limit {
		return nil, &Error{Reason: ReasonOversized, detail: fmt.Sprintf("more than the limit of %d bytes", limit)}
	}
	return body, nil
}

// decodeJob reads a job's status JSON and checks that it names a job
// that has finished.
func decodeJob(body []byte) (*serverless.Job, error) {
	var job serverless.Job
	if err := json.Unmarshal(body, &job); err != nil {
		return nil, &Error{Reason: ReasonMalformed, Err: err}
	}
	switch {
	case job.ID == "":
		return nil, &Error{Reason: ReasonMalformed, detail: "no job id"}
	case len(job.ID) > maxJobID:
		return nil, &Error{Reason: ReasonMalformed, detail: fmt.Sprintf("a job id of %d bytes, more than %d", len(job.ID), maxJobID)}
	case !printable(job.ID):
		return nil, &Error{Reason: ReasonMalformed, detail: "the job id has a space, a control character or a non-ASCII byte"}
	case !job.Status.Terminal():
		return nil, &Error{Reason: ReasonNotTerminal, JobID: job.ID, detail: fmt.Sprintf("status %q", job.Status)}
	}
	return &job, nil
}

// printable reports whether s is printable ASCII without spaces, as the
// platform's job ids are: such an id is safe in a log line and a store
// key.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// Done records that acting on job's delivery on r succeeded, so that the
// platform's retries and replays of it are Duplicates: call it after
// acting on a delivery Verify handed over, before answering 200. It
// checks r's token again (an *Error when it is no longer valid) and calls
// the SeenStore's Done.
func (s *Signer) Done(ctx context.Context, r *http.Request, job *serverless.Job) error {
	key, err := s.deliveryKey(r, job)
	if err != nil {
		return err
	}
	return s.seen.Done(ctx, key)
}

// Forget undoes what Verify recorded for job's delivery on r, so that the
// platform's next attempt is acted on: call it when acting on a delivery
// Verify handed over failed, before answering with a 5xx. It checks r's
// token again (an *Error when it is no longer valid) and calls the
// SeenStore's Forget.
func (s *Signer) Forget(ctx context.Context, r *http.Request, job *serverless.Job) error {
	key, err := s.deliveryKey(r, job)
	if err != nil {
		return err
	}
	return s.seen.Forget(ctx, key)
}

// deliveryKey checks r's token and returns the key job's delivery on r is
// recorded under.
func (s *Signer) deliveryKey(r *http.Request, job *serverless.Job) (string, error) {
	tok, err := s.Token(r)
	if err != nil {
		return "", err
	}
	if job == nil {
		return "", fail.Invalid("job", "is nil")
	}
	return seenKey(tok, job), nil
}

// seenKey is the key a delivery is recorded under: the URL's nonce, the
// job's id and its status.
func seenKey(tok Token, job *serverless.Job) string {
	return tok.Nonce + ":" + job.ID + ":" + string(job.Status)
}
