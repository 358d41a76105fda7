// Command task runs one command on a fresh GPU pod and leaves nothing
// billing: it creates the pod on the first of a list of GPU types with
// capacity, uploads an input, runs the command with its output streamed
// here, downloads what the command wrote and terminates the pod, with
// package pods/podtask.
//
//	go run ./examples/task                          # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/task -confirm -key ~/.ssh/id_ed25519 \
//	    -gpu "NVIDIA GeForce RTX 4090,NVIDIA L40S" -in data.txt -out results
//
// On your account the pod is billed while it exists (a minute or two): the
// example runs there only with -confirm. Ctrl-C stops the command and
// terminates the pod before the program exits. If the program is killed
// instead (kill -9, a crash), the pod's name carries a lease that ends
// with -timeout: lease.Reap, run later, deletes it once that time has
// passed. The key must be one of your account's SSH keys.
//
// Offline, the fake runs the first GPU type out of stock everywhere, so
// the task falls back to the second, and its pod runs a stand-in for the
// command.
package main

import (
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

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demossh"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/pods/podtask"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// command is the default command: it checksums the input and keeps the
// sums in the output directory.
const command = "mkdir -p /workspace/out && sha256sum /workspace/input.txt | tee /workspace/out/sums.txt"

func main() { demo.Main(run) }

// run parses args and runs the task.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("task", flag.ContinueOnError)
	gpus := fs.String("gpu", "NVIDIA GeForce RTX 4090,NVIDIA L40S,NVIDIA RTX A6000", "GPU type ids to try, in order, comma-separated")
	image := fs.String("image", "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "container image")
	keyPath := fs.String("key", "", "private SSH key file, one of the account's keys (default ~/.ssh/id_ed25519)")
	in := fs.String("in", "", "file to upload as /workspace/input.txt (default: a small file the example writes)")
	out := fs.String("out", "", "directory that receives /workspace/out (default: a new temporary directory)")
	cmd := fs.String("command", command, "command line to run on the pod")
	timeout := fs.Duration("timeout", 20*time.Minute, "the task's budget; the pod's lease ends with it")
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
	if *timeout <= 0 {
		return demo.Usagef("-timeout must be positive, got %s", *timeout)
	}
	input, output, err := files(*in, *out)
	if err != nil {
		return err
	}

	s, err := demo.Connect(w, option.WithUserAgent("runpod-task-example"))
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

	// One call: create (with fallback), wait for SSH, upload, run,
	// download, terminate. Ctrl-C ends ctx (demo.Main), and Run then stops
	// the command and terminates the pod before it returns.
	res, err := podtask.NewFromConfig(rp.Config()).Run(ctx, podtask.Task{
		Pod: pods.CreatePodRequest{
			Name:  "runpod-go-task",
			Image: image,
			GPU:   &pods.CreateGPUConfig{ID: candidates[0].GPUTypeID},
		},
		Candidates: candidates,
		Timeout:    *timeout,
		Key:        key,
		Inputs:     []podtask.File{{Local: input, Remote: "/workspace/input.txt"}},
		Command:    *cmd,
		Stdout:     w,
		Stderr:     w,
		Outputs:    []podtask.File{{Local: output, Remote: "/workspace/out"}},
		OnPod: func(p *pods.Pod) {
			fmt.Fprintf(w, "1. created pod %s on %s ($%.2f/h), named %s\n", p.ID, p.GPU.ID, p.Cost, p.Name)
			if s.Fake != nil {
				fakessh.HandlePodCommand(s.Fake, p.ID, standIn(s.Fake, p.ID, *cmd))
			}
			fmt.Fprintln(w, "2. the command's output:")
		},
	})
	if res == nil {
		return demo.FlagError(err) // no pod was created; a bad flag sent nothing
	}
	fmt.Fprintf(w, "3. exit status %d, outputs %d\n", res.ExitStatus, len(res.Outputs))
	if res.Terminated {
		fmt.Fprintf(w, "4. pod terminated after %s, about $%.4f\n", res.Duration.Round(time.Millisecond), res.Cost)
	}
	var exit *podssh.ExitError
	switch {
	case errors.As(err, &exit):
		return fmt.Errorf("the command failed: %w", err)
	case err != nil:
		return err
	}
	sums, err := os.ReadFile(filepath.Join(output, "out", "sums.txt"))
	if err == nil {
		fmt.Fprintf(w, "5. %s holds: %s", filepath.Join(output, "out", "sums.txt"), sums)
	}
	return nil
}

// files returns the input file and the output directory: the ones given,
// or ones the example makes.
func files(in, out string) (string, string, error) {
	if in == "" || out == "" {
		dir, err := os.MkdirTemp("", "runpod-task-")
		if err != nil {
			return "", "", err
		}
		if in == "" {
			in = filepath.Join(dir, "input.txt")
			if err := os.WriteFile(in, []byte("hello from your machine\n"), 0o644); err != nil {
				return "", "", err
			}
		}
		if out == "" {
			out = dir
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", "", demo.Usage(fmt.Errorf("-out: %w", err))
	}
	return in, out, nil
}

// standIn is what the fake's pod runs for the command: the default
// command's work, done on the pod's files.
func standIn(srv *runpodtest.Server, podID, cmd string) fakessh.PodCommandHandler {
	return func(_ context.Context, _ string, _ io.Reader, stdout, stderr io.Writer) int {
		if cmd != command {
			fmt.Fprintln(stderr, "(the fake's pod runs only the default command)")
			return 127
		}
		data, err := fakessh.PodFile(srv, podID, "/workspace/input.txt")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		line := fmt.Sprintf("%x  /workspace/input.txt\n", sha256.Sum256(data))
		if err := fakessh.WritePodFile(srv, podID, "/workspace/out/sums.txt", []byte(line)); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprint(stdout, line)
		return 0
	}
}
