package webhook_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/webhook"
)

// answers records what a receiver's Handler answered, in order.
type answers struct {
	mu   sync.Mutex
	list []string
}

func (a *answers) add(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = append(a.list, s)
}

func (a *answers) all() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.list...)
}

// receiver serves h on loopback, recording each of h's answers; the first
// lose answers are replaced by a 502 on the way back, as a proxy that
// timed out would, after h acted.
func receiver(t *testing.T, h http.Handler, lose int) (*httptest.Server, *answers) {
	t.Helper()
	var mu sync.Mutex
	got := &answers{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		got.add(http.StatusText(rec.Code) + ": " + strings.TrimSpace(rec.Body.String()))
		mu.Lock()
		lost := lose > 0
		lose--
		mu.Unlock()
		if lost {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// platform starts the fake with an "upper" endpoint and returns its
// client's queue for it.
func platform(t *testing.T, opts ...runpodtest.Option) (*runpodtest.Server, *serverless.Queue) {
	t.Helper()
	srv := runpodtest.NewServer(append([]runpodtest.Option{contract.Check()}, opts...)...)
	t.Cleanup(srv.Close)
	srv.HandleQueue("upper", upper)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp.Serverless.Queue("upper")
}

// deliveries waits until the fake has recorded n webhook attempts (it
// records one once the receiver has answered) and returns them.
func deliveries(t *testing.T, srv *runpodtest.Server, n int) []runpodtest.WebhookDelivery {
	t.Helper()
	require.Eventually(t, func() bool { return len(srv.WebhookDeliveries()) >= n }, 10*time.Second, time.Millisecond)
	return srv.WebhookDeliveries()
}

// A job submitted with a minted URL is delivered by the fake platform and
// accepted at the first attempt; the receiver learns the endpoint from
// the token and confirms the result with Status.
func TestPlatformDeliveryIsAccepted(t *testing.T) {
	signer, _ := newSigner(t)
	rc := &recorder{}
	hooks, got := receiver(t, signer.Handler(rc.handle), 0)
	srv, queue := platform(t)

	hook := mustURL(t, signer, hooks.URL+"/runpod/done", webhook.ForEndpoint(queue.ID()))
	job, err := queue.Run(t.Context(), serverless.RunParams{Input: map[string]string{"text": "hello"}, Webhook: hook})
	require.NoError(t, err)

	d := deliveries(t, srv, 1)
	require.Len(t, d, 1)
	assert.Equal(t, runpodtest.WebhookDelivery{URL: hook, JobID: job.ID, Attempt: 1, Status: 200}, d[0])
	assert.Equal(t, []string{"OK: accepted"}, got.all())
	calls := rc.calls()
	require.Len(t, calls, 1)
	assert.Equal(t, job.ID, calls[0].ID)
	assert.Equal(t, serverless.JobStatusCompleted, calls[0].Status)
	assert.JSONEq(t, `{"text":"HELLO"}`, string(calls[0].Output))

	tok := rc.tokens()[0]
	assert.Equal(t, "upper", tok.EndpointID)
	assert.Equal(t, start.Add(webhook.DefaultExpiry), tok.Expires.UTC())
	confirmed, err := queue.Status(t.Context(), calls[0].ID) // what the package doc advises
	require.NoError(t, err)
	assert.Equal(t, calls[0].Output, confirmed.Output)
}

// The platform's retry of a delivery whose 200 was lost on the way is a
// duplicate: the handler runs once, the retry is answered 200 and the
// platform stops.
func TestPlatformRetryIsADuplicate(t *testing.T) {
	signer, _ := newSigner(t)
	rc := &recorder{}
	hooks, got := receiver(t, signer.Handler(rc.handle), 1)
	srv, queue := platform(t, runpodtest.WithWebhookRetryDelay(time.Millisecond))

	job, err := queue.Run(t.Context(), serverless.RunParams{Input: map[string]string{"text": "twice"}, Webhook: mustURL(t, signer, hooks.URL+"/done")})
	require.NoError(t, err)

	d := deliveries(t, srv, 2)
	require.Len(t, d, 2)
	assert.Equal(t, []int{502, 200}, []int{d[0].Status, d[1].Status})
	assert.Equal(t, []string{"OK: accepted", "OK: duplicate"}, got.all())
	require.Len(t, rc.calls(), 1, "one accepted job")
	assert.Equal(t, job.ID, rc.calls()[0].ID)
}

// A handler that fails makes the platform deliver again, and the retry is
// accepted, not taken for a duplicate: what Verify recorded was undone.
func TestPlatformRetryAfterHandlerError(t *testing.T) {
	signer, _ := newSigner(t)
	rc := &recorder{fail: 1}
	hooks, got := receiver(t, signer.Handler(rc.handle), 0)
	srv, queue := platform(t, runpodtest.WithWebhookRetryDelay(time.Millisecond))

	job, err := queue.Run(t.Context(), serverless.RunParams{Input: map[string]string{"text": "again"}, Webhook: mustURL(t, signer, hooks.URL+"/done")})
	require.NoError(t, err)

	d := deliveries(t, srv, 2)
	require.Len(t, d, 2)
	assert.Equal(t, []int{500, 200}, []int{d[0].Status, d[1].Status})
	assert.Equal(t, []string{"Internal Server Error: the receiver failed", "OK: accepted"}, got.all())
	calls := rc.calls()
	require.Len(t, calls, 2)
	assert.Equal(t, []string{job.ID, job.ID}, []string{calls[0].ID, calls[1].ID})
}

// A receiver mounted under http.StripPrefix still verifies: the token
// signs the path the platform was given, which Verify reads from the
// request line.
func TestPlatformDeliveryThroughStripPrefix(t *testing.T) {
	signer, _ := newSigner(t)
	rc := &recorder{}
	mux := http.NewServeMux()
	mux.Handle("/hooks/", http.StripPrefix("/hooks", signer.Handler(rc.handle)))
	hooks, got := receiver(t, mux, 0)
	srv, queue := platform(t)

	_, err := queue.Run(t.Context(), serverless.RunParams{Input: map[string]string{"text": "x"}, Webhook: mustURL(t, signer, hooks.URL+"/hooks/runpod")})
	require.NoError(t, err)
	assert.Equal(t, 200, deliveries(t, srv, 1)[0].Status)
	assert.Equal(t, []string{"OK: accepted"}, got.all())
}

// A forged URL submitted with a job is refused every time the platform
// tries it, and the handler never runs.
func TestPlatformForgedDeliveryIsRefused(t *testing.T) {
	signer, _ := newSigner(t)
	rc := &recorder{}
	hooks, got := receiver(t, signer.Handler(rc.handle), 0)
	srv, queue := platform(t, runpodtest.WithWebhookRetryDelay(time.Millisecond))

	forged, err := signer.ForgedURL(hooks.URL + "/done")
	require.NoError(t, err)
	_, err = queue.Run(t.Context(), serverless.RunParams{Input: map[string]string{"text": "x"}, Webhook: forged})
	require.NoError(t, err)

	d := deliveries(t, srv, 3)
	assert.Equal(t, []int{403, 403, 403}, []int{d[0].Status, d[1].Status, d[2].Status})
	assert.Equal(t, []string{"Forbidden: forged", "Forbidden: forged", "Forbidden: forged"}, got.all())
	assert.Empty(t, rc.calls())
}

// The platform gives up waiting on a slow receiver (here a proxy in
// front of it answers 502 at once while the handler goes on), and its
// retry arrives while the handler still runs: that retry is answered 503,
// not 200, so when the handler then fails the platform's last attempt
// runs it again and the job is delivered.
func TestPlatformRetryWhileHandlingThenFailure(t *testing.T) {
	signer, _ := newSigner(t)
	fn := newBlockingFn()
	h := signer.Handler(fn.handle)
	firstDone := make(chan int, 1)
	var attempts sync.Mutex
	n := 0
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Lock()
		n++
		attempt := n
		attempts.Unlock()
		switch attempt {
		case 1:
			// The proxy times out: the platform sees 502, the handler runs on.
			body := bodyOf(t, r)
			inner := httptest.NewRequest(http.MethodPost, r.URL.String(), bytes.NewReader(body))
			go func() { code, _ := serve(h, inner); firstDone <- code }()
			<-fn.entered
			w.WriteHeader(http.StatusBadGateway)
		case 2:
			code, text := serve(h, r)
			// The handler of the first attempt fails now, before the
			// platform's next attempt (10 s later on the platform).
			fn.release <- io.ErrUnexpectedEOF
			assert.Equal(t, http.StatusInternalServerError, <-firstDone)
			w.WriteHeader(code)
			_, _ = w.Write([]byte(text))
		default:
			code, text := serve(h, r)
			w.WriteHeader(code)
			_, _ = w.Write([]byte(text))
		}
	}))
	t.Cleanup(hooks.Close)
	srv, queue := platform(t, runpodtest.WithWebhookRetryDelay(time.Millisecond))

	job, err := queue.Run(t.Context(), serverless.RunParams{Input: map[string]string{"text": "slow"}, Webhook: mustURL(t, signer, hooks.URL+"/done")})
	require.NoError(t, err)

	d := deliveries(t, srv, 3)
	require.Len(t, d, 3)
	assert.Equal(t, []int{502, 503, 200}, []int{d[0].Status, d[1].Status, d[2].Status})
	calls := fn.calls()
	require.Len(t, calls, 2, "the failed first call, then the platform's last attempt")
	assert.Equal(t, []string{job.ID, job.ID}, []string{calls[0].ID, calls[1].ID})
}
