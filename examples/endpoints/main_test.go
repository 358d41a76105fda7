package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var progressLine = regexp.MustCompile(`(?m)^5\. scaled to zero: (\d+) worker\(s\) left$`)

func TestLifecycleOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. applied: created ep\d+ "runpod-go-example"`, got)
	assert.Contains(t, got, "2. the account has 4 endpoint(s)\n")
	const kept = "gpus=ADA_24,AMPERE_24 dataCenters=EU-RO-1,US-KS-2 idleTimeout=30s flashboot=FLASHBOOT scaling=QUEUE_DELAY 2s"
	assert.Contains(t, got, kept+" workers=0..2")
	assert.Contains(t, got, "3. applied a change: workers.max: 2 -> 3; everything else stayed:\n   "+kept+" workers=0..3",
		"workers.min stays 0: no billed worker, as the doc comment promises")
	assert.Contains(t, got, "4. applied again: 0 change(s)\n")
	assert.Equal(t, [][]string{{"5. scaled to zero: 0 worker(s) left", "0"}}, progressLine.FindAllStringSubmatch(got, -1),
		"the count never changed, so it is shown once")
	assert.Regexp(t, `6\. deleted ep\d+`, got)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateEndpoint))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteUpdateEndpoint), "one PATCH for the change, one to scale to zero")
	assert.Zero(t, srv.Count(fakegraphql.Route), "REST v2 only")
}

func TestProgressOnlyOnChange(t *testing.T) {
	demotest.Fake(t, runpodtest.WithWorkerDrain(1500*time.Millisecond))
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-workers-min", "1"}, &out))
	got := out.String()
	assert.Contains(t, got, "3. applied a change: workers.min: 0 -> 1; workers.max: 2 -> 3; everything else stayed")
	assert.Contains(t, got, "workers=1..3")
	assert.Equal(t, [][]string{{"5. scaled to zero: 0 worker(s) left", "0"}}, progressLine.FindAllStringSubmatch(got, -1),
		"workers scaled away are not listed, so the count is 0 at once; one line however many checks saw it")
}

func TestOnChange(t *testing.T) {
	var seen []int
	f := onChange(func(n int) { seen = append(seen, n) })
	for _, n := range []int{2, 2, 2, 1, 1, 2, 0, 0} {
		f(n)
	}
	assert.Equal(t, []int{2, 1, 2, 0}, seen)
	g := onChange(func(n int) { seen = append(seen, n) })
	seen = nil
	g(0)
	assert.Equal(t, []int{0}, seen, "the first value is shown, zero included")
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-workers-min", "4"}, []string{"-workers-min", "-1"}, []string{"-name", "x", "extra"},
		// Refused by the SDK before sending (issue 26, item 15): exit 2.
		[]string{"-name", ""})
}

func TestTemplateRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-template is required")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "checked before connecting")
}

// TestReleaseAndWorkersOffline: step 3 shows the release the change made
// and, with no worker to show, says so.
func TestReleaseAndWorkersOffline(t *testing.T) {
	demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Contains(t, got, "4. applied again: 0 change(s)\n   release version 2 (MANUAL): workers.max 2 -> 3\n   workers: none; the endpoint is at version 2\n5. ")
	assert.NotContains(t, got, "log of worker")
}

// TestWorkerLogOffline: with workers, step 3 lists them and shows the
// first one's log, followed for -log-wait.
func TestWorkerLogOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-workers-min", "2", "-log-wait", "50ms"}, &out))
	got := out.String()
	assert.Contains(t, got, "   release version 2 (MANUAL): workers.min 0 -> 2, workers.max 2 -> 3\n")
	assert.Contains(t, got, "   workers: 2 (2 idle), 100% on version 2\n")
	assert.Regexp(t, `   log of worker (wk\d+) \(the last 5 lines, followed for 50ms\):\n     \d\d:\d\d:\d\d \[system\] worker wk\d+ started\n`, got)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteWorkerLogs))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteEndpointWorkers), "step 4 once, and the drain check of step 5 once")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteEndpointReleases))
}

func TestLogWaitUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-log-wait", "0s"}, []string{"-log-wait", "2m"}, []string{"-log-wait", "soon"})
}
