package podtask_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/pods/podtask"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// Run a command on a fresh GPU pod: the first GPU type is out of stock,
// so the pod goes to the second; the input goes up, the command's output
// streams back, the result comes down, and the pod is terminated.
func ExampleService_Run() {
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve())
	defer srv.Close()
	srv.SetGPUStock("NVIDIA GeForce RTX 4090", "EU-RO-1", catalog.AvailabilityLevelNone)
	rp, _ := srv.NewClient()
	// In a program: podssh.LoadKey(filepath.Join(home, ".ssh", "id_ed25519"), nil),
	// one of the account's SSH keys.
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	key, _ := podssh.NewKey(signer)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(key.PublicKey())))

	dir, _ := os.MkdirTemp("", "task")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "prompt.txt"), []byte("a red fox"), 0o644)

	// Ctrl-C ends the context: Run stops the command and terminates the pod.
	// ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx := context.Background()
	tasks := podtask.NewFromConfig(rp.Config())
	res, err := tasks.Run(ctx, podtask.Task{
		Pod: pods.CreatePodRequest{
			Name:  "render",
			Image: runpod.Ptr("runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"),
			GPU:   &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090"},
		},
		Candidates: []pods.Candidate{
			{GPUTypeID: "NVIDIA GeForce RTX 4090", DataCenterIDs: []string{"EU-RO-1"}},
			{GPUTypeID: "NVIDIA L40S"},
		},
		Timeout: 30 * time.Minute, // the budget, and the pod's lease
		Key:     key,
		Inputs:  []podtask.File{{Local: filepath.Join(dir, "prompt.txt"), Remote: "/workspace/prompt.txt"}},
		Command: "python render.py /workspace/prompt.txt /workspace/out.txt",
		Stdout:  os.Stdout,
		Outputs: []podtask.File{{Local: filepath.Join(dir, "out.txt"), Remote: "/workspace/out.txt"}},
		OnPod: func(p *pods.Pod) {
			// The fake's pod runs a stand-in for render.py.
			fakessh.HandlePodCommand(srv, p.ID, func(_ context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
				prompt, _ := fakessh.PodFile(srv, p.ID, "/workspace/prompt.txt")
				fmt.Fprintln(stdout, "rendering:", string(prompt))
				_ = fakessh.WritePodFile(srv, p.ID, "/workspace/out.txt", bytes.ToUpper(prompt))
				return 0
			})
		},
	})
	var exit *podssh.ExitError
	switch {
	case errors.As(err, &exit):
		fmt.Println("the command failed with status", exit.ExitStatus)
	case err != nil:
		fmt.Println(err)
	}
	if res == nil {
		return // no pod was created
	}
	out, _ := os.ReadFile(filepath.Join(dir, "out.txt"))
	fmt.Println("on", res.GPUTypeID, "status", res.ExitStatus, "terminated", res.Terminated)
	fmt.Println(string(out))
	// Output:
	// rendering: a red fox
	// on NVIDIA L40S status 0 terminated true
	// A RED FOX
}
