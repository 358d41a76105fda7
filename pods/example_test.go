package pods_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Create a pod, reach its ports, stop it and delete it. The fake platform
// boots pods at once here; a real pod takes a while (see
// Service.WaitForTCP).
func Example() {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithPodBoot(0, 0))
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name:  "notebook",
		Image: runpod.Ptr("runpod/pytorch:2.4.0"),
		GPU:   &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090"},
		Ports: []string{"8888/http", "22/tcp"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pod.Name, pod.Status)

	pod, _ = rp.Pods.Get(ctx, pod.ID)
	fmt.Println(pod.Status)
	u, _ := rp.Pods.ProxyURL(pod.ID, 8888) // https://<id>-8888.<proxy host>
	fmt.Println(u.Scheme, strings.HasPrefix(u.Host, strings.ToLower(pod.ID)+"-8888."))
	addr, err := rp.Pods.TCPAddress(ctx, pod.ID, 22) // public IP and mapped port
	fmt.Println(addr.IsValid(), err)

	pod, err = rp.Pods.Stop(ctx, pod.ID)
	fmt.Println(pod.Status, err)
	fmt.Println(rp.Pods.Delete(ctx, pod.ID))
	list, _ := rp.Pods.List(ctx, pods.ListPodsParams{})
	fmt.Println(len(list))
	// Output:
	// notebook RUNNING
	// RUNNING
	// https true
	// true <nil>
	// EXITED <nil>
	// <nil>
	// 0
}

func ExampleService_ProxyURL() {
	rp, _ := runpod.NewClient(option.WithAPIKey("rpa_example"))
	u, err := rp.Pods.ProxyURL("abc123xyz", 4000)
	fmt.Println(u, err)
	// Output: https://abc123xyz-4000.proxy.runpod.net <nil>
}

func ExampleService_WaitForTCP() {
	// The fake's clock: the pod boots when it moves on.
	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(clock))
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	pod, _ := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name: "ssh-box", Image: runpod.Ptr("ubuntu:24.04"), GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}, Ports: []string{"22/tcp", "8080/http"},
	})
	_, err := rp.Pods.TCPAddress(ctx, pod.ID, 22)
	fmt.Println(errors.Is(err, pods.ErrNotRunning))

	mu.Lock()
	now = now.Add(time.Minute) // booted
	mu.Unlock()

	addr, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, option.Poll[*pods.Pod]{Interval: 5 * time.Millisecond})
	fmt.Println(addr.IsValid(), err)
	_, err = rp.Pods.TCPAddress(ctx, pod.ID, 8080)
	fmt.Println(errors.Is(err, pods.ErrHTTPOnly))
	// Output:
	// true
	// true <nil>
	// true
}

// Create a pod on the cheapest GPU type with 40 GB that is in stock,
// falling back to the next offer while the platform answers that it has
// no capacity: one create per candidate, and a stop at once on anything
// else.
func ExampleService_CreateWithFallback() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	offers, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 40})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The cheapest offer runs out between the catalog read and the create.
	srv.SetGPUStock(offers[0].GPU.ID, offers[0].DataCenters[0].ID, catalog.AvailabilityLevelNone)

	pod, err := rp.Pods.CreateWithFallback(ctx, pods.CreatePodRequest{
		Name:  "trainer",
		Image: runpod.Ptr("runpod/pytorch:2.4.0"),
		GPU:   &pods.CreateGPUConfig{ID: offers[0].GPU.ID},
	}, pods.CandidatesFrom(offers))
	var placement *errs.PlacementError
	switch {
	case errors.As(err, &placement) && placement.Exhausted:
		fmt.Println("no capacity anywhere:", err)
	case err != nil:
		fmt.Println(err) // may match errs.ErrOutcomeUnknown: look before trying again
	default:
		fmt.Println(pod.GPU.ID, *pod.DataCenterID)
	}
	// Output:
	// NVIDIA RTX A6000 EU-RO-1
}

// Walk every pod of a large account one page at a time: the first page is
// asked for when the loop starts, and each next one when the pods of the
// page before are all read. Here the fake holds 250 pods and a page holds
// 100 of them: three requests.
func ExampleService_All() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	for i := range 250 {
		srv.AddPod(runpodtest.Pod{Name: fmt.Sprintf("batch-%03d", i), Image: "ubuntu:24.04", CPU: "cpu3c"})
	}
	rp, _ := srv.NewClient()
	ctx := context.Background()

	running := 0
	for pod, err := range rp.Pods.All(ctx, pods.ListPodsParams{}, option.WithPageSize(100)) {
		if err != nil {
			fmt.Println(err) // a failed page, or an *errs.PaginationError
			break
		}
		if pod.Status == pods.PodStatusRunning {
			running++
		}
	}
	fmt.Println(running, srv.Count(runpodtest.RoutePods))
	// Output: 250 3
}
