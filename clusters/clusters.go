// Package clusters manages instant clusters: groups of identical GPU pods in
// one data center, joined by a private network. It is served by the REST v2
// API; its types are generated from the platform's published REST v2
// document and keep its names.
//
//	c, err := rp.Clusters.Create(ctx, clusters.CreateClusterRequest{
//		Name:    "train",
//		Type:    clusters.ClusterTypeTraining,
//		Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 2},
//		Image:   runpod.Ptr("runpod/pytorch:2.4.0"),
//		Ports:   []string{"22/tcp"},
//	})
//	members, err := rp.Clusters.Pods(ctx, c.ID) // []pods.Pod, each with its Cluster rank and role
//	err = rp.Clusters.Delete(ctx, c.ID)          // terminates every pod of the cluster
//
// Service (runpod.Client.Clusters) lists, reads, creates, renames and
// deletes clusters (List, Get, Create, Update, Delete), and lists a
// cluster's pods (Pods). A Cluster tells the cluster's shape
// (ClusterCompute: a GPU type, the GPUs on each pod, the number of pods),
// its private network, its primary pod (rank 0, with its SSH address once
// it runs) and a count of its pods by status; Pods returns the pods
// themselves as pods.Pod values, whose Cluster field gives each one's rank,
// role and address on the cluster's network.
//
// The pods of a cluster belong to it: package pods lists them only with
// pods.ListPodsParams.IncludeClusterPods, and the platform refuses to
// update or delete them through package pods (status 409). They are
// billed while the cluster exists; Delete terminates them all.
//
// The request types are CreateClusterRequest and UpdateClusterRequest
// (renaming is the only change a cluster takes). Their mounts and the
// pods' statuses are package pods' types (pods.Mounts, pods.PodStatus).
// Requests are validated before anything is sent: a
// *errs.ValidationError names the field, such as
// "CreateClusterRequest.Compute.PodCount".
//
// Create is never repeated after it may have reached the platform: after
// an ambiguous failure the error matches errs.ErrOutcomeUnknown, and List
// tells whether the cluster exists. Reads, renames and deletes are
// retried; a retried Delete that finds the cluster already gone succeeds.
package clusters

import (
	"context"
	"iter"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

// Routes of the REST v2 document.
const (
	clustersRoute = "/v2/clusters"
	clusterRoute  = "/v2/clusters/{clusterId}"
	podsRoute     = "/v2/clusters/{clusterId}/pods"
)

// clusterID is the rule of cluster ids: letters, digits, '_' and '-', so
// that an id names one path segment as it is.
var clusterID = rest.ID{Field: "clusterID", Extra: "_-"}

// List returns the account's clusters, every page of them (All reads them
// a page at a time).
func (s *Service) List(ctx context.Context, opts ...option.RequestOption) ([]Cluster, error) {
	r, err := rest.List(ctx, s.t, rest.At(clustersRoute), opts, clusterPage)
	return r.Clusters, err
}

// All returns the clusters List returns, one at a time,
// holding one page of them: the first page is asked for when the loop
// starts, a failure ends the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, opts ...option.RequestOption) iter.Seq2[Cluster, error] {
	return rest.All(ctx, s.t, rest.At(clustersRoute), opts, clusterPage)
}

// clusterPage tells where a page of the cluster listing keeps them.
func clusterPage(r *listClustersResponse) (*[]Cluster, *rest.Pagination) {
	return &r.Clusters, (*rest.Pagination)(r.Pagination)
}

// Get returns one cluster; an unknown id is an error matching
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Cluster, error) {
	return rest.Call[Cluster](ctx, s.t, http.MethodGet, rest.At(clusterRoute, clusterID.Of(id)), nil, opts)
}

// Create creates a cluster and its pods, which start provisioning at
// once. The request is validated first (nothing is sent when it is
// invalid) and never repeated after it may have reached the platform:
// after an ambiguous failure the error matches errs.ErrOutcomeUnknown,
// and List tells whether the cluster exists.
//
// A create the platform refuses for want of capacity is a
// *errs.CapacityError matching errs.ErrNoCapacity: nothing was created,
// and CreateWithFallback can try another GPU type or data center.
func (s *Service) Create(ctx context.Context, req CreateClusterRequest, opts ...option.RequestOption) (*Cluster, error) {
	c, err := rest.Call[Cluster](ctx, s.t, http.MethodPost, rest.At(clustersRoute), &req, opts)
	return c, fail.Capacity(err)
}

// Update renames a cluster, the only change a cluster takes. The same
// name sent twice gives the same cluster, so it is retried like a read.
func (s *Service) Update(ctx context.Context, id string, req UpdateClusterRequest, opts ...option.RequestOption) (*Cluster, error) {
	return rest.Call[Cluster](ctx, s.t, http.MethodPatch, rest.At(clusterRoute, clusterID.Of(id)), &req, opts)
}

// Delete deletes a cluster and terminates all its pods, irreversibly. A
// retried delete that finds the cluster already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, rest.At(clusterRoute, clusterID.Of(id)), opts)
}

// Pods returns the pods of a cluster, every page of them (AllPods reads
// them a page at a time), each a whole pods.Pod whose Cluster field gives
// its rank, role and address on the cluster's network. An unknown cluster
// id is an error matching errs.ErrNotFound.
func (s *Service) Pods(ctx context.Context, id string, opts ...option.RequestOption) ([]pods.Pod, error) {
	r, err := rest.List(ctx, s.t, rest.At(podsRoute, clusterID.Of(id)), opts, clusterPodPage)
	return r.Pods, err
}

// AllPods returns the pods Pods returns, one at a time, as All does.
func (s *Service) AllPods(ctx context.Context, id string, opts ...option.RequestOption) iter.Seq2[pods.Pod, error] {
	return rest.All(ctx, s.t, rest.At(podsRoute, clusterID.Of(id)), opts, clusterPodPage)
}

// clusterPods is the body of a cluster's pod listing: {"pods": [...]} and
// its pagination, the pod list's envelope.
type clusterPods struct {
	Pods       []pods.Pod       `json:"pods"`
	Pagination *rest.Pagination `json:"pagination,omitempty"`
}

// clusterPodPage tells where a page of a cluster's pods keeps them.
func clusterPodPage(r *clusterPods) (*[]pods.Pod, *rest.Pagination) { return &r.Pods, r.Pagination }
