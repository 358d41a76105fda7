package pods_test

import (
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// sdk is the prefix of the functions of the SDK's own code.
const sdk = "github.com/runpodkit/runpod-go/"

// stackRecorder is a base RoundTripper that records, for each request,
// the frames of the SDK's own code (tests left out) on the stack that
// sent it, then forwards the request.
type stackRecorder struct {
	base http.RoundTripper

	mu     sync.Mutex
	frames map[string][]string // by "METHOD path"
}

func (r *stackRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	pcs := make([]uintptr, 256)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	var own []string
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, sdk) && !strings.HasSuffix(f.File, "_test.go") {
			own = append(own, strings.TrimPrefix(f.Function, sdk))
		}
		if !more {
			break
		}
	}
	r.mu.Lock()
	r.frames[req.Method+" "+req.URL.Path] = own
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// TestStackDepth: from a service method to net/http's base RoundTripper,
// at most 5 frames of the SDK's own code, for a read (Get) and a create
// with a body (Create): the method, at most one helper, and the
// transport.
func TestStackDepth(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	rec := &stackRecorder{base: srv.Client().Transport, frames: map[string][]string{}}
	cfg, err := option.NewConfig(option.WithAPIKey(srv.APIKey), option.WithBaseURL(srv.URL),
		option.WithHTTPClient(&http.Client{Transport: rec}))
	require.NoError(t, err)
	svc := pods.NewFromConfig(cfg)

	p, err := svc.Create(t.Context(), newPod())
	require.NoError(t, err)
	_, err = svc.Get(t.Context(), p.ID)
	require.NoError(t, err)

	for _, call := range []string{"POST /v2/pods", "GET /v2/pods/" + p.ID} {
		frames, ok := rec.frames[call]
		require.True(t, ok, "%s was sent", call)
		require.LessOrEqual(t, len(frames), 5, "%s: the SDK's frames, innermost first:\n%s", call, strings.Join(frames, "\n"))
	}

	// A list, one pod a page: the first page and the next, through List
	// and through the iterator.
	_, err = svc.Create(t.Context(), newPod())
	require.NoError(t, err)
	for name, list := range map[string]func() error{
		"List": func() error {
			_, err := svc.List(t.Context(), pods.ListPodsParams{}, option.WithPageSize(1))
			return err
		},
		"All": func() error {
			for _, err := range svc.All(t.Context(), pods.ListPodsParams{}, option.WithPageSize(1)) {
				if err != nil {
					return err
				}
			}
			return nil
		},
	} {
		delete(rec.frames, "GET /v2/pods")
		require.NoError(t, list(), name)
		frames, ok := rec.frames["GET /v2/pods"]
		require.True(t, ok, "%s was sent", name)
		require.LessOrEqual(t, len(frames), 5, "%s: the SDK's frames, innermost first:\n%s", name, strings.Join(frames, "\n"))
	}
}
