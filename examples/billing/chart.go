package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/billing"
)

// Chart geometry, in SVG user units. Text is measured, as it cannot be
// without a font, at charWidth (boldWidth for the bold title) times its
// font size per character, generously for a sans-serif font.
const (
	fontSize   = 11.0
	titleSize  = 14.0
	charWidth  = 0.6
	boldWidth  = 0.66
	plotHeight = 240.0
	pad        = 12.0 // around everything
	maxSlot    = 22.0 // the width of one bucket's slot, at most…
	minSlot    = 3.0  // …and at least
	plotTarget = 1000.0
	labelGap   = 12.0 // from the x axis to the x labels' anchors
	swatch     = 12.0 // legend swatches
	legendLine = 20.0
	// maxChartBars is the most buckets a chart draws: at minSlot, a
	// 4500-unit-wide image.
	maxChartBars = 1500
)

var palette = []string{"#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d"}

// sin45 is sin(45°) = cos(45°): the x labels are rotated by -45°.
var sin45 = math.Sqrt2 / 2

// writeChart draws spend per bucket as stacked bars, one colour per
// endpoint, with a y axis in dollars, dated x labels and a legend. Every
// bucket of the window has its slot, spent in or not. The bucket holding
// now, still open, is hatched and its label starred, and the legend says
// so. The image is as wide as its title, bars and legend need, and as
// tall as its rotated x labels need.
func writeChart(w io.Writer, rep *billing.ListServerlessBillingResponse, now time.Time) error {
	q := rep.Metadata.Query.Query()
	window := q.Range()
	if n := q.BucketSize.Count(window); n > maxChartBars {
		return fmt.Errorf("the window has %d %s buckets; a chart draws at most %d", n, q.BucketSize, maxChartBars)
	}
	buckets := window.Buckets(q.BucketSize)
	spend := map[int64]billing.Group[billing.ServerlessBillingRecord]{}
	for _, g := range billing.ByBucket(rep.Records) {
		spend[g.Range.StartTime.Unix()] = g
	}
	endpoints := billing.Resources(rep.Records)
	colour := map[string]string{}
	for i, id := range endpoints {
		colour[id] = palette[i%len(palette)]
	}
	peak := 0.0
	for _, g := range spend {
		peak = math.Max(peak, g.Total.Float64())
	}
	top, step := axis(peak)

	// Horizontal layout: the slot per bucket, which buckets get a label
	// (far enough apart that rotated labels do not overlap), and what
	// each label says.
	n := max(len(buckets), 1)
	slot := math.Min(maxSlot, math.Max(minSlot, math.Floor(plotTarget/float64(n))))
	barW := math.Max(1, math.Round(slot*0.72))
	every := labelStep(q.BucketSize, math.Ceil(fontSize*1.4/sin45/slot))
	open := -1 // the bucket holding now, if the window has it
	labels := make([]string, len(buckets))
	first := true
	for i, b := range buckets {
		if b.Contains(now) {
			open = i
		}
		if floorMod(bucketIndex(q.BucketSize, b.StartTime), every) == 0 {
			labels[i] = bucketLabel(q.BucketSize, b.StartTime, first)
			first = false
		}
	}
	if open >= 0 && labels[open] != "" {
		labels[open] += "*"
	}

	// Margins from the texts they hold.
	var yLabels []string
	for v := 0.0; v <= top+step/2; v += step {
		yLabels = append(yLabels, "$"+trim(v))
	}
	left := pad + 6 + textWidth(longest(yLabels), fontSize, charWidth)
	labelDown := 0.0
	for i, l := range labels {
		if l == "" {
			continue
		}
		minX, _, _, maxY := rotatedBox(textWidth(l, fontSize, charWidth), fontSize)
		left = math.Max(left, pad-minX-(float64(i)*slot+slot/2)) // the label reaches minX left of its bar's middle
		labelDown = math.Max(labelDown, maxY)
	}
	left = math.Ceil(left)
	plotW := slot * float64(n)
	plotTop := pad + titleSize + 18
	plotBottom := plotTop + plotHeight
	y := func(v float64) float64 { return plotBottom - plotHeight*v/top }

	legend := append([]string(nil), endpoints...)
	openNote := "* current bucket, still open"
	if open >= 0 {
		legend = append(legend, openNote)
	}
	legendX := left + plotW + 24
	legendW := swatch + 6 + textWidth(longest(legend), fontSize, charWidth)
	title := fmt.Sprintf("Serverless spend per %s (USD), %s to %s UTC", q.BucketSize,
		window.StartTime.Format(rangeLayout(q.BucketSize)), window.EndTime.Format(rangeLayout(q.BucketSize)))
	width := math.Ceil(math.Max(legendX+legendW+pad, pad+textWidth(title, titleSize, boldWidth)+pad))
	height := math.Ceil(math.Max(plotBottom+labelGap+labelDown+pad, plotTop+float64(len(legend))*legendLine+pad))

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="%g">`+"\n",
		width, height, width, height, fontSize)
	b.WriteString(`<defs><pattern id="open" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<rect width="3" height="6" fill="white" fill-opacity="0.7"/></pattern></defs>` + "\n")
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="%g" font-weight="bold">%s</text>`+"\n", pad, pad+titleSize, titleSize, html.EscapeString(title))
	for i, l := range yLabels {
		v := float64(i) * step
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, left+plotW, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, l)
	}
	layout := bucketLayout(q.BucketSize)
	for i, bk := range buckets {
		x := left + float64(i)*slot + (slot-barW)/2
		g := spend[bk.StartTime.Unix()]
		base := 0.0
		for _, r := range g.Records {
			amount := r.TotalAmount.Float64()
			if amount <= 0 {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%g" height="%.1f" fill="%s"><title>%s %s: $%.2f</title></rect>`+"\n",
				x, y(base+amount), barW, y(base)-y(base+amount), colour[r.ServerlessID],
				html.EscapeString(r.ServerlessID), bk.StartTime.Format(layout), amount)
			base += amount
		}
		if i == open && base > 0 {
			fmt.Fprintf(&b, `<rect class="open" x="%.1f" y="%.1f" width="%g" height="%.1f" fill="url(#open)" stroke="#555" stroke-dasharray="2 2"><title>%s: $%.2f so far, still open</title></rect>`+"\n",
				x, y(base), barW, y(0)-y(base), bk.StartTime.Format(layout), base)
		}
		if labels[i] != "" {
			lx, ly := left+float64(i)*slot+slot/2, plotBottom+labelGap
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" transform="rotate(-45 %.1f %.1f)">%s</text>`+"\n",
				lx, ly, lx, ly, labels[i])
		}
	}
	fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, left+plotW, y(0), y(0))
	for i, id := range legend {
		ly := plotTop + float64(i)*legendLine
		if id == openNote {
			fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="#999" stroke="#555" stroke-dasharray="2 2"/>`+
				`<rect x="%g" y="%g" width="%g" height="%g" fill="url(#open)"/>`, legendX, ly, swatch, swatch, legendX, ly, swatch, swatch)
		} else {
			fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="%s"/>`, legendX, ly, swatch, swatch, colour[id])
		}
		fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`+"\n", legendX+swatch+6, ly+10, html.EscapeString(id))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// textWidth estimates how wide s is at a font size.
func textWidth(s string, size, perChar float64) float64 {
	return float64(len([]rune(s))) * size * perChar
}

// rotatedBox returns the extent of a text of width wide, anchored at its
// end and rotated by -45° about the anchor, relative to the anchor: the
// glyphs span from size above the baseline to 0.3 size below it.
func rotatedBox(wide, size float64) (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, dx := range []float64{-wide, 0} {
		for _, dy := range []float64{-size, 0.3 * size} {
			// rotate(-45): x' = cos·dx + sin·dy, y' = -sin·dx + cos·dy
			rx, ry := sin45*(dx+dy), sin45*(dy-dx)
			minX, maxX = math.Min(minX, rx), math.Max(maxX, rx)
			minY, maxY = math.Min(minY, ry), math.Max(maxY, ry)
		}
	}
	return minX, minY, maxX, maxY
}

// longest returns the longest of ss.
func longest(ss []string) string {
	l := ""
	for _, s := range ss {
		if len([]rune(s)) > len([]rune(l)) {
			l = s
		}
	}
	return l
}

// labelStep returns how many buckets apart x labels go: at least need,
// rounded up to a step that reads well for the bucket size (every 6 hours,
// every week, every quarter…).
func labelStep(b billing.BillingBucketSize, need float64) int64 {
	steps := map[billing.BillingBucketSize][]int64{
		billing.BillingBucketSizeHour:  {1, 2, 3, 4, 6, 12, 24},
		billing.BillingBucketSizeDay:   {1, 2, 7, 14, 28},
		billing.BillingBucketSizeWeek:  {1, 2, 4, 13, 26, 52},
		billing.BillingBucketSizeMonth: {1, 2, 3, 6, 12},
		billing.BillingBucketSizeYear:  {1, 2, 5, 10},
	}[b]
	if len(steps) == 0 {
		steps = []int64{1}
	}
	for _, s := range steps {
		if float64(s) >= need {
			return s
		}
	}
	last := steps[len(steps)-1]
	return last * int64(math.Ceil(need/float64(last)))
}

// bucketIndex numbers buckets so that labels every k buckets fall on
// round times: hours from midnight, days and weeks from a Monday, months
// from January.
func bucketIndex(b billing.BillingBucketSize, start time.Time) int64 {
	start = start.UTC()
	days := floorDiv(start.Unix(), 86400)
	switch b {
	case billing.BillingBucketSizeHour:
		return floorDiv(start.Unix(), 3600)
	case billing.BillingBucketSizeWeek:
		return floorDiv(days-4, 7) // 1970-01-05 was a Monday
	case billing.BillingBucketSizeMonth:
		return int64(start.Year())*12 + int64(start.Month()) - 1
	case billing.BillingBucketSizeYear:
		return int64(start.Year())
	default:
		return days + 3 // 1970-01-01 was a Thursday
	}
}

// bucketLabel is a bucket's x label: its start as precisely as its size
// needs, and for hours the date only on the first label and at midnight.
func bucketLabel(b billing.BillingBucketSize, start time.Time, first bool) string {
	start = start.UTC()
	if b == billing.BillingBucketSizeHour && !first && start.Hour() != 0 {
		return start.Format("15:04")
	}
	return start.Format(bucketLayout(b))
}

// rangeLayout formats the window's ends in the title: with the time of
// day for hourly buckets.
func rangeLayout(b billing.BillingBucketSize) string {
	if b == billing.BillingBucketSizeHour {
		return "2006-01-02 15:04"
	}
	return time.DateOnly
}

// floorDiv divides, rounding towards minus infinity (windows may start
// before 1970).
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// floorMod is the remainder of floorDiv, never negative for b > 0.
func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// axis returns a round top for the y axis and the step between grid lines.
func axis(peak float64) (top, step float64) {
	if peak <= 0 {
		return 1, 0.25
	}
	raw := peak / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if step = m * mag; step >= raw {
			break
		}
	}
	return math.Ceil(peak/step) * step, step
}

// trim formats a dollar amount for the y axis: 0.25, 1.5, 10.
func trim(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	return strings.TrimSuffix(strings.TrimSuffix(s, "0"), ".0")
}
