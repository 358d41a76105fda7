package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
)

// TestCallMaxRetriesOverridesClient: a call's WithMaxRetries(0) makes one
// attempt on a client that retries 5 times; the next call without it
// retries again.
func TestCallMaxRetriesOverridesClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 503}}}
		tr, _ := newTest(t, rt, func(c *option.Config) { c.MaxRetries = 5 })
		get := func(opts ...option.RequestOption) error {
			return tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true}, nil, opts...)
		}
		var info option.ResponseInfo
		require.Error(t, get(option.WithMaxRetries(0), option.WithResponseInto(&info)))
		assert.Equal(t, 1, rt.calls(), "the call's 0 wins over the client's 5")
		assert.Equal(t, 1, info.Attempts)
		require.Error(t, get(option.WithResponseInto(&info)))
		assert.Equal(t, 7, rt.calls(), "the client's 5 retries again")
		assert.Equal(t, 6, info.Attempts)
	})
}

// TestMiddlewareOrderAndNoKey: two middlewares run in the order given,
// client's first, each once per call whatever the retries; none sees the
// key, which still reaches the server.
func TestMiddlewareOrderAndNoKey(t *testing.T) {
	var mu sync.Mutex
	var order []string
	var seen []string
	mw := func(name string) option.Middleware {
		return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			mu.Lock()
			order = append(order, name+">")
			seen = append(seen, fmt.Sprint(req.Header, req.URL.String()))
			mu.Unlock()
			req.Header.Set("X-"+name, "1")
			resp, err := next(req)
			mu.Lock()
			order = append(order, "<"+name)
			mu.Unlock()
			return resp, err
		}
	}
	for _, queryKey := range []bool{false, true} {
		order, seen = nil, nil
		srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true}`)
		})
		tr, lines := overServer(t, srv, func(c *option.Config) {
			c.Middleware = []option.Middleware{mw("client")}
			c.GraphQLQueryKey = queryKey
		})
		var out struct{ OK bool }
		req := &Request{Method: "POST", URL: tr.BaseURL("/graphql"), Auth: AuthGraphQL, Body: []byte(`{}`)}
		require.NoError(t, tr.DoJSON(t.Context(), req, &out, option.WithMiddleware(mw("a"), mw("b"))))
		assert.True(t, out.OK, "the body read after the middleware")
		assert.Equal(t, []string{"client>", "a>", "b>", "<b", "<a", "<client"}, order)
		for _, s := range append(seen, lines.String()) {
			assert.NotContains(t, s, testKey)
		}
		r := wire.last()
		assert.Equal(t, "1", r.Header.Get("X-a"))
		assert.Equal(t, "1", r.Header.Get("X-client"))
		if queryKey {
			assert.Equal(t, testKey, r.URL.Query().Get("api_key"))
		} else {
			assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
		}
	}
}

// TestMiddlewareSeesRetriesOnce: next runs the retries; the middleware
// sees the call once and the final response, readable.
func TestMiddlewareSeesRetriesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 503}, ok(`{"n":1}`)}}
		tr, _ := newTest(t, rt)
		calls := 0
		var body string
		mw := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			calls++
			assert.Equal(t, "/v2/pods/{podId}", option.Route(req.Context()))
			resp, err := next(req)
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				body = string(b)
				resp.Body = io.NopCloser(strings.NewReader(`{"n":2}`))
			}
			return resp, err
		}
		var out struct{ N int }
		var attempts []option.Attempt
		hook := func(_ context.Context, a option.Attempt) { attempts = append(attempts, a) }
		r := &Request{Method: "GET", URL: tr.BaseURL("/v2/pods/p1"), Route: "/v2/pods/{podId}", Idempotent: true}
		require.NoError(t, tr.DoJSON(t.Context(), r, &out, option.WithMiddleware(mw), option.WithAttemptHook(hook)))
		assert.Equal(t, 1, calls)
		assert.Equal(t, `{"n":1}`, body)
		assert.Equal(t, 2, out.N, "the call reads the body the middleware returned")
		require.Len(t, attempts, 2)
		assert.Equal(t, option.Attempt{Method: "GET", Route: "/v2/pods/{podId}", Number: 1, StatusCode: 503, OutcomeUnknown: true}, attempts[0])
		assert.Equal(t, 2, attempts[1].Number)
		assert.Equal(t, 200, attempts[1].StatusCode)
	})
}

// TestRequestTimeoutPerAttempt: WithRequestTimeout cuts each attempt; an
// idempotent call retries, and the next attempt answers.
func TestRequestTimeoutPerAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			n++
			if n == 1 {
				<-req.Context().Done() // the first attempt hangs until cut
				return nil, req.Context().Err()
			}
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
		})
		tr, _ := newTest(t, rt)
		start := time.Now()
		err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true}, nil, option.WithRequestTimeout(3*time.Second))
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		assert.GreaterOrEqual(t, time.Since(start), 3*time.Second)
		assert.Less(t, time.Since(start), 3*time.Second+option.DefaultRetryWaitMin+time.Millisecond)

		n = 0
		err = tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/pods"), Body: []byte(`{}`)}, nil, option.WithRequestTimeout(time.Second))
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "a POST cut by the timeout is not repeated")
		assert.Equal(t, 1, n)
	})
}

// TestWithHeader: a client header and a call header both go out; the
// call's wins on the same name, and Authorization cannot be set.
func TestWithHeader(t *testing.T) {
	rt := &fakeRT{steps: []step{ok(`{}`)}}
	tr, _ := newTest(t, rt, func(c *option.Config) { c.Header = http.Header{"X-Team": {"a"}, "X-Env": {"prod"}} })
	r := func() *Request { return &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true} }
	require.NoError(t, tr.DoJSON(t.Context(), r(), nil, option.WithHeader("X-Team", "b"), option.WithHeader("X-Trace", "t1")))
	h := rt.reqs[0].Header
	assert.Equal(t, "b", h.Get("X-Team"))
	assert.Equal(t, "prod", h.Get("X-Env"))
	assert.Equal(t, "t1", h.Get("X-Trace"))
	require.NoError(t, tr.DoJSON(t.Context(), r(), nil))
	assert.Equal(t, "a", rt.reqs[1].Header.Get("X-Team"), "a call's header does not stay")
	assert.Empty(t, rt.reqs[1].Header.Get("X-Trace"))

	err := tr.DoJSON(t.Context(), r(), nil, option.WithHeader("authorization", "Bearer other"))
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithHeader(authorization)", ve.Field)
	assert.Equal(t, 2, rt.calls(), "nothing sent")
}

// TestClientOnlyOptionsOnACall: options that say what the client talks
// to are refused on a call, before anything is sent.
func TestClientOnlyOptionsOnACall(t *testing.T) {
	rt := &fakeRT{steps: []step{ok(`{}`)}}
	tr, _ := newTest(t, rt)
	for name, o := range map[string]option.RequestOption{
		"WithAPIKey":              option.WithAPIKey("other"),
		"WithBaseURL":             option.WithBaseURL("https://elsewhere.example"),
		"WithHTTPClient":          option.WithHTTPClient(&http.Client{}),
		"WithProxyHost":           option.WithProxyHost("p.example"),
		"WithInferenceURL":        option.WithInferenceURL("https://i.example"),
		"WithS3URL":               option.WithS3URL("https://s3.example"),
		"WithS3Credentials":       option.WithS3Credentials("user_x", "rps_x"),
		"WithMaxIdleConnsPerHost": option.WithMaxIdleConnsPerHost(3),
		"WithGraphQLQueryKey":     option.WithGraphQLQueryKey(),
		"WithDialer": option.WithDialer(func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("not dialled")
		}),
	} {
		err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true}, nil, o)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, name, ve.Field)
	}
	assert.Zero(t, rt.calls())

	// An option of the caller's own that writes a client field is refused
	// too, named by the field.
	err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true}, nil,
		func(c *option.Config) error { c.RateLimits = nil; return nil })
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "Config.RateLimits", ve.Field)
}

// TestInvalidConfigFailsEveryCall: a hand-built Config without a key
// gives a Transport whose calls fail before sending.
func TestInvalidConfigFailsEveryCall(t *testing.T) {
	rt := &fakeRT{steps: []step{ok(`{}`)}}
	tr := New(option.Config{HTTPClient: &http.Client{Transport: rt}})
	err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true}, nil)
	require.ErrorIs(t, err, errs.ErrNoAPIKey)
	tr = New(option.Config{APIKey: option.Config{}.APIKey, BaseURL: "http://example.com"})
	require.ErrorIs(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/x")}, nil), errs.ErrNoAPIKey)
	assert.Zero(t, rt.calls())
}

// TestRefitAsksWhatFits: a long poll's retry asks Refit whether a retry
// fits in what the context leaves, and lets it rewrite the URL.
func TestRefitAsksWhatFits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 503}, ok(`{}`)}}
		tr, _ := newTest(t, rt, func(c *option.Config) { c.RetryWaitMin, c.RetryWaitMax = time.Second, time.Second })
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		var asked []time.Duration
		r := &Request{Method: "GET", URL: tr.BaseURL("/v2/ep/status-sync/j"), Idempotent: true,
			Refit: func(u *url.URL, left time.Duration) bool {
				asked = append(asked, left)
				if u != nil {
					u.RawQuery = "wait=" + fmt.Sprint(left.Milliseconds())
				}
				return left > 10*time.Second
			}}
		require.NoError(t, tr.DoJSON(ctx, r, nil))
		require.Len(t, asked, 2, "asked when deciding, then when preparing the retry")
		assert.Equal(t, asked[0], asked[1], "the wait was decided once: the fake clock has moved by exactly it")
		assert.True(t, asked[0] > 29*time.Second && asked[0] <= 30*time.Second, "%s: 30s less the backoff", asked[0])
		assert.Equal(t, fmt.Sprintf("wait=%d", asked[1].Milliseconds()), rt.reqs[1].URL.RawQuery)

		rt = &fakeRT{steps: []step{{status: 503}, ok(`{}`)}}
		tr, _ = newTest(t, rt)
		r.Refit = func(*url.URL, time.Duration) bool { return false }
		var ae *errs.APIError
		require.ErrorAs(t, tr.DoJSON(ctx, r, nil), &ae)
		assert.True(t, ae.DeadlineCut, "no retry when the hold no longer fits")
		assert.Equal(t, 1, rt.calls())
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
