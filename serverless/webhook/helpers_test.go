package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/webhook"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// testSecret keys the tests' signers; testkit fails any test whose
// errors, printed values or log lines show it.
var testSecret = []byte("webhook-test-secret-0123456789-abcdefghij")

func init() { testkit.RegisterSecret(string(testSecret)) }

// start is the fake clock's first instant.
var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newClock returns a fake clock that moves only when told, from start.
func newClock() *testkit.Clock { return testkit.NewClock(start) }

// newSigner returns a signer keyed with testSecret on a fake clock.
func newSigner(t testing.TB, opts ...webhook.Option) (*webhook.Signer, *testkit.Clock) {
	t.Helper()
	c := newClock()
	s, err := webhook.NewSigner(testSecret, append([]webhook.Option{webhook.WithClock(c.Now)}, opts...)...)
	require.NoError(t, err)
	return s, c
}

// mustURL mints a URL for base.
func mustURL(t testing.TB, s *webhook.Signer, base string, opts ...webhook.URLOption) string {
	t.Helper()
	u, err := s.URL(base, opts...)
	require.NoError(t, err)
	testkit.NoSecret(t, u)
	return u
}

// completed is a finished job as the platform delivers it.
func completed(id string) *serverless.Job {
	return &serverless.Job{ID: id, Status: serverless.JobStatusCompleted, DelayTime: 120 * time.Millisecond,
		ExecutionTime: 2 * time.Second, WorkerID: "w1", Output: json.RawMessage(`{"text":"HELLO"}`)}
}

// delivery builds the platform's request for job to url.
func delivery(t testing.TB, url string, job *serverless.Job) *http.Request {
	t.Helper()
	r, err := webhook.NewRequest(context.Background(), url, job)
	require.NoError(t, err)
	return r
}

// rawDelivery is a POST of body to url, as the platform would send it.
func rawDelivery(url, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, url, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// serve runs h on r and returns the status and the one-line answer.
func serve(h http.Handler, r *http.Request) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

// recorder is the function of a Handler under test: it keeps the jobs it
// is called with, and fails when told to.
type recorder struct {
	mu   sync.Mutex
	jobs []*serverless.Job
	toks []webhook.Token
	fail int // calls left to fail
}

func (rc *recorder) handle(ctx context.Context, job *serverless.Job) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	tok, _ := webhook.TokenFrom(ctx)
	rc.jobs = append(rc.jobs, job)
	rc.toks = append(rc.toks, tok)
	if rc.fail > 0 {
		rc.fail--
		return io.ErrUnexpectedEOF // stands for a database that did not answer
	}
	return nil
}

func (rc *recorder) calls() []*serverless.Job {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*serverless.Job(nil), rc.jobs...)
}

func (rc *recorder) tokens() []webhook.Token {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]webhook.Token(nil), rc.toks...)
}

// upper is a worker handler: {"text": s} → {"text": upper(s)}.
func upper(_ context.Context, job *worker.Job) (any, error) {
	var in struct{ Text string }
	if err := json.Unmarshal(job.Input, &in); err != nil {
		return nil, err
	}
	return map[string]string{"text": strings.ToUpper(in.Text)}, nil
}

// bodyOf reads a request's body back (and restores it).
func bodyOf(t testing.TB, r *http.Request) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

// newRecorderFor serves r with a Handler of s and returns the recorder.
func newRecorderFor(s *webhook.Signer, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	s.Handler((&recorder{}).handle).ServeHTTP(rec, r)
	return rec
}
