package billing

import (
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// DefaultBucket is the bucket size the platform uses when none is given.
const DefaultBucket = BillingBucketSizeDay

// DefaultLookback is how far back the platform's default window starts.
const DefaultLookback = 30 * 24 * time.Hour

// orDefault returns b, or BillingBucketSizeDay when b is empty.
func (b BillingBucketSize) orDefault() BillingBucketSize {
	if b == "" {
		return DefaultBucket
	}
	return b
}

// Floor returns the start of the bucket that holds t, in UTC: the hour,
// the day (00:00), the week (Monday 00:00), the month (the 1st, 00:00) or
// the year (January 1, 00:00). An empty b means BillingBucketSizeDay.
func (b BillingBucketSize) Floor(t time.Time) time.Time {
	t = t.UTC()
	y, m, d := t.Date()
	switch b.orDefault() {
	case BillingBucketSizeHour:
		return t.Truncate(time.Hour)
	case BillingBucketSizeWeek:
		monday := d - (int(t.Weekday())+6)%7
		return time.Date(y, m, monday, 0, 0, 0, 0, time.UTC)
	case BillingBucketSizeMonth:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case BillingBucketSizeYear:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	default:
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
}

// Ceil returns t when it is on a bucket boundary, and the end of the
// bucket that holds t otherwise.
func (b BillingBucketSize) Ceil(t time.Time) time.Time {
	f := b.Floor(t)
	if f.Equal(t) {
		return f
	}
	return b.Add(f, 1)
}

// Add moves boundary, the start of a bucket, by n buckets (n may be
// negative). Months and years keep the first of the month.
func (b BillingBucketSize) Add(boundary time.Time, n int) time.Time {
	boundary = boundary.UTC()
	switch b.orDefault() {
	case BillingBucketSizeHour:
		// Whole days first: n hours as one Duration overflows past about
		// 292 years.
		return boundary.AddDate(0, 0, n/24).Add(time.Duration(n%24) * time.Hour)
	case BillingBucketSizeWeek:
		return boundary.AddDate(0, 0, 7*n)
	case BillingBucketSizeMonth:
		return boundary.AddDate(0, n, 0)
	case BillingBucketSizeYear:
		return boundary.AddDate(n, 0, 0)
	default:
		return boundary.AddDate(0, 0, n)
	}
}

// Window returns the window the platform resolves for [start, end): start
// snapped down to the start of its bucket, end snapped up to the end of
// its bucket unless it is on a boundary already, both in UTC. An empty
// bucket means BillingBucketSizeDay. Params.Resolve applies the platform's defaults for a
// missing start or end.
func Window(start, end time.Time, bucket BillingBucketSize) (BillingTimeRange, error) {
	switch {
	case bucket != "" && !bucket.Valid():
		return BillingTimeRange{}, fail.Invalid("bucket", "want hour, day, week, month or year, got %q", bucket)
	case start.IsZero():
		return BillingTimeRange{}, fail.Invalid("start", "is zero")
	case end.IsZero():
		return BillingTimeRange{}, fail.Invalid("end", "is zero")
	case end.Before(start):
		return BillingTimeRange{}, fail.Invalid("end", "%s is before start %s", end.UTC().Format(time.RFC3339), start.UTC().Format(time.RFC3339))
	}
	return BillingTimeRange{StartTime: bucket.Floor(start), EndTime: bucket.Ceil(end)}, nil
}

// Earliest returns the Start that asks for the whole billing history: the Unix
// epoch, 1970-01-01T00:00:00Z, before any record the platform keeps. It
// is sent as startTime=1970-01-01T00:00:00Z. It is not the zero
// time.Time: a zero Start sends no startTime, and the platform answers
// from 30 days ago (DefaultLookback). Pair it with a bucket large enough
// for the window (BillingBucketSizeMonth or BillingBucketSizeYear; the platform caps the number of
// buckets).
func Earliest() time.Time { return time.Unix(0, 0).UTC() }

// yearOne is the first instant an RFC 3339 time can carry: no window may
// start before it.
var yearOne = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)

// LastN returns the window of the last n buckets ending with the bucket
// that holds now (the current, still open one): from the start of the
// earliest bucket to the end of the current one, in UTC. A window that
// would start before year 1 (which RFC 3339 cannot write) is refused.
func LastN(n int, bucket BillingBucketSize, now time.Time) (BillingTimeRange, error) {
	if n < 1 {
		return BillingTimeRange{}, fail.Invalid("n", "must be at least 1, got %d", n)
	}
	if bucket != "" && !bucket.Valid() {
		return BillingTimeRange{}, fail.Invalid("bucket", "want hour, day, week, month or year, got %q", bucket)
	}
	current := bucket.Floor(now)
	if back := bucket.Count(BillingTimeRange{StartTime: yearOne, EndTime: current}); int64(n-1) > back {
		return BillingTimeRange{}, fail.Invalid("n", "%d %s buckets back from %s reach before year 1 (at most %d)",
			n, bucket.orDefault(), current.Format(time.RFC3339), back+1)
	}
	return BillingTimeRange{StartTime: bucket.Add(current, -(n - 1)), EndTime: bucket.Add(current, 1)}, nil
}

// Count returns how many buckets of size b the range spans, from the
// bucket holding StartTime to the one holding the instant before EndTime,
// without building them; 0 for an empty range.
func (b BillingBucketSize) Count(r BillingTimeRange) int64 {
	start, end := b.Floor(r.StartTime), b.Ceil(r.EndTime)
	if !end.After(start) {
		return 0
	}
	// Unix seconds and calendar fields, not Durations: a Duration
	// saturates at about 292 years.
	secs := end.Unix() - start.Unix()
	switch b.orDefault() {
	case BillingBucketSizeHour:
		return secs / 3600
	case BillingBucketSizeWeek:
		return secs / (7 * 86400)
	case BillingBucketSizeMonth:
		return int64(end.Year()-start.Year())*12 + int64(end.Month()-start.Month())
	case BillingBucketSizeYear:
		return int64(end.Year() - start.Year())
	default:
		return secs / 86400
	}
}

// Buckets splits the range into consecutive buckets of size b. The range
// should be aligned to b's boundaries, as Window and LastN return it. It
// makes one BillingTimeRange per bucket: check b.Count first for a range that
// comes from outside.
func (r BillingTimeRange) Buckets(b BillingBucketSize) []BillingTimeRange {
	var out []BillingTimeRange
	for s := b.Floor(r.StartTime); s.Before(r.EndTime); {
		next := b.Add(s, 1)
		out = append(out, BillingTimeRange{StartTime: s, EndTime: next})
		s = next
	}
	return out
}

// Contains reports whether t is in [StartTime, EndTime).
func (r BillingTimeRange) Contains(t time.Time) bool {
	return !t.Before(r.StartTime) && t.Before(r.EndTime)
}

// String returns the range as "start/end" in RFC 3339 (ISO 8601 interval).
func (r BillingTimeRange) String() string {
	return r.StartTime.UTC().Format(time.RFC3339) + "/" + r.EndTime.UTC().Format(time.RFC3339)
}
