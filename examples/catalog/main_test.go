package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestCatalogOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-dc", "EU-RO-1, EU-SE-1", "-templates", "community"}, &out))
	got := out.String()
	assert.Contains(t, got, "running against the built-in fake platform")
	assert.Contains(t, got, "1. 6 data centers (* asked for):")
	assert.Regexp(t, `(?m)^  \* EU-RO-1 +EU Romania 1 +EUROPE +yes$`, got)
	assert.Regexp(t, `(?m)^    US-TX-3 +US Texas 3 +NORTH_AMERICA +yes$`, got)
	assert.Contains(t, got, "2. GPU types with at least 48 GB, 1 per pod, in stock in EU-RO-1, EU-SE-1 on secure cloud, cheapest first:")
	assert.Regexp(t, `(?s)RTX A6000 +48 GB +\$0\.49/h per GPU +EU-RO-1 \(MEDIUM\)\n.*L40S +48 GB +\$0\.86/h per GPU +EU-SE-1 \(MEDIUM\), EU-RO-1 \(LOW\)\n.*A100 PCIe.*\n.*H100 SXM +80 GB +\$2\.99/h`, got)
	assert.NotContains(t, got, "MI300X", "only in Texas")
	assert.Contains(t, got, `a pod of the cheapest: GPU.ID "NVIDIA RTX A6000", DataCenterIDs ["EU-RO-1"], $0.49/h for 1`)
	assert.Contains(t, got, "3. 2 community public templates:")
	assert.Regexp(t, `(?m)^   demo-worker-tmpl +serverless +runpod-go demo worker +runpodkit/demo-worker:1\.0$`, got)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteDataCenters))
	assert.Equal(t, 1, srv.Count(runpodtest.RouteGPUTypes))
	assert.Equal(t, 1, srv.Count(runpodtest.RoutePublicTemplates))
}

func TestCommunityCloudAndCount(t *testing.T) {
	demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-memory", "80", "-cloud", "community", "-count", "2", "-max-price", "2"}, &out))
	got := out.String()
	assert.Contains(t, got, "in stock in any data center on community cloud")
	assert.Regexp(t, `A100 PCIe +80 GB +\$1\.19/h per GPU`, got)
	assert.NotContains(t, got, "H100", "above -max-price")
	assert.Contains(t, got, "$2.38/h for 2")
}

func TestNothingFits(t *testing.T) {
	demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-memory", "1000"}, &out))
	assert.Contains(t, out.String(), "none; try less memory")
}

// TestUnknownDataCenter: a typo in -dc is reported, not answered with an
// empty list; the platform is asked (exit 1, not a usage error).
func TestUnknownDataCenter(t *testing.T) {
	srv := demotest.Fake(t)
	err := run(t.Context(), []string{"-dc", "EU-R0-1"}, &bytes.Buffer{})
	require.ErrorContains(t, err, `no data center "EU-R0-1"`)
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.Zero(t, srv.Count(runpodtest.RouteGPUTypes))
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run,
		[]string{"-cloud", "spot"},
		[]string{"-count", "0"},
		[]string{"-memory", "-8"},
		[]string{"-max-price", "-1"},
		[]string{"-templates", "mine"},
		[]string{"-memory", "48", "extra"},
	)
}
