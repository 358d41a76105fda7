// Command pods creates a pod that exposes an HTTP and a TCP port, waits
// until the TCP port is mapped, prints the pod's proxy URL and public TCP
// address and a few log lines, then stops and deletes it.
//
//	go run ./examples/pods                          # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/pods -confirm -gpu "NVIDIA GeForce RTX 4090"
//
// On your account the pod is billed while it exists (a minute or two):
// the example runs there only with -confirm, and deletes the pod at the end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

func main() { demo.Main(run) }

// run parses args and takes a pod from creation to deletion.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("pods", flag.ContinueOnError)
	gpu := fs.String("gpu", "NVIDIA GeForce RTX 4090", "GPU type id")
	image := fs.String("image", "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "container image")
	confirm := fs.Bool("confirm", false, "create a (billed) pod on your account")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	if demo.Online() && !*confirm {
		return demo.Usagef("this creates a billed pod on your account; run again with -confirm")
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-pods-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name:  "runpod-go-example",
		Image: image,
		GPU:   &pods.CreateGPUConfig{ID: *gpu},
		Ports: []string{"8888/http", "22/tcp"},
		Env:   map[string]string{"JUPYTER_PASSWORD": "example"},
	})
	if err != nil {
		return demo.FlagError(fmt.Errorf("create: %w", err)) // -gpu, -image
	}
	fmt.Fprintf(w, "1. created pod %s (%s, $%.2f/h)\n", pod.ID, pod.Status, pod.Cost)
	defer func() { // delete it whatever happens
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Pods.Delete(cleanup, pod.ID); err != nil && !errors.Is(err, errs.ErrNotFound) {
			fmt.Fprintf(w, "   could not delete pod %s: %v\n", pod.ID, err)
		}
	}()

	last := pod.Status
	addr, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, option.Poll[*pods.Pod]{
		Interval: 250 * time.Millisecond,
		OnCheck: func(p *pods.Pod) {
			if p.Status != last {
				fmt.Fprintf(w, "   %s -> %s\n", last, p.Status)
				last = p.Status
			}
		},
	})
	if err != nil {
		return fmt.Errorf("waiting for port 22: %w", err)
	}
	proxy, err := rp.Pods.ProxyURL(pod.ID, 8888)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. Jupyter (8888/http): %s\n", proxy)
	fmt.Fprintf(w, "3. SSH (22/tcp): ssh root@%s -p %d\n", addr.Addr(), addr.Port())

	fmt.Fprintln(w, "4. recent log lines:")
	follow, stopFollowing := context.WithTimeout(ctx, 500*time.Millisecond)
	defer stopFollowing()
	n := 0
	for line, err := range rp.Pods.Logs(follow, pod.ID, pods.GetPodLogsParams{Tail: runpod.Ptr(5)}) {
		if err != nil {
			return fmt.Errorf("logs: %w", err)
		}
		fmt.Fprintf(w, "   %s [%s] %s\n", line.Time.Format(time.TimeOnly), line.Source, line.Line)
		if n++; n == 5 {
			break
		}
	}

	if _, err := rp.Pods.Stop(ctx, pod.ID); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	fmt.Fprintln(w, "5. stopped")
	if err := rp.Pods.Delete(ctx, pod.ID); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	fmt.Fprintln(w, "6. deleted")
	return nil
}
