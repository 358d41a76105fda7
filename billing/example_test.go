package billing_test

import (
	"context"
	"fmt"
	"time"

	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

func Example() {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { return ts("2026-06-03T15:00:00Z") }))
	defer srv.Close()
	srv.AddServerlessUsage(
		runpodtest.ServerlessUsage{At: ts("2026-06-02T10:00:00Z"), ServerlessID: "ep-a", GPU: 1.25, Fee: 0.05},
		runpodtest.ServerlessUsage{At: ts("2026-06-03T09:00:00Z"), ServerlessID: "ep-b", GPU: 2, CPU: 0.5},
	)
	rp, _ := srv.NewClient()

	rep, err := rp.Billing.Serverless(context.Background(), billing.Params{LastN: 3, Bucket: billing.BillingBucketSizeDay})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("window:", rep.Window())
	for _, g := range billing.ByBucket(rep.Records) {
		fmt.Printf("%s %s\n", g.Range.StartTime.Format(time.DateOnly), g.Total)
	}
	fmt.Printf("total %s over %d endpoints, reconciles: %v\n",
		rep.Metadata.Totals.TotalAmount, rep.Metadata.UniqueServerlessCount, rep.Reconcile() == nil)
	// Output:
	// window: 2026-06-01T00:00:00Z/2026-06-04T00:00:00Z
	// 2026-06-01 $0.00
	// 2026-06-02 $1.30
	// 2026-06-03 $2.50
	// total $3.80 over 2 endpoints, reconciles: true
}

// Window computes the window the platform answers with: start snapped
// down, end snapped up to bucket boundaries, in UTC.
func ExampleWindow() {
	w, _ := billing.Window(ts("2026-01-31T18:00:00Z"), ts("2026-02-10T00:00:00Z"), billing.BillingBucketSizeMonth)
	fmt.Println(w)
	w, _ = billing.Window(ts("2026-06-03T10:00:00Z"), ts("2026-06-04T00:00:00Z"), billing.BillingBucketSizeWeek)
	fmt.Println(w, "(weeks start on Monday)")
	// Output:
	// 2026-01-01T00:00:00Z/2026-03-01T00:00:00Z
	// 2026-06-01T00:00:00Z/2026-06-08T00:00:00Z (weeks start on Monday)
}

// LastN ends with the current, still open bucket.
func ExampleLastN() {
	w, _ := billing.LastN(3, billing.BillingBucketSizeMonth, ts("2026-01-15T12:00:00Z"))
	fmt.Println(w)
	// Output: 2025-11-01T00:00:00Z/2026-02-01T00:00:00Z
}

func ExampleByResource() {
	records := []billing.ServerlessBillingRecord{
		{StartTime: ts("2026-06-01T00:00:00Z"), EndTime: ts("2026-06-02T00:00:00Z"), ServerlessID: "ep-b", TotalAmount: 2 * billing.Dollar},
		{StartTime: ts("2026-06-01T00:00:00Z"), EndTime: ts("2026-06-02T00:00:00Z"), ServerlessID: "ep-a", TotalAmount: billing.Dollar},
		{StartTime: ts("2026-06-02T00:00:00Z"), EndTime: ts("2026-06-03T00:00:00Z"), ServerlessID: "ep-a", TotalAmount: 50 * billing.Cent},
	}
	for _, g := range billing.ByResource(records) {
		fmt.Printf("%s: %d buckets, %s\n", g.Resource, len(g.Records), g.Total)
	}
	// Output:
	// ep-a: 2 buckets, $1.50
	// ep-b: 1 buckets, $2.00
}

// Amounts are exact: ten charges of ten cents are a dollar, not
// 0.9999999999999999.
func ExampleAmount() {
	var total billing.Amount
	for range 10 {
		total += billing.Dollars(0.1)
	}
	big := 1204*billing.Dollar + 5*billing.Cent
	fmt.Println(total, total == billing.Dollar, big, billing.Dollars(0.0004).Decimal())
	// Output: $1.00 true $1,204.05 0.0004
}
