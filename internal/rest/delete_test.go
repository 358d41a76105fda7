package rest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// podID is the rule of the tests' pod ids.
var podID = ID{Field: "podID"}

// newTransport is a transport to srv that retries at once (the tests are
// about which outcome a retried call reports, not about its waits).
func newTransport(t *testing.T, srv *httptest.Server) *transport.Transport {
	t.Helper()
	return transport.New(option.Config{
		APIKey: secret.NewString("k"), BaseURL: srv.URL, InferenceURL: srv.URL,
		HTTPClient: &http.Client{Transport: &http.Transport{}}, // no proxy from the environment
		MaxRetries: 3, RetryWaitMin: 1, RetryWaitMax: 1,
	})
}

// TestDeleteNotFoundAfterRetry: a 404 on a retry is "already gone" only
// when an earlier attempt may have deleted the resource (item 4).
func TestDeleteNotFoundAfterRetry(t *testing.T) {
	const notFound = `{"error":"not found"}`
	reset := func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if assert.NoError(t, err) {
			_ = conn.Close()
		}
	}
	status := func(code int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if code == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}
	}
	for _, c := range []struct {
		name     string
		first    http.HandlerFunc
		notFound bool // the call ends in ErrNotFound
	}{
		{"429 then 404", status(http.StatusTooManyRequests, `{"error":"slow down"}`), true},
		{"503 then 404", status(http.StatusServiceUnavailable, `{"error":"unavailable"}`), false},
		{"500 then 404", status(http.StatusInternalServerError, `{"error":"oops"}`), false},
		{"reset after sending then 404", reset, false},
		{"404 at once", status(http.StatusNotFound, notFound), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, http.MethodDelete, r.Method)
				if n.Add(1) == 1 {
					c.first(w, r)
					return
				}
				status(http.StatusNotFound, notFound)(w, r)
			}))
			defer srv.Close()
			tr := newTransport(t, srv)
			defer tr.CloseIdleConnections()
			err := Delete(t.Context(), tr, At("/v2/pods/{podId}", podID.Of("p1")), nil)
			if c.notFound {
				require.ErrorIs(t, err, errs.ErrNotFound)
			} else {
				require.NoError(t, err)
				require.EqualValues(t, 2, n.Load())
			}
		})
	}
}

// TestDeleteTwo429sThen404: two answers that say the platform did not act
// still leave a 404 the error it is.
func TestDeleteTwo429sThen404(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) <= 2 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	tr := newTransport(t, srv)
	defer tr.CloseIdleConnections()
	err := Delete(t.Context(), tr, At("/v2/pods/{podId}", podID.Of("p1")), nil)
	require.ErrorIs(t, err, errs.ErrNotFound)
	require.EqualValues(t, 3, n.Load())
}
