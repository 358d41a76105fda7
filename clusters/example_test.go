package clusters_test

import (
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Create a Slurm cluster of two pods, look at its pods, rename it and
// delete it. The fake platform boots pods at once here; a real cluster
// takes a while, and is billed from creation until Delete.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithPodBoot(0, 0))
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	c, err := rp.Clusters.Create(ctx, clusters.CreateClusterRequest{
		Name:    "slurm",
		Type:    clusters.ClusterTypeSlurm,
		Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 2},
		Image:   runpod.Ptr("runpod/pytorch:2.4.0"),
		Ports:   []string{"22/tcp"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Name, c.Type, c.Pods.Total, "pods")

	c, _ = rp.Clusters.Get(ctx, c.ID)
	fmt.Println(c.Pods.ByStatus[pods.PodStatusRunning], "running, primary has SSH:", c.Primary.SSHEndpoint != nil)

	members, _ := rp.Clusters.Pods(ctx, c.ID)
	for _, p := range members {
		fmt.Println(*p.Cluster.Rank, *p.Cluster.Role, p.GPU.ID, *p.GPU.Count)
	}

	c, err = rp.Clusters.Update(ctx, c.ID, clusters.UpdateClusterRequest{Name: runpod.Ptr("slurm-2")})
	fmt.Println(c.Name, err)
	fmt.Println(rp.Clusters.Delete(ctx, c.ID))
	list, _ := rp.Clusters.List(ctx)
	fmt.Println(len(list))
	// Output:
	// slurm SLURM 2 pods
	// 2 running, primary has SSH: true
	// 0 SLURM_CONTROLLER NVIDIA H100 80GB HBM3 8
	// 1 SLURM_COMPUTE NVIDIA H100 80GB HBM3 8
	// slurm-2 <nil>
	// <nil>
	// 0
}

// A cluster's pods are left out of the pod listing unless asked for.
func ExampleService_Pods() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()
	id := srv.AddCluster(runpodtest.Cluster{Name: "ray", Type: clusters.ClusterTypeRay, GPU: "NVIDIA A100 80GB PCIe", PodCount: 3})

	members, _ := rp.Clusters.Pods(ctx, id)
	fmt.Println(len(members), "pods; head:", *members[0].Cluster.Role)
	standalone, _ := rp.Pods.List(ctx, pods.ListPodsParams{})
	all, _ := rp.Pods.List(ctx, pods.ListPodsParams{IncludeClusterPods: runpod.Ptr(true)})
	fmt.Println(len(standalone), len(all))
	// Output:
	// 3 pods; head: RAY_HEAD
	// 0 3
}

// Validate runs before anything is sent; the error names the field.
func ExampleCreateClusterRequest_Validate() {
	req := clusters.CreateClusterRequest{
		Name:    "tiny",
		Type:    clusters.ClusterTypeTraining,
		Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA L4", GPUCountPerPod: 1, PodCount: 1},
	}
	fmt.Println(req.Validate())
	// Output: runpod: invalid CreateClusterRequest.Compute.PodCount: must be from 2 to 250, got 1
}
