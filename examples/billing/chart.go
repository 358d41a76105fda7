package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/runpodkit/runpod-go/billing"
)

// Chart geometry, in SVG user units.
const (
	chartHeight = 360
	marginLeft  = 70
	marginRight = 190
	marginTop   = 40
	marginBot   = 70
	barSlot     = 22
)

var palette = []string{"#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d"}

// writeChart draws spend per bucket as stacked bars, one colour per
// endpoint, with a y axis in dollars, dated x labels and a legend.
func writeChart(w io.Writer, rep *billing.ListServerlessBillingResponse) error {
	groups := billing.ByBucket(rep.Records)
	endpoints := billing.Resources(rep.Records)
	colour := map[string]string{}
	for i, id := range endpoints {
		colour[id] = palette[i%len(palette)]
	}
	peak := 0.0
	for _, g := range groups {
		peak = math.Max(peak, g.Total.Float64())
	}
	top, step := axis(peak)
	plotH := float64(chartHeight - marginTop - marginBot)
	width := marginLeft + marginRight + barSlot*max(len(groups), 1)
	y := func(v float64) float64 { return marginTop + plotH - plotH*v/top }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, chartHeight, width, chartHeight)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	q := rep.Metadata.Query
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">Serverless spend per %s (USD), %s to %s</text>`+"\n",
		marginLeft, q.BucketSize, q.StartTime.Format("2006-01-02"), q.EndTime.Format("2006-01-02"))
	for v := 0.0; v <= top+step/2; v += step {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", marginLeft, width-marginRight, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">$%s</text>`+"\n", marginLeft-6, y(v)+4, trim(v))
	}
	layout := bucketLayout(q.BucketSize)
	labelEvery := max(1, len(groups)/12)
	for i, g := range groups {
		x := float64(marginLeft + i*barSlot + 3)
		base := 0.0
		for _, r := range g.Records {
			amount := r.TotalAmount.Float64()
			if amount <= 0 {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s: $%.2f</title></rect>`+"\n",
				x, y(base+amount), barSlot-6, y(base)-y(base+amount), colour[r.ServerlessID],
				html.EscapeString(r.ServerlessID), g.Range.StartTime.Format(layout), amount)
			base += amount
		}
		if i%labelEvery == 0 {
			lx, ly := x+float64(barSlot-6)/2, float64(chartHeight-marginBot+14)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" transform="rotate(-45 %.1f %.1f)">%s</text>`+"\n",
				lx, ly, lx, ly, g.Range.StartTime.Format(layout))
		}
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", marginLeft, width-marginRight, y(0), y(0))
	for i, id := range endpoints {
		lx, ly := width-marginRight+16, marginTop+i*20
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			lx, ly, colour[id], lx+18, ly+10, html.EscapeString(id))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

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

func trim(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	return strings.TrimSuffix(strings.TrimSuffix(s, "0"), ".0")
}
