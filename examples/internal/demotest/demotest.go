// Package demotest holds what the examples' tests share: an offline
// environment, a handle on the fake an example's run connects to, and the
// check that every example treats a bad command line as a usage error.
package demotest

import (
	"bytes"
	"context"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// Run is an example's run function.
type Run func(ctx context.Context, args []string, w io.Writer) error

// Offline clears, for the test, every RUNPOD_* variable the SDK's client
// reads, so that demo.Connect uses the fake.
func Offline(t testing.TB) {
	t.Helper()
	for _, name := range []string{option.EnvAPIKey, option.EnvBaseURL, option.EnvInferenceURL, option.EnvProxyHost} {
		t.Setenv(name, "")
	}
}

// Fake makes the test offline and starts the fake its example's runs
// will connect to (demo.NewFake with opts), so the test can inject faults
// before a run and count requests after it. The runs' sessions leave it
// open; the test's cleanup closes it.
func Fake(t testing.TB, opts ...runpodtest.Option) *runpodtest.Server {
	t.Helper()
	Offline(t)
	srv := demo.NewFake(opts...)
	prev := demo.StartFake
	demo.StartFake = func() (*runpodtest.Server, func()) { return srv, func() {} }
	t.Cleanup(func() {
		demo.StartFake = prev
		srv.Close()
	})
	return srv
}

// CheckUsage checks an example's command-line handling through its run:
// -h prints the flags and is no error (exit 0); an unknown flag, a stray
// positional argument and each of bad (more bad command lines of the
// example's own) are usage errors (exit 2) that reach the fake with no
// request at all.
func CheckUsage(t *testing.T, run Run, bad ...[]string) {
	t.Helper()
	srv := Fake(t)
	var help bytes.Buffer
	err := run(t.Context(), []string{"-h"}, &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Equal(t, demo.ExitOK, demo.ExitCode(err))
	assert.Contains(t, help.String(), "Usage of ")

	cases := append([][]string{{"--bogus"}, {"stray"}}, bad...)
	for _, args := range cases {
		err := run(t.Context(), args, io.Discard)
		var ue *demo.UsageError
		require.ErrorAs(t, err, &ue, "%q", args)
		assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "%q", args)
	}
	assert.Zero(t, srv.Count("*"), "a bad command line sends nothing")
}
