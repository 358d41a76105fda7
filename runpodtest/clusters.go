package runpodtest

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/pods"
)

// clustersUnit holds the instant clusters. A cluster's pods are pods of
// the pods unit (so the pod routes list them with includeClusterPods=true),
// which the cluster routes reach only through the small helpers below that
// take s.pods.mu. Lock order: s.clusters.mu may be held while one of them
// takes s.pods.mu, never the other way round.
type clustersUnit struct {
	mu   sync.Mutex
	byID map[string]*fakeCluster
}

func newClustersUnit() clustersUnit {
	return clustersUnit{byID: map[string]*fakeCluster{}}
}

// The clusters fake speaks the REST v2 wire format with structs of its
// own, written from the platform's published document. The document's
// schema checks run before a handler (name, type and compute required,
// 2 to 250 pods, at least one GPU per pod, nothing but a name in an
// update); the handlers apply the rules the document gives beyond the
// schema: a GPU type of the catalog, at most its secure-cloud maxCount
// per pod (checkGPU), the mount and port rules every pod shares, a
// network volume that exists in the cluster's data center (placeByVolumes),
// a cluster whose pods all run in one data center, and a delete that
// terminates them. Its pods cost what pods of their hardware cost
// (pods.go); the cluster itself reports no cost, as the document's
// Cluster has none.

// Routes of the REST v2 cluster operations.
const (
	RouteClusters      = "GET /v2/clusters"
	RouteCreateCluster = "POST /v2/clusters"
	RouteCluster       = "GET /v2/clusters/{id}"
	RouteUpdateCluster = "PATCH /v2/clusters/{id}"
	RouteDeleteCluster = "DELETE /v2/clusters/{id}"
	RouteClusterPods   = "GET /v2/clusters/{id}/pods"
)

// Cluster is a fake instant cluster as a test sets one up (AddCluster) or
// reads it back (Clusters).
type Cluster struct {
	// ID is the cluster's id; AddCluster makes one when it is empty.
	ID string
	// Name is the cluster's name.
	Name string
	// Type is the kind of cluster (TRAINING when empty). SLURM and RAY
	// clusters give their pods roles: rank 0 is the controller or the
	// head, the others compute nodes or workers.
	Type clusters.ClusterType
	// GPU is the GPU type id of every pod. AddCluster does not check it
	// against the catalog; the pods cost the catalog's secure-cloud price
	// (nothing for a type the catalog does not have).
	GPU string
	// GPUsPerPod is the number of GPUs on each pod (1 when 0).
	GPUsPerPod int
	// PodCount is the number of pods (2 when less).
	PodCount int
	// Image is the container image every pod runs.
	Image string
	// Ports are the ports every pod exposes, such as "22/tcp".
	Ports []string
	// Env is the environment of every pod.
	Env map[string]string
	// DataCenterID is the data center all the pods run in (EU-RO-1 when
	// empty).
	DataCenterID string
	// PodStatus is the status AddCluster starts the pods in (RUNNING when
	// empty). Clusters leaves it empty: Pods tells each pod's status.
	PodStatus pods.PodStatus
	// PodIDs are the ids of the cluster's pods, by rank; set by the fake.
	PodIDs []string
	// CreatedAt is set by the fake.
	CreatedAt time.Time
}

// fakeCluster is a cluster's state, guarded by s.clusters.mu. Its pods'
// state is in the pods unit.
type fakeCluster struct {
	Cluster
	vxlanID int
}

// snapshot returns a copy of the cluster for a test to keep.
func (c *fakeCluster) snapshot() Cluster {
	v := c.Cluster
	v.Ports, v.Env, v.PodIDs = slices.Clone(v.Ports), maps.Clone(v.Env), slices.Clone(v.PodIDs)
	return v
}

// Wire formats, as the REST v2 document describes them.
type (
	clusterJSON struct {
		ID           string             `json:"id"`
		Name         string             `json:"name"`
		Type         string             `json:"type"`
		Compute      clusterComputeJSON `json:"compute"`
		DataCenterID *string            `json:"dataCenterId,omitempty"`
		Pods         struct {
			Total    int            `json:"total"`
			ByStatus map[string]int `json:"byStatus"`
		} `json:"pods"`
		Network   *clusterNetworkJSON `json:"network,omitempty"`
		Primary   *clusterPrimaryJSON `json:"primary,omitempty"`
		CreatedAt time.Time           `json:"createdAt"`
	}
	clusterComputeJSON struct {
		GPUTypeID      string `json:"gpuTypeId"`
		GPUCountPerPod int    `json:"gpuCountPerPod"`
		PodCount       int    `json:"podCount"`
	}
	clusterNetworkJSON struct {
		CIDR      string `json:"cidr"`
		VXLANID   int    `json:"vxlanId"`
		VXLANPort int    `json:"vxlanPort"`
	}
	clusterPrimaryJSON struct {
		PodID       string `json:"podId"`
		Status      string `json:"status"`
		SSHEndpoint string `json:"sshEndpoint,omitempty"`
	}
	createClusterJSON struct {
		containerInJSON
		Name          string             `json:"name"`
		Type          string             `json:"type"`
		Compute       clusterComputeJSON `json:"compute"`
		DataCenterIDs []string           `json:"dataCenterIds"`
		Mounts        *mountsPatchJSON   `json:"mounts"`
	}
)

// The cluster network every fake cluster gets: its address block, the
// UDP port of its VXLAN traffic, and the first address given to a pod.
const (
	clusterCIDR      = "10.65.0.0/16"
	clusterVXLANPort = 4789
)

// clusterPodIP is the address of the pod of rank on the cluster network.
func clusterPodIP(rank int) string {
	n := rank + 2
	return fmt.Sprintf("10.65.%d.%d", n/256, n%256)
}

// clusterRole is the role of the pod of rank in a cluster of type t, ""
// in clusters without roles.
func clusterRole(t clusters.ClusterType, rank int) string {
	switch {
	case t == clusters.ClusterTypeSlurm && rank == 0:
		return "SLURM_CONTROLLER"
	case t == clusters.ClusterTypeSlurm:
		return "SLURM_COMPUTE"
	case t == clusters.ClusterTypeRay && rank == 0:
		return "RAY_HEAD"
	case t == clusters.ClusterTypeRay:
		return "RAY_WORKER"
	}
	return ""
}

// newCluster fills a cluster's defaults and makes its pods (not stored
// yet), each like the template pod tmpl (its rate too), with its rank,
// role and address.
func newCluster(c Cluster, tmpl fakePod) (*fakeCluster, []*fakePod) {
	fc := &fakeCluster{Cluster: c}
	if fc.ID == "" {
		fc.ID = newPodID()
	}
	fc.Type = cmp.Or(fc.Type, clusters.ClusterTypeTraining)
	fc.GPUsPerPod = max(fc.GPUsPerPod, 1)
	fc.PodCount = max(fc.PodCount, 2)
	fc.DataCenterID = cmp.Or(fc.DataCenterID, "EU-RO-1")
	fc.PodStatus = ""
	h := fnv.New32a()
	_, _ = h.Write([]byte(fc.ID))
	fc.vxlanID = 1 + int(h.Sum32()%16777214)
	members := make([]*fakePod, fc.PodCount)
	fc.PodIDs = make([]string, fc.PodCount)
	for rank := range members {
		p := tmpl
		p.ID = newPodID()
		p.Name = fmt.Sprintf("%s-node-%d", fc.Name, rank)
		p.Image, p.GPU, p.GPUCount = fc.Image, fc.GPU, fc.GPUsPerPod
		p.Ports, p.Env = slices.Clone(fc.Ports), maps.Clone(fc.Env)
		if m := p.mounts.Persistent; m != nil {
			p.mounts.Persistent = ptr(*m)
		}
		p.mounts.Network = slices.Clone(p.mounts.Network)
		p.cloud, p.dataCenterID, p.cudaVersion = "SECURE", fc.DataCenterID, ptr("12.8")
		p.rate = tmpl.rate
		p.cluster = &podClusterJSON{ID: fc.ID, Rank: ptr(rank), Role: clusterRole(fc.Type, rank), IP: clusterPodIP(rank)}
		p.changed = make(chan struct{})
		members[rank], fc.PodIDs[rank] = &p, p.ID
	}
	return fc, members
}

// AddCluster stores a cluster and its pods, in c.PodStatus (RUNNING when
// empty; running pods have their ports mapped), and returns its id: state
// for a test or demo to start from without going through
// POST /v2/clusters. Its pods are listed by GET /v2/clusters/{id}/pods,
// and by GET /v2/pods with includeClusterPods=true.
func (s *Server) AddCluster(c Cluster) string {
	st := cmp.Or(c.PodStatus, pods.PodStatusRunning)
	tmpl := fakePod{rate: s.podRate(c.GPU, max(c.GPUsPerPod, 1), "SECURE", "", 0)}
	fc, members := newCluster(c, tmpl)
	s.clusters.mu.Lock()
	defer s.clusters.mu.Unlock()
	fc.CreatedAt = s.now().UTC()
	s.clusters.byID[fc.ID] = fc
	s.storeClusterPods(members, st, false)
	return fc.ID
}

// Clusters returns a snapshot of the fake's clusters, ordered by id.
func (s *Server) Clusters() []Cluster {
	s.clusters.mu.Lock()
	defer s.clusters.mu.Unlock()
	return listOf(s.clusters.byID, every((*fakeCluster).snapshot))
}

// The pods helpers: the only places the cluster routes take s.pods.mu,
// each for a short while.

// storeClusterPods stores a new cluster's pods in status st. With
// checkVolumes, it first checks that the network volumes they mount still
// exist, with the pods lock held so that none is deleted before the pods
// are stored, and stores nothing when one does not.
func (s *Server) storeClusterPods(members []*fakePod, st pods.PodStatus, checkVolumes bool) *volumeProblem {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	if checkVolumes && len(members) > 0 {
		if _, vp := s.placeByVolumes(members[0].mounts.Network, nil); vp != nil {
			return vp
		}
	}
	now := s.now()
	for _, p := range members {
		s.storePodLocked(p)
		p.set(st, now)
	}
	return nil
}

// clusterPodViews returns a cluster's pods as GET shows them, by rank.
func (s *Server) clusterPodViews(ids []string) []podJSON {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	out := []podJSON{}
	for _, id := range ids {
		if p := s.pods.byID[id]; p != nil {
			out = append(out, s.podJSONLocked(p))
		}
	}
	return out
}

// terminateClusterPods terminates and deletes a cluster's pods.
func (s *Server) terminateClusterPods(ids []string) {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	now := s.now()
	for _, id := range ids {
		if p := s.pods.byID[id]; p != nil {
			p.set(pods.PodStatusTerminated, now)
			delete(s.pods.byID, id)
		}
	}
}

// clusterJSON returns the cluster c as GET shows it: the counts, the data
// center and the primary come from its pods as they are now.
// s.clusters.mu is held (it takes s.pods.mu).
func (s *Server) clusterJSON(c *fakeCluster) clusterJSON {
	v := clusterJSON{
		ID: c.ID, Name: c.Name, Type: string(c.Type), CreatedAt: c.CreatedAt,
		Compute: clusterComputeJSON{GPUTypeID: c.GPU, GPUCountPerPod: c.GPUsPerPod, PodCount: c.PodCount},
		Network: &clusterNetworkJSON{CIDR: clusterCIDR, VXLANID: c.vxlanID, VXLANPort: clusterVXLANPort},
	}
	v.Pods.ByStatus = map[string]int{}
	members := s.clusterPodViews(c.PodIDs)
	for _, p := range members {
		v.Pods.Total++
		v.Pods.ByStatus[string(p.Status)]++
	}
	if len(members) == 0 {
		return v
	}
	primary := members[0]
	v.DataCenterID = primary.DataCenterID
	v.Primary = &clusterPrimaryJSON{PodID: primary.ID, Status: string(primary.Status)}
	if d := primary.SSH.Direct; d != nil {
		v.Primary.SSHEndpoint = net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
	}
	return v
}

// clusterNotFound is the fake's answer about a cluster it does not have.
const clusterNotFound = "cluster not found"

// clusterPods answers GET /v2/clusters/{id}/pods: the cluster's pods, by
// rank.
func (s *Server) clusterPods(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.clusters.mu, s.clusters.byID, clusterNotFound, func(c *fakeCluster) {
		WriteJSON(w, map[string]any{"pods": s.clusterPodViews(c.PodIDs)})
	})
}

// updateCluster renames a cluster, the one change an update makes.
func (s *Server) updateCluster(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	withResource(w, r, &s.clusters.mu, s.clusters.byID, clusterNotFound, func(c *fakeCluster) {
		set(&c.Name, req.Name)
		WriteJSON(w, s.clusterJSON(c))
	})
}

// deleteCluster deletes a cluster and terminates its pods.
func (s *Server) deleteCluster(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.clusters.mu, s.clusters.byID, clusterNotFound, func(c *fakeCluster) {
		delete(s.clusters.byID, c.ID)
		s.terminateClusterPods(c.PodIDs)
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Server) createCluster(w http.ResponseWriter, r *http.Request) {
	var req createClusterJSON
	if !decodeBody(w, r, &req) || refuseMounts(w, req.Mounts) || refusePorts(w, req.Ports) {
		return
	}
	perPod := max(req.Compute.GPUCountPerPod, 1)
	offer, field, problem := s.checkGPU(req.Compute.GPUTypeID, perPod, "SECURE", "compute.gpuTypeId", "compute.gpuCountPerPod")
	if problem != "" {
		badRequest(w, field, "%s", problem)
		return
	}
	c := Cluster{
		Name: req.Name, Type: clusters.ClusterType(req.Type), GPU: req.Compute.GPUTypeID,
		GPUsPerPod: req.Compute.GPUCountPerPod, PodCount: req.Compute.PodCount,
		Image: deref(req.Image), Ports: req.Ports, Env: req.Env,
	}
	if len(req.DataCenterIDs) > 0 {
		c.DataCenterID = req.DataCenterIDs[0] // a cluster is placed in one
	}
	tmpl := fakePod{args: deref(req.Args), rate: math.Round(offer.price*float64(perPod)*1e6) / 1e6, mounts: req.Mounts.mounts()}
	tmpl.Disk = deref(req.Disk)
	// The pods run where their network volume is, one of dataCenterIds
	// when they are given, and where their GPU type has stock.
	stock := s.gpuStockOf(req.Compute.GPUTypeID)
	dc, vp := s.placeByVolumes(tmpl.mounts.Network, req.DataCenterIDs)
	if vp != nil {
		vp.refuseMount(w)
		return
	}
	dcs := req.DataCenterIDs
	if dc != "" {
		dcs = []string{dc}
	}
	dc, refusal := stock.place(dcs, nil, "")
	if refusal != "" {
		refuseCapacity(w, http.StatusInternalServerError, "create cluster", refusal)
		return
	}
	c.DataCenterID = cmp.Or(dc, c.DataCenterID)
	fc, members := newCluster(c, tmpl)
	s.clusters.mu.Lock()
	defer s.clusters.mu.Unlock()
	if vp := s.storeClusterPods(members, pods.PodStatusProvisioning, true); vp != nil {
		vp.refuseMount(w)
		return
	}
	fc.CreatedAt = s.now().UTC()
	s.clusters.byID[fc.ID] = fc
	writeCreated(w, s.clusterJSON(fc))
}
