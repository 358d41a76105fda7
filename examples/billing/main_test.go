package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestTableAndChartOffline(t *testing.T) {
	demotest.Offline(t)
	chart := filepath.Join(t.TempDir(), "spend.svg")
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-last", "7", "-chart", chart}, &out))
	got := out.String()
	assert.Contains(t, got, "running against the built-in fake platform")
	assert.Contains(t, got, "Serverless spend, day buckets")
	for _, id := range demo.DemoEndpoints {
		assert.Contains(t, got, id)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	assert.Regexp(t, `^\s+total(\s+\$\d+\.\d\d){4}$`, lines[len(lines)-3], "a totals row with one cell per endpoint and the grand total")
	assert.Len(t, regexp.MustCompile(`(?m)^\s+\d{4}-\d\d-\d\d\s`).FindAllString(got, -1), 7, "one row per day")
	assert.NotContains(t, got, "warning", "the report reconciles")

	f, err := os.Open(chart)
	require.NoError(t, err)
	defer f.Close()
	rects, texts := 0, 0
	dec := xml.NewDecoder(f)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the chart is well-formed XML")
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "rect":
				rects++
			case "text":
				texts++
			}
		}
	}
	assert.GreaterOrEqual(t, rects, 7*3, "a bar segment per endpoint per day")
	assert.Greater(t, texts, 10)
}

func TestFilterAndBuckets(t *testing.T) {
	demotest.Offline(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-bucket", "week", "-last", "2", "-endpoint", demo.DemoEndpoints[1]}, &out))
	got := out.String()
	assert.Contains(t, got, "week buckets")
	assert.Contains(t, got, demo.DemoEndpoints[1])
	assert.NotContains(t, got, demo.DemoEndpoints[0])

	out.Reset()
	require.NoError(t, run(t.Context(), []string{"-bucket", "hour", "-since", "2001-01-01", "-until", "2001-01-02"}, &out))
	assert.Contains(t, out.String(), "No serverless spend in this window.")
}

func TestBadFlags(t *testing.T) {
	bad := [][]string{{"-last", "0"}, {"-last", "-2"}, {"-since", "soon"}, {"-bucket", "fortnight"},
		{"-last", "3", "-since", "2026-01-01"}, {"-since", "2026-02-01", "-until", "2026-01-01"}}
	demotest.CheckUsage(t, run, append(bad,
		[]string{"-last", "3", "extra"},
		// A chart of 8760 hourly bars is not drawn.
		[]string{"-bucket", "hour", "-last", "8760", "-chart", filepath.Join(t.TempDir(), "c.svg")},
	)...)
	for _, args := range bad {
		var ve *errs.ValidationError
		require.ErrorAs(t, run(t.Context(), args, io.Discard), &ve, "the usage error keeps the validation error: %v", args)
	}
}

// TestUnknownEndpoint (issue 26, item 16): -endpoint naming no endpoint
// is an error (exit 1), not a table of $0.00.
func TestUnknownEndpoint(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	err := run(t.Context(), []string{"-endpoint", "nope"}, &out)
	require.ErrorContains(t, err, "-endpoint nope: no such serverless endpoint")
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.NotContains(t, out.String(), "$0.00")
	assert.Zero(t, srv.Count(runpodtest.RouteBillingServerless), "no report asked for")
}

// TestFlagNamedInErrors (issue 26, items 16 and 17): a refused -last
// names the flag, not "n"; -until needs -since.
func TestFlagNamedInErrors(t *testing.T) {
	demotest.Fake(t)
	err := run(t.Context(), []string{"-bucket", "year", "-last", "3000"}, io.Discard)
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "-last", ve.Field)
	assert.NotContains(t, err.Error(), "invalid n:")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err))

	err = run(t.Context(), []string{"-until", "2026-01-01"}, io.Discard)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "-since", ve.Field)
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err))
}
