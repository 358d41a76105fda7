package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// oddKey has characters that URL escaping changes.
const oddKey = "rpa_odd+key/with=chars"

// cutBody answers 200 with a Content-Length, sends half the body and
// closes the connection.
func cutBody(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body[:len(body)/2])
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// TestCutOff2xxBody: a 2xx body cut off by the network is retried for an
// idempotent call, and is an unknown outcome (never resubmitted) for the
// rest.
func TestCutOff2xxBody(t *testing.T) {
	for _, idempotent := range []bool{true, false} {
		t.Run(fmt.Sprint("idempotent=", idempotent), func(t *testing.T) {
			var n atomic.Int32
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					cutBody(w, `{"id":"job-1","status":"IN_QUEUE"}`)
					return
				}
				_, _ = io.WriteString(w, `{"id":"job-1","status":"IN_QUEUE"}`)
			})
			tr, _ := overServer(t, srv, func(c *option.Config) { c.RetryWaitMin, c.RetryWaitMax = time.Millisecond, time.Millisecond })
			var out struct{ ID string }
			err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/ep/run"), Body: []byte(`{}`), Idempotent: idempotent}, &out)
			if idempotent {
				require.NoError(t, err)
				assert.Equal(t, "job-1", out.ID)
				assert.Equal(t, int32(2), n.Load())
				return
			}
			var te *errs.TransportError
			require.ErrorAs(t, err, &te)
			require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.Equal(t, int32(1), n.Load(), "never resubmitted")
		})
	}
}

// TestCutOffChunkedBody: the same for a body of unknown length.
func TestCutOffChunkedBody(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"id":"job-1",`)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
	tr, _ := overServer(t, srv)
	err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/ep/run"), Body: []byte(`{}`)}, &struct{}{})
	var te *errs.TransportError
	require.ErrorAs(t, err, &te)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
}

// TestUndecodable2xx: a complete 2xx body that is not the expected JSON
// (an HTML page, JSON cut short by the server) is a *ResponseError, and
// an unknown outcome for a call that is not safe to repeat.
func TestUndecodable2xx(t *testing.T) {
	for _, body := range []string{"<html><body>Bad gateway</body></html>", `{"id":"job-1","sta`} {
		for _, idempotent := range []bool{true, false} {
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = io.WriteString(w, body)
			})
			tr, _ := overServer(t, srv)
			var out struct{ ID string }
			err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/ep/run"), Body: []byte(`{}`), Idempotent: idempotent}, &out)
			var re *errs.ResponseError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, 200, re.StatusCode)
			assert.Equal(t, "text/html", re.ContentType)
			assert.Equal(t, body, re.Excerpt)
			assert.Equal(t, !idempotent, errors.Is(err, errs.ErrOutcomeUnknown))
			assert.Contains(t, err.Error(), "POST /v2/ep/run: 200 response: decoding body")
		}
	}
}

// bigBody streams n bytes of a JSON string without holding them.
func bigBody(w http.ResponseWriter, n int, length bool) {
	if length {
		w.Header().Set("Content-Length", strconv.Itoa(n))
	}
	w.WriteHeader(http.StatusOK)
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	_, _ = w.Write([]byte(`"`))
	for sent := 1; sent < n-1; sent += len(chunk) {
		if _, err := w.Write(chunk[:min(len(chunk), n-1-sent)]); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(`"`))
}

// TestOversized2xxBody: a body over the limit is refused with a typed
// error, not retried, and costs about the limit in memory (a declared
// length over the limit costs nothing).
func TestOversized2xxBody(t *testing.T) {
	const limit = 8 << 20
	for _, length := range []bool{true, false} {
		t.Run(fmt.Sprint("content-length=", length), func(t *testing.T) {
			var n atomic.Int32
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				bigBody(w, 300<<20, length)
			})
			tr, _ := overServer(t, srv, func(c *option.Config) { c.MaxResponseBytes = limit })
			peak := peakHeap(t, func() {
				var out string
				err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/big"), Idempotent: true}, &out)
				var re *errs.ResponseError
				require.ErrorAs(t, err, &re)
				require.ErrorIs(t, err, errs.ErrResponseTooLarge)
				assert.Equal(t, int64(limit), re.Limit)
				assert.Contains(t, err.Error(), "GET /v2/big: 200 response: body larger than the limit of 8388608 bytes")
			})
			assert.Equal(t, int32(1), n.Load(), "not retried")
			assert.Less(t, peak, uint64(2*limit), "peak heap growth %d", peak)
		})
	}
}

// TestBodyUnderLimit: bodies up to the limit decode, whatever their
// framing.
func TestBodyUnderLimit(t *testing.T) {
	for _, length := range []bool{true, false} {
		srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { bigBody(w, 3<<20+17, length) })
		tr, _ := overServer(t, srv, func(c *option.Config) { c.MaxResponseBytes = 3<<20 + 17 })
		var out string
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/big"), Idempotent: true}, &out))
		assert.Len(t, out, 3<<20+15)
	}
}

// peakHeap runs f while sampling the heap, and returns the largest growth
// of HeapAlloc over what it was before f.
func peakHeap(t testing.TB, f func()) uint64 {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak.Load()
}

// TestOversizedHeaders: a response header over the pooled transport's
// limit fails the call instead of being held.
func TestOversizedHeaders(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Huge", strings.Repeat("h", 2<<20))
		_, _ = io.WriteString(w, `{}`)
	})
	tr, _ := overServer(t, srv, func(c *option.Config) { c.MaxRetries = 0 })
	err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/pods"), Body: []byte(`{}`)}, nil)
	var te *errs.TransportError
	require.ErrorAs(t, err, &te)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
}

// TestRedirectKeepsKeyAtOrigin: on a redirect to another origin (the same
// host on another port, a subdomain) the Bearer header is dropped, for
// REST and for GraphQL in both credential modes (Bearer, the default, and
// the api_key query parameter); on the same origin it is kept.
func TestRedirectKeepsKeyAtOrigin(t *testing.T) {
	other, otherWire := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) })
	_, otherPort, _ := net.SplitHostPort(other.Listener.Addr().String())
	for _, target := range []string{
		other.URL + "/landing",                       // same host, other port
		"http://api.localhost:" + otherPort + "/sub", // a subdomain of localhost, other port
	} {
		for _, mode := range []string{"rest", "graphql", "graphql-query-key"} {
			t.Run(mode+" to "+target, func(t *testing.T) {
				srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, target, http.StatusTemporaryRedirect)
				})
				base := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
				tr, _ := newTest(t, nil, func(c *option.Config) {
					c.BaseURL, c.InferenceURL = base, base
					c.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: dialLoopback}}
					c.GraphQLQueryKey = mode == "graphql-query-key"
				})
				req := &Request{Method: "POST", URL: tr.BaseURL("/v2/x"), Body: []byte(`{}`), Idempotent: true}
				if mode != "rest" {
					req.URL, req.Auth = tr.BaseURL("/graphql"), AuthGraphQL
				}
				require.NoError(t, tr.DoJSON(t.Context(), req, nil))
				r := otherWire.last()
				assert.Empty(t, r.Header.Get("Authorization"))
				assert.False(t, r.URL.Query().Has("api_key"))
			})
		}
	}
	policy := redirectPolicy(nil)
	via := []*http.Request{{URL: mustURL("https://api.example.test/v2/x")}}
	same := &http.Request{URL: mustURL("https://api.example.test:443/v2/y"), Header: http.Header{"Authorization": {"Bearer k"}}}
	require.NoError(t, policy(same, via))
	assert.Equal(t, "Bearer k", same.Header.Get("Authorization"), "same origin keeps the header")

	// A Location that repeats the query, api_key and all, keeps the key
	// at its origin too.
	echoed := &http.Request{URL: mustURL("https://elsewhere.example.test/graphql?api_key=" + escapedOdd + "&x=1"), Header: http.Header{}}
	require.NoError(t, policy(echoed, []*http.Request{{URL: mustURL("https://api.example.test/graphql?api_key=" + escapedOdd)}}))
	assert.Equal(t, "x=1", echoed.URL.RawQuery)
	home := &http.Request{URL: mustURL("https://api.example.test/graphql2?api_key=" + escapedOdd), Header: http.Header{}}
	require.NoError(t, policy(home, []*http.Request{{URL: mustURL("https://api.example.test/graphql?api_key=" + escapedOdd)}}))
	assert.Contains(t, home.URL.RawQuery, "api_key", "the same origin is trusted")
}

const escapedOdd = "rpa_odd%2Bkey%2Fwith%3Dchars"

// dialLoopback dials every host name on loopback, keeping the port.
func dialLoopback(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
}

// TestEchoedKeyRedacted: a key the server echoes (in a problem body, a
// plain body, a request id) and a key in a wrapped transport error (raw or
// URL-escaped) never reach an error's text, its fields or the logs.
func TestEchoedKeyRedacted(t *testing.T) {
	testkit.RegisterSecret(oddKey)
	escaped := "rpa_odd%2Bkey%2Fwith%3Dchars"
	for _, tc := range []struct {
		name string
		step step
	}{
		{"problem body", step{status: 401, header: http.Header{"Content-Type": {"application/problem+json"}},
			body: `{"title":"Unauthorized","detail":"key ` + oddKey + ` is not valid","errors":["` + escaped + `"]}`}},
		{"plain body", step{status: 500, body: "bad key " + oddKey + " / " + strings.ToLower(escaped)}},
		{"request id", step{status: 404, header: http.Header{"X-Request-Id": {oddKey}}}},
		{"error with escaped key", step{err: fmt.Errorf("proxy refused https://api.example.test/graphql?api_key=%s", escaped)}},
		{"error with raw key", step{err: fmt.Errorf("token %s rejected by proxy", oddKey)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &fakeRT{steps: []step{tc.step}}
				tr, lines := newTest(t, rt, func(c *option.Config) { c.APIKey = secret.NewString(oddKey); c.MaxRetries = 0 })
				var info option.ResponseInfo
				err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/graphql"), Body: []byte(`{}`), Auth: AuthGraphQL}, nil, option.WithResponseInto(&info))
				require.Error(t, err)
				testkit.NoSecret(t, err, info.RequestID)
				var apiErr *errs.APIError
				if errors.As(err, &apiErr) {
					testkit.NoSecret(t, string(apiErr.Body), apiErr.Excerpt, apiErr.Detail, apiErr.Errors, apiErr.RequestID)
				}
				for _, l := range strings.Split(lines.String(), "\n") {
					assert.NotContains(t, l, oddKey)
					assert.NotContains(t, strings.ToLower(l), strings.ToLower(escaped))
				}
				assert.NotContains(t, strings.ToLower(err.Error()), strings.ToLower(escaped))
			})
		})
	}
}

// TestRedactedErrorStillMatches: a transport error whose text held the
// key is replaced, but errors.Is still sees its cause.
func TestRedactedErrorStillMatches(t *testing.T) {
	r := newRedactor(oddKey)
	err := r.error(fmt.Errorf("reading %s: %w", oddKey, context.DeadlineExceeded))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotContains(t, err.Error(), oddKey)
	assert.Contains(t, err.Error(), "[REDACTED]")
	assert.Nil(t, errors.Unwrap(err), "the original error, key and all, is not reachable")
	assert.Nil(t, newRedactor("").error(nil))
}

// TestHugeRateLimitHeaderBounded: a 1 MB RateLimit header on a 429 is
// ignored as malformed; the call ends within its deadline.
func TestHugeRateLimitHeaderBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b strings.Builder
		for i := 0; b.Len() < 1<<20; i++ {
			fmt.Fprintf(&b, `"w%d";r=0;t=30, `, i)
		}
		h := http.Header{"Ratelimit": {b.String()}}
		rt := &fakeRT{steps: []step{{status: 429, header: h}, ok(`{}`)}}
		tr, _ := newTest(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		err := tr.DoJSON(ctx, &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil)
		assert.LessOrEqual(t, time.Since(start), time.Second)
		if err != nil {
			require.ErrorIs(t, err, errs.ErrRateLimited)
		}
		assert.True(t, tr.RateLimit().IsZero())
	})
	// The same header costs a length check, not a parse, outside a bubble.
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, `"w%d";r=0;t=30, `, i)
	}
	allocs := testing.AllocsPerRun(10, func() {
		_, _ = fail.ServerWait(http.Header{"Ratelimit": {b.String()}}, time.Now())
	})
	assert.Less(t, allocs, 20.0)
}

// BenchmarkRefuse300MBBody: a 300 MB 2xx body against the default limit
// (64 MiB), with and without a Content-Length. It reports the peak heap
// growth while the call ran, in MiB, beside the limit.
func BenchmarkRefuse300MBBody(b *testing.B) {
	for _, length := range []bool{true, false} {
		b.Run(fmt.Sprint("content-length=", length), func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { bigBody(w, 300<<20, length) }))
			defer srv.Close()
			tr := New(option.Config{APIKey: secret.NewString(testKey), BaseURL: srv.URL, InferenceURL: srv.URL, MaxRetries: -1})
			defer tr.CloseIdleConnections()
			var worst uint64
			for b.Loop() {
				peak := peakHeap(b, func() {
					var out string
					err := tr.DoJSON(b.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/big"), Idempotent: true}, &out)
					if !errors.Is(err, errs.ErrResponseTooLarge) {
						b.Fatalf("want ErrResponseTooLarge, got %v", err)
					}
				})
				worst = max(worst, peak)
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(option.DefaultMaxResponseBytes)/(1<<20), "limit-MiB")
		})
	}
}

// TestJSONEscapedKeyRedacted: a key echoed inside a JSON body with its
// characters escaped (\u002b, \/, \u003d) is redacted in the raw body and
// in the fields decoded from it.
func TestJSONEscapedKeyRedacted(t *testing.T) {
	testkit.RegisterSecret(oddKey)
	for _, echoed := range []string{`rpa_odd\u002bkey\/with\u003dchars`, `rpa_odd\u002Bkey\u002Fwith\u003Dchars`, `rpa_odd+key\/with=chars`} {
		synctest.Test(t, func(t *testing.T) {
			rt := &fakeRT{steps: []step{{status: 401, header: http.Header{"Content-Type": {"application/problem+json"}},
				body: `{"title":"Unauthorized","status":401,"detail":"key ` + echoed + ` is not valid","errors":["` + echoed + `"]}`}}}
			tr, _ := newTest(t, rt, func(c *option.Config) { c.APIKey = secret.NewString(oddKey) })
			err := tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			testkit.NoSecret(t, err, apiErr.Detail, apiErr.Errors)
			assert.NotContains(t, string(apiErr.Body), echoed, echoed)
			assert.Contains(t, apiErr.Detail, "[REDACTED]")
		})
	}
}
