package webhook_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/webhook"
)

const base = "https://hooks.example.com/runpod/done"

// refusal checks that err is an *Error of reason, matching its sentinel
// and no other, and shows neither the secret nor the token.
func refusal(t *testing.T, err error, reason webhook.Reason, sentinel error, token string) {
	t.Helper()
	var e *webhook.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, reason, e.Reason)
	assert.ErrorIs(t, err, sentinel)
	for _, other := range []error{webhook.ErrUnsigned, webhook.ErrForged, webhook.ErrExpired, webhook.ErrWrongMethod,
		webhook.ErrOversized, webhook.ErrMalformed, webhook.ErrNotTerminal, webhook.ErrDuplicate, webhook.ErrInProgress} {
		if other != sentinel {
			assert.NotErrorIs(t, err, other)
		}
	}
	testkit.NoSecret(t, err, e)
	if token != "" {
		assert.NotContains(t, err.Error(), token)
	}
}

// tokenOf returns the token a minted URL carries.
func tokenOf(t *testing.T, u string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	return parsed.Query().Get(webhook.DefaultParam)
}

// withToken returns u with its token replaced by tok (raw, unescaped).
func withToken(t *testing.T, u, tok string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	parsed.RawQuery = webhook.DefaultParam + "=" + tok
	return parsed.String()
}

func TestGenuineDeliveryIsAccepted(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base, webhook.ForEndpoint("ep-1"))
	want := completed("job-1")

	got, err := signer.Verify(delivery(t, hook, want))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	tok, err := signer.Token(delivery(t, hook, want))
	require.NoError(t, err)
	assert.Equal(t, "ep-1", tok.EndpointID)
	assert.Equal(t, start.Add(webhook.DefaultExpiry), tok.Expires.UTC())
	assert.Len(t, tok.Nonce, 26)
}

func TestEveryFinishedStatusIsAccepted(t *testing.T) {
	signer, _ := newSigner(t)
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	for _, st := range []serverless.JobStatus{serverless.JobStatusCompleted, serverless.JobStatusFailed, serverless.JobStatusCancelled, serverless.JobStatusTimedOut} {
		job := &serverless.Job{ID: "job-" + string(st), Status: st, Error: "boom"}
		code, text := serve(h, delivery(t, mustURL(t, signer, base), job))
		assert.Equal(t, http.StatusOK, code, st)
		assert.Equal(t, "accepted", text, st)
	}
	assert.Len(t, rc.calls(), 4)
	assert.Equal(t, "boom", rc.calls()[1].Error)
}

func TestForgedTokensAreRefused(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base, webhook.ForEndpoint("ep-1"))
	genuine := tokenOf(t, hook)
	parts := strings.Split(genuine, ".")
	require.Len(t, parts, 5)
	replace := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	flipped := []byte(parts[4])
	flipped[3] ^= 1 // another base64url letter
	otherSecret, err := webhook.NewSigner([]byte("another-secret-of-32-bytes-or-more!!"))
	require.NoError(t, err)
	forged, err := signer.ForgedURL(base)
	require.NoError(t, err)

	cases := map[string]string{
		"signed with a random key":   forged,
		"signed with another secret": mustURL(t, otherSecret, base),
		"minted for another path":    withToken(t, hook, tokenOf(t, mustURL(t, signer, "https://hooks.example.com/runpod/other", webhook.ForEndpoint("ep-1")))),
		"minted for a sub-path":      withToken(t, hook, tokenOf(t, mustURL(t, signer, base+"/", webhook.ForEndpoint("ep-1")))),
		"a later expiry":             withToken(t, hook, replace(1, parts[1]+"0")),
		"another nonce":              withToken(t, hook, replace(2, strings.ToLower(parts[2]))),
		"another endpoint":           withToken(t, hook, replace(3, "ep-2")),
		"no endpoint":                withToken(t, hook, replace(3, "")),
		"a flipped MAC":              withToken(t, hook, replace(4, string(flipped))),
		"a short MAC":                withToken(t, hook, replace(4, parts[4][:20])),
		"another version":            withToken(t, hook, replace(0, "v2")),
		"a part too many":            withToken(t, hook, genuine+".x"),
		"garbage":                    withToken(t, hook, "hello"),
		"empty":                      withToken(t, hook, ""),
		"given twice":                hook + "&" + webhook.DefaultParam + "=" + genuine,
	}
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	for name, u := range cases {
		_, err := signer.Verify(delivery(t, u, completed("job-1")))
		if !assert.Error(t, err, name) {
			continue
		}
		refusal(t, err, webhook.ReasonForged, webhook.ErrForged, genuine)
		code, text := serve(h, delivery(t, u, completed("job-1")))
		assert.Equal(t, http.StatusForbidden, code, name)
		assert.Equal(t, "forged", text, name)
	}
	assert.Empty(t, rc.calls())
}

func TestUnsignedDeliveryIsRefused(t *testing.T) {
	signer, _ := newSigner(t)
	for _, u := range []string{base, base + "?other=1", base + "?Runpod_Token=x"} {
		_, err := signer.Verify(delivery(t, u, completed("job-1")))
		refusal(t, err, webhook.ReasonUnsigned, webhook.ErrUnsigned, "")
		code, _ := serve(signer.Handler((&recorder{}).handle), delivery(t, u, completed("job-1")))
		assert.Equal(t, http.StatusUnauthorized, code)
	}
	_, err := signer.Verify(nil)
	refusal(t, err, webhook.ReasonUnsigned, webhook.ErrUnsigned, "")
}

// A token is refused once its expiry has passed on the signer's clock,
// and accepted up to it; ValidFor gives one URL its own expiry.
func TestExpiredTokenIsRefused(t *testing.T) {
	signer, clk := newSigner(t, webhook.WithExpiry(time.Hour))
	hook := mustURL(t, signer, base)
	short := mustURL(t, signer, base, webhook.ValidFor(time.Minute))

	clk.Add(time.Hour)
	_, err := signer.Verify(delivery(t, hook, completed("job-1")))
	require.NoError(t, err, "valid up to its expiry")
	_, err = signer.Verify(delivery(t, short, completed("job-2")))
	refusal(t, err, webhook.ReasonExpired, webhook.ErrExpired, tokenOf(t, short))

	clk.Add(time.Second)
	_, err = signer.Verify(delivery(t, hook, completed("job-3")))
	refusal(t, err, webhook.ReasonExpired, webhook.ErrExpired, tokenOf(t, hook))
	assert.Contains(t, err.Error(), "2026-03-01T13:00:00Z")
	code, text := serve(signer.Handler((&recorder{}).handle), delivery(t, hook, completed("job-3")))
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "expired", text)
}

// An expired token that is also forged is reported as forged: expiry is
// only judged for a genuine token.
func TestForgedIsJudgedBeforeExpired(t *testing.T) {
	signer, clk := newSigner(t, webhook.WithExpiry(time.Minute))
	forged, err := signer.ForgedURL(base)
	require.NoError(t, err)
	clk.Add(time.Hour)
	_, err = signer.Verify(delivery(t, forged, completed("job-1")))
	refusal(t, err, webhook.ReasonForged, webhook.ErrForged, "")
}

func TestOversizedBodyIsRefused(t *testing.T) {
	signer, _ := newSigner(t, webhook.WithMaxBody(200))
	hook := mustURL(t, signer, base)
	fits := `{"id":"job-1","status":"COMPLETED","output":"` + strings.Repeat("x", 200-len(`{"id":"job-1","status":"COMPLETED","output":""}`)) + `"}`
	require.Len(t, fits, 200)
	_, err := signer.Verify(rawDelivery(hook, fits))
	require.NoError(t, err, "a body of exactly the limit is read")

	tooBig := `{"id":"job-2","status":"COMPLETED","output":"` + strings.Repeat("x", 200) + `"}`
	_, err = signer.Verify(rawDelivery(hook, tooBig))
	refusal(t, err, webhook.ReasonOversized, webhook.ErrOversized, tokenOf(t, hook))

	chunked := rawDelivery(hook, tooBig) // no Content-Length: the limit is found while reading
	chunked.ContentLength = -1
	chunked.Body = io.NopCloser(strings.NewReader(tooBig))
	_, err = signer.Verify(chunked)
	refusal(t, err, webhook.ReasonOversized, webhook.ErrOversized, "")

	rc := &recorder{}
	code, text := serve(signer.Handler(rc.handle), rawDelivery(hook, tooBig))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Equal(t, "oversized", text)
	assert.Empty(t, rc.calls())
}

// A forger's body is never read: the token is checked first.
func TestForgedBodyIsNotRead(t *testing.T) {
	signer, _ := newSigner(t)
	forged, err := signer.ForgedURL(base)
	require.NoError(t, err)
	r := rawDelivery(forged, "")
	r.Body = io.NopCloser(readerFunc(func([]byte) (int, error) {
		t.Error("the body of a forged delivery was read")
		return 0, io.EOF
	}))
	_, err = signer.Verify(r)
	refusal(t, err, webhook.ReasonForged, webhook.ErrForged, "")
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestMalformedBodyIsRefused(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	for _, body := range []string{
		``, `not json`, `<xml/>`, `[]`, `"job"`, `null`, `{}`,
		`{"status":"COMPLETED"}`,               // no id
		`{"id":"","status":"COMPLETED"}`,       // empty id
		`{"id":"job 1","status":"COMPLETED"}`,  // a space
		`{"id":"job\n1","status":"COMPLETED"}`, // a line break, for a log line
		`{"id":"` + strings.Repeat("j", 257) + `","status":"COMPLETED"}`,
		`{"id":"job-1","status":"COMPLETED"} trailing`,
		`{"id":"job-1","status":"COMPLETED","output":`, // cut short
		`{"id":7,"status":"COMPLETED"}`,
	} {
		_, err := signer.Verify(rawDelivery(hook, body))
		refusal(t, err, webhook.ReasonMalformed, webhook.ErrMalformed, tokenOf(t, hook))
		code, text := serve(h, rawDelivery(hook, body))
		assert.Equal(t, http.StatusBadRequest, code, body)
		assert.Equal(t, "malformed", text, body)
	}
	assert.Empty(t, rc.calls())
}

func TestUnfinishedJobIsRefused(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	for _, st := range []string{"IN_QUEUE", "IN_PROGRESS", "", "DONE", "completed"} {
		body := `{"id":"job-1","status":"` + st + `"}`
		_, err := signer.Verify(rawDelivery(hook, body))
		refusal(t, err, webhook.ReasonNotTerminal, webhook.ErrNotTerminal, "")
		var e *webhook.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "job-1", e.JobID)
		code, text := serve(h, rawDelivery(hook, body))
		assert.Equal(t, http.StatusBadRequest, code)
		assert.Equal(t, "not terminal", text)
	}
	assert.Empty(t, rc.calls())
}

func TestWrongMethodIsRefused(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodHead} {
		r := delivery(t, hook, completed("job-1"))
		r.Method = method
		_, err := signer.Verify(r)
		refusal(t, err, webhook.ReasonWrongMethod, webhook.ErrWrongMethod, "")
		rec := newRecorderFor(signer, r)
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
		assert.Equal(t, "POST", rec.Header().Get("Allow"))
	}
}

// Replaying a body after it was accepted, on the same URL, is a
// duplicate: Verify returns the job with ErrDuplicate, Handler answers 200
// without calling its function.
func TestReplayAfterAcceptanceIsADuplicate(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	first := delivery(t, hook, completed("job-1"))
	body := string(bodyOf(t, first))

	code, text := serve(h, first)
	assert.Equal(t, []any{200, "accepted"}, []any{code, text})
	code, text = serve(h, rawDelivery(hook, body))
	assert.Equal(t, []any{200, "duplicate"}, []any{code, text})
	assert.Len(t, rc.calls(), 1)

	job, err := signer.Verify(rawDelivery(hook, body))
	refusal(t, err, webhook.ReasonDuplicate, webhook.ErrDuplicate, tokenOf(t, hook))
	require.NotNil(t, job, "a duplicate still reports its job")
	assert.Equal(t, "job-1", job.ID)
	assert.Equal(t, webhook.ReasonDuplicate.StatusCode(), http.StatusOK)
}

// What is recorded is the URL's nonce, the job and its status: the same
// job on another URL, or a retried job that ends with another status, is
// a new delivery.
func TestDuplicateKey(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	failed := &serverless.Job{ID: "job-1", Status: serverless.JobStatusFailed, Error: "oom"}
	first := delivery(t, hook, failed)
	_, err := signer.Verify(first)
	require.NoError(t, err)
	_, err = signer.Verify(delivery(t, hook, &serverless.Job{ID: "job-1", Status: serverless.JobStatusFailed, Error: "another text"}))
	assert.ErrorIs(t, err, webhook.ErrInProgress, "not done yet")
	require.NoError(t, signer.Done(t.Context(), first, failed))
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	require.NoError(t, err, "Queue.Retry, then COMPLETED")
	_, err = signer.Verify(delivery(t, mustURL(t, signer, base), completed("job-1")))
	require.NoError(t, err, "another URL, another nonce")
	_, err = signer.Verify(delivery(t, hook, &serverless.Job{ID: "job-1", Status: serverless.JobStatusFailed, Error: "another text"}))
	assert.ErrorIs(t, err, webhook.ErrDuplicate)
}

// A handler that panics leaves the delivery unrecorded, as one that
// fails does, so the platform's retry runs it again.
func TestPanickingHandlerForgetsTheDelivery(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	calls := 0
	h := signer.Handler(func(ctx context.Context, job *serverless.Job) error {
		calls++
		if calls == 1 {
			panic("a bug")
		}
		return nil
	})
	assert.PanicsWithValue(t, "a bug", func() { serve(h, delivery(t, hook, completed("job-1"))) })
	code, text := serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, []any{200, "accepted"}, []any{code, text})
	assert.Equal(t, 2, calls)
}

// Forget lets a receiver built on Verify undo a delivery it failed to
// act on.
func TestForgetUndoesVerify(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	r := delivery(t, hook, completed("job-1"))
	job, err := signer.Verify(r)
	require.NoError(t, err)
	require.NoError(t, signer.Forget(t.Context(), r, job))
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	require.NoError(t, err, "accepted again")

	forged, err := signer.ForgedURL(base)
	require.NoError(t, err)
	assert.ErrorIs(t, signer.Forget(t.Context(), delivery(t, forged, job), job), webhook.ErrForged)
	assert.Error(t, signer.Forget(t.Context(), r, nil))
}

// failingStore is a SeenStore that is down.
type failingStore struct{ forgot int }

var errStoreDown = errors.New("store is down")

func (f *failingStore) Claim(context.Context, string, time.Time) (webhook.DeliveryState, error) {
	return webhook.DeliveryStateUnseen, errStoreDown
}
func (f *failingStore) Done(context.Context, string) error   { return errStoreDown }
func (f *failingStore) Forget(context.Context, string) error { f.forgot++; return nil }

// A store that fails is a 500, so the platform delivers again; Verify
// wraps its error, which is not a refusal.
func TestStoreFailureIsA500(t *testing.T) {
	store := &failingStore{}
	signer, _ := newSigner(t, webhook.WithSeenStore(store))
	hook := mustURL(t, signer, base)
	_, err := signer.Verify(delivery(t, hook, completed("job-1")))
	require.ErrorIs(t, err, errStoreDown)
	var e *webhook.Error
	assert.False(t, errors.As(err, &e))
	rc := &recorder{}
	code, _ := serve(signer.Handler(rc.handle), delivery(t, hook, completed("job-1")))
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Empty(t, rc.calls())
}

// Deliveries of one job at once: exactly one runs the handler; the others
// are answered 503 while it runs, and 200 once it is done.
func TestConcurrentDeliveriesRunOnce(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		r := delivery(t, hook, completed("job-1"))
		wg.Go(func() { codes[i], _ = serve(h, r) })
	}
	wg.Wait()
	assert.Len(t, rc.calls(), 1)
	assert.Contains(t, codes, 200)
	for _, c := range codes {
		assert.Contains(t, []int{200, 503}, c)
	}
	code, text := serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, []any{200, "duplicate"}, []any{code, text})
}

// blockingFn is a Handler function whose first call waits for release and
// returns what it is given; later calls succeed at once.
type blockingFn struct {
	recorder
	entered chan struct{}
	release chan error
	once    sync.Once
}

func newBlockingFn() *blockingFn {
	return &blockingFn{entered: make(chan struct{}), release: make(chan error)}
}

func (b *blockingFn) handle(ctx context.Context, job *serverless.Job) error {
	first := false
	b.once.Do(func() { first = true })
	_ = b.recorder.handle(ctx, job)
	if !first {
		return nil
	}
	close(b.entered)
	return <-b.release
}

// handling starts a Handler whose function blocks on the first delivery of
// job-1, and returns once the function runs: the handler, the function,
// the URL, and where the first delivery's status comes.
func handling(t *testing.T) (*webhook.Signer, http.Handler, *blockingFn, string, <-chan int) {
	t.Helper()
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	fn := newBlockingFn()
	h := signer.Handler(fn.handle)
	first := make(chan int)
	r1 := delivery(t, hook, completed("job-1"))
	go func() { code, _ := serve(h, r1); first <- code }()
	<-fn.entered
	return signer, h, fn, hook, first
}

// The platform's retry that arrives while the function still runs for the
// delivery is answered 503 with Retry-After, never 200: when the function
// then fails, the platform's next attempt runs it again, and the job is
// not lost.
func TestRetryWhileHandlingThenFailureIsActedOnAgain(t *testing.T) {
	_, h, fn, hook, first := handling(t)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, delivery(t, hook, completed("job-1")))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "in progress", strings.TrimSpace(rec.Body.String()))
	assert.Equal(t, "10", rec.Header().Get("Retry-After"))

	fn.release <- io.ErrUnexpectedEOF
	assert.Equal(t, http.StatusInternalServerError, <-first)

	code, text := serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, []any{200, "accepted"}, []any{code, text}, "the platform's third attempt")
	code, text = serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, []any{200, "duplicate"}, []any{code, text})
	assert.Len(t, fn.calls(), 2)
}

// When the function succeeds, the delivery is handled: the platform's
// next attempt is a duplicate.
func TestRetryWhileHandlingThenSuccessIsADuplicate(t *testing.T) {
	signer, h, fn, hook, first := handling(t)
	code, _ := serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, http.StatusServiceUnavailable, code)
	fn.release <- nil
	assert.Equal(t, http.StatusOK, <-first)
	code, text := serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, []any{200, "duplicate"}, []any{code, text})
	assert.Len(t, fn.calls(), 1)

	_, err := signer.Verify(delivery(t, hook, completed("job-1")))
	refusal(t, err, webhook.ReasonDuplicate, webhook.ErrDuplicate, tokenOf(t, hook))
	assert.Equal(t, http.StatusServiceUnavailable, webhook.ReasonInProgress.StatusCode())
}

// Done checks the request's token as Forget does.
func TestDoneChecksTheToken(t *testing.T) {
	signer, _ := newSigner(t)
	hook := mustURL(t, signer, base)
	r := delivery(t, hook, completed("job-1"))
	job, err := signer.Verify(r)
	require.NoError(t, err)
	forged, err := signer.ForgedURL(base)
	require.NoError(t, err)
	assert.ErrorIs(t, signer.Done(t.Context(), delivery(t, forged, job), job), webhook.ErrForged)
	assert.Error(t, signer.Done(t.Context(), r, nil))
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	assert.ErrorIs(t, err, webhook.ErrInProgress)
	require.NoError(t, signer.Done(t.Context(), r, job))
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	assert.ErrorIs(t, err, webhook.ErrDuplicate)
}

func TestTokenFromAnotherContext(t *testing.T) {
	_, ok := webhook.TokenFrom(context.Background())
	assert.False(t, ok)
}

func TestErrorMessages(t *testing.T) {
	e := &webhook.Error{Reason: webhook.ReasonNotTerminal, JobID: "job-1"}
	assert.Equal(t, "runpod: webhook: the job has not finished (job job-1)", e.Error())
	e = &webhook.Error{Reason: webhook.ReasonMalformed, Err: io.ErrUnexpectedEOF}
	assert.Equal(t, "runpod: webhook: the body is not a job's status JSON: unexpected EOF", e.Error())
	assert.ErrorIs(t, e, io.ErrUnexpectedEOF)
	e = &webhook.Error{Reason: "odd"}
	assert.Equal(t, "runpod: webhook: odd", e.Error())
	assert.Equal(t, http.StatusBadRequest, e.Reason.StatusCode())
}
