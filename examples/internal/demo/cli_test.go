package demo

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestExitCode(t *testing.T) {
	ve := &errs.ValidationError{Field: "-duration", Message: "want 5 or 10"}
	for _, c := range []struct {
		name string
		err  error
		code int
	}{
		{"nil", nil, 0},
		{"help", flag.ErrHelp, 0},
		{"usage", Usagef("-size applies to wan-2-5 only"), 2},
		{"wrapped usage", fmt.Errorf("video: %w", Usage(ve)), 2},
		{"failure", errors.New("503 from the platform"), 1},
		{"bare validation error", ve, 1}, // only the command line's mistakes are usage errors
	} {
		assert.Equal(t, c.code, ExitCode(c.err), c.name)
	}
	assert.NoError(t, Usage(nil))
	var got *errs.ValidationError
	require.ErrorAs(t, Usage(ve), &got, "a usage error keeps its cause")
}

func TestReport(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, 2, Report("video", Usagef("bad -size"), &stderr))
	assert.Equal(t, "video: bad -size\nRun video -h to list the flags.\n", stderr.String())

	stderr.Reset()
	assert.Equal(t, 1, Report("video", errors.New("download failed"), &stderr))
	assert.Equal(t, "video: download failed\n", stderr.String())

	stderr.Reset()
	assert.Equal(t, 0, Report("video", nil, &stderr))
	assert.Equal(t, 0, Report("video", flag.ErrHelp, &stderr))
	assert.Empty(t, stderr.String())
}

func TestParse(t *testing.T) {
	newFS := func() *flag.FlagSet {
		fs := flag.NewFlagSet("demo", flag.ContinueOnError)
		fs.Int("n", 1, "how many")
		return fs
	}
	require.NoError(t, Parse(newFS(), []string{"-n", "3"}, io.Discard))

	var help bytes.Buffer
	require.ErrorIs(t, Parse(newFS(), []string{"-h"}, &help), flag.ErrHelp)
	assert.Contains(t, help.String(), "Usage of demo:")
	assert.Contains(t, help.String(), "how many")

	for _, args := range [][]string{{"--bogus"}, {"-n", "x"}, {"extra"}, {"-n", "2", "extra"}} {
		err := Parse(newFS(), args, io.Discard)
		var ue *UsageError
		require.ErrorAs(t, err, &ue, "%q", args)
		assert.Equal(t, ExitUsage, ExitCode(err))
	}
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, IsTerminal(&bytes.Buffer{}))
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, IsTerminal(f), "a regular file")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.False(t, IsTerminal(w), "a pipe")
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	assert.True(t, IsTerminal(null), "a character device")
}

func TestFlagError(t *testing.T) {
	ve := &errs.ValidationError{Field: "CreatePodRequest.Image", Message: "is required"}
	assert.Equal(t, ExitUsage, ExitCode(FlagError(fmt.Errorf("create: %w", ve))))
	assert.Equal(t, ExitFailure, ExitCode(FlagError(errors.New("503"))))
	assert.NoError(t, FlagError(nil))
}
