package podssh_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// exampleKey makes a key and registers it with the fake account, as a
// user adds ~/.ssh/id_ed25519.pub in the console.
func exampleKey(srv *runpodtest.Server) podssh.Key {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	key, _ := podssh.NewKey(signer)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(key.PublicKey())))
	return key
}

// Run a command on a pod and read its output and exit status.
func ExampleConn_Run() {
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve())
	defer srv.Close()
	rp, _ := srv.NewClient()
	key := exampleKey(srv) // in a program: podssh.LoadKey(path, nil)
	podID := srv.AddPod(runpodtest.Pod{Image: "runpod/pytorch", Ports: []string{"22/tcp"}})

	// HostKeys is left nil: the pod's host key is trusted on first use and
	// kept in the user's known_hosts for RunPod, so that any later
	// connection to the pod, from any Service of any run, refuses a
	// changed key.
	conn, err := podssh.NewFromConfig(rp.Config()).Dial(context.Background(), podID, podssh.DialOptions{Key: key})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	err = conn.Run(context.Background(), podssh.RunParams{Command: "echo hello from the pod", Stdout: os.Stdout})
	fmt.Println(err)
	err = conn.Run(context.Background(), podssh.RunParams{Command: "exit 3"})
	if exit, ok := err.(*podssh.ExitError); ok {
		fmt.Println("status", exit.ExitStatus)
	}
	// Output:
	// hello from the pod
	// <nil>
	// status 3
}

// Cancel a command: Run stops it on the pod, sending SIGTERM to its
// process group (and SIGKILL after RunParams.Grace if it is still
// running), and says what became of it.
func ExampleConn_Run_cancel() {
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve())
	defer srv.Close()
	rp, _ := srv.NewClient()
	key := exampleKey(srv)
	podID := srv.AddPod(runpodtest.Pod{Image: "runpod/pytorch", Ports: []string{"22/tcp"}})
	// The pod's training job: it runs until it is signalled.
	fakessh.HandlePodCommand(srv, podID, func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
		fmt.Fprintln(stdout, "epoch 1")
		<-ctx.Done()
		return 0
	})

	conn, err := podssh.NewFromConfig(rp.Config()).Dial(context.Background(), podID, podssh.DialOptions{Key: key})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the job has started (a user's Ctrl-C, a deadline).
	progress := writerFunc(func(p []byte) { os.Stdout.Write(p); cancel() })
	err = conn.Run(ctx, podssh.RunParams{Command: "python train.py", Stdout: progress})
	var stopped *podssh.InterruptedError
	if errors.As(err, &stopped) {
		fmt.Println(errors.Is(err, context.Canceled), stopped.Sent, "->", stopped.Signal)
	}
	// Output:
	// epoch 1
	// true [TERM] -> TERM
}

// writerFunc is an io.Writer calling itself.
type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
}

// Copy a file to the pod's volume, and reach a server on the pod through
// a forwarded local port.
func ExampleConn_Forward() {
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve())
	defer srv.Close()
	rp, _ := srv.NewClient()
	key := exampleKey(srv)
	podID := srv.AddPod(runpodtest.Pod{Image: "runpod/pytorch", Ports: []string{"22/tcp"}})
	fakessh.HandlePodPort(srv, podID, 8888, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "jupyter is up")
	}))

	ctx := context.Background()
	conn, err := podssh.NewFromConfig(rp.Config()).Dial(ctx, podID, podssh.DialOptions{Key: key})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(dir+"/notes.txt", []byte("weights go here\n"), 0o644)
	fmt.Println(conn.Upload(ctx, dir+"/notes.txt", "/workspace/notes.txt"))
	b, _ := fakessh.PodFile(srv, podID, "/workspace/notes.txt")
	fmt.Print(string(b))

	fw, err := conn.Forward(ctx, 8888)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fw.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get("http://" + fw.Addr().String() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))
	// Output:
	// <nil>
	// weights go here
	// jupyter is up
}
