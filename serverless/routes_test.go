package serverless_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// TestRoutes: every request names its route template, never its path
// with the ids in it, for middleware, attempt hooks and logs.
func TestRoutes(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	// Jobs end once a status-sync request is on its way, so that Wait
	// long-polls.
	release := make(chan struct{})
	var once sync.Once
	srv, rp, _ := fake(t, option.WithAttemptHook(func(_ context.Context, a option.Attempt) {
		mu.Lock()
		seen[a.Method+" "+a.Route] = true
		mu.Unlock()
	}), option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if option.Route(req.Context()) == "/v2/{endpointId}/status-sync/{jobId}" {
			once.Do(func() { close(release) })
		}
		return next(req)
	}))
	srv.HandleQueue("ep1", func(ctx context.Context, job *worker.Job) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return echo(ctx, job)
	})
	srv.HandleLoadBalancer("lb1", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	ctx := t.Context()

	q := rp.Serverless.Queue("ep1")
	job, err := q.Run(ctx, serverless.RunParams{Input: echoIn{Prompt: "hi"}})
	require.NoError(t, err)
	_, err = q.Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	_, err = q.RunSync(ctx, serverless.RunParams{Input: echoIn{Prompt: "hi"}}, serverless.WaitOptions{})
	require.NoError(t, err)
	_, err = q.Cancel(ctx, job.ID)
	require.NoError(t, err)
	for range q.Stream(ctx, job.ID) {
	}
	_, err = q.Purge(ctx)
	require.NoError(t, err)
	_, err = q.Health(ctx)
	require.NoError(t, err)

	ep, err := rp.Serverless.Endpoints.Create(ctx, restSpec())
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.Get(ctx, ep.ID)
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.List(ctx)
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.Workers(ctx, ep.ID)
	require.NoError(t, err)
	// The fake serves no GraphQL API here (runpodtest/fakegraphql): it
	// answers 410 as the retired platform will, and the attempt is named.
	_, err = graphqlendpoints.NewFromConfig(rp.Config()).List(ctx)
	require.ErrorIs(t, err, errs.ErrGraphQLRetired)
	_, err = rp.Serverless.LoadBalancer("lb1").Do(ctx, serverless.LBParams{Path: "/generate"})
	require.NoError(t, err)

	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{
		"POST /v2/{endpointId}/run",
		"POST /v2/{endpointId}/runsync",
		"GET /v2/{endpointId}/status/{jobId}",
		"GET /v2/{endpointId}/status-sync/{jobId}",
		"POST /v2/{endpointId}/cancel/{jobId}",
		"GET /v2/{endpointId}/stream/{jobId}",
		"POST /v2/{endpointId}/purge-queue",
		"GET /v2/{endpointId}/health",
		"POST /v2/serverless",
		"GET /v2/serverless/{endpointId}",
		"GET /v2/serverless",
		"GET /v2/serverless/{endpointId}/workers",
		"POST /graphql",
		"GET /{path}",
	} {
		assert.True(t, seen[want], "no attempt named %q; saw %v", want, seen)
	}
	assert.Len(t, seen, 14, "no other route: %v", seen)
}
