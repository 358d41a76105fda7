package transport

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

const testKey = "rpa_0123456789ABCDEF0123456789ABCDEF"

// step is one scripted answer of fakeRT.
type step struct {
	status int
	header http.Header
	body   string
	err    error
}

// fakeRT answers from a script (the last step repeats) and records when
// and what it was asked. It stands in for the network in synctest bubbles,
// where real sockets would escape the fake clock.
type fakeRT struct {
	mu    sync.Mutex
	steps []step
	reqs  []*http.Request
	times []time.Time
}

func (f *fakeRT) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	i := min(len(f.reqs), len(f.steps)-1)
	f.reqs = append(f.reqs, req)
	f.times = append(f.times, time.Now())
	s := f.steps[i]
	f.mu.Unlock()
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	if s.err != nil {
		return nil, s.err
	}
	h := s.header
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{
		StatusCode: s.status,
		Status:     http.StatusText(s.status),
		Header:     h,
		Body:       io.NopCloser(strings.NewReader(s.body)),
		Request:    req,
	}, nil
}

func (f *fakeRT) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func ok(body string) step {
	return step{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: body}
}

// newTest returns a Transport over rt with a capturing logger.
func newTest(t *testing.T, rt http.RoundTripper, mod ...func(*option.Config)) (*Transport, *testkit.Lines) {
	t.Helper()
	log, lines := testkit.Logger()
	cfg := option.Config{
		APIKey:       secret.NewString(testKey),
		BaseURL:      "https://api.example.test",
		InferenceURL: "https://inference.example.test",
		ProxyHost:    "proxy.example.test",
		HTTPClient:   &http.Client{Transport: rt},
		Logger:       log,
		MaxRetries:   -1,
	}
	for _, m := range mod {
		m(&cfg)
	}
	return New(cfg), lines
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
