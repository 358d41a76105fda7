// Command clusters lists the account's instant clusters, then creates one,
// waits until all its pods run, prints each pod's rank, role and address on
// the cluster's network and the primary pod's SSH address, renames the
// cluster and deletes it, which terminates its pods.
//
//	go run ./examples/clusters                      # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/clusters -confirm -gpu "NVIDIA H100 80GB HBM3" -gpus-per-pod 8
//
// On your account every pod of the cluster is billed while the cluster
// exists (the hourly price of all its pods is printed once it is created),
// from creation until the delete at the end, usually a few minutes: the
// example runs there only with -confirm, and deletes the cluster even
// after a failure.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

func main() { demo.Main(run) }

// run parses args and takes a cluster from creation to deletion.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("clusters", flag.ContinueOnError)
	gpu := fs.String("gpu", "NVIDIA H100 80GB HBM3", "GPU type id of every pod")
	gpusPerPod := fs.Int("gpus-per-pod", 1, "GPUs on each pod (at most what the GPU type allows per machine)")
	podCount := fs.Int("pods", clusters.MinPods, fmt.Sprintf("number of pods, %d to %d", clusters.MinPods, clusters.MaxPods))
	kind := fs.String("type", string(clusters.ClusterTypeTraining), "cluster type: TRAINING, SLURM, RAY or APPLICATION")
	image := fs.String("image", "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "container image of every pod")
	timeout := fs.Duration("timeout", 15*time.Minute, "how long to wait for the pods to run")
	confirm := fs.Bool("confirm", false, "create a (billed) cluster on your account")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	req := clusters.CreateClusterRequest{
		Name:    "runpod-go-example",
		Type:    clusters.ClusterType(strings.ToUpper(*kind)),
		Compute: clusters.ClusterCompute{GPUTypeID: *gpu, GPUCountPerPod: *gpusPerPod, PodCount: *podCount},
		Image:   image,
		Ports:   []string{"22/tcp"},
	}
	if err := req.Validate(); err != nil {
		return demo.Usage(err) // a bad flag value, found before anything is sent
	}
	if *timeout <= 0 {
		return demo.Usagef("-timeout: want a positive duration, got %s", *timeout)
	}
	if demo.Online() && !*confirm {
		return demo.Usagef("this creates a billed cluster (%d pods) on your account; run again with -confirm", *podCount)
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-clusters-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	existing, err := rp.Clusters.List(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "1. clusters on the account: %d\n", len(existing))
	for _, c := range existing {
		fmt.Fprintf(w, "   %s %-18s %-8s %d x %d %s, %s\n", c.ID, c.Name, c.Type, c.Compute.PodCount, c.Compute.GPUCountPerPod, c.Compute.GPUTypeID, byStatus(c.Pods))
	}

	c, err := rp.Clusters.Create(ctx, req)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	// Delete it whatever happens (by id: c is replaced as the cluster
	// changes, and is nil after a failure).
	id := c.ID
	defer func() {
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Clusters.Delete(cleanup, id); err != nil && !errors.Is(err, errs.ErrNotFound) {
			fmt.Fprintf(w, "   could not delete cluster %s: %v\n", id, err)
		}
	}()
	members, err := rp.Clusters.Pods(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("pods: %w", err)
	}
	var cost float64
	for _, p := range members {
		cost += p.Cost
	}
	fmt.Fprintf(w, "2. created cluster %s (%s, %d pods x %d %s, $%.2f/h for all its pods)\n",
		c.ID, c.Type, c.Compute.PodCount, c.Compute.GPUCountPerPod, c.Compute.GPUTypeID, cost)

	c, err = waitRunning(ctx, rp, c, *timeout, w)
	if err != nil {
		return err
	}
	members, err = rp.Clusters.Pods(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("pods: %w", err)
	}
	fmt.Fprintln(w, "3. pods:")
	for _, p := range members {
		fmt.Fprintf(w, "   rank %s %-16s %s %s on %s\n", rank(p), role(p), p.ID, p.Status, addr(p))
	}
	if c.Primary != nil && c.Primary.SSHEndpoint != nil {
		host, port, _ := strings.Cut(*c.Primary.SSHEndpoint, ":")
		fmt.Fprintf(w, "4. primary %s: ssh root@%s -p %s\n", c.Primary.PodID, host, port)
	} else {
		fmt.Fprintln(w, "4. the primary has no public SSH address yet")
	}

	c, err = rp.Clusters.Update(ctx, c.ID, clusters.UpdateClusterRequest{Name: runpod.Ptr("runpod-go-example-renamed")})
	if err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	fmt.Fprintf(w, "5. renamed to %s\n", c.Name)
	if err := rp.Clusters.Delete(ctx, c.ID); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	fmt.Fprintf(w, "6. deleted, with its %d pods\n", len(members))
	return nil
}

// waitRunning checks the cluster until all its pods run, printing each
// change of their counts, for at most timeout. A pod in ERROR ends it.
func waitRunning(ctx context.Context, rp *runpod.Client, c *clusters.Cluster, timeout time.Duration, w io.Writer) (*clusters.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	interval := 5 * time.Second
	if !demo.Online() {
		interval = 50 * time.Millisecond
	}
	last := byStatus(c.Pods)
	fmt.Fprintf(w, "   %s\n", last)
	for {
		now := byStatus(c.Pods)
		if now != last {
			fmt.Fprintf(w, "   %s\n", now)
			last = now
		}
		switch {
		case c.Pods.ByStatus[pods.PodStatusRunning] == c.Compute.PodCount:
			return c, nil
		case c.Pods.ByStatus[pods.PodStatusError] > 0:
			return nil, fmt.Errorf("cluster %s: a pod failed (%s)", c.ID, now)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for cluster %s (%s): %w", c.ID, now, ctx.Err())
		case <-time.After(interval):
		}
		var err error
		if c, err = rp.Clusters.Get(ctx, c.ID); err != nil {
			return nil, fmt.Errorf("waiting for the pods: %w", err)
		}
	}
}

// byStatus says how many pods are in each status, such as "RUNNING 2".
func byStatus(s clusters.ClusterPodsSummary) string {
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(s.ByStatus)) {
		parts = append(parts, fmt.Sprintf("%s %d", st, s.ByStatus[st]))
	}
	if len(parts) == 0 {
		return "no pods"
	}
	return strings.Join(parts, ", ")
}

func rank(p pods.Pod) string {
	if p.Cluster == nil || p.Cluster.Rank == nil {
		return "?"
	}
	return fmt.Sprint(*p.Cluster.Rank)
}

func role(p pods.Pod) string {
	if p.Cluster == nil || p.Cluster.Role == nil {
		return "(no role)"
	}
	return string(*p.Cluster.Role)
}

func addr(p pods.Pod) string {
	if p.Cluster == nil || p.Cluster.IP == nil {
		return "(no address yet)"
	}
	return *p.Cluster.IP
}
