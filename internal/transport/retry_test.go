package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	waitpkg "github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestRetryTable runs every row of checkRetry's retry table for both kinds
// of call: the first attempt fails as the row says, the second succeeds.
func TestRetryTable(t *testing.T) {
	dialRefused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	dnsFailed := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.test", IsNotFound: true}}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}

	rows := []struct {
		name       string
		first      step
		idempotent bool // retried when idempotent
		mutation   bool // retried when not idempotent
		unknown    bool // non-idempotent failure reports an unknown outcome
	}{
		{"dial refused", step{err: dialRefused}, true, true, false},
		{"dns failure", step{err: dnsFailed}, true, true, false},
		{"429", step{status: 429, header: http.Header{"Retry-After": {"1"}}}, true, true, false},
		{"500", step{status: 500}, true, false, true},
		{"502", step{status: 502}, true, false, true},
		{"503", step{status: 503}, true, false, true},
		{"504", step{status: 504}, true, false, true},
		{"reset after sending", step{err: reset}, true, false, true},
		{"timeout after sending", step{err: timeout}, true, false, true},
		{"unexpected EOF after sending", step{err: io.ErrUnexpectedEOF}, true, false, true},
		{"501", step{status: 501}, false, false, false},
		{"400", step{status: 400}, false, false, false},
		{"401", step{status: 401}, false, false, false},
		{"403", step{status: 403}, false, false, false},
		{"404", step{status: 404}, false, false, false},
		{"408", step{status: 408}, false, false, false},
		{"409", step{status: 409}, false, false, false},
		{"422", step{status: 422}, false, false, false},
	}
	for _, row := range rows {
		for _, idempotent := range []bool{true, false} {
			name := row.name + "/mutation"
			want := row.mutation
			if idempotent {
				name, want = row.name+"/idempotent", row.idempotent
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rt := &fakeRT{steps: []step{row.first, ok(`{"ok":true}`)}}
					tr, _ := newTest(t, rt)
					var out struct{ OK bool }
					req := &Request{Method: http.MethodPost, URL: tr.BaseURL("/v2/thing"), Body: []byte(`{}`), Idempotent: idempotent}
					err := tr.DoJSON(t.Context(), req, &out)
					if want {
						require.NoError(t, err)
						assert.True(t, out.OK)
						assert.Equal(t, 2, rt.calls())
						return
					}
					require.Error(t, err)
					assert.Equal(t, 1, rt.calls(), "must not be retried")
					testkit.NoSecret(t, err)
					assert.Equal(t, !idempotent && row.unknown, errors.Is(err, errs.ErrOutcomeUnknown), "outcome unknown: %v", err)
					if row.first.err == nil {
						var apiErr *errs.APIError
						require.ErrorAs(t, err, &apiErr)
						assert.Equal(t, row.first.status, apiErr.StatusCode)
					} else {
						var te *errs.TransportError
						require.ErrorAs(t, err, &te)
						assert.ErrorIs(t, err, row.first.err)
					}
				})
			})
		}
	}
}

// TestRetriesExhausted: the last response is returned as a typed error,
// after MaxRetries+1 attempts.
func TestRetriesExhausted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 503, header: http.Header{"Content-Type": {"application/problem+json"}},
			body: `{"title":"Service Unavailable","status":503,"detail":"try later"}`}}}
		tr, _ := newTest(t, rt, func(c *option.Config) { c.MaxRetries = 2 })
		_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/pods"), Idempotent: true})
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, "try later", apiErr.Detail)
		assert.Equal(t, 3, rt.calls())
		assert.False(t, errors.Is(err, errs.ErrOutcomeUnknown))

		rt = &fakeRT{steps: []step{{err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}}}
		tr, _ = newTest(t, rt, func(c *option.Config) { c.MaxRetries = 1 })
		_, err = tr.Do(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/pods")})
		var te *errs.TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 2, te.Attempts)
		assert.False(t, te.OutcomeUnknown, "a request that never left has no unknown outcome")
		assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	})
}

func TestRetryAfterSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 429, header: http.Header{"Retry-After": {"7"}}}, ok(`{}`)}}
		tr, _ := newTest(t, rt)
		start := time.Now()
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/x")}, nil))
		assert.Equal(t, 7*time.Second, time.Since(start))
		assert.Equal(t, 7*time.Second, rt.times[1].Sub(rt.times[0]))
	})
}

func TestRetryAfterHTTPDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		when := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
		rt := &fakeRT{steps: []step{{status: 503, header: http.Header{"Retry-After": {when}}}, ok(`{}`)}}
		tr, _ := newTest(t, rt)
		start := time.Now()
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil))
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}

// TestRateLimitDrivenWait: with no Retry-After, a 429 waits for the
// longest reset among exhausted RateLimit windows.
func TestRateLimitDrivenWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.Header{
			"Ratelimit":        {`"minute";r=0;t=12, "hour";r=0;t=30, "day";r=49500;t=45012`},
			"Ratelimit-Policy": {`"minute";q=60;w=60, "hour";q=3000;w=3600`},
		}
		rt := &fakeRT{steps: []step{{status: 429, header: h}, ok(`{}`)}}
		tr, _ := newTest(t, rt)
		start := time.Now()
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil))
		assert.Equal(t, 30*time.Second, time.Since(start))
	})
}

// TestRetryAfterWinsOverRateLimit: Retry-After comes first in the order.
func TestRetryAfterWinsOverRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.Header{"Retry-After": {"2"}, "Ratelimit": {`"minute";r=0;t=40`}}
		rt := &fakeRT{steps: []step{{status: 429, header: h}, ok(`{}`)}}
		tr, _ := newTest(t, rt)
		start := time.Now()
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil))
		assert.Equal(t, 2*time.Second, time.Since(start))
	})
}

// TestWaitAboveCap: a server-directed wait above MaxWait fails at once
// with a rate-limit error carrying the wait.
func TestWaitAboveCap(t *testing.T) {
	for name, h := range map[string]http.Header{
		"retry-after": {"Retry-After": {"3600"}},
		"ratelimit":   {"Ratelimit": {`"day";r=0;t=45012`}},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h.Set("Content-Type", "application/problem+json")
				rt := &fakeRT{steps: []step{{status: 429, header: h,
					body: `{"title":"Too Many Requests","status":429,"detail":"rate limit exceeded for the day window"}`}}}
				tr, _ := newTest(t, rt, func(c *option.Config) { c.MaxWait = 10 * time.Second })
				start := time.Now()
				_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
				assert.Zero(t, time.Since(start), "must not sleep")
				assert.Equal(t, 1, rt.calls())
				require.ErrorIs(t, err, errs.ErrRateLimited)
				var apiErr *errs.APIError
				require.ErrorAs(t, err, &apiErr)
				if name == "retry-after" {
					assert.Equal(t, time.Hour, apiErr.RetryAfter)
				} else {
					w, ok := apiErr.RateLimit.ExhaustedWait()
					assert.True(t, ok)
					assert.Equal(t, 45012*time.Second, w)
					assert.Equal(t, 45012*time.Second, apiErr.RetryAfter, "the window's wait is the error's RetryAfter")
				}
			})
		})
	}
}

// TestBackoffFullJitter: without a server-directed wait, each wait is in
// [0, min(max, min·2^attempt)].
func TestBackoffFullJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 502}}}
		tr, _ := newTest(t, rt, func(c *option.Config) {
			c.MaxRetries = 6
			c.RetryWaitMin, c.RetryWaitMax = 100*time.Millisecond, time.Second
		})
		_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
		require.Error(t, err)
		require.Equal(t, 7, rt.calls())
		for i := 1; i < len(rt.times); i++ {
			wait := rt.times[i].Sub(rt.times[i-1])
			ceiling := min(time.Second, 100*time.Millisecond<<(i-1))
			assert.GreaterOrEqual(t, wait, time.Duration(0))
			assert.LessOrEqual(t, wait, ceiling, "wait %d", i)
		}
	})
	for range 1000 {
		d := waitpkg.Backoff(time.Second, 8*time.Second, 70)
		require.LessOrEqual(t, d, 8*time.Second)
		require.GreaterOrEqual(t, d, time.Duration(0))
	}
}

// TestContextCancelledDuringWait: the wait ends with the context, at once.
func TestContextCancelledDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 429, header: http.Header{"Retry-After": {"30"}}}}}
		tr, _ := newTest(t, rt)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		start := time.Now()
		_, err := tr.Do(ctx, &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
		assert.Equal(t, 1500*time.Millisecond, time.Since(start))
		require.ErrorIs(t, err, context.Canceled)
		var te *errs.TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 1, rt.calls())
	})
}

// TestWaitLongerThanDeadline: a wait that would outlast the context's
// deadline is not slept: the last response comes back at once, with the
// wait the server asked for.
func TestWaitLongerThanDeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  step
		status int
		wait   time.Duration
	}{
		{"Retry-After", step{status: 429, header: http.Header{"Retry-After": {"10"}}}, 429, 10 * time.Second},
		{"RateLimit window", step{status: 429, header: http.Header{"Ratelimit": {`"minute";r=0;t=10`}}}, 429, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &fakeRT{steps: []step{tc.first, ok(`{}`)}}
				tr, _ := newTest(t, rt, func(c *option.Config) { c.RetryWaitMin, c.RetryWaitMax = 10*time.Second, 10*time.Second })
				ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
				defer cancel()
				start := time.Now()
				_, err := tr.Do(ctx, &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
				assert.Zero(t, time.Since(start), "returned without waiting")
				assert.Equal(t, 1, rt.calls())
				var apiErr *errs.APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tc.status, apiErr.StatusCode)
				assert.Equal(t, tc.wait, apiErr.RetryAfter)
				assert.ErrorIs(t, err, context.DeadlineExceeded, "the deadline stopped the retries: the error says so too")
				assert.ErrorIs(t, err, errs.ErrRateLimited)
			})
		})
	}
	// A response that was not retried for another reason is not a
	// deadline.
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 404}}}
		tr, _ := newTest(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		_, err := tr.Do(ctx, &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
		require.ErrorIs(t, err, errs.ErrNotFound)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
	})
}

// TestContextDeadlineDuringWait: a deadline ends a wait that began within
// it (the server's wait fits the deadline, but the context is cancelled
// while waiting).
func TestContextDeadlineDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 429, header: http.Header{"Retry-After": {"2"}}}}}
		tr, _ := newTest(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		go func() { time.Sleep(time.Second); cancel() }()
		start := time.Now()
		_, err := tr.Do(ctx, &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
		assert.Equal(t, time.Second, time.Since(start))
		require.ErrorIs(t, err, context.Canceled)
	})
}

// TestCancelledAfterSendingMutation: a context that ends after a mutation
// was sent leaves its outcome unknown.
func TestCancelledAfterSendingMutation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{err: context.Canceled}}}
		tr, _ := newTest(t, rt)
		_, err := tr.Do(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/x")})
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	})
}

func TestZeroRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 503}, ok(`{}`)}}
		tr, _ := newTest(t, rt, func(c *option.Config) { c.MaxRetries = 0 })
		_, err := tr.Do(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true})
		require.Error(t, err)
		assert.Equal(t, 1, rt.calls())
	})
}

// TestWaitsThroughBackoffHook: checkRetry chooses each wait and the
// call's Backoff hook hands it to retryablehttp, whose RetryWaitMin and
// RetryWaitMax stay the configured bounds; the waits slept are the
// documented ones: Retry-After, the reset of an exhausted RateLimit
// window, else backoff with full jitter below min·2^retry.
func TestWaitsThroughBackoffHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, _ := newTest(t, &fakeRT{steps: []step{ok(`{}`)}}, func(c *option.Config) {
			c.RetryWaitMin, c.RetryWaitMax, c.MaxRetries = time.Second, 4*time.Second, 100
		})
		c, err := tr.start(&Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, false, nil)
		require.NoError(t, err)
		defer c.release()
		c.clients()
		backoff := func(resp *http.Response) time.Duration {
			t.Helper()
			retry, err := c.rc.CheckRetry(t.Context(), resp, nil)
			require.NoError(t, err)
			require.True(t, retry)
			require.Equal(t, time.Second, c.rc.RetryWaitMin, "the bounds stay the configured ones")
			require.Equal(t, 4*time.Second, c.rc.RetryWaitMax)
			return c.rc.Backoff(c.rc.RetryWaitMin, c.rc.RetryWaitMax, c.retries-1, resp)
		}
		answer := func(status int, h http.Header) *http.Response {
			return &http.Response{StatusCode: status, Header: h, Body: http.NoBody}
		}

		require.Equal(t, 7*time.Second, backoff(answer(429, http.Header{"Retry-After": {"7"}})))
		require.Equal(t, 30*time.Second, backoff(answer(429, http.Header{"Ratelimit": {`"minute";r=0;t=12, "hour";r=0;t=30`}})),
			"an exhausted window's reset, above RetryWaitMax")

		c.retries = 0
		seen := map[time.Duration]bool{}
		for i := range 40 {
			c.retries = i % 3
			bound := time.Second << c.retries
			w := backoff(answer(503, http.Header{}))
			require.GreaterOrEqual(t, w, time.Duration(0))
			require.LessOrEqual(t, w, bound, "retry %d", i%3)
			seen[w] = true
		}
		require.Greater(t, len(seen), 1, "jittered")
	})
}

// TestBackoffWaitsSlept: retryablehttp sleeps the jittered waits the hook
// hands it, each below its ceiling, one after the other.
func TestBackoffWaitsSlept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fakeRT{steps: []step{{status: 503}, {status: 503}, {status: 503}, ok(`{}`)}}
		tr, _ := newTest(t, rt, func(c *option.Config) { c.RetryWaitMin, c.RetryWaitMax = time.Second, 3*time.Second })
		require.NoError(t, tr.DoJSON(t.Context(), &Request{Method: "GET", URL: tr.BaseURL("/v2/x"), Idempotent: true}, nil))
		require.Len(t, rt.times, 4)
		for i, ceiling := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
			gap := rt.times[i+1].Sub(rt.times[i])
			require.GreaterOrEqual(t, gap, time.Duration(0))
			require.LessOrEqual(t, gap, ceiling, "wait %d", i)
		}
	})
}
