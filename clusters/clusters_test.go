package clusters_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// clock is a fake platform clock the tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

func fake(t *testing.T) (*runpodtest.Server, *runpod.Client, *clock) {
	t.Helper()
	c := &clock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(c.Now), runpodtest.WithPodBoot(10*time.Second, 20*time.Second))
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp, c
}

func newCluster() clusters.CreateClusterRequest {
	return clusters.CreateClusterRequest{
		Name:    "train",
		Type:    clusters.ClusterTypeSlurm,
		Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 3},
		Image:   runpod.Ptr("runpod/pytorch:2.4.0"),
		Ports:   []string{"22/tcp", "8888/http"},
		Env:     map[string]string{"EPOCHS": "3"},
	}
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

// TestWireFormats: each method's request as the platform reads it, and
// its answer as the SDK decodes it.
func TestWireFormats(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()

	c, err := rp.Clusters.Create(ctx, newCluster())
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteCreateCluster, r.Route)
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.JSONEq(t, `{"name":"train","type":"SLURM","compute":{"gpuTypeId":"NVIDIA H100 80GB HBM3","gpuCountPerPod":8,"podCount":3},
		"image":"runpod/pytorch:2.4.0","ports":["22/tcp","8888/http"],"env":{"EPOCHS":"3"}}`, string(r.Body))
	assert.Equal(t, "train", c.Name)
	assert.Equal(t, clusters.ClusterTypeSlurm, c.Type)
	assert.Equal(t, clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 3}, c.Compute)
	assert.Equal(t, 3, c.Pods.Total)
	assert.Equal(t, map[pods.PodStatus]int{pods.PodStatusProvisioning: 3}, c.Pods.ByStatus)
	require.NotNil(t, c.Network)
	assert.NotEmpty(t, c.Network.CIDR)
	require.NotNil(t, c.Primary)
	assert.Equal(t, pods.PodStatusProvisioning, c.Primary.Status)
	assert.Nil(t, c.Primary.SSHEndpoint, "no SSH address before the primary runs")

	list, err := rp.Clusters.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, c.ID, list[0].ID)
	assert.Equal(t, "/v2/clusters", last(srv).Path)

	got, err := rp.Clusters.Get(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, c.ID, got.ID)
	assert.Equal(t, "/v2/clusters/"+c.ID, last(srv).Path)

	renamed, err := rp.Clusters.Update(ctx, c.ID, clusters.UpdateClusterRequest{Name: runpod.Ptr("train-2")})
	require.NoError(t, err)
	r = last(srv)
	assert.Equal(t, http.MethodPatch, r.Method)
	assert.Equal(t, "/v2/clusters/"+c.ID, r.Path)
	assert.JSONEq(t, `{"name":"train-2"}`, string(r.Body))
	assert.Equal(t, "train-2", renamed.Name)
	assert.Equal(t, c.Compute, renamed.Compute, "a rename changes nothing else")

	members, err := rp.Clusters.Pods(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "/v2/clusters/"+c.ID+"/pods", last(srv).Path)
	require.Len(t, members, 3)
	assert.Equal(t, c.Primary.PodID, members[0].ID, "the primary is rank 0")
	for i, p := range members {
		require.NotNil(t, p.Cluster)
		assert.Equal(t, c.ID, p.Cluster.ID)
		require.NotNil(t, p.Cluster.Rank)
		assert.Equal(t, i, *p.Cluster.Rank)
		require.NotNil(t, p.Cluster.Role)
		require.NotNil(t, p.GPU)
		assert.Equal(t, "NVIDIA H100 80GB HBM3", p.GPU.ID)
		assert.Equal(t, 8, *p.GPU.Count)
		assert.Equal(t, "runpod/pytorch:2.4.0", p.Image)
		assert.Equal(t, map[string]string{"EPOCHS": "3"}, p.Env.Reveal())
	}
	assert.Equal(t, pods.PodClusterRoleSlurmController, *members[0].Cluster.Role)
	assert.Equal(t, pods.PodClusterRoleSlurmCompute, *members[2].Cluster.Role)

	require.NoError(t, rp.Clusters.Delete(ctx, c.ID))
	r = last(srv)
	assert.Equal(t, http.MethodDelete, r.Method)
	assert.Equal(t, http.StatusNoContent, r.Status)
	_, err = rp.Clusters.Get(ctx, c.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	all, err := rp.Pods.List(ctx, pods.ListPodsParams{IncludeClusterPods: runpod.Ptr(true)})
	require.NoError(t, err)
	assert.Empty(t, all, "deleting the cluster terminated its pods")
}

// TestBoot: the cluster's counts and its primary follow its pods through
// their boot, and the primary's SSH address appears once it runs.
func TestBoot(t *testing.T) {
	_, rp, clk := fake(t)
	ctx := t.Context()
	c, err := rp.Clusters.Create(ctx, newCluster())
	require.NoError(t, err)

	clk.Add(10 * time.Second)
	c, err = rp.Clusters.Get(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, map[pods.PodStatus]int{pods.PodStatusStarting: 3}, c.Pods.ByStatus)

	clk.Add(20 * time.Second)
	c, err = rp.Clusters.Get(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, map[pods.PodStatus]int{pods.PodStatusRunning: 3}, c.Pods.ByStatus)
	require.NotNil(t, c.Primary)
	assert.Equal(t, pods.PodStatusRunning, c.Primary.Status)
	require.NotNil(t, c.Primary.SSHEndpoint, "22/tcp is exposed")

	primary, err := rp.Pods.Get(ctx, c.Primary.PodID)
	require.NoError(t, err)
	addr, err := primary.TCPAddress(22)
	require.NoError(t, err)
	assert.Equal(t, addr.String(), *c.Primary.SSHEndpoint, "the primary's SSH address is its 22/tcp mapping")
	require.NotNil(t, c.DataCenterID)
	assert.Equal(t, *primary.DataCenterID, *c.DataCenterID)
}

// TestMemberPodsBelongToTheCluster: package pods lists a cluster's pods
// only when asked, and the platform refuses to change or delete them
// there (409); the cluster is deleted as a whole.
func TestMemberPodsBelongToTheCluster(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	standalone := srv.AddPod(runpodtest.Pod{Name: "box", Image: "ubuntu:24.04", GPU: "NVIDIA L4"})
	c, err := rp.Clusters.Create(ctx, newCluster())
	require.NoError(t, err)

	list, err := rp.Pods.List(ctx, pods.ListPodsParams{})
	require.NoError(t, err)
	require.Len(t, list, 1, "cluster pods are left out by default")
	assert.Equal(t, standalone, list[0].ID)
	list, err = rp.Pods.List(ctx, pods.ListPodsParams{IncludeClusterPods: runpod.Ptr(true)})
	require.NoError(t, err)
	assert.Len(t, list, 4)

	member := c.Primary.PodID
	p, err := rp.Pods.Get(ctx, member)
	require.NoError(t, err)
	assert.NotContains(t, p.Actions, pods.PodActionTerminate, "a member pod goes with its cluster")
	var apiErr *errs.APIError
	_, err = rp.Pods.Update(ctx, member, pods.UpdatePodRequest{Name: runpod.Ptr("mine")})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	err = rp.Pods.Delete(ctx, member)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	err = rp.Pods.Terminate(ctx, member)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)

	require.NoError(t, rp.Clusters.Delete(ctx, c.ID))
	list, err = rp.Pods.List(ctx, pods.ListPodsParams{IncludeClusterPods: runpod.Ptr(true)})
	require.NoError(t, err)
	require.Len(t, list, 1, "the cluster's pods are gone, the standalone pod stays")
	assert.Equal(t, standalone, list[0].ID)
}

// TestValidation: requests that break the document's rules are refused
// before anything is sent, naming the field.
func TestValidation(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	ok := newCluster()
	require.NoError(t, ok.Validate())

	for field, change := range map[string]func(*clusters.CreateClusterRequest){
		"CreateClusterRequest.Name":                   func(r *clusters.CreateClusterRequest) { r.Name = "" },
		"CreateClusterRequest.Type":                   func(r *clusters.CreateClusterRequest) { r.Type = "" },
		"CreateClusterRequest.Compute.GPUTypeID":      func(r *clusters.CreateClusterRequest) { r.Compute.GPUTypeID = "" },
		"CreateClusterRequest.Compute.GPUCountPerPod": func(r *clusters.CreateClusterRequest) { r.Compute.GPUCountPerPod = 0 },
		"CreateClusterRequest.Compute.PodCount":       func(r *clusters.CreateClusterRequest) { r.Compute.PodCount = 1 },
		"CreateClusterRequest.Disk":                   func(r *clusters.CreateClusterRequest) { r.Disk = runpod.Ptr(0) },
		"CreateClusterRequest.Ports[1]":               func(r *clusters.CreateClusterRequest) { r.Ports = []string{"22/tcp", "65536/tcp"} },
		"CreateClusterRequest.Mounts": func(r *clusters.CreateClusterRequest) {
			r.Mounts = &pods.Mounts{Persistent: &pods.PersistentMount{Size: 20, Path: "/w"}, Network: []pods.NetworkMount{{VolumeID: "v", Path: "/v"}}}
		},
		"CreateClusterRequest.Mounts.Persistent.Size": func(r *clusters.CreateClusterRequest) {
			r.Mounts = &pods.Mounts{Persistent: &pods.PersistentMount{Size: 5, Path: "/w"}}
		},
		"CreateClusterRequest.Mounts.Network[0].VolumeID": func(r *clusters.CreateClusterRequest) {
			r.Mounts = &pods.Mounts{Network: []pods.NetworkMount{{Path: "/v"}}}
		},
		"CreateClusterRequest.Mounts.Network[0].Path": func(r *clusters.CreateClusterRequest) {
			r.Mounts = &pods.Mounts{Network: []pods.NetworkMount{{VolumeID: "v", Path: "v"}}}
		},
	} {
		req := newCluster()
		change(&req)
		_, err := rp.Clusters.Create(ctx, req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
	}
	for _, bad := range []clusters.ClusterType{"training", "K8S"} {
		req := newCluster()
		req.Type = bad
		_, err := rp.Clusters.Create(ctx, req)
		require.ErrorIs(t, err, errs.ErrValidation, bad)
	}
	for _, n := range []int{0, 1, 251} {
		req := newCluster()
		req.Compute.PodCount = n
		_, err := rp.Clusters.Create(ctx, req)
		require.ErrorIs(t, err, errs.ErrValidation, n)
	}
	for _, n := range []int{clusters.MinPods, clusters.MaxPods} {
		req := newCluster()
		req.Compute.PodCount = n
		require.NoError(t, req.Validate(), n)
	}

	for _, req := range []clusters.UpdateClusterRequest{{}, {Name: runpod.Ptr("")}} {
		_, err := rp.Clusters.Update(ctx, "abc", req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "UpdateClusterRequest.Name", ve.Field)
	}
	for _, id := range []string{"", "../etc", "a/b", "a b", "a?b", "é"} {
		var ve *errs.ValidationError
		_, err := rp.Clusters.Get(ctx, id)
		require.ErrorAs(t, err, &ve, id)
		assert.Equal(t, "clusterID", ve.Field)
		_, err = rp.Clusters.Update(ctx, id, clusters.UpdateClusterRequest{Name: runpod.Ptr("x")})
		require.ErrorAs(t, err, &ve, id)
		require.ErrorAs(t, rp.Clusters.Delete(ctx, id), &ve, id)
		_, err = rp.Clusters.Pods(ctx, id)
		require.ErrorAs(t, err, &ve, id)
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}

// TestPlatformErrors: an unknown cluster is a 404 on every route that
// names one, and the platform's 400 and 422 refusals come back as
// *errs.APIError with their details.
func TestPlatformErrors(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	var apiErr *errs.APIError
	_, err := rp.Clusters.Get(ctx, "nope")
	require.ErrorIs(t, err, errs.ErrNotFound)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, "cluster not found", apiErr.Detail)
	_, err = rp.Clusters.Update(ctx, "nope", clusters.UpdateClusterRequest{Name: runpod.Ptr("x")})
	require.ErrorIs(t, err, errs.ErrNotFound)
	require.ErrorIs(t, rp.Clusters.Delete(ctx, "nope"), errs.ErrNotFound, "a first attempt's 404 is an error")
	_, err = rp.Clusters.Pods(ctx, "nope")
	require.ErrorIs(t, err, errs.ErrNotFound)

	// Refusals the SDK cannot foresee: no capacity (400), a body the
	// platform's contract refuses (422).
	problem := http.Header{"Content-Type": {"application/problem+json"}}
	srv.FailNext(runpodtest.RouteCreateCluster, 1, runpodtest.Fault{Status: http.StatusBadRequest, Header: problem,
		Body: `{"title":"Bad Request","status":400,"detail":"no capacity for 3 pods of NVIDIA H100 80GB HBM3"}`})
	_, err = rp.Clusters.Create(ctx, newCluster())
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Contains(t, apiErr.Detail, "no capacity")
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown, "a refusal is a clear answer")

	c := srv.AddCluster(runpodtest.Cluster{Name: "c", GPU: "NVIDIA L4"})
	before := srv.Count(runpodtest.RouteUpdateCluster)
	srv.FailNext(runpodtest.RouteUpdateCluster, 1, runpodtest.Fault{Status: http.StatusUnprocessableEntity, Header: problem,
		Body: `{"title":"Unprocessable Entity","status":422,"detail":"Request validation failed.","errors":["$.name: too long"]}`})
	_, err = rp.Clusters.Update(ctx, c, clusters.UpdateClusterRequest{Name: runpod.Ptr("x")})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnprocessableEntity, apiErr.StatusCode)
	assert.Equal(t, []string{"$.name: too long"}, apiErr.Errors)
	assert.Equal(t, before+1, srv.Count(runpodtest.RouteUpdateCluster), "a 422 is not retried")
	assert.Equal(t, "c", srv.Clusters()[0].Name)
}

// TestCreateNeverTwice: a create that may have reached the platform is
// not repeated; the fake proves how many clusters exist.
func TestCreateNeverTwice(t *testing.T) {
	srv, rp, _ := fake(t)
	for _, f := range []runpodtest.Fault{{Drop: runpodtest.DropAfter}, {Drop: runpodtest.DropBefore}, {Status: 502}} {
		before := srv.Count(runpodtest.RouteCreateCluster)
		srv.FailNext(runpodtest.RouteCreateCluster, 1, f)
		_, err := rp.Clusters.Create(t.Context(), newCluster())
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "%+v", f)
		assert.Equal(t, before+1, srv.Count(runpodtest.RouteCreateCluster), "%+v", f)
	}
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteCreateCluster), "only the DropAfter request reached the handler")
	require.Len(t, srv.Clusters(), 1, "only the DropAfter request created a cluster")
	assert.Len(t, srv.Pods(), 3, "with its pods")

	srv.FailNext(runpodtest.RouteCreateCluster, 1, runpodtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"0"}}})
	_, err := rp.Clusters.Create(t.Context(), newCluster())
	require.NoError(t, err, "a 429 is answered before anything is done, so it is retried")
	assert.Len(t, srv.Clusters(), 2)
}

// TestReadsAndRenamesAreRetried: GETs and the PATCH are repeated after a
// failure, even one after the platform acted.
func TestReadsAndRenamesAreRetried(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	id := srv.AddCluster(runpodtest.Cluster{Name: "c", GPU: "NVIDIA L4", PodCount: 2})

	srv.FailNext(runpodtest.RouteClusters, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	list, err := rp.Clusters.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteClusters))

	srv.FailNext(runpodtest.RouteCluster, 1, runpodtest.Fault{Status: 503})
	_, err = rp.Clusters.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteCluster))

	srv.FailNext(runpodtest.RouteClusterPods, 1, runpodtest.Fault{Drop: runpodtest.DropBefore})
	members, err := rp.Clusters.Pods(ctx, id)
	require.NoError(t, err)
	assert.Len(t, members, 2)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteClusterPods))

	srv.FailNext(runpodtest.RouteUpdateCluster, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	c, err := rp.Clusters.Update(ctx, id, clusters.UpdateClusterRequest{Name: runpod.Ptr("renamed")})
	require.NoError(t, err)
	assert.Equal(t, "renamed", c.Name)
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteUpdateCluster))
}

// TestDeleteRetriedIsIdempotent: when the first delete went through but
// its answer was lost, the retry's 404 means success.
func TestDeleteRetriedIsIdempotent(t *testing.T) {
	srv, rp, _ := fake(t)
	id := srv.AddCluster(runpodtest.Cluster{Name: "c", GPU: "NVIDIA L4"})
	srv.FailNext(runpodtest.RouteDeleteCluster, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	require.NoError(t, rp.Clusters.Delete(t.Context(), id))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteDeleteCluster))
	assert.Empty(t, srv.Clusters())
	assert.Empty(t, srv.Pods())
}

// TestDeleteFillsTheCallersResponseInfo: Delete watches the response
// itself, and the caller's observers still see it; the caller's options
// slice is never written to.
func TestDeleteFillsTheCallersResponseInfo(t *testing.T) {
	srv, rp, _ := fake(t)
	id := srv.AddCluster(runpodtest.Cluster{Name: "c", GPU: "NVIDIA L4"})
	var a option.ResponseInfo
	opts := make([]option.RequestOption, 1, 4)
	opts[0] = option.WithResponseInto(&a)
	require.NoError(t, rp.Clusters.Delete(t.Context(), id, opts...))
	assert.Equal(t, 1, a.Attempts)
	assert.Equal(t, http.StatusNoContent, a.StatusCode)
	assert.Nil(t, opts[:2][1], "nothing was appended into the caller's slice")
	assert.Empty(t, srv.Clusters())
}

// TestEveryOperationKeepsTheDocument sends every REST v2 cluster
// operation through the fake, which checks each request and response
// against the published document: none may be refused, and none may be a
// 500 (a response of the fake that breaks the document).
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	srv, rp, clk := fake(t)
	ctx := t.Context()
	// The network volume mounted below exists, in the clusters' data center.
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol_1", DataCenter: "US-TX-3"})
	for _, typ := range []clusters.ClusterType{clusters.ClusterTypeTraining, clusters.ClusterTypeSlurm, clusters.ClusterTypeRay, clusters.ClusterTypeApplication} {
		req := newCluster()
		req.Type = typ
		req.Args = runpod.Ptr("--epochs 3")
		req.Disk = runpod.Ptr(40)
		req.DataCenterIDs = []string{"US-TX-3"}
		req.StartSSH, req.StartJupyter = runpod.Ptr(true), runpod.Ptr(false)
		req.Mounts = &pods.Mounts{Network: []pods.NetworkMount{{VolumeID: "vol_1", Path: "/workspace"}}}
		c, err := rp.Clusters.Create(ctx, req)
		require.NoError(t, err, typ)
		assert.Equal(t, "US-TX-3", *c.DataCenterID)
	}
	clk.Add(time.Minute)
	list, err := rp.Clusters.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 4)
	for _, c := range list {
		_, err := rp.Clusters.Get(ctx, c.ID)
		require.NoError(t, err)
		members, err := rp.Clusters.Pods(ctx, c.ID)
		require.NoError(t, err)
		for _, p := range members {
			assert.Equal(t, "/workspace", p.Mounts.Network[0].Path)
			assert.Equal(t, 40, p.Disk)
			assert.Equal(t, "--epochs 3", p.Args)
			if c.Type == clusters.ClusterTypeTraining || c.Type == clusters.ClusterTypeApplication {
				assert.Nil(t, p.Cluster.Role, "no roles in %s clusters", c.Type)
			}
		}
		_, err = rp.Clusters.Update(ctx, c.ID, clusters.UpdateClusterRequest{Name: runpod.Ptr(c.Name + "-x")})
		require.NoError(t, err)
	}
	_, err = rp.Pods.List(ctx, pods.ListPodsParams{IncludeClusterPods: runpod.Ptr(true)})
	require.NoError(t, err)
	for _, c := range list {
		require.NoError(t, rp.Clusters.Delete(ctx, c.ID))
	}
	_, err = rp.Clusters.Get(ctx, list[0].ID)
	require.ErrorIs(t, err, errs.ErrNotFound, "a 404 keeps the document too")

	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		seen[r.Route] = true
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
		if r.Status != http.StatusNotFound {
			assert.Less(t, r.Status, 300, "%s %s %s", r.Method, r.Path, r.Body)
		}
	}
	for _, route := range []string{runpodtest.RouteClusters, runpodtest.RouteCreateCluster, runpodtest.RouteCluster,
		runpodtest.RouteUpdateCluster, runpodtest.RouteDeleteCluster, runpodtest.RouteClusterPods} {
		assert.True(t, seen[route], "%s was sent", route)
	}
}
