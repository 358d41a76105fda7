package transport

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// wireLog records what reached a test server.
type wireLog struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (l *wireLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r.Clone(r.Context()))
}

func (l *wireLog) last() *http.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reqs[len(l.reqs)-1]
}

func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *wireLog) {
	log := &wireLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, log
}

func overServer(t *testing.T, srv *httptest.Server, mod ...func(*option.Config)) (*Transport, *testkit.Lines) {
	return newTest(t, nil, append([]func(*option.Config){func(c *option.Config) {
		c.BaseURL, c.InferenceURL = srv.URL, srv.URL
		c.HTTPClient = nil
	}}, mod...)...)
}

func TestBearerAndHeaders(t *testing.T) {
	srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"keys":["a"]}`)
	})
	tr, _ := overServer(t, srv, func(c *option.Config) { c.UserAgent = "myapp/1.2" })
	var out struct{ Keys []string }
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/account/ssh-keys"), Idempotent: true}, &out))
	assert.Equal(t, []string{"a"}, out.Keys)
	r := wire.last()
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	assert.Equal(t, "application/json", r.Header.Get("Accept"))
	assert.Empty(t, r.URL.RawQuery)
	assert.Regexp(t, `^runpod-go/\d+\.\d+\.\d+ \(`+runtime.GOOS+`/`+runtime.GOARCH+`; go[0-9.]+[^)]*\) myapp/1\.2$`, r.Header.Get("User-Agent"))
}

func TestJSONBody(t *testing.T) {
	srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		assert.JSONEq(t, `{"a":"<b>"}`, string(b))
		w.WriteHeader(204)
	})
	tr, _ := overServer(t, srv)
	body, err := MarshalBody(map[string]string{"a": "<b>"})
	require.NoError(t, err)
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/x"), Body: body}, nil))
	assert.Equal(t, "application/json", wire.last().Header.Get("Content-Type"))
}

// TestGraphQLQueryKeyAddedInnermost: with GraphQLQueryKey (the seed's
// form, runpod.WithGraphQLQueryKey) the key travels as api_key, added
// after everything that logs, and reaches no log line or error.
func TestGraphQLQueryKeyAddedInnermost(t *testing.T) {
	srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(500)
		_, _ = io.WriteString(w, `{"title":"Internal Server Error","status":500,"detail":"boom"}`)
	})
	tr, lines := overServer(t, srv, func(c *option.Config) { c.GraphQLQueryKey = true })
	u := tr.BaseURL("/graphql")
	_, err := tr.Do(t.Context(), &Request{Method: "POST", URL: u, Body: []byte(`{"query":"mutation{x}"}`), Auth: AuthGraphQL})
	require.Error(t, err)
	r := wire.last()
	assert.Equal(t, testKey, r.URL.Query().Get("api_key"), "the key travels as api_key")
	assert.Empty(t, r.Header.Get("Authorization"))
	assert.Empty(t, u.RawQuery, "the caller's URL is not modified")
	testkit.NoSecret(t, err)
	assert.NotContains(t, lines.String(), testKey)
	assert.Contains(t, lines.String(), "path=/graphql")
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown, "a failed mutation has an unknown outcome")
}

// TestGraphQLBearerByDefault: GraphQL calls carry the key in the
// Authorization header, as REST calls do; no URL holds it.
func TestGraphQLBearerByDefault(t *testing.T) {
	srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) })
	tr, lines := overServer(t, srv)
	u := tr.BaseURL("/graphql")
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "POST", URL: u, Body: []byte(`{}`), Auth: AuthGraphQL, Idempotent: true}, nil))
	r := wire.last()
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	assert.Empty(t, r.URL.RawQuery, "no api_key, no query at all")
	assert.Empty(t, u.RawQuery)
	assert.NotContains(t, lines.String(), testKey)
}

// TestGraphQLQueryKeyRefusedOverPlainHTTP: the query-key form keeps the
// rule of the header: never over plain http to a host that is not
// loopback, and nothing is sent.
func TestGraphQLQueryKeyRefusedOverPlainHTTP(t *testing.T) {
	for _, queryKey := range []bool{false, true} {
		rt := &fakeRT{steps: []step{{status: 200, body: `{}`}}}
		tr, _ := newTest(t, rt, func(c *option.Config) {
			c.BaseURL = "http://api.example.test"
			c.GraphQLQueryKey = queryKey
		})
		err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/graphql"), Body: []byte(`{}`), Auth: AuthGraphQL, Idempotent: true}, nil)
		require.ErrorIs(t, err, errs.ErrInsecureURL, "queryKey=%v", queryKey)
		assert.Empty(t, rt.reqs, "nothing sent")
	}
}

func TestNoCredentialForAuthNone(t *testing.T) {
	srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) })
	tr, _ := overServer(t, srv)
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/x"), Auth: AuthNone, Idempotent: true}, nil))
	assert.Empty(t, wire.last().Header.Get("Authorization"))
}

// TestRedirectElsewhereGetsNoKey: the key, header or api_key, goes only
// to the host the call was made to.
func TestRedirectElsewhereGetsNoKey(t *testing.T) {
	for _, queryKey := range []bool{false, true} {
		other, otherWire := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) })
		srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/landing", http.StatusTemporaryRedirect)
		})
		tr, _ := overServer(t, srv, func(c *option.Config) { c.GraphQLQueryKey = queryKey })
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/graphql"), Body: []byte(`{}`), Auth: AuthGraphQL, Idempotent: true}, nil))
		r := otherWire.last()
		assert.False(t, r.URL.Query().Has("api_key"), "queryKey=%v", queryKey)
		assert.Empty(t, r.Header.Get("Authorization"), "queryKey=%v", queryKey)
	}
}

// TestConnectionReused: buffered calls read each body to its end, so the
// connection goes back to the pool: a run of calls, bodies with and
// without a length, and an error body among them, takes one connection.
func TestConnectionReused(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/chunked":
			w.(http.Flusher).Flush() // no length: chunked
			_, _ = io.WriteString(w, `{"a":1}`)
		case "/missing":
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"no"}`)
		default:
			_, _ = io.WriteString(w, `{"a":1}`)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	tr, _ := overServer(t, srv)
	for i := range 20 {
		path := []string{"/sized", "/chunked", "/missing"}[i%3]
		var out struct{ A int }
		err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL(path), Idempotent: true}, &out)
		if path == "/missing" {
			require.Error(t, err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, 1, out.A)
	}
	assert.Equal(t, int32(1), conns.Load())
}

// TestRequestAsBuilt: the request sent is the caller's URL as it is (an
// escaped path segment, the query, the host), with the body and its
// length; the caller's URL is left as it was; a method that is not an
// HTTP token is refused before anything is sent.
func TestRequestAsBuilt(t *testing.T) {
	srv, wire := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		assert.Equal(t, `{"a":1}`, string(b))
		assert.Equal(t, int64(len(b)), r.ContentLength)
		w.WriteHeader(204)
	})
	tr, _ := overServer(t, srv)
	u := tr.BaseURL("/v2/" + url.PathEscape("a/b c") + "/x")
	u.RawQuery = "q=1&r=%2F"
	before := *u
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "PATCH", URL: u, Body: []byte(`{"a":1}`)}, nil))
	r := wire.last()
	assert.Equal(t, "PATCH", r.Method)
	assert.Equal(t, "/v2/a%2Fb%20c/x", r.URL.EscapedPath())
	assert.Equal(t, "q=1&r=%2F", r.URL.RawQuery)
	assert.Equal(t, strings.TrimPrefix(srv.URL, "http://"), r.Host)
	assert.Equal(t, before, *u, "the caller's URL is untouched")

	for _, m := range []string{"", "GE T", "GE(T", "G\nET"} {
		_, err := tr.Do(t.Context(), &Request{Method: m, URL: tr.BaseURL("/v2/x"), Idempotent: true})
		var te *errs.TransportError
		require.ErrorAs(t, err, &te, "%q", m)
		assert.Contains(t, err.Error(), "invalid method")
	}
	wire.mu.Lock()
	defer wire.mu.Unlock()
	assert.Len(t, wire.reqs, 1, "no invalid method was sent")
}

func TestInsecureURLRefused(t *testing.T) {
	rt := &fakeRT{steps: []step{ok(`{}`)}}
	tr, _ := newTest(t, rt)
	for _, raw := range []string{"http://api.example.test/v2/x", "http://10.0.0.1/v2/x", "ftp://api.example.test/x"} {
		_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: mustURL(raw), Idempotent: true})
		require.ErrorIs(t, err, errs.ErrInsecureURL, raw)
	}
	assert.Zero(t, rt.calls(), "nothing is sent")
	for _, raw := range []string{"http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]/x", "https://api.example.test/x"} {
		_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: mustURL(raw), Idempotent: true})
		require.NoError(t, err, raw)
	}
	_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: mustURL("http://api.example.test/x"), Auth: AuthNone, Idempotent: true})
	require.NoError(t, err, "no credential, no refusal")
}

func TestRedirectDowngradeRefused(t *testing.T) {
	policy := redirectPolicy(nil)
	via := []*http.Request{{URL: mustURL("https://api.example.test/graphql")}}
	assert.ErrorIs(t, policy(&http.Request{URL: mustURL("http://api.example.test/graphql")}, via), errs.ErrInsecureURL)
	assert.NoError(t, policy(&http.Request{URL: mustURL("https://api.example.test/other")}, via))
	many := make([]*http.Request, 10)
	for i := range many {
		many[i] = via[0]
	}
	assert.Error(t, policy(&http.Request{URL: mustURL("https://api.example.test/other")}, many))
}

// TestAttemptLogging: one line per attempt with method, path (no query),
// status, attempt and duration; failed attempts at Warn.
func TestAttemptLogging(t *testing.T) {
	rt := &fakeRT{steps: []step{{status: 503}, ok(`{}`)}}
	tr, lines := newTest(t, rt, func(c *option.Config) { c.RetryWaitMin, c.RetryWaitMax = time.Millisecond, time.Millisecond })
	u := tr.BaseURL("/v2/billing/serverless")
	u.RawQuery = "lastN=3&secret=" + testKey
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: u, Idempotent: true}, nil))
	out := lines.String()
	assert.Regexp(t, regexp.MustCompile(`level=WARN msg="runpod: http attempt" method=GET path=/v2/billing/serverless attempt=1 duration=\S+ status=503`), out)
	assert.Regexp(t, regexp.MustCompile(`level=DEBUG msg="runpod: http attempt" method=GET path=/v2/billing/serverless attempt=2 duration=\S+ status=200`), out)
	assert.NotContains(t, out, "lastN")
	assert.NotContains(t, out, testKey)
}

func TestResponseInfoAndLatestRateLimit(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-7")
		w.Header().Set("RateLimit", `"minute";r=59;t=12, "hour";r=2999;t=1812`)
		w.Header().Set("RateLimit-Policy", `"minute";q=60;w=60, "hour";q=3000;w=3600`)
		_, _ = io.WriteString(w, `{}`)
	})
	tr, _ := overServer(t, srv)
	assert.True(t, tr.RateLimit().IsZero())
	var info option.ResponseInfo
	require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil, option.WithResponseInto(&info)))
	assert.Equal(t, 200, info.StatusCode)
	assert.Equal(t, "req-7", info.RequestID)
	assert.Equal(t, 1, info.Attempts)
	m, ok := info.RateLimit.Window("minute")
	require.True(t, ok)
	assert.Equal(t, int64(59), m.Remaining)
	assert.Equal(t, int64(60), m.Quota)
	assert.Equal(t, time.Minute, m.Length)
	assert.Equal(t, 12*time.Second, m.Reset)
	latest := tr.RateLimit()
	h, ok := latest.Window("hour")
	require.True(t, ok)
	assert.Equal(t, int64(2999), h.Remaining)
	assert.False(t, latest.Observed.IsZero())
}

func TestErrorResponseInfo(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit", `"minute";r=0;t=9`)
		w.Header().Set("Retry-After", "9")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"title":"Too Many Requests","status":429,"detail":"rate limit exceeded for the minute window"}`)
	})
	tr, _ := overServer(t, srv, func(c *option.Config) { c.MaxWait = time.Second })
	var info option.ResponseInfo
	_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, option.WithResponseInto(&info))
	require.ErrorIs(t, err, errs.ErrRateLimited)
	assert.Equal(t, 429, info.StatusCode)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 9*time.Second, apiErr.RetryAfter)
	assert.Equal(t, "GET", apiErr.Method)
	assert.Equal(t, "/v2/x", apiErr.Path)
	assert.Equal(t, "runpod: GET /v2/x: 429 Too Many Requests: rate limit exceeded for the minute window (retry after 9s)", err.Error())
}

func TestDecodeError(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{"keys":`) })
	tr, _ := overServer(t, srv)
	var out struct{ Keys []string }
	err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, &out)
	var re *errs.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 200, re.StatusCode)
	assert.Equal(t, `{"keys":`, re.Excerpt)
	assert.False(t, re.OutcomeUnknown, "an idempotent call")
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
}

func TestSecretNeverPrints(t *testing.T) {
	s := secret.NewString(testKey)
	type holder struct {
		key secret.String
		Pub secret.String
	}
	h := holder{key: s, Pub: s}
	testkit.NoSecret(t, s, h, &h, []secret.String{s}, map[string]secret.String{"k": s})
	j, err := s.MarshalJSON()
	require.NoError(t, err)
	assert.NotContains(t, string(j), testKey)
	assert.Equal(t, testKey, s.Reveal())
	assert.True(t, secret.String{}.IsZero())
	tr, _ := newTest(t, &fakeRT{steps: []step{ok(`{}`)}})
	testkit.NoSecret(t, tr, tr.cfg)
}

func TestJoinKeepsBasePath(t *testing.T) {
	tr, _ := newTest(t, &fakeRT{steps: []step{ok(`{}`)}}, func(c *option.Config) { c.BaseURL = "https://h.example/prefix/" })
	assert.Equal(t, "https://h.example/prefix/v2/x", tr.BaseURL("/v2/x").String())
	assert.Equal(t, "proxy.example.test", tr.ProxyHost())
	assert.Equal(t, "https://inference.example.test/v2/ep/run", tr.InferenceURL("/v2/ep/run").String())
	assert.Equal(t, "https://inference.example.test/v2/ep/status/a", tr.InferenceURL("/v2/", "ep", "/status/", "a").String(), "parts")
	u := tr.InferenceURL("/v2/ep/status/", url.PathEscape("a/b c%"))
	assert.Equal(t, "/v2/ep/status/a/b c%", u.Path)
	assert.Equal(t, "https://inference.example.test/v2/ep/status/a%2Fb%20c%25", u.String(), "escaped once, not split")
	escapedBase, _ := newTest(t, &fakeRT{}, func(c *option.Config) { c.BaseURL = "https://h.example/a%2Fb/" })
	assert.Equal(t, "https://h.example/a%2Fb/v2/x%20y", escapedBase.BaseURL("/v2/", url.PathEscape("x y")).String())
}
