package tracker_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/tracker"
	"github.com/runpodkit/runpod-go/serverless/webhook"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// hookSecret keys the tests' webhook signers; testkit fails any test
// whose errors, printed values or log lines show it.
var hookSecret = []byte("tracker-webhook-test-secret-0123456789-abcdef")

func init() { testkit.RegisterSecret(string(hookSecret)) }

// receiver is a webhook receiver on loopback that serves whichever
// tracker's Handler it is given (a restarted program's takes over the
// same URL), and answers 502 instead of its first lose answers, as a
// proxy that timed out would, after the handler acted.
type receiver struct {
	srv     *httptest.Server
	handler atomic.Pointer[http.Handler]
	mu      sync.Mutex
	lose    int
	answers []int
}

func newReceiver(t *testing.T, lose int) *receiver {
	t.Helper()
	rc := &receiver{lose: lose}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := rc.handler.Load()
		if h == nil {
			http.Error(w, "no program is running", http.StatusServiceUnavailable)
			return
		}
		rec := httptest.NewRecorder()
		(*h).ServeHTTP(rec, r)
		rc.mu.Lock()
		rc.answers = append(rc.answers, rec.Code)
		lost := rc.lose > 0
		rc.lose--
		rc.mu.Unlock()
		if lost {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(rec.Code)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(h http.Handler) { rc.handler.Store(&h) }

// base is the URL the trackers mint their webhooks for.
func (rc *receiver) base() string { return rc.srv.URL + "/runpod/done" }

// hookPlatform is a fake platform on clock whose endpoint "echo" runs h,
// retrying webhooks at once, and its client's queue.
func hookPlatform(t *testing.T, clock *testkit.Clock, h worker.Handler) (*runpodtest.Server, *serverless.Queue) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(clock.Now), runpodtest.WithWebhookRetryDelay(time.Millisecond))
	t.Cleanup(srv.Close)
	srv.HandleQueue("echo", h, runpodtest.WithWorkers(2))
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp.Serverless.Queue("echo")
}

// hookTracker is a tracker of q with webhooks to rc, on clock.
func hookTracker(t *testing.T, clock *testkit.Clock, q *serverless.Queue, store tracker.Store, rc *receiver) *tracker.Tracker {
	t.Helper()
	signer, err := webhook.NewSigner(hookSecret, webhook.WithClock(clock.Now))
	require.NoError(t, err)
	tr, err := tracker.New(q, store, tracker.WithClock(clock.Now), tracker.WithWebhooks(signer, rc.base()))
	require.NoError(t, err)
	rc.serve(tr.Handler())
	return tr
}

// requireSubmissionError checks err is a *tracker.SubmissionError in
// state, and returns it.
func requireSubmissionError(t *testing.T, err error, state tracker.SubmissionState) *tracker.SubmissionError {
	t.Helper()
	var se *tracker.SubmissionError
	require.ErrorAs(t, err, &se)
	require.Equal(t, state, se.State, "%v", err)
	testkit.NoSecret(t, err, se)
	return se
}

// webhookDeliveries waits until the fake has recorded n webhook attempts.
func webhookDeliveries(t *testing.T, srv *runpodtest.Server, n int) []runpodtest.WebhookDelivery {
	t.Helper()
	require.Eventually(t, func() bool { return len(srv.WebhookDeliveries()) >= n }, 10*time.Second, time.Millisecond)
	return srv.WebhookDeliveries()
}

// TestAmbiguousRunFoundByWebhook: /run's connection is reset after the
// platform accepted the job. Submit reports the submission pending (an
// error that is also errs.ErrOutcomeUnknown); the platform runs the job
// and delivers it to the submission's webhook, whose first 200 is lost on
// the way, so the platform delivers again. The job is bound to its
// label and delivered once; the retry, a replay and a forgery change
// nothing, and /run was sent once.
func TestAmbiguousRunFoundByWebhook(t *testing.T) {
	clock := newFakeClock()
	g := newGate() // the job ends once Submit has returned
	srv, q := hookPlatform(t, clock, g.handle)
	defer g.open()
	rc := newReceiver(t, 1)
	store := tracker.NewMemoryStore()
	tr := hookTracker(t, clock, q, store, rc)
	ctx := t.Context()

	srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	job, err := tr.Submit(ctx, "report-42", serverless.RunParams{Input: map[string]string{"text": "hello"}})
	require.Nil(t, job)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	require.ErrorIs(t, err, tracker.ErrPending)
	se := requireSubmissionError(t, err, tracker.SubmissionStatePending)
	assert.Empty(t, se.Record.JobID)
	assert.Equal(t, "report-42", se.Record.Label)
	assert.Equal(t, clock.Now().Add(tracker.WebhookWindow(0, tracker.DefaultExecutionTimeout)), se.Record.WebhookUntil)
	assert.Contains(t, err.Error(), "do not submit it again")
	require.Equal(t, 1, srv.Acted(runpodtest.RouteRun), "the platform accepted the job")
	g.open()

	var results []tracker.Result
	for res, err := range tr.Results(ctx) {
		require.NoError(t, err)
		testkit.NoSecret(t, res)
		results = append(results, res)
	}
	require.Len(t, results, 1, "delivered once")
	res := results[0]
	assert.Equal(t, "report-42", res.Record.Label)
	assert.NotEmpty(t, res.Record.JobID)
	assert.Equal(t, tracker.SubmissionStateAccepted, res.Record.State(clock.Now()))
	assert.Equal(t, serverless.JobStatusCompleted, res.Job.Status)
	assert.JSONEq(t, `{"text":"hello"}`, string(res.Job.Output))

	d := webhookDeliveries(t, srv, 2)
	require.Len(t, d, 2)
	assert.Equal(t, []int{502, 200}, []int{d[0].Status, d[1].Status}, "the lost 200 made the platform deliver again")
	assert.Equal(t, res.Record.JobID, d[0].JobID)

	// A replay of the delivery, and a forgery, change nothing.
	replay, err := webhook.NewRequest(ctx, d[0].URL, res.Job)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(replay)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	forger, err := webhook.NewSigner(hookSecret)
	require.NoError(t, err)
	forged, err := forger.ForgedURL(rc.base(), webhook.ForEndpoint("echo"))
	require.NoError(t, err)
	r, err := webhook.NewRequest(ctx, forged, &serverless.Job{ID: "other", Status: serverless.JobStatusCompleted})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	tr.Handler().ServeHTTP(w, r)
	assert.Equal(t, http.StatusForbidden, w.Code)

	for range tr.Results(ctx) {
		t.Fatal("a delivered submission was delivered again")
	}
	left, err := store.List(ctx, "echo")
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun), "/run was sent once")
}

// TestUnacceptedSubmissionTurnsNotAccepted: /run's connection is reset
// before the platform acted. The submission stays pending until its
// webhook window has passed on the fake's clock, then Results reports it
// not accepted, once, and removes it; submitting again pays once.
func TestUnacceptedSubmissionTurnsNotAccepted(t *testing.T) {
	clock := newFakeClock()
	srv, q := hookPlatform(t, clock, echo)
	rc := newReceiver(t, 0)
	store := tracker.NewMemoryStore()
	tr := hookTracker(t, clock, q, store, rc)
	ctx := t.Context()

	srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Drop: runpodtest.DropBefore})
	_, err := tr.Submit(ctx, "retry-me", serverless.RunParams{Input: "x", Policy: &serverless.Policy{TTL: time.Hour}})
	requireSubmissionError(t, err, tracker.SubmissionStatePending)
	require.Zero(t, srv.Acted(runpodtest.RouteRun), "the platform never accepted the job")

	window := tracker.WebhookWindow(time.Hour, tracker.DefaultExecutionTimeout)
	assert.Equal(t, time.Hour+10*time.Minute+20*time.Second+30*time.Minute, window)
	recs, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	clock.Add(window - time.Second)
	assert.Equal(t, tracker.SubmissionStatePending, recs[0].State(clock.Now()))
	clock.Add(time.Second)
	assert.Equal(t, tracker.SubmissionStateNotAccepted, recs[0].State(clock.Now()))

	var fails []error
	for res, err := range tr.Results(ctx) {
		assert.Nil(t, res.Job)
		assert.Equal(t, "retry-me", res.Record.Label)
		fails = append(fails, err)
	}
	require.Len(t, fails, 1)
	require.ErrorIs(t, fails[0], tracker.ErrNotAccepted)
	require.NotErrorIs(t, fails[0], errs.ErrOutcomeUnknown)
	se := requireSubmissionError(t, fails[0], tracker.SubmissionStateNotAccepted)
	assert.Contains(t, se.Error(), "submitting it again pays once")
	assert.NotContains(t, se.Error(), "restarted")
	recs, err = store.List(ctx, "echo")
	require.NoError(t, err)
	assert.Empty(t, recs)

	// Submitted again: the job runs once.
	job, err := tr.Submit(ctx, "retry-me", serverless.RunParams{Input: "x"})
	require.NoError(t, err)
	done, err := tr.Wait(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, done.Status)
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteRun))
}

// TestRestartResumesUnknownSubmission: the program stops while a
// submission whose /run was reset after the platform accepted it is
// pending (its job still running); the next program opens the file
// store, resumes the submission as pending, receives the job's webhook
// at the same URL, and delivers the job once under its label.
func TestRestartResumesUnknownSubmission(t *testing.T) {
	clock := newFakeClock()
	g := newGate()
	srv, q := hookPlatform(t, clock, g.handle)
	defer g.open() // before srv.Close: the handler must return
	rc := newReceiver(t, 0)
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	ctx := t.Context()

	// The first program.
	func() {
		store, err := tracker.NewFileStore(path)
		require.NoError(t, err)
		defer store.Close()
		tr := hookTracker(t, clock, q, store, rc)
		srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
		_, err = tr.Submit(ctx, "night-batch", serverless.RunParams{Input: "late"})
		requireSubmissionError(t, err, tracker.SubmissionStatePending)
		rc.handler.Store(nil) // the program stops
	}()
	clock.Add(time.Minute)

	// The next program.
	store, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer store.Close()
	tr := hookTracker(t, clock, q, store, rc)
	resumed, err := tr.Resume(ctx)
	require.NoError(t, err)
	require.Len(t, resumed, 1)
	assert.Empty(t, resumed[0].JobID)
	assert.Equal(t, "night-batch", resumed[0].Label)
	assert.Equal(t, tracker.SubmissionStatePending, resumed[0].State(clock.Now()))
	assert.Equal(t, clock.Now(), resumed[0].ResumedAt)
	g.open() // the job ends, and the platform delivers it

	var results []tracker.Result
	for res, err := range tr.Results(ctx) {
		require.NoError(t, err)
		results = append(results, res)
	}
	require.Len(t, results, 1)
	assert.Equal(t, "night-batch", results[0].Record.Label)
	assert.Equal(t, serverless.JobStatusCompleted, results[0].Job.Status)
	assert.JSONEq(t, `"late"`, string(results[0].Job.Output))
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun))

	require.NoError(t, store.Close())
	reopened, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer reopened.Close()
	left, err := reopened.List(ctx, "echo")
	require.NoError(t, err)
	assert.Empty(t, left)
}

// TestRestartAfterBindingDeliversOnce: the delivery binds the job to the
// submission, and the program stops before its Results loop delivered
// it; the next program resumes the bound record and delivers the job
// once, and the platform's late retry of the delivery changes nothing.
func TestRestartAfterBindingDeliversOnce(t *testing.T) {
	clock := newFakeClock()
	srv, q := hookPlatform(t, clock, echo)
	rc := newReceiver(t, 0)
	path := filepath.Join(t.TempDir(), "jobs.jsonl")
	ctx := t.Context()

	func() {
		store, err := tracker.NewFileStore(path)
		require.NoError(t, err)
		defer store.Close()
		tr := hookTracker(t, clock, q, store, rc)
		srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
		_, err = tr.Submit(ctx, "bound", serverless.RunParams{Input: "v"})
		// The job may end, and its delivery bind it, before Submit has
		// seen /run fail.
		var se *tracker.SubmissionError
		require.ErrorAs(t, err, &se)
		require.Contains(t, []tracker.SubmissionState{tracker.SubmissionStatePending, tracker.SubmissionStateAccepted}, se.State)
		d := webhookDeliveries(t, srv, 1)
		require.Equal(t, 200, d[0].Status)
		rc.handler.Store(nil)
	}()

	store, err := tracker.NewFileStore(path)
	require.NoError(t, err)
	defer store.Close()
	tr := hookTracker(t, clock, q, store, rc)
	resumed, err := tr.Resume(ctx)
	require.NoError(t, err)
	require.Len(t, resumed, 1)
	require.NotEmpty(t, resumed[0].JobID, "the binding was stored")
	assert.True(t, resumed[0].ResumedAt.IsZero(), "a bound record is not marked")

	d := srv.WebhookDeliveries()[0]
	again, err := webhook.NewRequest(ctx, d.URL, &serverless.Job{ID: d.JobID, Status: serverless.JobStatusCompleted})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	tr.Handler().ServeHTTP(w, again)
	assert.Equal(t, http.StatusOK, w.Code)

	n := 0
	for res, err := range tr.Results(ctx) {
		require.NoError(t, err)
		assert.Equal(t, "bound", res.Record.Label)
		assert.Equal(t, d.JobID, res.Record.JobID)
		n++
	}
	assert.Equal(t, 1, n)
}

// TestUnknowableWithoutWebhooks: without webhooks, a /run reset after the
// platform acted leaves a record that says plainly its outcome cannot be
// known; Results reports it so, once.
func TestUnknowableWithoutWebhooks(t *testing.T) {
	srv, q := served(t, echo)
	store := tracker.NewMemoryStore()
	tr, err := tracker.New(q, store)
	require.NoError(t, err)
	ctx := t.Context()

	srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err = tr.Submit(ctx, "lost-cause", serverless.RunParams{Input: "x"})
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	require.ErrorIs(t, err, tracker.ErrUnknowable)
	se := requireSubmissionError(t, err, tracker.SubmissionStateUnknowable)
	assert.True(t, se.Record.WebhookUntil.IsZero())
	assert.NotEmpty(t, se.Record.Submission)
	assert.Contains(t, err.Error(), "cannot be known")

	var fails []error
	for _, err := range tr.Results(ctx) {
		fails = append(fails, err)
	}
	require.Len(t, fails, 1)
	require.ErrorIs(t, fails[0], tracker.ErrUnknowable)
	for range tr.Results(ctx) {
		t.Fatal("reported once")
	}
	left, err := store.List(ctx, "echo")
	require.NoError(t, err)
	assert.Empty(t, left)
}

// TestSubmitRefusedRemovesTheSubmission: a /run the platform refused
// (400) leaves no record behind.
func TestSubmitRefusedRemovesTheSubmission(t *testing.T) {
	clock := newFakeClock()
	srv, q := hookPlatform(t, clock, echo)
	store := tracker.NewMemoryStore()
	tr := hookTracker(t, clock, q, store, newReceiver(t, 0))
	ctx := t.Context()

	srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Status: http.StatusBadRequest})
	_, err := tr.Submit(ctx, "", serverless.RunParams{Input: "x"})
	require.Error(t, err)
	require.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	left, err := store.List(ctx, "echo")
	require.NoError(t, err)
	assert.Empty(t, left)

	_, err = tr.Submit(ctx, "", serverless.RunParams{Input: "x", Webhook: "https://example.com/hook"})
	require.ErrorIs(t, err, errs.ErrValidation)
	_, err = tr.Submit(ctx, "", serverless.RunParams{Input: "x", Policy: &serverless.Policy{TTL: 7 * 24 * time.Hour, ExecutionTimeout: 7 * 24 * time.Hour}})
	require.ErrorIs(t, err, errs.ErrValidation)
	require.Equal(t, 1, srv.Count(runpodtest.RouteRun))
}

// TestWebhookOptionsChecked: New refuses a webhook base the Signer
// refuses, and an execution timeout out of range.
func TestWebhookOptionsChecked(t *testing.T) {
	_, q := served(t, echo)
	signer, err := webhook.NewSigner(hookSecret)
	require.NoError(t, err)
	_, err = tracker.New(q, tracker.NewMemoryStore(), tracker.WithWebhooks(signer, "http://example.com/hook"))
	require.ErrorIs(t, err, errs.ErrInsecureURL)
	_, err = tracker.New(q, tracker.NewMemoryStore(), tracker.WithExecutionTimeout(time.Second))
	require.ErrorIs(t, err, errs.ErrValidation)
	tr, err := tracker.New(q, tracker.NewMemoryStore())
	require.NoError(t, err)
	w := httptest.NewRecorder()
	tr.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
	assert.Equal(t, http.StatusNotFound, w.Code)
}
