package runpodtest

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// billingUnit is the billing ledger the six reports are computed from:
// the usage tests add, and what the fake's pods and endpoints used that
// is not kept with them (metering.go). Its lock is taken last: no other
// lock is taken with it held.
type billingUnit struct {
	mu     sync.Mutex
	ledger ledger
	runs   map[string][]span // the runs of ended jobs, by endpoint id
	gone   []endpointUsage   // the usage of deleted endpoints
}

// Routes of the billing reports.
const (
	RouteBillingSummary        = "GET /v2/billing"
	RouteBillingPods           = "GET /v2/billing/pods"
	RouteBillingServerless     = "GET /v2/billing/serverless"
	RouteBillingEndpoints      = "GET /v2/billing/endpoints"
	RouteBillingNetworkVolumes = "GET /v2/billing/network-volumes"
	RouteBillingClusters       = "GET /v2/billing/clusters"
)

// MaxBillingBuckets bounds the buckets one billing request may span
// (the platform's own limit is not documented).
const MaxBillingBuckets = 100_000

// ServerlessUsage is spend of a serverless endpoint at an instant, for the
// billing ledger. Its total is the sum of the parts.
type ServerlessUsage struct {
	// At is when the spend happened; it lands in the bucket holding it.
	At time.Time
	// ServerlessID is the endpoint's id.
	ServerlessID string
	// GPU is the GPU compute spend, in USD.
	GPU float64
	// CPU is the CPU compute spend, in USD.
	CPU float64
	// Disk is the disk spend, in USD.
	Disk float64
	// Fee is the platform fee, in USD.
	Fee float64
}

// PodUsage is spend of a pod at an instant.
type PodUsage struct {
	// At is when the spend happened.
	At time.Time
	// PodID is the pod's id.
	PodID string
	// GPU is the GPU compute spend, in USD.
	GPU float64
	// CPU is the CPU compute spend, in USD.
	CPU float64
	// Disk is the disk spend, in USD.
	Disk float64
}

// NetworkVolumeUsage is spend of a network volume at an instant.
type NetworkVolumeUsage struct {
	// At is when the spend happened.
	At time.Time
	// NetworkVolumeID is the volume's id.
	NetworkVolumeID string
	// Standard is the spend on standard storage, in USD.
	Standard float64
	// HighPerformance is the spend on high-performance storage, in USD.
	HighPerformance float64
}

// ClusterUsage is spend of an instant cluster at an instant.
type ClusterUsage struct {
	// At is when the spend happened.
	At time.Time
	// ClusterID is the cluster's id.
	ClusterID string
	// GPU is the GPU compute spend, in USD.
	GPU float64
	// Disk is the disk spend, in USD.
	Disk float64
	// Networking is the spend on networking between nodes, in USD.
	Networking float64
}

// PublicEndpointUsage is spend on a public endpoint (a pre-deployed model)
// at an instant.
type PublicEndpointUsage struct {
	// At is when the spend happened.
	At time.Time
	// Model is the public endpoint's id, such as "wan-2-5".
	Model string
	// Amount is the spend, in USD.
	Amount float64
}

// ledger is the account's usage, from which every billing report is
// computed.
type ledger struct {
	serverless     []ServerlessUsage
	pods           []PodUsage
	networkVolumes []NetworkVolumeUsage
	clusters       []ClusterUsage
	publicEndpoint []PublicEndpointUsage
}

// AddServerlessUsage records serverless spend in the billing ledger; it
// adds to what the fake's endpoints use.
func (s *Server) AddServerlessUsage(u ...ServerlessUsage) {
	appendLocked(&s.billing.mu, &s.billing.ledger.serverless, u...)
}

// AddPodUsage records pod spend in the billing ledger; it adds to what
// the fake's pods use.
func (s *Server) AddPodUsage(u ...PodUsage) {
	appendLocked(&s.billing.mu, &s.billing.ledger.pods, u...)
}

// AddNetworkVolumeUsage records storage spend in the billing ledger.
func (s *Server) AddNetworkVolumeUsage(u ...NetworkVolumeUsage) {
	appendLocked(&s.billing.mu, &s.billing.ledger.networkVolumes, u...)
}

// AddClusterUsage records cluster spend in the billing ledger.
func (s *Server) AddClusterUsage(u ...ClusterUsage) {
	appendLocked(&s.billing.mu, &s.billing.ledger.clusters, u...)
}

// AddPublicEndpointUsage records public-endpoint spend in the billing
// ledger.
func (s *Server) AddPublicEndpointUsage(u ...PublicEndpointUsage) {
	appendLocked(&s.billing.mu, &s.billing.ledger.publicEndpoint, u...)
}

// report is one billing operation as the platform's REST v2 document
// describes it: the query parameter that filters it (also the records' and
// the query's field that carries the resource id), the metadata's count of
// distinct resources, and the amounts, named as on the wire. Every amount
// is a number in USD; "totalAmount" is added as the sum of the others.
type report struct {
	idParam     string // "" when the report takes no filter
	uniqueField string // "" when the metadata has no such count
	amounts     []string
	lines       func(l ledger) []line
}

// line is one ledger entry in a report's shape, its amounts in the order of
// report.amounts.
type line struct {
	at       time.Time
	resource string
	amounts  []float64
}

// Each kind of usage as a line of its report: when, the resource, and the
// amounts in the order of the report's (public-endpoint spend has only
// its total, and no resource).
func (u ServerlessUsage) line() line {
	return line{u.At, u.ServerlessID, []float64{u.GPU, u.CPU, u.Disk, u.Fee}}
}

func (u PodUsage) line() line { return line{u.At, u.PodID, []float64{u.GPU, u.CPU, u.Disk}} }

func (u NetworkVolumeUsage) line() line {
	return line{u.At, u.NetworkVolumeID, []float64{u.Standard, u.HighPerformance}}
}

func (u ClusterUsage) line() line {
	return line{u.At, u.ClusterID, []float64{u.GPU, u.Disk, u.Networking}}
}

func (u PublicEndpointUsage) line() line { return line{u.At, "", []float64{u.Amount}} }

// linesOf returns ledger entries of one kind as lines of their report.
func linesOf[U interface{ line() line }](usage []U) []line {
	out := make([]line, 0, len(usage))
	for _, u := range usage {
		out = append(out, u.line())
	}
	return out
}

var (
	serverlessReport = report{"serverlessId", "uniqueServerlessCount",
		[]string{"gpuAmount", "cpuAmount", "diskAmount", "feeAmount"},
		func(l ledger) []line { return linesOf(l.serverless) }}
	podReport = report{"podId", "uniquePodCount",
		[]string{"gpuAmount", "cpuAmount", "diskAmount"},
		func(l ledger) []line { return linesOf(l.pods) }}
	networkVolumeReport = report{"networkVolumeId", "uniqueNetworkVolumeCount",
		[]string{"standardAmount", "highPerformanceAmount"},
		func(l ledger) []line { return linesOf(l.networkVolumes) }}
	clusterReport = report{"clusterId", "uniqueClusterCount",
		[]string{"gpuAmount", "diskAmount", "networkingAmount"},
		func(l ledger) []line { return linesOf(l.clusters) }}
	// Public-endpoint spend has only its total.
	publicEndpointReport = report{"", "", nil,
		func(l ledger) []line { return linesOf(l.publicEndpoint) }}
	// The account summary folds every product into one line per bucket:
	// each product's amounts go at its offset among the summary's.
	summaryReport = report{"", "",
		[]string{"podGpuAmount", "podCpuAmount", "podDiskAmount",
			"serverlessGpuAmount", "serverlessCpuAmount", "serverlessDiskAmount", "serverlessFeeAmount",
			"storageStandardAmount", "storageHighPerformanceAmount", "endpointAmount",
			"clusterGpuAmount", "clusterDiskAmount", "clusterNetworkingAmount"},
		func(l ledger) (out []line) {
			products := []struct {
				offset int
				lines  []line
			}{
				{0, linesOf(l.pods)}, {3, linesOf(l.serverless)}, {7, linesOf(l.networkVolumes)},
				{9, linesOf(l.publicEndpoint)}, {10, linesOf(l.clusters)},
			}
			for _, p := range products {
				for _, e := range p.lines {
					a := make([]float64, 13)
					copy(a[p.offset:], e.amounts)
					out = append(out, line{at: e.at, amounts: a})
				}
			}
			return out
		}}
)

// billingParams are a billing request's query parameters as the platform
// reads them. The REST v2 document has already checked each one's type,
// format and range before the report runs; the rules here are the ones
// the platform states in prose (lastN alone, end not before start).
type billingParams struct {
	start, end time.Time
	bucket     bucketSize
	lastN      int
	id         string
}

func parseBillingParams(r *http.Request, idParam string) (billingParams, error) {
	q := r.URL.Query()
	p := billingParams{bucket: "day"}
	var err error
	if v := q.Get("startTime"); v != "" {
		if p.start, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return p, fmt.Errorf("startTime: not an RFC 3339 date-time: %q", v)
		}
	}
	if v := q.Get("endTime"); v != "" {
		if p.end, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return p, fmt.Errorf("endTime: not an RFC 3339 date-time: %q", v)
		}
	}
	if v := q.Get("bucketSize"); v != "" {
		p.bucket = bucketSize(v)
		if !slices.Contains([]bucketSize{"hour", "day", "week", "month", "year"}, p.bucket) {
			return p, fmt.Errorf("bucketSize: want hour, day, week, month or year, got %q", v)
		}
	}
	if q.Has("lastN") {
		if p.lastN, err = strconv.Atoi(q.Get("lastN")); err != nil || p.lastN < 1 {
			return p, fmt.Errorf("lastN: must be an integer of at least 1, got %q", q.Get("lastN"))
		}
		if q.Has("startTime") || q.Has("endTime") {
			return p, fmt.Errorf("lastN cannot be combined with startTime or endTime")
		}
	}
	if !p.start.IsZero() && !p.end.IsZero() && p.end.Before(p.start) {
		return p, fmt.Errorf("endTime is before startTime")
	}
	if idParam != "" {
		p.id = q.Get(idParam)
	}
	return p, nil
}

// bucketSize is the platform's bucket: an hour, a day, a week from Monday,
// a month or a year, in UTC.
type bucketSize string

// floor returns the start of the bucket holding t.
func (b bucketSize) floor(t time.Time) time.Time {
	t = t.UTC()
	y, m, d := t.Date()
	switch b {
	case "hour":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, time.UTC)
	case "week":
		return time.Date(y, m, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// next returns the start of the bucket n after the one starting at t (n
// may be negative).
func (b bucketSize) next(t time.Time, n int) time.Time {
	switch b {
	case "hour":
		return t.AddDate(0, 0, n/24).Add(time.Duration(n%24) * time.Hour)
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "month":
		return t.AddDate(0, n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	}
	return t.AddDate(0, 0, n)
}

// count returns how many buckets lie in [start, end), both on boundaries,
// from seconds and calendar fields (a Duration saturates at 292 years).
func (b bucketSize) count(start, end time.Time) int64 {
	secs := end.Unix() - start.Unix()
	switch b {
	case "hour":
		return secs / 3600
	case "week":
		return secs / (7 * 86400)
	case "month":
		return int64(end.Year()-start.Year())*12 + int64(end.Month()-start.Month())
	case "year":
		return int64(end.Year() - start.Year())
	}
	return secs / 86400
}

// window is the platform's answer to p at now: the last lastN buckets,
// ending with the current, still open one; or startTime (default 30 days
// ago) rounded down to its bucket and endTime (default now, exclusive)
// rounded up unless it is on a boundary.
func (p billingParams) window(now time.Time) (start, end time.Time) {
	b := p.bucket
	if p.lastN > 0 {
		current := b.floor(now)
		return b.next(current, -(p.lastN - 1)), b.next(current, 1)
	}
	start, end = p.start, p.end
	if start.IsZero() {
		start = now.Add(-30 * 24 * time.Hour)
	}
	if end.IsZero() {
		end = now
	}
	start = b.floor(start)
	if f := b.floor(end); !f.Equal(end) {
		end = b.next(f, 1)
	}
	return start, end.UTC()
}

// serveReport answers a billing request at now with rep's records and
// metadata, or a 400 problem for parameters the platform refuses. A
// report split by resource has one record per bucket per resource with
// spend in the window (or per bucket for the filtered resource); the
// others one per bucket. The usage of the fake's pods and endpoints
// (metering.go) adds to the ledger's.
func (s *Server) serveReport(w http.ResponseWriter, r *http.Request, rep report, l ledger, pods, endpoints []meter, now time.Time) {
	p, err := parseBillingParams(r, rep.idParam)
	if err != nil {
		Problem(w, http.StatusBadRequest, err.Error())
		return
	}
	start, end := p.window(now)
	if !start.Before(end) {
		// [start, end) is empty or inverted, such as an endTime earlier
		// than the default start (30 days ago): the platform refuses the
		// window rather than answer it with no records.
		Problem(w, http.StatusBadRequest, fmt.Sprintf("the window %s to %s is empty: startTime (default 30 days ago) must be before endTime",
			start.Format(time.RFC3339), end.Format(time.RFC3339)))
		return
	}
	if start.Year() < 1 || end.Year() > 9999 {
		Problem(w, http.StatusBadRequest, fmt.Sprintf("the window %s to %s reaches outside the years 1 to 9999 (lastN, startTime or endTime)",
			start.Format(time.RFC3339), end.Format(time.RFC3339)))
		return
	}
	// Count before building anything: a window from a hostile or mistaken
	// query may span billions of buckets.
	if n := p.bucket.count(start, end); n > MaxBillingBuckets {
		Problem(w, http.StatusBadRequest, fmt.Sprintf("the window spans %d %s buckets, more than %d; use a larger bucketSize", n, p.bucket, MaxBillingBuckets))
		return
	}
	var starts []time.Time
	for t := start; t.Before(end); t = p.bucket.next(t, 1) {
		starts = append(starts, t)
	}
	l = l.withMeters(pods, endpoints, starts, end, p.bucket)
	type cell struct {
		bucket   int
		resource string
	}
	width := max(len(rep.amounts), 1)
	sums := map[cell][]float64{}
	seen := map[string]bool{}
	for _, e := range rep.lines(l) {
		if e.at.Before(start) || !e.at.Before(end) || (p.id != "" && e.resource != p.id) {
			continue
		}
		c := cell{sort.Search(len(starts), func(i int) bool { return starts[i].After(e.at) }) - 1, e.resource}
		if sums[c] == nil {
			sums[c] = make([]float64, width)
		}
		for j, v := range e.amounts {
			sums[c][j] += v
		}
		seen[e.resource] = true
	}
	resources := []string{""}
	if rep.idParam != "" {
		if p.id != "" {
			seen = map[string]bool{p.id: true}
		}
		resources = slices.Sorted(func(yield func(string) bool) {
			for id := range seen {
				if !yield(id) {
					return
				}
			}
		})
	}
	totals := make([]float64, width)
	records := make([]map[string]any, 0, len(starts)*len(resources))
	for i, t := range starts {
		for _, id := range resources {
			amounts := sums[cell{i, id}]
			if amounts == nil {
				amounts = make([]float64, width)
			}
			rec := map[string]any{"startTime": t, "endTime": p.bucket.next(t, 1)}
			if rep.idParam != "" {
				rec[rep.idParam] = id
			}
			putAmounts(rec, rep.amounts, amounts)
			for j, v := range amounts {
				totals[j] += v
			}
			records = append(records, rec)
		}
	}
	query := map[string]any{"startTime": start, "endTime": end, "bucketSize": p.bucket}
	if rep.idParam != "" {
		query[rep.idParam] = nil
		if p.id != "" {
			query[rep.idParam] = p.id
		}
	}
	meta := map[string]any{"query": query, "recordCount": len(records), "totals": putAmounts(map[string]any{}, rep.amounts, totals)}
	if rep.uniqueField != "" {
		meta[rep.uniqueField] = len(resources)
	}
	WriteJSON(w, map[string]any{"records": records, "metadata": meta})
}

// putAmounts sets each named amount in m, and totalAmount to the sum of
// values (for public-endpoint spend, with no named amounts, the one value).
func putAmounts(m map[string]any, names []string, values []float64) map[string]any {
	total := 0.0
	for j, v := range values {
		total += v
		if j < len(names) {
			m[names[j]] = v
		}
	}
	m["totalAmount"] = total
	return m
}

func (s *Server) registerBilling() {
	route := func(pattern string, rep report) {
		s.Handle(Route{Pattern: pattern, Permission: PermissionBillingRead}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			now := s.now()
			pods, endpoints := s.podMeters(now), s.serverlessMeters(now)
			s.billing.mu.Lock()
			l := s.billing.ledger
			s.billing.mu.Unlock()
			s.serveReport(w, r, rep, l, pods, endpoints, now)
		}))
	}
	route(RouteBillingServerless, serverlessReport)
	route(RouteBillingPods, podReport)
	route(RouteBillingNetworkVolumes, networkVolumeReport)
	route(RouteBillingClusters, clusterReport)
	route(RouteBillingEndpoints, publicEndpointReport)
	route(RouteBillingSummary, summaryReport)
}
