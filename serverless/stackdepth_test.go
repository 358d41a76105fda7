package serverless_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// maxSDKFrames is the most frames of the SDK's own code between an
// exported method and the base RoundTripper.
const maxSDKFrames = 5

// depthRecorder is the base RoundTripper of TestStackDepth: it counts the
// frames of the SDK's own code (not its tests) that lead to each request,
// keeps the deepest by method and path, and sends the request on.
type depthRecorder struct {
	base   http.RoundTripper
	mu     sync.Mutex
	depth  map[string]int
	stack  map[string][]string
	onSend func(r *http.Request)
}

func (d *depthRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	pc := make([]uintptr, 128)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	var sdk []string
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/runpodkit/runpod-go/") && !strings.HasSuffix(f.File, "_test.go") {
			sdk = append(sdk, f.Function)
		}
		if !more {
			break
		}
	}
	route := r.Method + " " + r.URL.Path
	d.mu.Lock()
	if len(sdk) > d.depth[route] {
		d.depth[route], d.stack[route] = len(sdk), sdk
	}
	onSend := d.onSend
	d.mu.Unlock()
	if onSend != nil {
		onSend(r)
	}
	return d.base.RoundTrip(r)
}

// frames returns the deepest count recorded for a method and a path that
// contains path, with the SDK frames of that request.
func (d *depthRecorder) frames(t *testing.T, method, path string) (int, []string) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for route, n := range d.depth {
		if m, p, _ := strings.Cut(route, " "); m == method && strings.Contains(p, path) {
			return n, d.stack[route]
		}
	}
	t.Fatalf("no %s request to %s was sent; saw %v", method, path, d.depth)
	return 0, nil
}

// TestStackDepth: a POST with a body (Queue.Run), a GET (Endpoints.Get)
// and the status-sync long poll of Queue.Wait and RunSync go from the
// exported method to the base RoundTripper through at most maxSDKFrames
// frames of the SDK's code.
func TestStackDepth(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	srv.AddTemplate("tmpl-1")
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "depth", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}})

	// A job ends once its status-sync request has been sent, so that Wait
	// and RunSync long-poll it.
	release := make(chan struct{}, 1)
	srv.HandleQueue("ep1", func(ctx context.Context, _ *worker.Job) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return map[string]bool{"ok": true}, nil
	})
	rec := &depthRecorder{base: srv.Client().Transport, depth: map[string]int{}, stack: map[string][]string{},
		onSend: func(r *http.Request) {
			if strings.Contains(r.URL.Path, "/status-sync/") {
				select {
				case release <- struct{}{}:
				default:
				}
			}
		}}
	cfg, err := option.NewConfig(append(srv.ClientOptions(), option.WithHTTPClient(&http.Client{Transport: rec}))...)
	require.NoError(t, err)
	sl := serverless.NewFromConfig(cfg)
	q := sl.Queue("ep1")
	ctx := t.Context()

	job, err := q.Run(ctx, serverless.RunParams{Input: map[string]string{"prompt": "hi"}})
	require.NoError(t, err)
	n, stack := rec.frames(t, http.MethodPost, "/ep1/run")
	assert.LessOrEqual(t, n, maxSDKFrames, "Queue.Run: %v", stack)

	_, err = q.Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	n, stack = rec.frames(t, http.MethodGet, "/status-sync/")
	assert.LessOrEqual(t, n, maxSDKFrames, "Queue.Wait's status-sync: %v", stack)

	rec.mu.Lock()
	clear(rec.depth)
	rec.mu.Unlock()
	_, err = q.RunSync(ctx, serverless.RunParams{Input: map[string]string{"prompt": "hi"}}, serverless.WaitOptions{IDFirst: true})
	require.NoError(t, err)
	n, stack = rec.frames(t, http.MethodGet, "/status-sync/")
	assert.LessOrEqual(t, n, maxSDKFrames, "Queue.RunSync's status-sync: %v", stack)

	_, err = sl.Endpoints.Get(ctx, id)
	require.NoError(t, err)
	n, stack = rec.frames(t, http.MethodGet, "/v2/serverless/")
	assert.LessOrEqual(t, n, maxSDKFrames, "Endpoints.Get: %v", stack)
	t.Logf("deepest by route: %v", rec.depth)
}
