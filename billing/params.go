package billing

import (
	"errors"
	"strings"
	"time"

	"github.com/oapi-codegen/runtime"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// Params selects the window, the bucket size and the resource of a
// billing report. The zero Params asks for the platform's defaults: daily
// buckets over the last 30 days.
type Params struct {
	// Start is the inclusive start of the window; zero means 30 days ago
	// (the platform's default), and Earliest() the whole history. The
	// platform snaps it down to the start of its bucket (see Window).
	Start time.Time
	// End is the exclusive end of the window; zero means now. The platform
	// snaps it up to the end of its bucket unless it is on a boundary. An
	// End needs a Start: the platform's default start, 30 days before its
	// own now, would make a window that moves with the clock and is empty
	// or inverted for an End more than 30 days back.
	End time.Time
	// Bucket is the bucket size; empty means BillingBucketSizeDay.
	Bucket BillingBucketSize
	// LastN asks for the last N buckets, ending with the current one,
	// instead of Start and End. Zero leaves it unset; it cannot be combined
	// with Start or End.
	LastN int
	// ID filters to one resource: the endpoint for Serverless, the pod for
	// Pods, the volume for NetworkVolumes, the cluster for Clusters. Summary
	// and Endpoints take no filter.
	ID string
}

// validate applies the platform's rules for the billing query (known
// bucket, lastN of at least 1 and not with a time range, end not before
// start, an id only where the report takes one), and the SDK's (no End
// without a Start), before any request is sent.
func (p Params) validate(idParam string) error {
	switch {
	case p.Bucket != "" && !p.Bucket.Valid():
		return fail.Invalid("Params.Bucket", "want hour, day, week, month or year, got %q", p.Bucket)
	case p.LastN < 0:
		return fail.Invalid("Params.LastN", "must be at least 1, got %d", p.LastN)
	case p.LastN > 0 && (!p.Start.IsZero() || !p.End.IsZero()):
		return fail.Invalid("Params.LastN", "cannot be combined with Start or End: give one or the other")
	case !p.Start.IsZero() && p.Start.Before(yearOne):
		return fail.Invalid("Params.Start", "must not be before year 1, got %s", p.Start.UTC().Format(time.RFC3339))
	case p.End.Year() > 9999:
		return fail.Invalid("Params.End", "must not be after year 9999, got %s", p.End.UTC().Format(time.RFC3339))
	case p.Start.IsZero() && !p.End.IsZero() && p.LastN == 0:
		return fail.Invalid("Params.Start", "is required with End (for 30 days before End: Start: End.AddDate(0, 0, -30)); the platform's default start is 30 days before its now, not before End")
	case !p.Start.IsZero() && !p.End.IsZero() && p.End.Before(p.Start):
		return fail.Invalid("Params.End", "%s is before Start %s", p.End.UTC().Format(time.RFC3339Nano), p.Start.UTC().Format(time.RFC3339Nano))
	case p.ID != "" && idParam == "":
		return fail.Invalid("Params.ID", "this report takes no resource filter")
	case strings.TrimSpace(p.ID) != p.ID:
		return fail.Invalid("Params.ID", "has leading or trailing white space: %q", p.ID)
	}
	if p.LastN > 0 {
		// The platform resolves the window with its own clock; one that
		// would start before year 1 cannot be written in its query.
		var ve *errs.ValidationError
		if _, err := LastN(p.LastN, p.Bucket, time.Now()); errors.As(err, &ve) {
			return fail.Invalid("Params.LastN", "%s", ve.Message)
		}
	}
	return nil
}

// query encodes p as the operation's query string, parameters in the order
// the API documents them, times as RFC 3339 in UTC. Parameters left at
// their zero value are not sent, so the platform applies its defaults.
func (p Params) query(idParam string) (string, error) {
	if err := p.validate(idParam); err != nil {
		return "", err
	}
	var parts []string
	add := func(name string, v any) error {
		s, err := runtime.StyleParamWithLocation("form", true, name, runtime.ParamLocationQuery, v)
		if err != nil {
			return fail.Invalid("Params", "encoding %s: %v", name, err)
		}
		parts = append(parts, s)
		return nil
	}
	var err error
	if !p.Start.IsZero() {
		err = add("startTime", p.Start.UTC())
	}
	if err == nil && !p.End.IsZero() {
		err = add("endTime", p.End.UTC())
	}
	if err == nil && p.Bucket != "" {
		err = add("bucketSize", string(p.Bucket))
	}
	if err == nil && p.LastN > 0 {
		err = add("lastN", p.LastN)
	}
	if err == nil && p.ID != "" {
		err = add(idParam, p.ID)
	}
	return strings.Join(parts, "&"), err
}

// Resolve returns the window the platform answers p with at time now:
// LastN buckets ending with the current one, or Start and End (defaulting
// to 30 days before now and to now) snapped to bucket boundaries. A
// default start later than an explicit End is an error, as it is on the
// platform.
func (p Params) Resolve(now time.Time) (BillingTimeRange, error) {
	if p.LastN > 0 {
		return LastN(p.LastN, p.Bucket, now)
	}
	start, end := p.Start, p.End
	if start.IsZero() {
		start = now.Add(-DefaultLookback)
	}
	if end.IsZero() {
		end = now
	}
	return Window(start, end, p.Bucket)
}
