package billing_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestFloorAndCeil(t *testing.T) {
	cases := []struct {
		bucket      billing.BillingBucketSize
		in          string
		floor, ceil string
	}{
		{billing.BillingBucketSizeHour, "2026-06-01T12:34:56Z", "2026-06-01T12:00:00Z", "2026-06-01T13:00:00Z"},
		{billing.BillingBucketSizeHour, "2026-06-01T12:00:00Z", "2026-06-01T12:00:00Z", "2026-06-01T12:00:00Z"},
		{billing.BillingBucketSizeHour, "2026-12-31T23:59:59.999Z", "2026-12-31T23:00:00Z", "2027-01-01T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2026-06-01T12:34:56Z", "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2026-06-01T00:00:00Z", "2026-06-01T00:00:00Z", "2026-06-01T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2024-02-28T10:00:00Z", "2024-02-28T00:00:00Z", "2024-02-29T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2024-02-29T10:00:00Z", "2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2026-12-31T10:00:00Z", "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2026-06-01T01:30:00+02:00", "2026-05-31T00:00:00Z", "2026-06-01T00:00:00Z"},
		{"", "2026-06-01T12:00:00Z", "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z"},
		// Weeks start on Monday 00:00 UTC. 2026-06-01 is a Monday.
		{billing.BillingBucketSizeWeek, "2026-06-01T00:00:00Z", "2026-06-01T00:00:00Z", "2026-06-01T00:00:00Z"},
		{billing.BillingBucketSizeWeek, "2026-06-03T09:00:00Z", "2026-06-01T00:00:00Z", "2026-06-08T00:00:00Z"},
		{billing.BillingBucketSizeWeek, "2026-06-07T23:59:59Z", "2026-06-01T00:00:00Z", "2026-06-08T00:00:00Z"},
		{billing.BillingBucketSizeWeek, "2027-01-01T12:00:00Z", "2026-12-28T00:00:00Z", "2027-01-04T00:00:00Z"},
		{billing.BillingBucketSizeWeek, "2024-03-01T00:00:01Z", "2024-02-26T00:00:00Z", "2024-03-04T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2026-01-31T12:00:00Z", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2024-02-29T23:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2026-12-15T00:00:00Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"},
		{billing.BillingBucketSizeYear, "2024-02-29T12:00:00Z", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
		{billing.BillingBucketSizeYear, "2026-12-31T23:59:59Z", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"},
		{billing.BillingBucketSizeYear, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
	}
	for _, c := range cases {
		in := ts(c.in)
		assert.Equal(t, ts(c.floor), c.bucket.Floor(in), "floor %s %s", c.bucket, c.in)
		assert.Equal(t, ts(c.ceil), c.bucket.Ceil(in), "ceil %s %s", c.bucket, c.in)
		assert.Equal(t, time.UTC, c.bucket.Floor(in).Location())
	}
}

func TestAddKeepsMonthStarts(t *testing.T) {
	jan := ts("2024-01-01T00:00:00Z")
	assert.Equal(t, ts("2024-02-01T00:00:00Z"), billing.BillingBucketSizeMonth.Add(jan, 1))
	assert.Equal(t, ts("2024-03-01T00:00:00Z"), billing.BillingBucketSizeMonth.Add(jan, 2))
	assert.Equal(t, ts("2023-12-01T00:00:00Z"), billing.BillingBucketSizeMonth.Add(jan, -1))
	assert.Equal(t, ts("2023-01-01T00:00:00Z"), billing.BillingBucketSizeYear.Add(jan, -1))
	assert.Equal(t, ts("2023-12-25T00:00:00Z"), billing.BillingBucketSizeWeek.Add(ts("2024-01-01T00:00:00Z"), -1))
	assert.Equal(t, ts("2024-02-29T00:00:00Z"), billing.BillingBucketSizeDay.Add(ts("2024-02-28T00:00:00Z"), 1))
	assert.Equal(t, ts("2023-12-31T23:00:00Z"), billing.BillingBucketSizeHour.Add(jan, -1))
}

// TestWindow: start snapped down, end snapped up unless on a boundary.
func TestWindow(t *testing.T) {
	cases := []struct {
		bucket     billing.BillingBucketSize
		start, end string
		want       string
	}{
		{billing.BillingBucketSizeDay, "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z", "2026-06-01T00:00:00Z/2026-06-02T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2026-06-01T10:00:00Z", "2026-06-03T01:00:00Z", "2026-06-01T00:00:00Z/2026-06-04T00:00:00Z"},
		{billing.BillingBucketSizeHour, "2026-06-01T10:15:00Z", "2026-06-01T10:45:00Z", "2026-06-01T10:00:00Z/2026-06-01T11:00:00Z"},
		{billing.BillingBucketSizeWeek, "2026-06-03T00:00:00Z", "2026-06-10T00:00:00Z", "2026-06-01T00:00:00Z/2026-06-15T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2026-01-31T00:00:00Z", "2026-02-28T12:00:00Z", "2026-01-01T00:00:00Z/2026-03-01T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z", "2024-02-01T00:00:00Z/2024-03-01T00:00:00Z"},
		{billing.BillingBucketSizeMonth, "2026-11-15T00:00:00Z", "2027-01-15T00:00:00Z", "2026-11-01T00:00:00Z/2027-02-01T00:00:00Z"},
		{billing.BillingBucketSizeYear, "2024-06-01T00:00:00Z", "2026-01-01T00:00:00Z", "2024-01-01T00:00:00Z/2026-01-01T00:00:00Z"},
		{billing.BillingBucketSizeYear, "2026-12-31T23:00:00Z", "2027-01-01T00:00:01Z", "2026-01-01T00:00:00Z/2028-01-01T00:00:00Z"},
		{billing.BillingBucketSizeDay, "2026-06-01T10:00:00Z", "2026-06-01T10:00:00Z", "2026-06-01T00:00:00Z/2026-06-02T00:00:00Z"},
	}
	for _, c := range cases {
		w, err := billing.Window(ts(c.start), ts(c.end), c.bucket)
		require.NoError(t, err)
		assert.Equal(t, c.want, w.String(), "%s %s..%s", c.bucket, c.start, c.end)
	}
	_, err := billing.Window(ts("2026-06-02T00:00:00Z"), ts("2026-06-01T00:00:00Z"), billing.BillingBucketSizeDay)
	require.ErrorIs(t, err, errs.ErrValidation)
	_, err = billing.Window(ts("2026-06-01T00:00:00Z"), ts("2026-06-02T00:00:00Z"), "fortnight")
	require.ErrorIs(t, err, errs.ErrValidation)
	_, err = billing.Window(time.Time{}, ts("2026-06-02T00:00:00Z"), billing.BillingBucketSizeDay)
	require.ErrorIs(t, err, errs.ErrValidation)
}

// TestLastN: N buckets ending with the current, in-progress one.
func TestLastN(t *testing.T) {
	cases := []struct {
		n      int
		bucket billing.BillingBucketSize
		now    string
		want   string
	}{
		{1, billing.BillingBucketSizeDay, "2026-06-01T10:00:00Z", "2026-06-01T00:00:00Z/2026-06-02T00:00:00Z"},
		{7, billing.BillingBucketSizeDay, "2026-06-01T10:00:00Z", "2026-05-26T00:00:00Z/2026-06-02T00:00:00Z"},
		{24, billing.BillingBucketSizeHour, "2026-06-01T10:30:00Z", "2026-05-31T11:00:00Z/2026-06-01T11:00:00Z"},
		{2, billing.BillingBucketSizeWeek, "2026-06-03T10:00:00Z", "2026-05-25T00:00:00Z/2026-06-08T00:00:00Z"},
		{3, billing.BillingBucketSizeMonth, "2026-01-15T00:00:00Z", "2025-11-01T00:00:00Z/2026-02-01T00:00:00Z"},
		{2, billing.BillingBucketSizeMonth, "2024-03-31T23:00:00Z", "2024-02-01T00:00:00Z/2024-04-01T00:00:00Z"},
		{2, billing.BillingBucketSizeYear, "2024-02-29T00:00:00Z", "2023-01-01T00:00:00Z/2025-01-01T00:00:00Z"},
		{30, "", "2026-01-01T00:00:00Z", "2025-12-03T00:00:00Z/2026-01-02T00:00:00Z"},
		{366, billing.BillingBucketSizeDay, "2024-12-31T12:00:00Z", "2024-01-01T00:00:00Z/2025-01-01T00:00:00Z"},
	}
	for _, c := range cases {
		w, err := billing.LastN(c.n, c.bucket, ts(c.now))
		require.NoError(t, err)
		assert.Equal(t, c.want, w.String(), "last %d %s at %s", c.n, c.bucket, c.now)
		assert.Len(t, w.Buckets(c.bucket), c.n)
	}
	for _, n := range []int{0, -1} {
		_, err := billing.LastN(n, billing.BillingBucketSizeDay, time.Now())
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "n", ve.Field)
	}
	_, err := billing.LastN(3, "decade", time.Now())
	require.ErrorIs(t, err, errs.ErrValidation)
}

func TestBuckets(t *testing.T) {
	w := billing.BillingTimeRange{StartTime: ts("2024-01-01T00:00:00Z"), EndTime: ts("2025-01-01T00:00:00Z")}
	months := w.Buckets(billing.BillingBucketSizeMonth)
	require.Len(t, months, 12)
	assert.Equal(t, "2024-02-01T00:00:00Z/2024-03-01T00:00:00Z", months[1].String())
	assert.Len(t, w.Buckets(billing.BillingBucketSizeDay), 366, "2024 is a leap year")
	assert.Len(t, w.Buckets(billing.BillingBucketSizeHour), 366*24)
	assert.Len(t, w.Buckets(billing.BillingBucketSizeYear), 1)
	assert.Empty(t, billing.BillingTimeRange{StartTime: w.StartTime, EndTime: w.StartTime}.Buckets(billing.BillingBucketSizeDay))
	assert.True(t, w.Contains(ts("2024-12-31T23:59:59Z")))
	assert.False(t, w.Contains(ts("2025-01-01T00:00:00Z")), "half-open")
	assert.True(t, w.Contains(w.StartTime))
}

// TestParamsResolve: the defaults the platform applies.
func TestParamsResolve(t *testing.T) {
	now := ts("2026-06-15T10:20:30Z")
	w, err := billing.Params{}.Resolve(now)
	require.NoError(t, err)
	assert.Equal(t, "2026-05-16T00:00:00Z/2026-06-16T00:00:00Z", w.String(), "30 days ago to now, daily, snapped")
	w, err = billing.Params{Bucket: billing.BillingBucketSizeMonth}.Resolve(now)
	require.NoError(t, err)
	assert.Equal(t, "2026-05-01T00:00:00Z/2026-07-01T00:00:00Z", w.String())
	w, err = billing.Params{LastN: 3, Bucket: billing.BillingBucketSizeHour}.Resolve(now)
	require.NoError(t, err)
	assert.Equal(t, "2026-06-15T08:00:00Z/2026-06-15T11:00:00Z", w.String())
	w, err = billing.Params{Start: ts("2026-06-14T12:00:00Z")}.Resolve(now)
	require.NoError(t, err)
	assert.Equal(t, "2026-06-14T00:00:00Z/2026-06-16T00:00:00Z", w.String())
	_, err = billing.Params{End: ts("2026-01-01T00:00:00Z")}.Resolve(now)
	require.ErrorIs(t, err, errs.ErrValidation, "the default start is after the explicit end")
}

// TestEarliest (issue 26, item 16): Earliest is not the zero time: it is
// sent as a startTime (the whole history), where a zero Start sends none
// (30 days ago).
func TestEarliest(t *testing.T) {
	assert.False(t, billing.Earliest().IsZero())
	assert.Equal(t, "1970-01-01T00:00:00Z", billing.Earliest().Format(time.RFC3339))
	now := ts("2026-06-15T10:30:00Z")
	w, err := billing.Params{Start: billing.Earliest(), Bucket: billing.BillingBucketSizeYear}.Resolve(now)
	require.NoError(t, err)
	assert.Equal(t, "1970-01-01T00:00:00Z/2027-01-01T00:00:00Z", w.String())
}
