// Command billing prints serverless spend per endpoint and bucket, with a
// totals row, and can draw it as an SVG bar chart. With RUNPOD_API_KEY set
// it reads your account; without it, a demo account on the built-in fake
// platform.
//
//	go run ./examples/billing                        # last 30 days, daily
//	go run ./examples/billing -bucket week -last 6   # last six weeks
//	go run ./examples/billing -since 2026-06-01 -until 2026-06-15 -endpoint <id>
//	go run ./examples/billing -last 14 -chart spend.svg
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
)

func main() { demo.Main(run) }

// run parses args, fetches the report and writes the table (and chart).
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("billing", flag.ContinueOnError)
	bucket := fs.String("bucket", "day", "bucket size: hour, day, week, month or year")
	last := fs.Int("last", 0, "the last N buckets, ending with the current one")
	since := fs.String("since", "", "start of the window: 2006-01-02 or RFC 3339 (default 30 days ago)")
	until := fs.String("until", "", "end of the window, exclusive: 2006-01-02 or RFC 3339 (default now)")
	endpoint := fs.String("endpoint", "", "only this serverless endpoint id")
	chart := fs.String("chart", "", fmt.Sprintf("also write an SVG bar chart of spend per bucket to this file (at most %d buckets)", maxChartBars))
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	p := billing.Params{Bucket: billing.BillingBucketSize(*bucket), LastN: *last, ID: *endpoint}
	var err error
	if p.Start, err = parseTime("-since", *since); err != nil {
		return demo.Usage(err)
	}
	if p.End, err = parseTime("-until", *until); err != nil {
		return demo.Usage(err)
	}
	if *last < 0 || (*last == 0 && demo.IsSet(fs, "last")) {
		return demo.Usage(&errs.ValidationError{Field: "-last", Message: fmt.Sprintf("must be at least 1, got %d", *last)})
	}
	if *last > 0 && (*since != "" || *until != "") {
		return demo.Usage(&errs.ValidationError{Field: "-last", Message: "cannot be combined with -since or -until: give one or the other"})
	}
	if *until != "" && *since == "" {
		return demo.Usage(&errs.ValidationError{Field: "-since", Message: "is required with -until (the default start is 30 days before now, not before -until)"})
	}
	// The window the platform will answer with, checked before asking.
	now := time.Now()
	window, err := p.Resolve(now)
	if err != nil {
		return demo.Usage(flagError(err))
	}
	if n := p.Bucket.Count(window); *chart != "" && n > maxChartBars {
		return demo.Usagef("-chart: the window has %d %s buckets and a chart draws at most %d: use a larger -bucket or a shorter window", n, p.Bucket, maxChartBars)
	}

	s, err := demo.Connect(w, option.WithUserAgent("runpod-billing-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Fake != nil {
		now = s.Fake.Now() // the fake's clock decides which bucket is still open
	}
	if *endpoint != "" {
		// The report answers an id it does not know with no records, which
		// would read as $0.00 of spend: make sure the endpoint exists.
		if _, err := s.Client.Serverless.Endpoints.Get(ctx, *endpoint); errors.Is(err, errs.ErrNotFound) {
			return fmt.Errorf("-endpoint %s: no such serverless endpoint on this account", *endpoint)
		} else if err != nil {
			return fmt.Errorf("-endpoint %s: %w", *endpoint, err)
		}
	}
	rep, err := s.Client.Billing.Serverless(ctx, p)
	var ve *errs.ValidationError
	if errors.As(err, &ve) {
		return demo.Usage(flagError(err)) // p is made of flags only, and nothing was sent
	}
	if err != nil {
		return err
	}
	if err := rep.Reconcile(); err != nil {
		fmt.Fprintln(w, "warning:", err)
	}
	q := rep.Metadata.Query
	fmt.Fprintf(w, "Serverless spend, %s buckets, %s to %s (UTC)\n\n", q.BucketSize, q.StartTime.Format(time.RFC3339), q.EndTime.Format(time.RFC3339))
	if err := writeTable(w, rep); err != nil {
		return err
	}
	if *chart != "" {
		f, err := os.Create(*chart)
		if err != nil {
			return err
		}
		if err := writeChart(f, rep, now); err != nil {
			_ = f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nchart written to %s\n", *chart)
	}
	return nil
}

// flags names the flag behind each field a billing validation error names.
var flags = map[string]string{
	"n": "-last", "Params.LastN": "-last",
	"start": "-since", "Params.Start": "-since",
	"end": "-until", "Params.End": "-until",
	"bucket": "-bucket", "Params.Bucket": "-bucket",
	"Params.ID": "-endpoint",
}

// flagError returns err with the field of its *errs.ValidationError
// named as the flag that set it (-last, not n).
func flagError(err error) error {
	var ve *errs.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	if name, ok := flags[ve.Field]; ok {
		return &errs.ValidationError{Field: name, Message: ve.Message, Err: ve.Err}
	}
	return err
}

// parseTime accepts a date (midnight UTC) or an RFC 3339 time.
func parseTime(flagName, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, &errs.ValidationError{Field: flagName, Message: fmt.Sprintf("want 2006-01-02 or RFC 3339, got %q", v)}
	}
	return t, nil
}

// writeTable prints one row per bucket and one column per endpoint, with a
// total column and a totals row.
func writeTable(w io.Writer, rep *billing.ListServerlessBillingResponse) error {
	endpoints := billing.Resources(rep.Records)
	if len(endpoints) == 0 {
		_, err := fmt.Fprintln(w, "No serverless spend in this window.")
		return err
	}
	layout := bucketLayout(rep.Metadata.Query.BucketSize)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "bucket\t%s\ttotal\t\n", strings.Join(endpoints, "\t"))
	column := map[string]int{}
	for i, id := range endpoints {
		column[id] = i
	}
	perEndpoint := make([]billing.Amount, len(endpoints))
	for _, g := range billing.ByBucket(rep.Records) {
		row := make([]billing.Amount, len(endpoints))
		for _, r := range g.Records {
			row[column[r.ServerlessID]] += r.TotalAmount
			perEndpoint[column[r.ServerlessID]] += r.TotalAmount
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", g.Range.StartTime.Format(layout), dollars(row), money(g.Total))
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t\n", dollars(perEndpoint), money(rep.Metadata.Totals.TotalAmount))
	return tw.Flush()
}

func dollars(vs []billing.Amount) string {
	cells := make([]string, len(vs))
	for i, v := range vs {
		cells[i] = money(v)
	}
	return strings.Join(cells, "\t")
}

func money(v billing.Amount) string { return fmt.Sprintf("$%.2f", v.Float64()) }

// bucketLayout formats a bucket's start as precisely as its size needs.
func bucketLayout(b billing.BillingBucketSize) string {
	switch b {
	case billing.BillingBucketSizeHour:
		return "2006-01-02 15:00"
	case billing.BillingBucketSizeMonth:
		return "2006-01"
	case billing.BillingBucketSizeYear:
		return "2006"
	default:
		return time.DateOnly
	}
}
