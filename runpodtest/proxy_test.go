package runpodtest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

// TestLoadBalancerNotThroughAProxy (issue 26, item 13): with HTTP_PROXY
// and HTTPS_PROXY set to an address that refuses every connection, the
// clients the fake gives (NewClient, and runpod.NewClient with
// ClientOptions) reach a load balancer at <id>.localhost, a name Go's
// proxy rules do not exempt, without the proxy: WaitReady sees it ready
// and Do reaches the handler. A load balancer that never becomes ready
// keeps WaitReady waiting until its context ends, with every check
// answered by the fake (initializing, where a proxy's refusal would be
// unhealthy).
func TestLoadBalancerNotThroughAProxy(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:9")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:9")
	t.Setenv("http_proxy", "http://127.0.0.1:9")
	t.Setenv("https_proxy", "http://127.0.0.1:9")
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	srv := newServer(t)
	tr, ok := srv.Client().Transport.(*http.Transport)
	require.True(t, ok)
	assert.Nil(t, tr.Proxy, "the fake's transport never asks the environment for a proxy")

	own, err := srv.NewClient()
	require.NoError(t, err)
	users, err := runpod.NewClient(srv.ClientOptions()...)
	require.NoError(t, err)
	for name, rp := range map[string]*runpod.Client{"NewClient": own, "runpod.NewClient(ClientOptions)": users} {
		id := "lbproxy" + fmt.Sprint(len(name))
		lb := srv.HandleLoadBalancer(id, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = fmt.Fprint(w, "hello from "+r.URL.Path)
		}))
		client := rp.Serverless.LoadBalancer(id)
		// Through the proxy, every check would be unhealthy, forever: a
		// few end the wait, and the test, instead of hanging.
		ctx, cancel := context.WithCancel(t.Context())
		notReady := 0
		err := client.WaitReady(ctx, option.Poll[serverless.PingState]{OnCheck: func(s serverless.PingState) {
			if s != serverless.PingStateReady {
				if notReady++; notReady == 5 {
					cancel()
				}
			}
		}})
		cancel()
		require.NoError(t, err, name)
		resp, err := client.Do(t.Context(), serverless.LBParams{Path: "/greet"})
		require.NoError(t, err, name)
		assert.Equal(t, "hello from /greet", string(resp.Body), name)

		lb.SetPing(serverless.PingStateInitializing)
		ctx, cancel = context.WithCancel(t.Context())
		var seen []serverless.PingState
		err = client.WaitReady(ctx, option.Poll[serverless.PingState]{OnCheck: func(s serverless.PingState) {
			if seen = append(seen, s); len(seen) == 3 {
				cancel()
			}
		}})
		cancel()
		require.ErrorIs(t, err, context.Canceled, name)
		assert.Equal(t, []serverless.PingState{serverless.PingStateInitializing, serverless.PingStateInitializing, serverless.PingStateInitializing}, seen,
			"%s: every check reached the fake", name)
	}
	assert.Zero(t, srv.Count(runpodtest.RouteLoadBalancer("nope")))
}
