package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestVolumesOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Contains(t, got, "1. network volumes: 2\n")
	assert.Regexp(t, `k7m2q9x4vd training-data +500 GB +US-KS-2 +HIGH_PERFORMANCE`, got)
	assert.Regexp(t, `p3n8w5c1ra model-cache +100 GB +EU-RO-1 +STANDARD`, got)
	assert.Regexp(t, `2\. created volume [a-z0-9]{10} \(runpod-go-example, 10 GB in EU-RO-1, STANDARD\)`, got)
	assert.Contains(t, got, "3. grown to 20 GB\n")
	assert.Contains(t, got, "4. shrinking back to 10 GB is refused (400): $.size: ")
	assert.Contains(t, got, "5. uploaded 4 file(s), ")
	assert.Contains(t, got, "to s3://")
	assert.Regexp(t, `runpod-go-example/data/train.txt +3800 bytes  \(on a pod: /workspace/runpod-go-example/data/train.txt\)`, got)
	assert.Contains(t, got, "6. listed 4 entries under runpod-go-example/\n")
	assert.Regexp(t, `7\. downloaded runpod-go-example/\S+ \(\d+ bytes, ETag [0-9a-f]{32}\)`, got)
	assert.Contains(t, got, "8. synced back: 4 file(s) downloaded; a second sync would change 0\n")
	assert.Contains(t, got, "9. deleted\n")
	assert.Len(t, srv.NetworkVolumes(), 2, "the example's volume is gone; the demo account's stay")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteDeleteNetworkVolume), "deleted once")
}

func TestFlags(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-dc", "US-TX-3", "-size", "40", "-type", "HIGH_PERFORMANCE"}, &out))
	got := out.String()
	assert.Regexp(t, `40 GB in US-TX-3, HIGH_PERFORMANCE\)`, got)
	assert.Contains(t, got, "3. grown to 80 GB\n", "-grow defaults to twice -size")
	assert.Contains(t, got, "5-8. files skipped: runpod: network volume ", "US-TX-3 has no S3 API")

	out.Reset()
	require.NoError(t, run(t.Context(), []string{"-size", "30", "-grow", "30"}, &out))
	assert.NotContains(t, out.String(), "4. ", "no shrink to show when the volume did not grow")

	// A data center the platform does not know: a failure, nothing left.
	err := run(t.Context(), []string{"-dc", "XX-NOPE-9"}, &bytes.Buffer{})
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.Len(t, srv.NetworkVolumes(), 2)
}

// TestDeletedAfterAFailure: when the grow fails, the volume is deleted
// all the same.
func TestDeletedAfterAFailure(t *testing.T) {
	srv := demotest.Fake(t)
	srv.FailNext(runpodtest.RouteUpdateNetworkVolume, 10, runpodtest.Fault{Status: 500})
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "grow")
	assert.Len(t, srv.NetworkVolumes(), 2, "the example's volume was deleted")
}

func TestConfirmRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-confirm")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "a missing -confirm is a usage error, found before connecting")
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run,
		[]string{"-size", "9"}, []string{"-size", "4097"}, []string{"-dc", ""}, []string{"-type", "FAST"},
		[]string{"-size", "50", "-grow", "40"}, []string{"-grow", "5000"}, []string{"-confirm", "yes"}, []string{"-dir", "/no/such/dir"})
}
