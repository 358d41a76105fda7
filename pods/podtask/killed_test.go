package podtask_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/pods/podtask"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// The environment of the child process TestRunProcessKilled starts: the
// fake's API, its key, the relay to its pods' SSH servers and the
// account's private SSH key.
const (
	envChild  = "PODTASK_TEST_CHILD"
	envURL    = "PODTASK_TEST_URL"
	envAPIKey = "PODTASK_TEST_API_KEY"
	envRelay  = "PODTASK_TEST_RELAY"
	envSSHKey = "PODTASK_TEST_SSH_KEY"
)

// TestRunProcessKilled: a program is killed (SIGKILL) while its task's
// command runs, so nothing terminates the pod; the pod's lease does. The
// test runs its own binary again as that program, connected to the fake
// over loopback TCP: the API through the fake's listener, SSH through a
// relay the test runs to the fake's pods. Once the program printed the
// command's first line, the test kills it, finds the pod running, moves
// the fake's clock to the lease's deadline and runs lease.Reap, which
// compares it with the platform's clock (the Date header): no pod is left
// running.
func TestRunProcessKilled(t *testing.T) {
	if os.Getenv(envChild) == "1" {
		killedChild()
		return
	}
	clock := testkit.NewClock(time.Now().UTC())
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve(), runpodtest.WithClock(clock.Now), runpodtest.WithPodBoot(0, 0))
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	key, pemBytes := newKey(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(key.PublicKey())))
	for _, dc := range []string{"EU-RO-1", "US-TX-3", "CA-MTL-1", "EU-SE-1"} {
		srv.SetGPUStock(outOfStock, dc, catalog.AvailabilityLevelNone)
	}
	relay := startRelay(t, rp.Config().Dialer)

	child := exec.Command(os.Args[0], "-test.run=^TestRunProcessKilled$", "-test.count=1")
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RUNPOD_") { // the child's client is given all it needs
			environ = append(environ, kv)
		}
	}
	child.Env = append(environ, envChild+"=1", envURL+"="+srv.URL, envAPIKey+"="+srv.APIKey,
		envRelay+"="+relay, envSSHKey+"="+string(pemBytes))
	child.Stderr = testWriter{t}
	stdin, err := child.StdinPipe()
	require.NoError(t, err)
	stdout, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)
	next := func(prefix string) string {
		t.Helper()
		for lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), prefix); ok {
				return rest
			}
		}
		require.FailNow(t, "the child ended before printing "+prefix, "%v", lines.Err())
		return ""
	}

	// The pod exists: give it the program's command, then let the child go on.
	podID := next("pod ")
	fakessh.HandlePodCommand(srv, podID, func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
		fmt.Fprintln(stdout, "running")
		<-ctx.Done() // until SIGKILL, when the pod is deleted
		return 137
	})
	_, err = io.WriteString(stdin, "go\n")
	require.NoError(t, err)
	next("running")
	require.NoError(t, child.Process.Kill())
	killed = true
	_ = child.Wait()

	var pod runpodtest.Pod
	for _, p := range srv.Pods() {
		if p.ID == podID {
			pod = p
		}
	}
	require.Equal(t, pods.PodStatusRunning, pod.Status, "nothing terminated the killed program's pod")
	_, deadline, ok := lease.Parse(pod.Name)
	require.True(t, ok, "the pod's name %q carries a lease", pod.Name)

	rep, err := lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Deleted, "before its deadline, Reap leaves the pod alone")

	clock.Add(deadline.Sub(clock.Now()))
	rep, err = lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Deleted, 1)
	assert.Equal(t, podID, rep.Deleted[0].ID)
	for _, p := range srv.Pods() {
		assert.Equal(t, pods.PodStatusTerminated, p.Status, "the fake holds no running pod once Reap ran at the lease's deadline")
	}
}

// killedChild is the program TestRunProcessKilled kills: it runs a task
// with the fake's API and the test's relay, says the pod's id and waits
// for the test to give the pod its command, then prints the command's
// output until it is killed.
func killedChild() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	relay := os.Getenv(envRelay)
	rp, err := runpod.NewClient(
		option.WithAPIKey(os.Getenv(envAPIKey)),
		option.WithBaseURL(os.Getenv(envURL)),
		option.WithBackoff(runpodtest.TestBackoffMin, runpodtest.TestBackoffMax),
		option.WithPollInterval(runpodtest.TestPollInterval),
		option.WithDialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, relay)
			if err == nil {
				_, err = io.WriteString(c, addr+"\n")
			}
			return c, err
		}),
	)
	if err != nil {
		fail(err)
	}
	key, err := podssh.ParseKey([]byte(os.Getenv(envSSHKey)), nil)
	if err != nil {
		fail(err)
	}
	in := bufio.NewReader(os.Stdin)
	_, err = podtask.NewFromConfig(rp.Config()).Run(context.Background(), podtask.Task{
		Pod: pods.CreatePodRequest{
			Name:  "killed",
			Image: runpod.Ptr("runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"),
			GPU:   &pods.CreateGPUConfig{ID: outOfStock},
		},
		Candidates: []pods.Candidate{{GPUTypeID: outOfStock}, {GPUTypeID: inStock}},
		Timeout:    30 * time.Minute,
		Key:        key,
		Command:    "python train.py",
		Stdout:     os.Stdout,
		OnPod: func(p *pods.Pod) {
			fmt.Printf("pod %s\n", p.ID)
			if _, err := in.ReadString('\n'); err != nil {
				fail(err)
			}
		},
	})
	fail(fmt.Errorf("Run returned before the process was killed: %v", err))
}

// startRelay serves, on a loopback port, the child's connections to the
// fake's pods: each connection's first line is the address it is for,
// which dial (the fake's dialer) reaches; the rest is copied both ways.
// It returns the port's address.
func startRelay(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	track := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			track(c)
			wg.Go(func() {
				defer c.Close()
				br := bufio.NewReader(c)
				addr, err := br.ReadString('\n')
				if err != nil {
					return
				}
				pc, err := dial(context.Background(), "tcp", strings.TrimSpace(addr))
				if err != nil {
					return
				}
				track(pc)
				defer pc.Close()
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, _ = io.Copy(pc, br)
					_ = pc.Close()
				}()
				_, _ = io.Copy(c, pc)
				_ = c.Close()
				<-done
			})
		}
	})
	return ln.Addr().String()
}

// testWriter logs what is written to it, a line per write.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
