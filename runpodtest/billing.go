package runpodtest

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/billing"
)

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
	At                  time.Time
	ServerlessID        string
	GPU, CPU, Disk, Fee float64
}

// PodUsage is spend of a pod at an instant.
type PodUsage struct {
	At             time.Time
	PodID          string
	GPU, CPU, Disk float64
}

// NetworkVolumeUsage is spend of a network volume at an instant.
type NetworkVolumeUsage struct {
	At                        time.Time
	NetworkVolumeID           string
	Standard, HighPerformance float64
}

// ClusterUsage is spend of an instant cluster at an instant.
type ClusterUsage struct {
	At                    time.Time
	ClusterID             string
	GPU, Disk, Networking float64
}

// PublicEndpointUsage is spend on a public endpoint (a pre-deployed model)
// at an instant.
type PublicEndpointUsage struct {
	At     time.Time
	Model  string
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

// AddServerlessUsage records serverless spend in the billing ledger.
func (s *Server) AddServerlessUsage(u ...ServerlessUsage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.serverless = append(s.ledger.serverless, u...)
}

// AddPodUsage records pod spend in the billing ledger.
func (s *Server) AddPodUsage(u ...PodUsage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.pods = append(s.ledger.pods, u...)
}

// AddNetworkVolumeUsage records storage spend in the billing ledger.
func (s *Server) AddNetworkVolumeUsage(u ...NetworkVolumeUsage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.networkVolumes = append(s.ledger.networkVolumes, u...)
}

// AddClusterUsage records cluster spend in the billing ledger.
func (s *Server) AddClusterUsage(u ...ClusterUsage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.clusters = append(s.ledger.clusters, u...)
}

// AddPublicEndpointUsage records public-endpoint spend in the billing
// ledger.
func (s *Server) AddPublicEndpointUsage(u ...PublicEndpointUsage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.publicEndpoint = append(s.ledger.publicEndpoint, u...)
}

// entry is one ledger line, in the shape of the report it feeds.
type entry[A any] struct {
	at       time.Time
	resource string
	amounts  A
}

// resolved is a billing request after its parameters were applied to the
// ledger: the window, its buckets, the resources and each cell's sum.
type resolved[A any] struct {
	query     billing.Query
	filter    string
	buckets   []billing.TimeRange
	resources []string
	cells     map[cell]A
}

type cell struct {
	bucket   int
	resource string
}

// resolve applies the query of r to entries, as the platform does: the
// default or lastN window snapped to buckets, the id filter, and one cell
// per bucket per resource that has spend in the window (or the filtered
// resource).
func resolve[A any](s *Server, r *http.Request, idParam string, entries []entry[A]) (*resolved[A], error) {
	p, err := billing.ParseParams(r.URL.Query(), idParam)
	if err != nil {
		return nil, err
	}
	window, err := p.Resolve(s.now())
	if err != nil {
		return nil, err
	}
	bucket := p.Bucket
	if bucket == "" {
		bucket = billing.DefaultBucket
	}
	// Count before building anything: a window from a hostile or mistaken
	// query may span billions of buckets.
	if n := bucket.Count(window); n > MaxBillingBuckets {
		return nil, fmt.Errorf("the window spans %d %s buckets, more than %d; use a larger bucketSize", n, bucket, MaxBillingBuckets)
	}
	buckets := window.Buckets(bucket)
	res := &resolved[A]{
		query:   billing.Query{StartTime: window.StartTime, EndTime: window.EndTime, BucketSize: bucket},
		filter:  p.ID,
		buckets: buckets,
		cells:   map[cell]A{},
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if !window.Contains(e.at) || (p.ID != "" && e.resource != p.ID) {
			continue
		}
		i := sort.Search(len(buckets), func(i int) bool { return buckets[i].EndTime.After(e.at) })
		c := cell{i, e.resource}
		res.cells[c] = plus(res.cells[c], e.amounts)
		seen[e.resource] = true
	}
	if p.ID != "" {
		seen = map[string]bool{p.ID: true}
	}
	for id := range seen {
		res.resources = append(res.resources, id)
	}
	slices.Sort(res.resources)
	return res, nil
}

// each calls f for every bucket and resource, in time order then id order.
func (res *resolved[A]) each(f func(b billing.TimeRange, resource string, a A)) {
	for i, b := range res.buckets {
		for _, id := range res.resources {
			f(b, id, res.cells[cell{i, id}])
		}
	}
}

func (res *resolved[A]) filterPtr() *string {
	if res.filter == "" {
		return nil
	}
	f := res.filter
	return &f
}

// serveReport answers a billing request with a report of type R (a
// billing.*Report), or a 400 problem for bad parameters. idParam is the
// query filter ("" for none) and idField the records' and query's field
// that carries it; split reports have one record per bucket per resource,
// the others one per bucket.
func serveReport[R, A any](s *Server, w http.ResponseWriter, r *http.Request, idParam, idField string, entries []entry[A]) {
	res, err := resolve(s, r, idParam, entries)
	if err != nil {
		Problem(w, http.StatusBadRequest, err.Error())
		return
	}
	WriteJSON(w, buildReport[R](res, idField))
}

// buildReport fills a report from res by field name: each record's time
// range, resource id and amounts; the metadata's resolved query (with the
// filter), counts and totals.
func buildReport[R, A any](res *resolved[A], idField string) R {
	var rep R
	rv := reflect.ValueOf(&rep).Elem()
	records := rv.FieldByName("Records")
	records.Set(reflect.MakeSlice(records.Type(), 0, len(res.buckets)*max(len(res.resources), 1)))
	var totals A
	add := func(b billing.TimeRange, id string, a A) {
		rec := reflect.New(records.Type().Elem()).Elem()
		rec.FieldByName("StartTime").Set(reflect.ValueOf(b.StartTime))
		rec.FieldByName("EndTime").Set(reflect.ValueOf(b.EndTime))
		if idField != "" {
			rec.FieldByName(idField).SetString(id)
		}
		av := reflect.ValueOf(a)
		for i := range av.NumField() {
			rec.FieldByName(av.Type().Field(i).Name).Set(av.Field(i))
		}
		records.Set(reflect.Append(records, rec))
		totals = plus(totals, a)
	}
	if idField != "" {
		res.each(add)
	} else {
		res.perBucket(func(b billing.TimeRange, a A) { add(b, "", a) })
	}
	meta := rv.FieldByName("Metadata")
	q := meta.FieldByName("Query")
	q.FieldByName("StartTime").Set(reflect.ValueOf(res.query.StartTime))
	q.FieldByName("EndTime").Set(reflect.ValueOf(res.query.EndTime))
	q.FieldByName("BucketSize").Set(reflect.ValueOf(res.query.BucketSize))
	if f := q.FieldByName(idField); idField != "" && f.IsValid() {
		f.Set(reflect.ValueOf(res.filterPtr()))
	}
	meta.FieldByName("RecordCount").SetInt(int64(records.Len()))
	for i := range meta.NumField() {
		if strings.HasPrefix(meta.Type().Field(i).Name, "Unique") {
			meta.Field(i).SetInt(int64(len(res.resources)))
		}
	}
	meta.FieldByName("Totals").Set(reflect.ValueOf(totals))
	return rep
}

func (s *Server) registerBilling() {
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request, l ledger)) {
		s.Handle(Route{Pattern: pattern, Permission: BillingRead}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			l := s.ledger
			s.mu.Unlock()
			h(w, r, l)
		}))
	}
	route(RouteBillingServerless, func(w http.ResponseWriter, r *http.Request, l ledger) {
		serveReport[billing.ServerlessReport](s, w, r, "serverlessId", "ServerlessID", serverlessEntries(l))
	})
	route(RouteBillingPods, func(w http.ResponseWriter, r *http.Request, l ledger) {
		serveReport[billing.PodReport](s, w, r, "podId", "PodID", podEntries(l))
	})
	route(RouteBillingNetworkVolumes, func(w http.ResponseWriter, r *http.Request, l ledger) {
		serveReport[billing.NetworkVolumeReport](s, w, r, "networkVolumeId", "NetworkVolumeID", networkVolumeEntries(l))
	})
	route(RouteBillingClusters, func(w http.ResponseWriter, r *http.Request, l ledger) {
		serveReport[billing.ClusterReport](s, w, r, "clusterId", "ClusterID", clusterEntries(l))
	})
	route(RouteBillingEndpoints, func(w http.ResponseWriter, r *http.Request, l ledger) {
		serveReport[billing.EndpointReport](s, w, r, "", "", publicEndpointEntries(l))
	})
	route(RouteBillingSummary, func(w http.ResponseWriter, r *http.Request, l ledger) {
		serveReport[billing.SummaryReport](s, w, r, "", "", summaryEntries(l))
	})
}

// perBucket calls f once per bucket with the bucket's sum over every
// resource: the reports that are not split by resource.
func (res *resolved[A]) perBucket(f func(b billing.TimeRange, a A)) {
	for i, b := range res.buckets {
		f(b, res.cells[cell{i, ""}]) // unsplit reports' entries have no resource
	}
}
