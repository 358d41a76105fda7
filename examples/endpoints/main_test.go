package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var progressLine = regexp.MustCompile(`(?m)^4\. scaled to zero: (\d+) worker\(s\) left$`)

func TestLifecycleOffline(t *testing.T) {
	demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. created ep\d+ "runpod-go-example"`, got)
	assert.Contains(t, got, "2. the account has 2 endpoint(s) and a SERVERLESS discount (factor 0.90)")
	const kept = "gpus=ADA_24,AMPERE_24 locations=US,RO idleTimeout=30s flashBoot=FLASHBOOT scaler=QUEUE_DELAY/2"
	assert.Contains(t, got, kept+" workers=0..2")
	assert.Contains(t, got, "3. set workersMax to 3; everything else survived:\n   "+kept+" workers=0..3",
		"workersMin stays 0: no billed worker, as the doc comment promises")
	assert.Equal(t, [][]string{{"4. scaled to zero: 0 worker(s) left", "0"}}, progressLine.FindAllStringSubmatch(got, -1),
		"the count never changed, so it is shown once")
	assert.Regexp(t, `5\. deleted ep\d+`, got)
}

func TestProgressOnlyOnChange(t *testing.T) {
	// With a worker that lingers 1.5 s after the scale-down and a check
	// every 100 ms, the count is read as 1 many times, then as 0.
	demotest.Fake(t, runpodtest.WithWorkerDrain(1500*time.Millisecond))
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-workers-min", "1"}, &out))
	got := out.String()
	assert.Contains(t, got, "3. set workersMax to 3 and workersMin to 1; everything else survived")
	assert.Contains(t, got, "workers=1..3")
	assert.Equal(t, [][]string{
		{"4. scaled to zero: 1 worker(s) left", "1"},
		{"4. scaled to zero: 0 worker(s) left", "0"},
	}, progressLine.FindAllStringSubmatch(got, -1), "one line per count, however many checks saw it")
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
	demotest.CheckUsage(t, run, []string{"-workers-min", "4"}, []string{"-workers-min", "-1"}, []string{"-name", "x", "extra"})
}

func TestTemplateRequiredOnline(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(runpod.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(runpod.EnvBaseURL, "https://api.invalid")
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
	assert.Contains(t, got, "workers=0..3\n   release version 2 (MANUAL): workers.max 2 -> 3\n   workers: none; the endpoint is at version 2\n4. ")
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
	assert.Equal(t, 1, srv.Count(runpodtest.RouteEndpointWorkers))
	assert.Equal(t, 1, srv.Count(runpodtest.RouteEndpointReleases))
}

func TestLogWaitUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-log-wait", "0s"}, []string{"-log-wait", "2m"}, []string{"-log-wait", "soon"})
}
