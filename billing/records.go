package billing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
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

// Bucket returns the record's time range.
func (r ServerlessBillingRecord) Bucket() BillingTimeRange {
	return BillingTimeRange{StartTime: r.StartTime, EndTime: r.EndTime}
}

// Resource returns the serverless endpoint's id.
func (r ServerlessBillingRecord) Resource() string { return r.ServerlessID }

// Total returns TotalAmount.
func (r ServerlessBillingRecord) Total() Amount { return r.TotalAmount }

// Bucket returns the record's time range.
func (r PodBillingRecord) Bucket() BillingTimeRange {
	return BillingTimeRange{StartTime: r.StartTime, EndTime: r.EndTime}
}

// Resource returns the pod's id.
func (r PodBillingRecord) Resource() string { return r.PodID }

// Total returns TotalAmount.
func (r PodBillingRecord) Total() Amount { return r.TotalAmount }

// Bucket returns the record's time range.
func (r NetworkVolumeBillingRecord) Bucket() BillingTimeRange {
	return BillingTimeRange{StartTime: r.StartTime, EndTime: r.EndTime}
}

// Resource returns the network volume's id.
func (r NetworkVolumeBillingRecord) Resource() string { return r.NetworkVolumeID }

// Total returns TotalAmount.
func (r NetworkVolumeBillingRecord) Total() Amount { return r.TotalAmount }

// Bucket returns the record's time range.
func (r ClusterBillingRecord) Bucket() BillingTimeRange {
	return BillingTimeRange{StartTime: r.StartTime, EndTime: r.EndTime}
}

// Resource returns the cluster's id.
func (r ClusterBillingRecord) Resource() string { return r.ClusterID }

// Total returns TotalAmount.
func (r ClusterBillingRecord) Total() Amount { return r.TotalAmount }

// Bucket returns the record's time range.
func (r BillingRecord) Bucket() BillingTimeRange {
	return BillingTimeRange{StartTime: r.StartTime, EndTime: r.EndTime}
}

// Resource returns "": the summary is not split by resource.
func (r BillingRecord) Resource() string { return "" }

// Total returns TotalAmount.
func (r BillingRecord) Total() Amount { return r.TotalAmount }

// Bucket returns the record's time range.
func (r EndpointBillingRecord) Bucket() BillingTimeRange {
	return BillingTimeRange{StartTime: r.StartTime, EndTime: r.EndTime}
}

// Resource returns "": public endpoint spend is not split by resource.
func (r EndpointBillingRecord) Resource() string { return "" }

// Total returns TotalAmount.
func (r EndpointBillingRecord) Total() Amount { return r.TotalAmount }

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

// Reconcile checks the report against its metadata: the record count, the
// count of distinct resources, the totals (to a millionth of a dollar),
// every record inside the resolved window on a bucket boundary, and every
// record carrying the filtered id. It returns nil when all hold.
func (r *ListServerlessBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[ServerlessBillingAmounts]{m.Query.Query(), m.Query.ServerlessID, m.RecordCount, &m.UniqueServerlessCount, m.Totals}, newServerlessBillingAmounts)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[BillingAmounts]{m.Query, nil, m.RecordCount, nil, m.Totals}, newBillingAmounts)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListPodBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[PodBillingAmounts]{m.Query.Query(), m.Query.PodID, m.RecordCount, &m.UniquePodCount, m.Totals}, newPodBillingAmounts)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListEndpointBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[EndpointBillingAmounts]{m.Query, nil, m.RecordCount, nil, m.Totals}, newEndpointBillingAmounts)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListNetworkVolumeBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[NetworkVolumeBillingAmounts]{m.Query.Query(), m.Query.NetworkVolumeID, m.RecordCount, &m.UniqueNetworkVolumeCount, m.Totals}, newNetworkVolumeBillingAmounts)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListClusterBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[ClusterBillingAmounts]{m.Query.Query(), m.Query.ClusterID, m.RecordCount, &m.UniqueClusterCount, m.Totals}, newClusterBillingAmounts)
}

// Query returns the resolved window and bucket size.
func (q ServerlessBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Query returns the resolved window and bucket size.
func (q PodBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Query returns the resolved window and bucket size.
func (q NetworkVolumeBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Query returns the resolved window and bucket size.
func (q ClusterBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Range returns the resolved window.
func (q BillingQuery) Range() BillingTimeRange {
	return BillingTimeRange{StartTime: q.StartTime, EndTime: q.EndTime}
}

type meta[A amountsOf[A]] struct {
	query       BillingQuery
	filter      *string
	recordCount int
	unique      *int
	totals      A
}

func reconcile[A amountsOf[A], R recordOf[A]](records []R, m meta[A], build func([]Amount) A) error {
	var problems []error
	if m.recordCount != len(records) {
		problems = append(problems, fmt.Errorf("recordCount is %d, but there are %d records", m.recordCount, len(records)))
	}
	if m.unique != nil {
		if n := len(Resources(records)); *m.unique != n {
			problems = append(problems, fmt.Errorf("the unique resource count is %d, but the records span %d", *m.unique, n))
		}
	}
	for _, name := range differing(m.totals, sum(records, build)) {
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

// differing returns the names of the amounts in which a and b differ by
// more than a millionth of a dollar (or a billionth, relatively).
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

func differing[A amountsOf[A]](a, b A) []string {
	var names []string
	av, bv := a.values(), b.values()
	for i, name := range a.names() {
		x, y := av[i], bv[i]
		if !agree(x, y) {
			names = append(names, name)
		}
	}
	return names
}

// Window returns the window the platform resolved for the report: the
// start of its first bucket and the end of its last.
func (r *ListServerlessBillingResponse) Window() BillingTimeRange {
	return r.Metadata.Query.Query().Range()
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListBillingResponse) Window() BillingTimeRange { return r.Metadata.Query.Range() }

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListPodBillingResponse) Window() BillingTimeRange { return r.Metadata.Query.Query().Range() }

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListEndpointBillingResponse) Window() BillingTimeRange { return r.Metadata.Query.Range() }

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListNetworkVolumeBillingResponse) Window() BillingTimeRange {
	return r.Metadata.Query.Query().Range()
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListClusterBillingResponse) Window() BillingTimeRange {
	return r.Metadata.Query.Query().Range()
}
