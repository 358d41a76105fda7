package billing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Record is what every report's record type has in common, so the
// grouping helpers work on all of them.
type Record interface {
	// Bucket returns the record's time range.
	Bucket() BillingTimeRange
	// Resource returns the id of the resource billed ("" for reports that
	// are not split by resource: Summary and Endpoints).
	Resource() string
	// Total returns the record's total spend in USD.
	Total() Amount
}

// Group is the records of one bucket (ByBucket) or of one resource
// (ByResource), with their total spend.
type Group[R Record] struct {
	// Resource is the resource's id (ByResource), or "" (ByBucket).
	Resource string
	// Range is the bucket (ByBucket), or the span of the resource's
	// records (ByResource).
	Range BillingTimeRange
	// Records are the group's records: in the order given (ByBucket), or
	// in time order (ByResource).
	Records []R
	// Total is the exact sum of the records' totals.
	Total Amount
}

// ByBucket groups records by bucket, in time order.
func ByBucket[R Record](records []R) []Group[R] {
	return group(records, func(r R) Group[R] { return Group[R]{Range: r.Bucket()} },
		func(a, b Group[R]) int { return a.Range.StartTime.Compare(b.Range.StartTime) })
}

// ByResource groups records by resource (endpoint, pod, volume or
// cluster), ordered by id; each group's records stay in time order.
func ByResource[R Record](records []R) []Group[R] {
	groups := group(records, func(r R) Group[R] { return Group[R]{Resource: r.Resource()} },
		func(a, b Group[R]) int { return cmp.Compare(a.Resource, b.Resource) })
	for i := range groups {
		g := &groups[i]
		slices.SortStableFunc(g.Records, func(a, b R) int { return a.Bucket().StartTime.Compare(b.Bucket().StartTime) })
		g.Range = BillingTimeRange{StartTime: g.Records[0].Bucket().StartTime, EndTime: g.Records[len(g.Records)-1].Bucket().EndTime}
	}
	return groups
}

// Resources returns the distinct resource ids of records, sorted.
func Resources[R Record](records []R) []string {
	var ids []string
	for _, g := range ByResource(records) {
		ids = append(ids, g.Resource)
	}
	return ids
}

func group[R Record](records []R, keyOf func(R) Group[R], compare func(a, b Group[R]) int) []Group[R] {
	type key struct {
		resource string
		start    int64
	}
	index := map[key]int{}
	var groups []Group[R]
	for _, r := range records {
		g := keyOf(r)
		k := key{g.Resource, g.Range.StartTime.UnixNano()}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, g)
		}
		groups[i].Records = append(groups[i].Records, r)
		groups[i].Total += r.Total()
	}
	slices.SortStableFunc(groups, compare)
	return groups
}

// span is the range from start to end.
func span(start, end time.Time) BillingTimeRange {
	return BillingTimeRange{StartTime: start, EndTime: end}
}

// Range returns the resolved window.
func (q BillingQuery) Range() BillingTimeRange { return span(q.StartTime, q.EndTime) }

// meta is what a report's metadata says of its records: the resolved
// query, the filtered id (nil for a report without a filter), the record
// count, the count of distinct resources (nil where none is given) and
// the totals.
type meta[A any] struct {
	query       BillingQuery
	filter      *string
	recordCount int
	unique      *int
	totals      A
}

// reconcile checks records against m; see
// ListServerlessBillingResponse.Reconcile.
func reconcile[A any, PA amounts[A], R recordOf[A]](records []R, m meta[A]) error {
	var problems []error
	if m.recordCount != len(records) {
		problems = append(problems, fmt.Errorf("recordCount is %d, but there are %d records", m.recordCount, len(records)))
	}
	if m.unique != nil {
		if n := len(Resources(records)); *m.unique != n {
			problems = append(problems, fmt.Errorf("the unique resource count is %d, but the records span %d", *m.unique, n))
		}
	}
	for _, name := range differing[A, PA](&m.totals, sum[A, PA](records)) {
		problems = append(problems, fmt.Errorf("totals.%s does not match the sum of the records", name))
	}
	window, bucket := m.query.Range(), m.query.BucketSize
	for i, r := range records {
		b := r.Bucket()
		if !window.Contains(b.StartTime) || b.EndTime.After(window.EndTime) {
			problems = append(problems, fmt.Errorf("record %d (%s) is outside the window %s", i, b, window))
		} else if !bucket.Floor(b.StartTime).Equal(b.StartTime) || !bucket.Add(b.StartTime, 1).Equal(b.EndTime) {
			problems = append(problems, fmt.Errorf("record %d (%s) is not one %s bucket", i, b, bucket))
		}
		if m.filter != nil && *m.filter != "" && r.Resource() != *m.filter {
			problems = append(problems, fmt.Errorf("record %d bills %q, not the filtered %q", i, r.Resource(), *m.filter))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("billing: the report does not reconcile: %w", errors.Join(problems...))
}

// agree reports whether two amounts are equal to a millionth of a dollar
// (and a billionth of their size): the platform adds its totals in
// floating point, so they can differ from the exact sum by that much.
func agree(x, y Amount) bool {
	d := x - y
	if d < 0 {
		d = -d
	}
	return d <= 1000*Nanodollar+Amount(1e-9*math.Max(math.Abs(x.Float64()), math.Abs(y.Float64()))*float64(Dollar))
}

// differing returns the names of the amounts in which a and b do not
// agree.
func differing[A any, PA amounts[A]](a PA, b A) []string {
	var names []string
	other := PA(&b).fields()
	for i, f := range a.fields() {
		if !agree(*f.v, *other[i].v) {
			names = append(names, f.name)
		}
	}
	return names
}
