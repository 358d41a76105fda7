package billing_test

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestLastNNeverWraps: a LastN that would reach before year 1 is refused
// (expected starts computed independently with a calendar library)
// (it used to wrap around to a start after the end, or far in the past);
// long windows that fit are computed exactly, past the 292 years a
// Duration can hold.
func TestLastNNeverWraps(t *testing.T) {
	now := ts("2026-06-03T10:30:00Z")
	for _, tc := range []struct {
		n      int
		bucket billing.BillingBucketSize
		start  string
	}{
		{3_000_000, billing.BillingBucketSizeHour, "1684-03-07T11:00:00Z"},
		{2_562_048, billing.BillingBucketSizeHour, "1734-02-22T11:00:00Z"},
		{700_000, billing.BillingBucketSizeDay, "0109-11-21T00:00:00Z"},
		{1, billing.BillingBucketSizeHour, "2026-06-03T10:00:00Z"},
	} {
		r, err := billing.LastN(tc.n, tc.bucket, now)
		require.NoError(t, err, "%d %s", tc.n, tc.bucket)
		assert.Equal(t, ts(tc.start), r.StartTime, "%d %s", tc.n, tc.bucket)
		assert.True(t, r.StartTime.Before(r.EndTime))
		assert.Equal(t, int64(tc.n), tc.bucket.Count(r))
	}
	for _, tc := range []struct {
		n      int
		bucket billing.BillingBucketSize
	}{
		{1 << 40, billing.BillingBucketSizeDay}, {1 << 40, billing.BillingBucketSizeHour}, {1<<31 - 1, billing.BillingBucketSizeWeek}, {30_000, billing.BillingBucketSizeMonth}, {2027, billing.BillingBucketSizeYear}, {1<<63 - 1, billing.BillingBucketSizeHour},
	} {
		_, err := billing.LastN(tc.n, tc.bucket, now)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%d %s", tc.n, tc.bucket)
		assert.Equal(t, "n", ve.Field)
	}
	r, err := billing.LastN(2026, billing.BillingBucketSizeYear, now)
	require.NoError(t, err, "back to year 1 exactly")
	assert.Equal(t, time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), r.StartTime)
}

// TestCountMatchesBuckets: Count is the number of buckets Buckets builds,
// for random aligned and unaligned windows of every size.
func TestCountMatchesBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := ts("2020-01-01T00:00:00Z")
	for _, b := range []billing.BillingBucketSize{billing.BillingBucketSizeHour, billing.BillingBucketSizeDay, billing.BillingBucketSizeWeek, billing.BillingBucketSizeMonth, billing.BillingBucketSizeYear} {
		for range 200 {
			start := base.Add(time.Duration(rng.Int64N(int64(5 * 365 * 24 * time.Hour))))
			end := start.Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
			w, err := billing.Window(start, end, b)
			require.NoError(t, err)
			assert.Equal(t, int64(len(w.Buckets(b))), b.Count(w), "%s %s", b, w)
		}
	}
	assert.Zero(t, billing.BillingBucketSizeDay.Count(billing.BillingTimeRange{StartTime: base, EndTime: base}))
}

// TestParamsRefuseUnwritableWindows: windows the query cannot carry are
// refused before sending.
func TestParamsRefuseUnwritableWindows(t *testing.T) {
	srv, rp := fake(t)
	for field, p := range map[string]billing.Params{
		"Params.LastN": {LastN: 1 << 40, Bucket: billing.BillingBucketSizeDay},
		"Params.Start": {Start: time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC)},
		"Params.End":   {End: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		_, err := rp.Billing.Serverless(t.Context(), p)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
	}
	assert.Zero(t, srv.Count(runpodtest.RouteBillingServerless), "nothing sent")
}

// TestFakeRefusesHugeWindowsCheaply: a window of billions of buckets is a
// 400 from the fake, found by counting, not by building the buckets (which
// used to exhaust memory inside the user's test binary).
func TestFakeRefusesHugeWindowsCheaply(t *testing.T) {
	srv, rp := fake(t)
	for _, q := range []string{
		"lastN=9999999999999",
		"bucketSize=hour&lastN=9999999999999",
		"bucketSize=hour&startTime=0002-01-01T00:00:00Z",
		"bucketSize=hour&lastN=3000000",
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := rp.Do(t.Context(), "GET", "/v2/billing/serverless?"+q, nil, nil)
		runtime.ReadMemStats(&after)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr, q)
		assert.Equal(t, 400, apiErr.StatusCode, q)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "%s allocated %d bytes", q, after.TotalAlloc-before.TotalAlloc)
	}
	assert.Equal(t, 4, srv.Count(runpodtest.RouteBillingServerless))
}
