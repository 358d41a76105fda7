package lease_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/sandboxes"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
	"github.com/runpodkit/runpod-go/volumes"
)

// t0 is when the fake's clock starts, and where the machine's clock (as
// Reap reads it) stays: tests move the platform's clock on by hours, so a
// reaper that read the local clock instead of the platform's would be
// seen doing it.
var t0 = time.Date(2090, 1, 1, 12, 0, 0, 0, time.UTC)

// fake starts a fake platform on a clock at t0 with the serverless
// template tmpl-1, and a client of it; the machine's clock stays at t0.
func fake(t *testing.T, opts ...option.RequestOption) (*runpodtest.Server, *runpod.Client, *testkit.Clock) {
	t.Helper()
	lease.SetLocalClock(t, func() time.Time { return t0 })
	clk := testkit.NewClock(t0)
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithClock(clk.Now)), fixture.Client(opts...))
	srv.AddTemplate("tmpl-1")
	return srv, rp, clk
}

// leased is base leased until d after t0.
func leased(t *testing.T, base string, d time.Duration) string {
	t.Helper()
	n, err := lease.Name(base, t0.Add(d))
	require.NoError(t, err)
	return n
}

// The create requests the tests send: a CPU pod (mounting volumeID when
// set), a sandbox living as long as the platform allows, a queue endpoint with a worker always on, a network volume, an
// instant cluster and a pod template.

func podRequest(name, volumeID string) pods.CreatePodRequest {
	r := pods.CreatePodRequest{Name: name, Image: runpod.Ptr("ubuntu:24.04"), CPU: &pods.CreateCPUConfig{ID: "cpu3g", VcpuCount: 2}}
	if volumeID != "" {
		r.Mounts = &pods.Mounts{Network: []pods.NetworkMount{{VolumeID: volumeID, Path: "/runpod-volume"}}}
	}
	return r
}

func sandboxRequest(name string) sandboxes.CreateSandboxRequest {
	return sandboxes.CreateSandboxRequest{Name: runpod.Ptr(name), ImageName: runpod.Ptr("python:3.12-slim"),
		IdleTimeoutSeconds: runpod.Ptr(sandboxes.MaxIdleTimeoutSeconds), MaxLifetimeSeconds: runpod.Ptr(sandboxes.MaxLifetimeSecondsLimit)}
}

func endpointRequest(name string) serverless.CreateEndpointRequest {
	return serverless.CreateEndpointRequest{
		Name: name, Type: serverless.EndpointTypeQueue, Scaling: serverless.ScaleByQueueDelay(4),
		TemplateID: runpod.Ptr("tmpl-1"), GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
		Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(1), Max: runpod.Ptr(3)},
	}
}

func volumeRequest(name string) volumes.CreateNetworkVolumeRequest {
	return volumes.CreateNetworkVolumeRequest{Name: name, Size: 10, DataCenter: "EU-RO-1"}
}

func clusterRequest(name string) clusters.CreateClusterRequest {
	return clusters.CreateClusterRequest{
		Name: name, Type: clusters.ClusterTypeTraining, Image: runpod.Ptr("runpod/pytorch:2.4.0"),
		Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 2},
	}
}

func templateRequest(name string) templates.CreateTemplateRequest {
	return templates.CreateTemplateRequest{Name: name, Image: "ubuntu:24.04"}
}

// left returns the names of what the account still has, by kind, as
// the SDK lists them (a cluster's pods with their cluster).
func left(t *testing.T, rp *runpod.Client) map[lease.Kind][]string {
	t.Helper()
	ctx := context.Background()
	out := map[lease.Kind][]string{}
	ps, err := rp.Pods.List(ctx, pods.ListPodsParams{})
	require.NoError(t, err)
	for _, p := range ps {
		out[lease.KindPod] = append(out[lease.KindPod], p.Name)
	}
	sbs, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{})
	require.NoError(t, err)
	for _, sb := range sbs {
		out[lease.KindSandbox] = append(out[lease.KindSandbox], sb.Name)
	}
	es, err := rp.Serverless.Endpoints.List(ctx)
	require.NoError(t, err)
	for _, e := range es {
		out[lease.KindEndpoint] = append(out[lease.KindEndpoint], e.Name)
	}
	cs, err := rp.Clusters.List(ctx)
	require.NoError(t, err)
	for _, c := range cs {
		out[lease.KindCluster] = append(out[lease.KindCluster], c.Name)
	}
	vs, err := rp.Volumes.List(ctx)
	require.NoError(t, err)
	for _, v := range vs {
		out[lease.KindNetworkVolume] = append(out[lease.KindNetworkVolume], v.Name)
	}
	ts, err := rp.Templates.List(ctx)
	require.NoError(t, err)
	for _, tm := range ts {
		if tm.ID != "tmpl-1" {
			out[lease.KindTemplate] = append(out[lease.KindTemplate], tm.Name)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}
