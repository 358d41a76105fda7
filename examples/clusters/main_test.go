package main

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestClustersOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-type", "slurm", "-pods", "3"}, &out))
	got := out.String()
	assert.Contains(t, got, "1. clusters on the account: 1")
	assert.Regexp(t, demo.DemoCluster+` slurm-demo +SLURM +2 x 8 NVIDIA H100 80GB HBM3, RUNNING 2`, got)
	assert.Regexp(t, `2\. created cluster [a-z0-9]{14} \(SLURM, 3 pods x 1 NVIDIA H100 80GB HBM3, \$\d+\.\d\d/h for all its pods\)`, got)
	assert.Contains(t, got, "PROVISIONING 3")
	assert.Contains(t, got, "RUNNING 3")
	assert.Regexp(t, `rank 0 SLURM_CONTROLLER +[a-z0-9]{14} RUNNING on 10\.65\.0\.2`, got)
	assert.Regexp(t, `rank 2 SLURM_COMPUTE +[a-z0-9]{14} RUNNING on 10\.65\.0\.4`, got)
	assert.Regexp(t, `4\. primary [a-z0-9]{14}: ssh root@203\.0\.113\.\d+ -p \d+`, got)
	assert.Contains(t, got, "5. renamed to runpod-go-example-renamed")
	assert.Contains(t, got, "6. deleted, with its 3 pods")

	left := srv.Clusters()
	require.Len(t, left, 1, "the example's cluster is gone")
	assert.Equal(t, demo.DemoCluster, left[0].ID)
	assert.Len(t, srv.Pods(), 3, "the demo pod and the demo cluster's two")
}

// TestDeletedAfterAFailure: a failure after the create still deletes the
// cluster, and so its pods.
func TestDeletedAfterAFailure(t *testing.T) {
	srv := demotest.Fake(t)
	srv.FailNext(runpodtest.RouteUpdateCluster, 1, runpodtest.Fault{Status: http.StatusBadRequest})
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "rename")
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.Equal(t, 1, srv.Count(runpodtest.RouteDeleteCluster))
	require.Len(t, srv.Clusters(), 1)
	assert.Equal(t, demo.DemoCluster, srv.Clusters()[0].ID)
}

func TestConfirmRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-confirm")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "a missing -confirm is a usage error, found before connecting")
}

// TestUsage: flag values the platform would refuse are usage errors,
// found before anything is sent.
func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run,
		[]string{"-pods", "1"},
		[]string{"-pods", "251"},
		[]string{"-gpus-per-pod", "0"},
		[]string{"-type", "k8s"},
		[]string{"-gpu", ""},
		[]string{"-timeout", "0s"},
		[]string{"-confirm", "yes"},
	)
}
