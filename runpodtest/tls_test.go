package runpodtest_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

// TestTLS: with WithTLS the hosts are https, the fake's own client speaks
// HTTP/2 to them and the SDK runs a job through it; a client of one's own
// that trusts CertPool and leaves HTTP/2 off speaks HTTP/1.1 over TLS.
func TestTLS(t *testing.T) {
	srv := newServer(t, runpodtest.WithTLS())
	assert.True(t, strings.HasPrefix(srv.URL, "https://127.0.0.1:"), srv.URL)
	assert.True(t, strings.HasPrefix(srv.InferenceURL, "https://localhost:"), srv.InferenceURL)
	assert.True(t, strings.HasPrefix(srv.S3URL, "https://"), srv.S3URL)
	srv.HandleQueue("ep", echo)

	get := func(hc *http.Client) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.InferenceURL+"/v2/ep/health", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp
	}
	resp := get(srv.Client())
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "HTTP/2.0", resp.Proto)
	require.NotNil(t, resp.TLS)

	h1 := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CertPool(), MinVersion: tls.VersionTLS12}}
	defer h1.CloseIdleConnections()
	resp = get(&http.Client{Transport: h1})
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "HTTP/1.1", resp.Proto)

	rp, err := srv.NewClient()
	require.NoError(t, err)
	job, err := rp.Serverless.Queue("ep").RunSync(t.Context(), serverless.RunParams{Input: 1}, serverless.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, job.Status)
	assert.Nil(t, newServer(t).CertPool(), "no certificate without WithTLS")
}
