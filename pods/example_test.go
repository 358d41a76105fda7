package pods_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func ExampleService_ProxyURL() {
	rp, _ := runpod.NewClient(runpod.WithAPIKey("rpa_example"))
	u, err := rp.Pods.ProxyURL("abc123xyz", 4000)
	fmt.Println(u, err)
	// Output: https://abc123xyz-4000.proxy.runpod.net <nil>
}

func ExampleService_WaitForTCP() {
	// The fake's clock: the pod boots when it moves on.
	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := runpodtest.NewServer(runpodtest.WithClock(clock))
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

	addr, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, runpod.Poll[*pods.Pod]{Interval: 5 * time.Millisecond})
	fmt.Println(addr.IsValid(), err)
	_, err = rp.Pods.TCPAddress(ctx, pod.ID, 8080)
	fmt.Println(errors.Is(err, pods.ErrHTTPOnly))
	// Output:
	// true
	// true <nil>
	// true
}
