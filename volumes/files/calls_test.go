package files_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// watch records what the client's middleware and attempt hooks see.
type watch struct {
	mu       sync.Mutex
	routes   []string // option.Route of each request a middleware saw
	shown    []string // everything a middleware could read of a request
	attempts []option.Attempt
}

func (w *watch) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	w.mu.Lock()
	w.routes = append(w.routes, option.Route(req.Context()))
	var b strings.Builder
	b.WriteString(req.Method + " " + req.URL.String() + "\n")
	for k, vs := range req.Header {
		b.WriteString(k + ": " + strings.Join(vs, ", ") + "\n")
	}
	w.shown = append(w.shown, b.String())
	w.mu.Unlock()
	resp, err := next(req)
	if err != nil {
		w.mu.Lock()
		w.shown = append(w.shown, err.Error())
		w.mu.Unlock()
	}
	return resp, err
}

func (w *watch) hook(_ context.Context, a option.Attempt) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.attempts = append(w.attempts, a)
}

// s3Attempts returns the attempts of S3 operation op.
func (w *watch) s3Attempts(op string) []option.Attempt {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []option.Attempt
	for _, a := range w.attempts {
		if a.Route == files.RoutePrefix+op {
			out = append(out, a)
		}
	}
	return out
}

// TestMiddlewareAndHooksSeeS3: the client's middleware and attempt hooks
// see the S3 requests as they see the REST ones: each attempt, with its
// S3 operation as the route, signed, and never with the S3 secret.
func TestMiddlewareAndHooksSeeS3(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithS3Storage(t.TempDir()), fakes3.Serve())
	t.Cleanup(srv.Close)
	testkit.RegisterSecret(srv.S3SecretKey)
	w := &watch{}
	rp, err := srv.NewClient(option.WithMiddleware(w.middleware), option.WithAttemptHook(w.hook),
		option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: volumeID, DataCenter: "EU-RO-1", Size: 50})

	vol, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), volumeID)
	require.NoError(t, err)
	fakes3.Fail(srv, fakes3.Fault{Op: "PutObject", Status: http.StatusBadGateway})
	_, err = vol.UploadFrom(t.Context(), "a/b.txt", strings.NewReader("hello"), 5)
	require.NoError(t, err)
	dst := t.TempDir() + "/b.txt"
	_, err = vol.Download(t.Context(), dst, "a/b.txt")
	require.NoError(t, err)

	w.mu.Lock()
	routes := append([]string(nil), w.routes...)
	shown := strings.Join(w.shown, "\n")
	w.mu.Unlock()
	assert.Contains(t, routes, "/v2/network-volumes/{networkVolumeId}", "the REST read, as before")
	assert.Contains(t, routes, "s3:PutObject")
	assert.Contains(t, routes, "s3:GetObject")
	assert.Equal(t, 2, strings.Count(strings.Join(routes, " "), "s3:PutObject"), "the middleware sees each attempt")
	assert.Contains(t, shown, "Signature=", "the middleware sees the signed request")
	assert.NotContains(t, shown, srv.S3SecretKey)
	testkit.NoSecret(t, shown)

	puts := w.s3Attempts("PutObject")
	require.Len(t, puts, 2, "a 502, then the retry")
	assert.Equal(t, http.MethodPut, puts[0].Method)
	assert.Equal(t, 1, puts[0].Number)
	assert.Equal(t, http.StatusBadGateway, puts[0].StatusCode)
	assert.True(t, puts[0].OutcomeUnknown, "a 502 may have acted")
	assert.Equal(t, 2, puts[1].Number)
	assert.Equal(t, http.StatusOK, puts[1].StatusCode)
	assert.False(t, puts[1].OutcomeUnknown)
	assert.Positive(t, puts[1].Duration)
	gets := w.s3Attempts("GetObject")
	require.NotEmpty(t, gets)
	assert.Equal(t, http.StatusOK, gets[len(gets)-1].StatusCode)
}

// leakyTransport fails every request with an error that quotes the S3
// secret, as a broken proxy might.
type leakyTransport struct{ secret string }

func (l leakyTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("proxy refused: credential " + l.secret)
}

// TestS3SecretNotInHookOrError: a failure that quotes the S3 secret
// reaches neither an attempt hook, nor a middleware, nor the error
// returned.
func TestS3SecretNotInHookOrError(t *testing.T) {
	const secret = "rps_hooked-0123456789abcdef"
	testkit.RegisterSecret(secret)
	opts := []option.RequestOption{option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"),
		option.WithS3Credentials("user_test", secret),
		option.WithHTTPClient(&http.Client{Transport: leakyTransport{secret}}),
		option.WithBackoff(time.Millisecond, 2*time.Millisecond)}

	// Without middleware or hooks too.
	cfg, err := option.NewConfig(opts...)
	require.NoError(t, err)
	vol, err := files.New(cfg, "vol1", "EU-RO-1")
	require.NoError(t, err)
	_, err = vol.Stat(t.Context(), "a.txt")
	require.Error(t, err)
	testkit.NoSecret(t, err)
	assert.NotContains(t, err.Error(), secret)
	assert.Contains(t, err.Error(), "proxy refused", "the cause is kept")

	w := &watch{}
	cfg, err = option.NewConfig(append(opts, option.WithMiddleware(w.middleware), option.WithAttemptHook(w.hook))...)
	require.NoError(t, err)
	vol, err = files.New(cfg, "vol1", "EU-RO-1")
	require.NoError(t, err)
	_, err = vol.Stat(t.Context(), "a.txt")
	require.Error(t, err)
	testkit.NoSecret(t, err)
	assert.NotContains(t, err.Error(), secret)

	heads := w.s3Attempts("HeadObject")
	require.Len(t, heads, files.MaxAttempts, "every attempt reported")
	for i, a := range heads {
		assert.Equal(t, i+1, a.Number)
		require.Error(t, a.Err)
		assert.NotContains(t, a.Err.Error(), secret)
		assert.Zero(t, a.StatusCode)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	assert.NotContains(t, strings.Join(w.shown, "\n"), secret)
}
