package billing_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/option"
)

// bigReport is a 100,000-record serverless report: 1,000 endpoints over
// 100 days.
func bigReport(b *testing.B) []byte {
	start := ts("2026-01-01T00:00:00Z")
	rep := billing.ListServerlessBillingResponse{Records: make([]billing.ServerlessBillingRecord, 0, 100_000)}
	for d := range 100 {
		for e := range 1000 {
			s := start.AddDate(0, 0, d)
			rep.Records = append(rep.Records, billing.ServerlessBillingRecord{StartTime: s, EndTime: s.AddDate(0, 0, 1), ServerlessID: fmt.Sprintf("ep%06d", e),
				TotalAmount: billing.Dollars(1.2345 + float64(e)), GPUAmount: billing.Dollar, CPUAmount: 10 * billing.Cent, DiskAmount: 10 * billing.Cent, FeeAmount: billing.Dollars(0.0345)})
		}
	}
	rep.Metadata = billing.ServerlessBillingMetadata{Query: billing.ServerlessBillingQuery{StartTime: start, EndTime: start.AddDate(0, 0, 100), BucketSize: billing.BillingBucketSizeDay},
		RecordCount: len(rep.Records), UniqueServerlessCount: 1000, Totals: rep.Sum()}
	body, err := json.Marshal(rep)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// floorRecord and floorReport are what a hand-written client would decode
// the same bytes into.
type floorRecord struct {
	StartTime    time.Time `json:"startTime"`
	EndTime      time.Time `json:"endTime"`
	ServerlessID string    `json:"serverlessId"`
	TotalAmount  float64   `json:"totalAmount"`
	GPUAmount    float64   `json:"gpuAmount"`
	CPUAmount    float64   `json:"cpuAmount"`
	DiskAmount   float64   `json:"diskAmount"`
	FeeAmount    float64   `json:"feeAmount"`
}

type floorReport struct {
	Records  []floorRecord `json:"records"`
	Metadata struct {
		Query struct {
			StartTime    time.Time `json:"startTime"`
			EndTime      time.Time `json:"endTime"`
			BucketSize   string    `json:"bucketSize"`
			ServerlessID *string   `json:"serverlessId"`
		} `json:"query"`
		RecordCount           int         `json:"recordCount"`
		UniqueServerlessCount int         `json:"uniqueServerlessCount"`
		Totals                floorRecord `json:"totals"`
	} `json:"metadata"`
}

// BenchmarkServerless100k: one 100k-record report (about 19 MB of JSON)
// fetched and decoded through the SDK, beside the floor: the same GET
// with net/http and encoding/json into an equivalent struct.
func BenchmarkServerless100k(b *testing.B) {
	body := bigReport(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	const key = "rpa_0123456789ABCDEF0123456789ABCDEF"

	b.Run("floor", func(b *testing.B) {
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		defer hc.CloseIdleConnections()
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(b.Context(), "GET", srv.URL+"/v2/billing/serverless?lastN=100", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var rep floorReport
			err = json.NewDecoder(resp.Body).Decode(&rep)
			_ = resp.Body.Close()
			if err != nil || len(rep.Records) != 100_000 {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		rp, err := runpod.NewClient(option.WithAPIKey(key), option.WithBaseURL(srv.URL))
		if err != nil {
			b.Fatal(err)
		}
		defer rp.CloseIdleConnections()
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			rep, err := rp.Billing.Serverless(b.Context(), billing.Params{LastN: 100})
			if err != nil || len(rep.Records) != 100_000 {
				b.Fatal(err)
			}
		}
	})
}
