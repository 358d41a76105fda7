package podtask_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
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
	if os.Getenv(envChild) != "" {
		taskChild(os.Getenv(envChild))
		return
	}
	c := startChild(t, "TestRunProcessKilled", "kill")
	require.NoError(t, c.cmd.Process.Kill())
	c.wait()

	var pod runpodtest.Pod
	for _, p := range c.srv.Pods() {
		if p.ID == c.podID {
			pod = p
		}
	}
	require.Equal(t, pods.PodStatusRunning, pod.Status, "nothing terminated the killed program's pod")
	_, deadline, ok := lease.Parse(pod.Name)
	require.True(t, ok, "the pod's name %q carries a lease", pod.Name)

	rep, err := lease.Reap(t.Context(), c.rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Deleted, "before its deadline, Reap leaves the pod alone")

	c.clock.Add(deadline.Sub(c.clock.Now()))
	rep, err = lease.Reap(t.Context(), c.rp, lease.ReapOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Deleted, 1)
	assert.Equal(t, c.podID, rep.Deleted[0].ID)
	c.assertNoRunningPod(t)
}

// TestRunInterrupted: Ctrl-C (SIGINT) of a program that hands it to Run's
// context through signal.NotifyContext stops the command and terminates
// the pod before the program exits; a Reap at the lease's deadline finds
// nothing.
func TestRunInterrupted(t *testing.T) {
	if os.Getenv(envChild) != "" {
		taskChild(os.Getenv(envChild))
		return
	}
	c := startChild(t, "TestRunInterrupted", "interrupt")
	require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
	returned := c.next("returned ")
	assert.Contains(t, returned, "terminated=true")
	assert.Contains(t, returned, "context canceled")
	c.wait()
	assert.Zero(t, c.cmd.ProcessState.ExitCode())
	c.assertNoRunningPod(t)

	c.clock.Add(30 * time.Minute)
	rep, err := lease.Reap(t.Context(), c.rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Deleted)
}

// child is a program running a task against the test's fake.
type child struct {
	t     *testing.T
	srv   *runpodtest.Server
	rp    *runpod.Client
	clock *testkit.Clock
	cmd   *exec.Cmd
	lines *bufio.Scanner
	podID string
	done  bool
}

// startChild starts the test binary as a program that runs a task (test
// is the test that runs it, mode what it does once its command runs),
// and returns once the command printed its first line.
func startChild(t *testing.T, test, mode string) *child {
	t.Helper()
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

	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RUNPOD_") { // the child's client is given all it needs
			environ = append(environ, kv)
		}
	}
	cmd.Env = append(environ, envChild+"="+mode, envURL+"="+srv.URL, envAPIKey+"="+srv.APIKey,
		envRelay+"="+relay, envSSHKey+"="+string(pemBytes))
	cmd.Stderr = testWriter{t}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &child{t: t, srv: srv, rp: rp, clock: clock, cmd: cmd, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		if !c.done {
			_ = cmd.Process.Kill()
			c.wait()
		}
	})

	// The pod exists: give it the program's command, then let the child go on.
	c.podID = c.next("pod ")
	fakessh.HandlePodCommand(srv, c.podID, func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
		fmt.Fprintln(stdout, "running")
		<-ctx.Done() // until a signal: kill from Run's cancel, or SIGKILL when the pod is deleted
		return 143
	})
	_, err = io.WriteString(stdin, "go\n")
	require.NoError(t, err)
	c.next("running")
	return c
}

// next returns the rest of the child's next output line that starts with
// prefix, skipping the others.
func (c *child) next(prefix string) string {
	for c.lines.Scan() {
		if rest, ok := strings.CutPrefix(c.lines.Text(), prefix); ok {
			return rest
		}
	}
	c.t.Helper()
	require.FailNow(c.t, fmt.Sprintf("the child's output ended before a line starting %q", prefix), "%v", c.lines.Err())
	return ""
}

// wait waits for the child's end, reading what it still prints.
func (c *child) wait() {
	for c.lines.Scan() {
	}
	_ = c.cmd.Wait()
	c.done = true
}

// assertNoRunningPod checks that the fake holds no running pod.
func (c *child) assertNoRunningPod(t *testing.T) {
	t.Helper()
	for _, p := range c.srv.Pods() {
		assert.Equal(t, pods.PodStatusTerminated, p.Status, "the fake holds no running pod")
	}
}

// taskChild is the program TestRunProcessKilled kills and
// TestRunInterrupted interrupts: it runs a task with the fake's API and
// the test's relay, says the pod's id and waits for the test to give the
// pod its command, then prints the command's output. In mode "interrupt"
// SIGINT ends Run's context (signal.NotifyContext), and the program says
// what Run returned and exits 0; in mode "kill", it is killed first.
func taskChild(mode string) {
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
	ctx := context.Background()
	if mode == "interrupt" {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
	}
	res, err := podtask.NewFromConfig(rp.Config()).Run(ctx, podtask.Task{
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
	if mode != "interrupt" || res == nil {
		fail(fmt.Errorf("Run returned before the process was killed: %v", err))
	}
	fmt.Printf("returned terminated=%v err=%v\n", res.Terminated, err)
	os.Exit(0)
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
