package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
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

// TestBatchOffline: on the fake, a batch of 20 runs to its end, its
// progress shows, its results are read in pages of 8 (three), and the
// request with an empty prompt is shown failed.
func TestBatchOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Regexp(t, `1\. created batch batch_\w+ "runpod-go-batch-example" \(DRAFT\) with 20 requests`, got)
	assert.Contains(t, got, "2. finalized: FINALIZED")
	assert.Contains(t, got, "   20/20 ended (19 completed, 1 failed), 0 running\n")
	assert.Contains(t, got, "   done: 19 completed, 1 failed of 20\n")
	assert.Regexp(t, `req_\w+ COMPLETED in [\d.]+m?s: \{"text":"You said: summarise item 1","tokens":5\}`, got)
	assert.Contains(t, got, "   … 20 requests read\n")
	assert.Regexp(t, `failed request req_\w+ \(FAILED\): input must be \{"prompt": "<text>"\}\n$`, got)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteBatchCreate))
	assert.Equal(t, 3, srv.Count(runpodtest.RouteBatchResults), "pages of 8, 8 and 4")
	assert.Zero(t, srv.Count(runpodtest.RouteBatchCancel))
}

// TestInterruptedWaitCancels: a wait cut short (Ctrl-C) cancels the
// batch, so no billed work is left queued.
func TestInterruptedWaitCancels(t *testing.T) {
	srv := demotest.Fake(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &cancelOn{text: "3. waiting", cancel: cancel}
	err := run(ctx, []string{"-n", "50"}, w)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.Contains(t, w.String(), "   cancelled batch batch_")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteBatchCancel))
}

// cancelOn is a writer that calls cancel once text has been written.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	text   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.text) {
		c.cancel()
	}
	return n, err
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run,
		[]string{"-n", "0"},
		[]string{"-page", "0"},
		[]string{"-interval", "-1s"},
		// Refused by the SDK before sending: exit 2.
		[]string{"-n", "5001"},
		[]string{"-endpoint", " "})
}

func TestOnlineNeedsEndpointAndConfirm(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	t.Setenv(option.EnvInferenceURL, "https://api.invalid")
	err := run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-endpoint is required")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "found before connecting")
	err = run(t.Context(), []string{"-endpoint", "ep1"}, &bytes.Buffer{})
	require.ErrorContains(t, err, "run again with -confirm")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err))
}
