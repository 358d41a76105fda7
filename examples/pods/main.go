// Command pods creates a pod on the first of a list of GPU types that has
// capacity, leased so that nothing is left billing, waits until its SSH
// port is mapped, runs commands and copies a file over SSH, prints its
// proxy URL and a few log lines, then stops and deletes it.
//
//	go run ./examples/pods                          # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/pods -confirm -key ~/.ssh/id_ed25519 \
//	    -gpu "NVIDIA GeForce RTX 4090,NVIDIA L40S,NVIDIA RTX A6000"
//
// On your account the pod is billed while it exists (a few minutes): the
// example runs there only with -confirm, and deletes the pod at the end.
// Its name carries a lease (package lease) of -lease: if the program dies
// before it deletes the pod, `lease.Reap` finds and deletes it once the
// lease is over. The key must be one of your account's SSH keys.
//
// Offline, the fake runs the first GPU type out of stock everywhere, so
// the create falls back to the second.
//
// The pod's SSH host key is trusted on first use and kept, as podssh does
// by default, in the user's known_hosts for RunPod
// (~/.config/runpod/known_hosts): any later connection to that pod at
// that address, from this program or another, refuses a different key.
// Offline, each run's pod is a new one (a random id), so each run adds one
// line for its own pod and trusts nothing of an earlier run's.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demossh"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
)

func main() { demo.Main(run) }

// run parses args and takes a pod from creation to deletion.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("pods", flag.ContinueOnError)
	gpus := fs.String("gpu", "NVIDIA GeForce RTX 4090,NVIDIA L40S,NVIDIA RTX A6000", "GPU type ids to try, in order, comma-separated")
	image := fs.String("image", "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "container image")
	keyPath := fs.String("key", "", "private SSH key file, one of the account's keys (default ~/.ssh/id_ed25519)")
	ttl := fs.Duration("lease", 30*time.Minute, "how long the pod may live if this program dies before deleting it")
	confirm := fs.Bool("confirm", false, "create a (billed) pod on your account")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	if demo.Online() && !*confirm {
		return demo.Usagef("this creates a billed pod on your account; run again with -confirm")
	}
	var candidates []pods.Candidate
	for _, id := range strings.Split(*gpus, ",") {
		if id = strings.TrimSpace(id); id != "" {
			candidates = append(candidates, pods.Candidate{GPUTypeID: id})
		}
	}
	if len(candidates) == 0 {
		return demo.Usagef("-gpu names no GPU type")
	}
	name, err := lease.NameFor("runpod-go-example", *ttl)
	if err != nil {
		return demo.Usage(fmt.Errorf("-lease: %w", err))
	}
	req := pods.CreatePodRequest{
		Name:  name,
		Image: image,
		GPU:   &pods.CreateGPUConfig{ID: candidates[0].GPUTypeID},
		Ports: []string{"8888/http", "22/tcp"},
		Env:   map[string]string{"JUPYTER_PASSWORD": "example"},
	}
	if err := req.Validate(); err != nil { // a bad flag sends nothing
		return demo.FlagError(err) // -gpu, -image
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-pods-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client
	key, err := demossh.Key(ctx, rp, s.Fake != nil, *keyPath)
	if err != nil {
		return err
	}
	if err := s.OutOfStock(ctx, candidates[0].GPUTypeID); err != nil { // offline, show a fallback
		return err
	}

	// 1. Create, one GPU type after another while the platform answers
	// that it has no capacity (nothing was created).
	pod, err := rp.Pods.CreateWithFallback(ctx, req, candidates)
	if err != nil {
		return createFailed(err, name)
	}
	fmt.Fprintf(w, "1. created pod %s on %s in %s ($%.2f/h), leased: %s\n", pod.ID, pod.GPU.ID, deref(pod.DataCenterID), pod.Cost, name)
	defer func() { // delete it whatever happens, Ctrl-C included
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Pods.Delete(cleanup, pod.ID); err != nil && !errors.Is(err, errs.ErrNotFound) {
			fmt.Fprintf(w, "   could not delete pod %s (%v); lease.Reap deletes it after its lease\n", pod.ID, err)
		}
	}()

	// 2. Connect over SSH once port 22 is mapped. HostKeys is left nil:
	// the pod's host key is trusted on first use and kept in the user's
	// known_hosts for RunPod, so every later connection to the pod, from
	// any Service of any run, refuses a changed key.
	last := pod.Status
	conn, err := podssh.NewFromConfig(rp.Config()).Dial(ctx, pod.ID, podssh.DialOptions{
		Key: key,
		Poll: option.Poll[*pods.Pod]{Interval: 250 * time.Millisecond, OnCheck: func(p *pods.Pod) {
			if p.Status != last {
				fmt.Fprintf(w, "   %s -> %s\n", last, p.Status)
				last = p.Status
			}
		}},
	})
	if err != nil {
		return fmt.Errorf("ssh: %w", err)
	}
	defer conn.Close()
	fmt.Fprintf(w, "2. SSH to %s (host key %s)\n", conn.Addr(), ssh.FingerprintSHA256(conn.HostKey()))

	// 3. Run commands: output as streams, the exit status as an error.
	var out bytes.Buffer
	if err := conn.Run(ctx, podssh.RunParams{Command: "echo hello from the pod", Stdout: &out}); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	fmt.Fprintf(w, "3. ran a command: %s", out.String())
	var exit *podssh.ExitError
	if err := conn.Run(ctx, podssh.RunParams{Command: "exit 3"}); errors.As(err, &exit) {
		fmt.Fprintf(w, "   exit 3 -> *podssh.ExitError, status %d\n", exit.ExitStatus)
	} else {
		return fmt.Errorf("run exit 3: %v", err)
	}

	// 4. Copy a file up and check it on the pod.
	local := filepath.Join(os.TempDir(), fmt.Sprintf("runpod-go-example-%d.txt", os.Getpid()))
	body := []byte("weights go here\n")
	if err := os.WriteFile(local, body, 0o600); err != nil {
		return err
	}
	defer os.Remove(local)
	if err := conn.Upload(ctx, local, "/workspace/example.txt"); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	out.Reset()
	if err := conn.Run(ctx, podssh.RunParams{Command: "sha256sum /workspace/example.txt", Stdout: &out}); err != nil {
		return fmt.Errorf("run sha256sum: %w", err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(body))
	fmt.Fprintf(w, "4. uploaded /workspace/example.txt, checksum on the pod matches: %t\n", strings.HasPrefix(out.String(), sum))

	proxy, err := rp.Pods.ProxyURL(pod.ID, 8888)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "5. Jupyter (8888/http): %s\n", proxy)

	fmt.Fprintln(w, "6. recent log lines:")
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
	fmt.Fprintln(w, "7. stopped")
	if err := rp.Pods.Delete(ctx, pod.ID); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	fmt.Fprintln(w, "8. deleted")
	return nil
}

// createFailed explains a failed create: nothing created anywhere, a bad
// flag, or an outcome to go and check.
func createFailed(err error, name string) error {
	var p *errs.PlacementError
	switch {
	case errors.As(err, &p) && p.Exhausted:
		return fmt.Errorf("no GPU type of -gpu had capacity, nothing was created: %w", err)
	case errors.Is(err, errs.ErrOutcomeUnknown):
		return fmt.Errorf("create: a pod named %s may exist: look for it (it is leased, so lease.Reap deletes it once its lease is over): %w", name, err)
	}
	return demo.FlagError(fmt.Errorf("create: %w", err)) // -gpu, -image
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
