// Package billing reads RunPod's billing history from the REST v2 API:
// serverless endpoint spend, and its sibling reports for the whole
// account, pods, public endpoints, network volumes and clusters.
//
// Every report splits a window into buckets (hour, day, week, month or
// year) and returns typed records, the query the platform resolved, record
// counts and totals:
//
//	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 7, Bucket: billing.BillingBucketSizeDay})
//	for _, g := range billing.ByBucket(rep.Records) {
//		fmt.Println(g.Range.StartTime.Format(time.DateOnly), g.Total)
//	}
//
// The reports: Service.Serverless (serverless endpoints), Summary (the
// whole account, 14 amounts), Pods, Endpoints (public endpoints, the
// pre-deployed models), NetworkVolumes and Clusters. Each response has
// Window (the window the platform resolved), Sum (the records' totals) and
// Reconcile (counts, totals and buckets checked against the records);
// ByBucket and ByResource group any report's records, and Resources lists
// their ids.
//
// Money is exact: every amount is an Amount, a whole number of
// nano-dollars read from the JSON number's text, so sums never drift; it
// prints as a bill does ("$1,204.50").
//
// Params ask for the last LastN buckets, ending with the current one, or
// for a window (Start, End; sent as RFC 3339 in UTC); left zero, the
// platform's defaults apply: 30 days ago to now, daily buckets. They are
// checked before any request is sent (a *errs.ValidationError names the
// field): LastN below 1 or beside Start or End, End before Start, an
// unknown bucket, an ID on a report that takes none, a window outside the
// years 1 to 9999. Window and LastN compute the window the platform will
// answer with, snapped to bucket boundaries in UTC; weeks start on Monday
// 00:00 UTC (ISO 8601; the platform documents no other start).
//
// In tests, runpodtest serves the six reports, computed on the fake's clock
// from what its pods and endpoints use and from usage a test adds
// (AddServerlessUsage and its siblings), checking each query against the
// platform's document. Example: examples/billing, a table per endpoint and
// bucket or an SVG chart.
package billing

import (
	"context"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// report is a report's route and the query parameter that filters it by
// resource ("" for none).
type report struct{ route, idParam string }

// The reports. Each is a read (GET, retried) of its route, with Params
// checked and encoded as its query before anything is sent.
var (
	summaryReport       = report{"/v2/billing", ""}
	podsReport          = report{"/v2/billing/pods", "podId"}
	serverlessReport    = report{"/v2/billing/serverless", "serverlessId"}
	endpointsReport     = report{"/v2/billing/endpoints", ""}
	networkVolumeReport = report{"/v2/billing/network-volumes", "networkVolumeId"}
	clustersReport      = report{"/v2/billing/clusters", "clusterId"}
)

// at is the Path of the report for p.
func (r report) at(p Params) rest.Path {
	q, err := p.query(r.idParam)
	return rest.At(r.route).Query(q).Check(err)
}

// Serverless lists the spend of serverless endpoints (GET
// /v2/billing/serverless): one record per endpoint per bucket, or, with
// Params.ID, the records of that endpoint.
func (s *Service) Serverless(ctx context.Context, p Params, opts ...option.RequestOption) (*ListServerlessBillingResponse, error) {
	return rest.Call[ListServerlessBillingResponse](ctx, s.t, http.MethodGet, serverlessReport.at(p), nil, opts)
}

// Summary lists the account's spend across every product per bucket (GET
// /v2/billing). It takes no Params.ID.
func (s *Service) Summary(ctx context.Context, p Params, opts ...option.RequestOption) (*ListBillingResponse, error) {
	return rest.Call[ListBillingResponse](ctx, s.t, http.MethodGet, summaryReport.at(p), nil, opts)
}

// Pods lists the spend of pods (GET /v2/billing/pods): one record per pod
// per bucket, or, with Params.ID, the records of that pod.
func (s *Service) Pods(ctx context.Context, p Params, opts ...option.RequestOption) (*ListPodBillingResponse, error) {
	return rest.Call[ListPodBillingResponse](ctx, s.t, http.MethodGet, podsReport.at(p), nil, opts)
}

// Endpoints lists the spend on public endpoints, the platform's
// pre-deployed models (GET /v2/billing/endpoints); serverless endpoint
// spend is Serverless. It takes no Params.ID.
func (s *Service) Endpoints(ctx context.Context, p Params, opts ...option.RequestOption) (*ListEndpointBillingResponse, error) {
	return rest.Call[ListEndpointBillingResponse](ctx, s.t, http.MethodGet, endpointsReport.at(p), nil, opts)
}

// NetworkVolumes lists the spend of network volumes (GET
// /v2/billing/network-volumes), or, with Params.ID, of that volume.
func (s *Service) NetworkVolumes(ctx context.Context, p Params, opts ...option.RequestOption) (*ListNetworkVolumeBillingResponse, error) {
	return rest.Call[ListNetworkVolumeBillingResponse](ctx, s.t, http.MethodGet, networkVolumeReport.at(p), nil, opts)
}

// Clusters lists the spend of instant clusters (GET /v2/billing/clusters),
// or, with Params.ID, of that cluster.
func (s *Service) Clusters(ctx context.Context, p Params, opts ...option.RequestOption) (*ListClusterBillingResponse, error) {
	return rest.Call[ListClusterBillingResponse](ctx, s.t, http.MethodGet, clustersReport.at(p), nil, opts)
}
