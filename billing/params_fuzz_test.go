package billing

import (
	"errors"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// FuzzParamsQuery: whatever Params a caller builds, the SDK either refuses
// it with a ValidationError or sends a query that parses back (as the
// platform would read it) to the same Params.
func FuzzParamsQuery(f *testing.F) {
	f.Add(int64(1780272000000000000), int64(1780358400000000000), "day", 0, "ep-1")
	f.Add(int64(0), int64(0), "week", 7, "")
	f.Add(int64(1780272000500000000), int64(0), "", 0, "a b&c=d/é")
	f.Add(int64(5), int64(1), "hour", 0, "x")
	f.Add(int64(0), int64(0), "Day", -3, " x")
	f.Fuzz(func(t *testing.T, start, end int64, bucket string, lastN int, id string) {
		p := Params{Bucket: BillingBucketSize(bucket), LastN: lastN, ID: id}
		if start != 0 {
			p.Start = time.Unix(0, start)
		}
		if end != 0 {
			p.End = time.Unix(0, end).In(time.FixedZone("X", 5*3600+1800))
		}
		q, err := p.query("serverlessId")
		if err != nil {
			var ve *errs.ValidationError
			if !errors.As(err, &ve) || ve.Field == "" {
				t.Fatalf("want a ValidationError naming a field, got %v", err)
			}
			return
		}
		values, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("query %q does not parse: %v", q, err)
		}
		back, err := readQuery(values, "serverlessId")
		if err != nil {
			t.Fatalf("query %q is refused by the platform's reading: %v", q, err)
		}
		if !back.Start.Equal(p.Start) || !back.End.Equal(p.End) || back.Bucket != p.Bucket || back.LastN != p.LastN || back.ID != p.ID {
			t.Fatalf("round trip changed %+v into %+v (query %q)", p, back, q)
		}
		if (!p.Start.IsZero() && back.Start.Location() != time.UTC) || (!p.End.IsZero() && back.End.Location() != time.UTC) {
			t.Fatalf("times not sent in UTC: %q", q)
		}
	})
}

// readQuery reads a billing query string the way the platform does, the
// inverse of what Params.query sends; idParam names the report's filter.
func readQuery(q url.Values, idParam string) (Params, error) {
	var p Params
	var err error
	if v := q.Get("startTime"); v != "" {
		if p.Start, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return p, fail.Invalid("startTime", "not an RFC 3339 date-time: %q", v)
		}
	}
	if v := q.Get("endTime"); v != "" {
		if p.End, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return p, fail.Invalid("endTime", "not an RFC 3339 date-time: %q", v)
		}
	}
	if v := q.Get("bucketSize"); v != "" {
		p.Bucket = BillingBucketSize(v)
		if !p.Bucket.Valid() {
			return p, fail.Invalid("bucketSize", "want hour, day, week, month or year, got %q", v)
		}
	}
	if q.Has("lastN") {
		v := q.Get("lastN")
		if p.LastN, err = strconv.Atoi(v); err != nil || p.LastN < 1 {
			return p, fail.Invalid("lastN", "must be an integer of at least 1, got %q", v)
		}
		if q.Has("startTime") || q.Has("endTime") {
			return p, fail.Invalid("lastN", "cannot be combined with startTime or endTime")
		}
	}
	if !p.Start.IsZero() && !p.End.IsZero() && p.End.Before(p.Start) {
		return p, fail.Invalid("endTime", "is before startTime")
	}
	if idParam != "" {
		p.ID = q.Get(idParam)
	}
	return p, nil
}
