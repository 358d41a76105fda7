package runpodtest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

func echo(ctx context.Context, job *worker.Job) (any, error) { return "ok", nil }

// TestInferenceDefaultLimits: the limits are the documented ones (docs
// serverless/endpoints/send-requests.mdx), and the fake enforces them
// unless told otherwise: the 101st /cancel and the 3rd /purge-queue of an
// endpoint within 10 s are answered 429 with Retry-After.
func TestInferenceDefaultLimits(t *testing.T) {
	ten := 10 * time.Second
	assert.Equal(t, runpodtest.InferenceLimits{
		RunSync:    runpodtest.InferenceLimit{Rate: 2000, Per: ten, Concurrent: 400},
		Run:        runpodtest.InferenceLimit{Rate: 1000, Per: ten, Concurrent: 200},
		Status:     runpodtest.InferenceLimit{Rate: 2000, Per: ten, Concurrent: 400},
		Stream:     runpodtest.InferenceLimit{Rate: 2000, Per: ten, Concurrent: 400},
		Cancel:     runpodtest.InferenceLimit{Rate: 100, Per: ten, Concurrent: 20},
		PurgeQueue: runpodtest.InferenceLimit{Rate: 2, Per: ten},
		OpenAI:     runpodtest.InferenceLimit{Rate: 2000, Per: ten, Concurrent: 400},
	}, runpodtest.DefaultInferenceLimits())

	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 12, 0, 3, 0, time.UTC)
	srv := newServer(t, runpodtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	srv.HandleQueue("ep", echo)
	for i := range 100 {
		resp, _ := call(t, srv, "POST", "/v2/ep/cancel/nope-u1", "")
		require.Equal(t, 404, resp.StatusCode, i)
	}
	resp, m := call(t, srv, "POST", "/v2/ep/cancel/nope-u1", "")
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "7", resp.Header.Get("Retry-After"), "the 10 s window ends in 7 s")
	assert.Contains(t, m["detail"], "100 /cancel requests per 10s")

	for range 2 {
		resp, _ = call(t, srv, "POST", "/v2/ep/purge-queue", "")
		require.Equal(t, 200, resp.StatusCode)
	}
	resp, _ = call(t, srv, "POST", "/v2/ep/purge-queue", "")
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, 100, srv.Acted(runpodtest.RouteCancel), "a refused request does not reach the route")
	assert.Equal(t, 101, srv.Count(runpodtest.RouteCancel))

	mu.Lock()
	now = now.Add(7 * time.Second)
	mu.Unlock()
	resp, _ = call(t, srv, "POST", "/v2/ep/purge-queue", "")
	assert.Equal(t, 200, resp.StatusCode, "a new window")
}

// TestInferenceRateLimitPerEndpointAndOperation: a spent window refuses
// that operation on that endpoint only, on the server's clock.
func TestInferenceRateLimitPerEndpointAndOperation(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 12, 0, 0, 500e6, time.UTC)
	srv := newServer(t, runpodtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }),
		runpodtest.WithInferenceLimits(runpodtest.InferenceLimits{Run: runpodtest.InferenceLimit{Rate: 2, Per: 30 * time.Second}, Status: runpodtest.InferenceLimit{Rate: 1}}))
	srv.HandleQueue("a", echo)
	srv.HandleQueue("b", echo)
	var id string
	for range 2 {
		resp, m := call(t, srv, "POST", "/v2/a/run", `{"input":1}`)
		require.Equal(t, 200, resp.StatusCode)
		id = m["id"].(string)
	}
	resp, m := call(t, srv, "POST", "/v2/a/run", `{"input":1}`)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "30", resp.Header.Get("Retry-After"), "29.5 s left, rounded up")
	assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	assert.Equal(t, float64(429), m["status"])
	resp, _ = call(t, srv, "POST", "/v2/b/run", `{"input":1}`)
	assert.Equal(t, 200, resp.StatusCode, "another endpoint has its own window")
	resp, _ = call(t, srv, "GET", "/v2/a/status/"+id, "")
	assert.Equal(t, 200, resp.StatusCode, "another operation has its own window")
	resp, _ = call(t, srv, "POST", "/v2/a/status/"+id, "")
	assert.Equal(t, 429, resp.StatusCode, "Per defaults to 10 s; GET and POST share /status")
	assert.Equal(t, "10", resp.Header.Get("Retry-After"))
	resp, _ = call(t, srv, "GET", "/v2/a/status-sync/"+id+"?wait=1000", "")
	assert.Equal(t, 429, resp.StatusCode, "status-sync counts as status")
	resp, _ = call(t, srv, "POST", "/v2/a/runsync", `{"input":1}`)
	assert.Equal(t, 200, resp.StatusCode, "a zero limit is no limit")

	mu.Lock()
	now = now.Add(30 * time.Second)
	mu.Unlock()
	resp, _ = call(t, srv, "POST", "/v2/a/run", `{"input":1}`)
	assert.Equal(t, 200, resp.StatusCode, "the window ended")
}

// TestInferenceConcurrencyLimit: /runsync requests held open count until
// they answer; one over the limit is refused with Retry-After 1, and a
// slot that frees admits the next.
func TestInferenceConcurrencyLimit(t *testing.T) {
	srv := newServer(t, runpodtest.WithInferenceLimits(runpodtest.InferenceLimits{RunSync: runpodtest.InferenceLimit{Concurrent: 2}}))
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	srv.HandleQueue("ep", func(ctx context.Context, job *worker.Job) (any, error) {
		started <- struct{}{}
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, runpodtest.WithWorkers(2))
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			resp, m := call(t, srv, "POST", "/v2/ep/runsync?wait=60000", `{"input":1}`)
			assert.Equal(t, 200, resp.StatusCode)
			assert.Equal(t, "COMPLETED", m["status"])
		})
	}
	<-started
	<-started
	resp, m := call(t, srv, "POST", "/v2/ep/runsync", `{"input":1}`)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, m["detail"], "2 concurrent /runsync requests")
	resp, _ = call(t, srv, "POST", "/v2/ep/run", `{"input":1}`)
	assert.Equal(t, 200, resp.StatusCode, "other operations are not held up")
	close(release)
	wg.Wait()
	resp, m = call(t, srv, "POST", "/v2/ep/runsync", `{"input":1}`)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "COMPLETED", m["status"])
}

// stampClock is a RoundTripper that sets the fake's clock to the client's
// time as each request leaves: inside a synctest bubble, the fake then
// runs on the bubble's clock.
type stampClock struct {
	now  *atomic.Pointer[time.Time]
	next http.RoundTripper
}

func (s stampClock) RoundTrip(r *http.Request) (*http.Response, error) {
	n := time.Now()
	s.now.Store(&n)
	return s.next.RoundTrip(r)
}

// TestSDKWaitsOutInferenceLimit: a burst over the limit gets 429 with
// Retry-After, and the SDK's retry waits exactly that long and then
// succeeds, for a job (/run) and a chat completion (/openai), sent once
// each (a 429 means the platform did not act). The fake runs on the
// bubble's clock, so the wait takes no real time.
func TestSDKWaitsOutInferenceLimit(t *testing.T) {
	var now atomic.Pointer[time.Time]
	t0 := time.Now()
	now.Store(&t0)
	srv := newServer(t, runpodtest.WithClock(func() time.Time { return *now.Load() }),
		runpodtest.WithInferenceLimits(runpodtest.InferenceLimits{
			Run:    runpodtest.InferenceLimit{Rate: 3},
			OpenAI: runpodtest.InferenceLimit{Rate: 2, Per: 20 * time.Second},
		}))
	srv.HandleQueue("ep", echo)
	synctest.Test(t, func(t *testing.T) {
		// A connection left open would keep the bubble's clock from
		// moving, so each request has its own.
		hc := &http.Client{Transport: stampClock{&now, &http.Transport{DisableKeepAlives: true}}}
		rp, err := srv.NewClient(option.WithHTTPClient(hc))
		require.NoError(t, err)
		time.Sleep(4 * time.Second) // 4 s into the first window
		start := time.Now()
		q := rp.Serverless.Queue("ep")
		for range 4 {
			_, err := q.Run(t.Context(), serverless.RunParams{Input: 1})
			require.NoError(t, err)
		}
		assert.Equal(t, 6*time.Second, time.Since(start), "the fourth waited for the window's end")
		assert.Equal(t, 5, srv.Count(runpodtest.RouteRun))
		assert.Equal(t, 4, srv.Acted(runpodtest.RouteRun), "never submitted twice")

		start = time.Now()
		ep := rp.OpenAI.Route(openai.PublicQwen3)
		for range 3 {
			res, err := ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hi")}})
			require.NoError(t, err)
			assert.Equal(t, "You said: hi", res.Choices[0].Message.Content.String())
		}
		assert.Equal(t, 10*time.Second, time.Since(start), "10 s into a 20 s window")
		assert.Equal(t, 4, srv.Count(runpodtest.RouteChatCompletions))
		assert.Equal(t, 3, srv.Acted(runpodtest.RouteChatCompletions))

		// With retries off, the 429 reaches the caller, with its wait.
		_, _ = ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hi")}})
		noRetry, err := srv.NewClient(option.WithHTTPClient(hc), option.WithMaxRetries(0))
		require.NoError(t, err)
		_, err = noRetry.OpenAI.Route(openai.PublicQwen3).ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hi")}})
		require.ErrorIs(t, err, errs.ErrRateLimited)
		var oe *openai.Error
		require.ErrorAs(t, err, &oe, "an OpenAI error object")
		assert.Equal(t, "RateLimitError", oe.Type)
		assert.Contains(t, oe.Message, "rate limit exceeded")
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 20*time.Second, apiErr.RetryAfter)
	})
}

// TestOpenAIRouteErrorShape: every error on /openai/v1/* (the gateway's
// 401, 403, 404, 405 and 429 as well as the worker's 400 and 404) carries
// OpenAI's {"error": {"message", "type", "code"}} object, which OpenAI's
// clients read; the job API keeps problem+json.
func TestOpenAIRouteErrorShape(t *testing.T) {
	// The 403 and the 400 below count against the limit; the third is over.
	srv := newServer(t, runpodtest.WithInferenceLimits(runpodtest.InferenceLimits{OpenAI: runpodtest.InferenceLimit{Rate: 2}}))
	billing := srv.NewKey(runpodtest.PermissionBillingRead)
	chat := `{"model":"Qwen/Qwen3-32B-AWQ","messages":[{"role":"user","content":"hi"}]}`
	base := "/v2/" + openai.PublicQwen3 + "/openai/v1"
	srv.FailNext(runpodtest.RouteCompletions, 1, runpodtest.Fault{Status: 503})
	cases := []struct {
		name, method, path, auth, body string
		status                         int
		typ                            string
	}{
		{"no key", "POST", base + "/chat/completions", "", chat, 401, "AuthenticationError"},
		{"unknown key", "POST", base + "/chat/completions", "Bearer rpa_nope", chat, 401, "AuthenticationError"},
		{"no permission", "POST", base + "/chat/completions", "Bearer " + billing, chat, 403, "PermissionDeniedError"},
		{"bad JSON", "POST", base + "/chat/completions", "Bearer " + srv.APIKey, `{`, 400, "BadRequestError"},
		{"over the limit", "POST", base + "/chat/completions", "Bearer " + srv.APIKey, chat, 429, "RateLimitError"},
		{"unknown path", "POST", base + "/embeddings", "Bearer " + srv.APIKey, chat, 404, "NotFoundError"},
		{"wrong method", "GET", base + "/chat/completions", "Bearer " + srv.APIKey, "", 405, "MethodNotAllowedError"},
		{"no such route", "GET", "/v2/nope/openai/v1/models", "Bearer " + srv.APIKey, "", 404, "NotFoundError"},
		{"injected fault", "POST", "/v2/" + openai.PublicGranite4 + "/openai/v1/completions", "Bearer " + srv.APIKey, `{"model":"m","prompt":"p"}`, 503, "InternalServerError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), c.method, srv.InferenceURL+c.path, strings.NewReader(c.body))
			require.NoError(t, err)
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, c.status, resp.StatusCode, string(b))
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var body struct {
				Error *struct {
					Message *string          `json:"message"`
					Type    *string          `json:"type"`
					Code    *json.RawMessage `json:"code"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(b, &body), string(b))
			require.NotNil(t, body.Error, string(b))
			require.NotNil(t, body.Error.Message)
			assert.NotEmpty(t, *body.Error.Message)
			require.NotNil(t, body.Error.Type)
			assert.Equal(t, c.typ, *body.Error.Type)
			require.NotNil(t, body.Error.Code)
			if c.status == 429 {
				assert.NotEmpty(t, resp.Header.Get("Retry-After"))
			}
		})
	}

	// Through the SDK: the message reaches the *openai.Error.
	rp, err := srv.NewClient(option.WithAPIKey(billing))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	_, err = rp.OpenAI.Route(openai.PublicQwen3).Models(t.Context())
	var oe *openai.Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 403, oe.StatusCode)
	assert.Equal(t, "access denied", oe.Message)
	assert.ErrorIs(t, err, errs.ErrForbidden)

	// The job API keeps problem+json.
	resp, m := call(t, srv, "POST", "/v2/nope/run", `{"input":1}`)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	assert.NotContains(t, m, "error")
}
