package billing

import (
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go/internal/errs"
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
		p := Params{Bucket: BucketSize(bucket), LastN: lastN, ID: id}
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
		back, err := ParseParams(values, "serverlessId")
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
