package serverless_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// fake returns a fake platform with two templates and two network
// volumes, and a client of it logging to lines.
func fake(t *testing.T, opts ...option.RequestOption) (*runpodtest.Server, *runpod.Client, *testkit.Lines) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithWorkerDrain(50*time.Millisecond))
	t.Cleanup(srv.Close)
	srv.AddTemplate("tmpl-1", "tmpl-2")
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-1"})
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-2"})
	log, lines := testkit.Logger()
	rp, err := srv.NewClient(append([]option.RequestOption{option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp, lines
}

// scriptedClient returns a client whose requests rt answers.
func scriptedClient(t *testing.T, rt http.RoundTripper) *runpod.Client {
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"),
		option.WithBaseURL("https://api.example.test"), option.WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	return rp
}
