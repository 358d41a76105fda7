package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// svgText is a <text> element of the chart, with what decides its extent.
type svgText struct {
	x, y, size float64
	anchor     string
	rotate     float64 // degrees, about (x, y)
	content    string
}

// svgChart is what the tests read back from a chart.
type svgChart struct {
	width, height float64
	texts         []svgText
	openBars      int // bars hatched as the current, open bucket
}

var rotation = regexp.MustCompile(`^rotate\((-?[\d.]+) ([\d.]+) ([\d.]+)\)$`)

// readChart parses the chart at path.
func readChart(t *testing.T, path string) svgChart {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, "%q", s)
		return v
	}
	var c svgChart
	rootSize := 0.0
	dec := xml.NewDecoder(f)
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the chart is well-formed XML")
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch tok.Name.Local {
			case "svg":
				c.width, c.height, rootSize = num(attr["width"]), num(attr["height"]), num(attr["font-size"])
				assert.Equal(t, fmt.Sprintf("0 0 %s %s", attr["width"], attr["height"]), attr["viewBox"], "the viewBox is the image's size")
			case "rect":
				if attr["fill"] == "url(#open)" && attr["class"] == "open" {
					c.openBars++
				}
			case "text":
				cur = &svgText{x: num(attr["x"]), y: num(attr["y"]), size: rootSize, anchor: attr["text-anchor"]}
				if s, ok := attr["font-size"]; ok {
					cur.size = num(s)
				}
				if tr, ok := attr["transform"]; ok {
					m := rotation.FindStringSubmatch(tr)
					require.NotNil(t, m, "transform %q", tr)
					require.Equal(t, cur.x, num(m[2]), "rotated about the anchor")
					require.Equal(t, cur.y, num(m[3]), "rotated about the anchor")
					cur.rotate = num(m[1])
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.content += string(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "text" && cur != nil {
				c.texts = append(c.texts, *cur)
				cur = nil
			}
		}
	}
	return c
}

// extent estimates where a text's glyphs fall: chars × font size × 0.6
// wide, from a font size above the baseline to 0.3 of it below, placed by
// its anchor, then rotated about (x, y).
func (s svgText) extent() (minX, minY, maxX, maxY float64) {
	w := float64(len([]rune(s.content))) * s.size * 0.6
	x0 := map[string]float64{"": 0, "start": 0, "middle": -w / 2, "end": -w}[s.anchor]
	sin, cos := math.Sincos(s.rotate * math.Pi / 180)
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, dx := range []float64{x0, x0 + w} {
		for _, dy := range []float64{-s.size, 0.3 * s.size} {
			x, y := s.x+cos*dx-sin*dy, s.y+sin*dx+cos*dy
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
			minY, maxY = math.Min(minY, y), math.Max(maxY, y)
		}
	}
	return minX, minY, maxX, maxY
}

func TestChartIsLegible(t *testing.T) {
	// The fake's clock stands still in the middle of an hour, so which
	// bucket is open, and that it has spend, does not depend on when the
	// test runs.
	now := time.Now().UTC().Truncate(time.Hour).Add(30 * time.Minute)
	demotest.Fake(t, runpodtest.WithClock(func() time.Time { return now }))
	day := func(d time.Duration) string { return now.Add(d).Format(time.DateOnly) }
	for _, c := range []struct {
		name string
		args []string
		open bool // the window holds the current bucket
	}{
		{"hour, last 48", []string{"-bucket", "hour", "-last", "48"}, true},
		{"hour, 45 days", []string{"-bucket", "hour", "-since", day(-45 * 24 * time.Hour)}, true},
		{"day, default window", nil, true},
		{"day, last 7", []string{"-last", "7"}, true},
		{"day, in the past", []string{"-since", day(-20 * 24 * time.Hour), "-until", day(-10 * 24 * time.Hour)}, false},
		{"week, last 6", []string{"-bucket", "week", "-last", "6"}, true},
		{"week, last 1", []string{"-bucket", "week", "-last", "1"}, true},
		{"month, last 3", []string{"-bucket", "month", "-last", "3"}, true},
		{"year, last 2", []string{"-bucket", "year", "-last", "2"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "chart.svg")
			require.NoError(t, run(t.Context(), append(c.args, "-chart", path), io.Discard))
			chart := readChart(t, path)

			// Every text is inside the image, rotated or not.
			require.NotEmpty(t, chart.texts)
			for _, s := range chart.texts {
				minX, minY, maxX, maxY := s.extent()
				assert.True(t, minX >= 0 && minY >= 0 && maxX <= chart.width && maxY <= chart.height,
					"%q spans (%.0f,%.0f)-(%.0f,%.0f), outside the %gx%g image", s.content, minX, minY, maxX, maxY, chart.width, chart.height)
			}

			// The x labels (rotated) are far enough apart not to overlap:
			// the gap between parallel -45° baselines is dx·sin 45°.
			var xs []float64
			for _, s := range chart.texts {
				if s.rotate != 0 {
					assert.Equal(t, -45.0, s.rotate)
					xs = append(xs, s.x)
				}
			}
			require.NotEmpty(t, xs, "the x axis is labelled")
			sort.Float64s(xs)
			for i := 1; i < len(xs); i++ {
				assert.GreaterOrEqual(t, (xs[i]-xs[i-1])*math.Sqrt2/2, 11*1.2, "x labels %d and %d overlap", i-1, i)
			}

			title := chart.texts[0].content
			assert.True(t, strings.HasPrefix(title, "Serverless spend per "), title)
			if c.args != nil && c.args[1] == "hour" {
				assert.Regexp(t, `\d{4}-\d\d-\d\d \d\d:00 to \d{4}-\d\d-\d\d \d\d:00 UTC$`, title, "hourly windows show the hours")
			}

			var notes int
			for _, s := range chart.texts {
				if strings.Contains(s.content, "current bucket, still open") {
					notes++
				}
			}
			if c.open {
				assert.Equal(t, 1, chart.openBars, "the current bucket's bar is hatched")
				assert.Equal(t, 1, notes, "and the legend says what hatched means")
			} else {
				assert.Zero(t, chart.openBars)
				assert.Zero(t, notes)
			}
		})
	}
}

// TestWeekTitleFits is the case that used to be cut off: six weekly bars
// made a 392-unit-wide image for a 57-character bold title.
func TestWeekTitleFits(t *testing.T) {
	demotest.Offline(t)
	path := filepath.Join(t.TempDir(), "chart.svg")
	require.NoError(t, run(t.Context(), []string{"-bucket", "week", "-last", "6", "-chart", path}, io.Discard))
	chart := readChart(t, path)
	title := chart.texts[0]
	_, _, maxX, _ := title.extent()
	assert.Greater(t, chart.width, 392.0)
	assert.LessOrEqual(t, maxX, chart.width)
}
