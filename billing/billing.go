// Package billing reads RunPod's billing history from the REST v2 API:
// serverless endpoint spend, and its sibling reports for the whole
// account, pods, public endpoints, network volumes and clusters.
//
// Every report splits a window into buckets (hour, day, week, month or
// year) and returns typed records, the query the platform resolved, record
// counts and totals:
//
//	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 7, Bucket: billing.Day})
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
// Params are checked before any request is sent (a *runpod.ValidationError
// names the field). Window and LastN compute the window the platform will
// answer with, snapped to bucket boundaries in UTC; weeks start on Monday.
package billing

import (
	"context"

	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Report operations and the query parameter each filters by.
var (
	summaryOp       = operation{path: "/v2/billing"}
	podsOp          = operation{path: "/v2/billing/pods", idParam: "podId"}
	serverlessOp    = operation{path: "/v2/billing/serverless", idParam: "serverlessId"}
	endpointsOp     = operation{path: "/v2/billing/endpoints"}
	networkVolumeOp = operation{path: "/v2/billing/network-volumes", idParam: "networkVolumeId"}
	clustersOp      = operation{path: "/v2/billing/clusters", idParam: "clusterId"}
)

type operation struct {
	path    string
	idParam string
}

// Service reads billing reports. Get it as runpod.Client.Billing.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Billing = func(t *transport.Transport) any { return &Service{t: t} }
}

// Serverless lists the spend of serverless endpoints (GET
// /v2/billing/serverless): one record per endpoint per bucket, or, with
// Params.ID, the records of that endpoint.
func (s *Service) Serverless(ctx context.Context, p Params, opts ...option.CallOption) (*ListServerlessBillingResponse, error) {
	return get[ListServerlessBillingResponse](ctx, s, serverlessOp, p, opts)
}

// Summary lists the account's spend across every product per bucket (GET
// /v2/billing). It takes no Params.ID.
func (s *Service) Summary(ctx context.Context, p Params, opts ...option.CallOption) (*ListBillingResponse, error) {
	return get[ListBillingResponse](ctx, s, summaryOp, p, opts)
}

// Pods lists the spend of pods (GET /v2/billing/pods): one record per pod
// per bucket, or, with Params.ID, the records of that pod.
func (s *Service) Pods(ctx context.Context, p Params, opts ...option.CallOption) (*ListPodBillingResponse, error) {
	return get[ListPodBillingResponse](ctx, s, podsOp, p, opts)
}

// Endpoints lists the spend on public endpoints, the platform's
// pre-deployed models (GET /v2/billing/endpoints); serverless endpoint
// spend is Serverless. It takes no Params.ID.
func (s *Service) Endpoints(ctx context.Context, p Params, opts ...option.CallOption) (*ListEndpointBillingResponse, error) {
	return get[ListEndpointBillingResponse](ctx, s, endpointsOp, p, opts)
}

// NetworkVolumes lists the spend of network volumes (GET
// /v2/billing/network-volumes), or, with Params.ID, of that volume.
func (s *Service) NetworkVolumes(ctx context.Context, p Params, opts ...option.CallOption) (*ListNetworkVolumeBillingResponse, error) {
	return get[ListNetworkVolumeBillingResponse](ctx, s, networkVolumeOp, p, opts)
}

// Clusters lists the spend of instant clusters (GET /v2/billing/clusters),
// or, with Params.ID, of that cluster.
func (s *Service) Clusters(ctx context.Context, p Params, opts ...option.CallOption) (*ListClusterBillingResponse, error) {
	return get[ListClusterBillingResponse](ctx, s, clustersOp, p, opts)
}

func get[R any](ctx context.Context, s *Service, op operation, p Params, opts []option.CallOption) (*R, error) {
	q, err := p.query(op.idParam)
	if err != nil {
		return nil, err
	}
	u := s.t.BaseURL(op.path)
	u.RawQuery = q
	var out R
	if err := s.t.DoJSON(ctx, &transport.Request{Method: "GET", URL: u, Idempotent: true}, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
