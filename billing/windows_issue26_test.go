package billing_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// TestEarliestIsSent (issue 26, item 16): Start: Earliest sends
// startTime=1970-01-01T00:00:00Z, and the report covers the whole history;
// a zero Start sends no startTime.
func TestEarliestIsSent(t *testing.T) {
	srv, rp := fake(t)
	srv.AddServerlessUsage(runpodtest.ServerlessUsage{ServerlessID: "ep-old", At: ts("2025-01-10T10:00:00Z"), GPU: 2})
	rep, err := rp.Billing.Serverless(t.Context(), billing.Params{Start: billing.Earliest(), Bucket: billing.BillingBucketSizeYear, ID: "ep-old"})
	require.NoError(t, err)
	var last runpodtest.Request
	for _, r := range srv.Requests() {
		last = r
	}
	assert.Equal(t, "1970-01-01T00:00:00Z", last.Query.Get("startTime"))
	assert.Equal(t, "1970-01-01T00:00:00Z", rep.Metadata.Query.StartTime.UTC().Format(time.RFC3339))
	var total float64
	for _, r := range rep.Records {
		total += r.TotalAmount.Float64()
	}
	assert.InDelta(t, 2, total, 1e-9, "spend older than 30 days is in the window")

	_, err = rp.Billing.Serverless(t.Context(), billing.Params{})
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		last = r
	}
	assert.False(t, last.Query.Has("startTime"))
}

// TestEndWithoutStart (issue 26, item 16): End without Start is refused
// before sending; it would be sent with the platform's default start.
func TestEndWithoutStart(t *testing.T) {
	srv, rp := fake(t)
	_, err := rp.Billing.Serverless(t.Context(), billing.Params{End: ts("2020-01-01T00:00:00Z")})
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "Params.Start", ve.Field)
	assert.Zero(t, srv.Count("*"))
}

// TestFakeRefusesAnInvertedWindow (issue 26, item 16): the fake answers
// an empty or inverted window (an endTime before the default start) with a
// 400 problem, not with no records.
func TestFakeRefusesAnInvertedWindow(t *testing.T) {
	var mu sync.Mutex
	now := ts("2026-06-15T10:30:00Z")
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	t.Cleanup(srv.Close)
	for _, q := range []string{"endTime=2026-01-01T00:00:00Z", "startTime=2026-06-01T00:00:00Z&endTime=2026-06-01T00:00:00Z"} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/v2/billing/serverless?"+q, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
		assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), q)
	}
}
