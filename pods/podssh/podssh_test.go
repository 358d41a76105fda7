package podssh_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// fixture is a fake platform with one running pod that exposes 22/tcp,
// an account key and a Service aimed at the fake.
type fixture struct {
	srv *runpodtest.Server
	svc *podssh.Service
	pod string
	key podssh.Key
	pem []byte // the key's private PEM, registered as a secret
}

func newKey(t *testing.T) (podssh.Key, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	block, err := ssh.MarshalPrivateKey(priv, "")
	require.NoError(t, err)
	var pem bytes.Buffer
	require.NoError(t, pemEncode(&pem, block.Type, block.Bytes))
	testkit.RegisterSecret(pem.String())
	testkit.RegisterSecret(hex.EncodeToString(priv.Seed()))
	key, err := podssh.ParseKey(pem.Bytes(), nil)
	require.NoError(t, err)
	return key, pem.Bytes()
}

// isolate gives the test a home and configuration directory of its own,
// where the default known_hosts goes, and returns the configuration
// directory.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	config := filepath.Join(home, ".config")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", config)
	return config
}

func setup(t *testing.T) *fixture {
	t.Helper()
	isolate(t)
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve())
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	key, pem := newKey(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(key.PublicKey())))
	id := srv.AddPod(runpodtest.Pod{Name: "ssh", Image: "runpod/base", Ports: []string{"8888/http", "22/tcp"}})
	return &fixture{srv: srv, svc: podssh.NewFromConfig(rp.Config()), pod: id, key: key, pem: pem}
}

func (f *fixture) dial(t *testing.T, o podssh.DialOptions) *podssh.Conn {
	t.Helper()
	if o.Key.IsZero() {
		o.Key = f.key
	}
	conn, err := f.svc.Dial(t.Context(), f.pod, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestRunExitCodeAndStreams: a command that writes 1 MB to stdout and a
// line to stderr and exits 3 gives each stream its own bytes and a
// *ExitError with status 3.
func TestRunExitCodeAndStreams(t *testing.T) {
	f := setup(t)
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i*7 + i>>11)
	}
	fakessh.HandlePodCommand(f.srv, f.pod, func(_ context.Context, cmd string, _ io.Reader, stdout, stderr io.Writer) int {
		assert.Equal(t, "make-output --now", cmd)
		_, err := stdout.Write(big)
		assert.NoError(t, err)
		_, err = io.WriteString(stderr, "warning: three\n")
		assert.NoError(t, err)
		return 3
	})
	conn := f.dial(t, podssh.DialOptions{})
	var stdout, stderr bytes.Buffer
	err := conn.Run(t.Context(), podssh.RunParams{Command: "make-output --now", Stdout: &stdout, Stderr: &stderr})
	var exit *podssh.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitStatus)
	assert.Equal(t, f.pod, exit.PodID)
	assert.NotContains(t, err.Error(), "make-output", "the command is not quoted: it may hold a secret")
	require.Equal(t, len(big), stdout.Len())
	assert.True(t, bytes.Equal(big, stdout.Bytes()), "stdout's bytes")
	assert.Equal(t, "warning: three\n", stderr.String())

	fakessh.HandlePodCommand(f.srv, f.pod, nil) // the built-in commands again
	stdout.Reset()
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "echo hello pod", Stdout: &stdout}))
	assert.Equal(t, "hello pod\n", stdout.String())
	err = conn.Run(t.Context(), podssh.RunParams{Command: "nvidia-smi", Stderr: &stderr})
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 127, exit.ExitStatus)
}

// TestRunStdin: Stdin reaches the command, byte for byte (1 MiB of
// binary data), and the command sees its end.
func TestRunStdin(t *testing.T) {
	f := setup(t)
	conn := f.dial(t, podssh.DialOptions{})
	bin := make([]byte, 1<<20)
	_, _ = mrand.NewChaCha8([32]byte{5}).Read(bin)
	var out, errOut bytes.Buffer
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "cat", Stdin: bytes.NewReader(bin), Stdout: &out, Stderr: &errOut}))
	assert.True(t, bytes.Equal(bin, out.Bytes()), "stdout is stdin (%d bytes of %d)", out.Len(), len(bin))
	assert.Empty(t, errOut.String())
	in := strings.Repeat("line of input\n", 5000)
	out.Reset()
	out.Reset()
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "sha256sum", Stdin: strings.NewReader(in), Stdout: &out}))
	sum := sha256.Sum256([]byte(in))
	assert.Equal(t, hex.EncodeToString(sum[:])+"  -\n", out.String())
}

// TestRunContextCancel: cancelling the context stops a command that runs
// until it is signalled, as on a pod where the SSH server ignores the
// client's signal and a closed session leaves its command running: Run
// sends SIGTERM to the command's process group over another session,
// the command's handler sees its context end by that signal, and Run
// returns an *InterruptedError matching the context's error that says
// so.
func TestRunContextCancel(t *testing.T) {
	f := setup(t)
	started, ended := make(chan struct{}), make(chan error, 1)
	fakessh.HandlePodCommand(f.srv, f.pod, func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
		_, _ = io.WriteString(stdout, "working\n")
		close(started)
		<-ctx.Done()
		ended <- context.Cause(ctx)
		return 0
	})
	conn := f.dial(t, podssh.DialOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	var out, errOut bytes.Buffer
	err := conn.Run(ctx, podssh.RunParams{Command: "train.py", Stdout: &out, Stderr: &errOut})
	require.ErrorIs(t, err, context.Canceled)
	var ie *podssh.InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.ErrorContains(t, <-ended, "SIGTERM", "the pod's command was signalled")
	assert.Greater(t, ie.ProcessGroup, 1)
	assert.Equal(t, []string{"TERM"}, ie.Sent)
	assert.True(t, ie.Ended)
	assert.Equal(t, "TERM", ie.Signal)
	assert.Contains(t, err.Error(), fmt.Sprintf("sent SIGTERM to its process group %d; it was killed by SIGTERM", ie.ProcessGroup))
	assert.Equal(t, "working\n", out.String())
	assert.Empty(t, errOut.String(), "the process group line is not the command's stderr")
	// The connection still serves other commands.
	fakessh.HandlePodCommand(f.srv, f.pod, nil)
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "true"}))
}

// TestRunCancelGrace: on the bubble's clock, a command that ignores
// SIGTERM gets SIGKILL DefaultGrace after it (RunParams.Grace zero), and
// Run returns then; a negative Grace sends SIGKILL at once. The
// handler's context ends with the first signal; SIGKILL ends its process
// though it does not return.
func TestRunCancelGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, pod, conn := bubble(t)
		release := make(chan struct{})
		defer close(release) // before srv.Close, which waits for handlers
		started := make(chan struct{}, 2)
		fakessh.HandlePodCommand(srv, pod, func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) int {
			started <- struct{}{}
			<-release // a command that traps SIGTERM and goes on
			return 0
		})

		for _, tc := range []struct {
			grace, took time.Duration
			sent        []string
		}{
			{0, podssh.DefaultGrace, []string{"TERM", "KILL"}},
			{3 * time.Second, 3 * time.Second, []string{"TERM", "KILL"}},
			{-1, 0, []string{"KILL"}},
		} {
			ctx, cancel := context.WithCancel(t.Context())
			cancelled := make(chan time.Time, 1)
			go func() {
				<-started
				cancelled <- time.Now()
				cancel()
			}()
			err := conn.Run(ctx, podssh.RunParams{Command: "train.py", Grace: tc.grace})
			assert.Equal(t, tc.took, time.Since(<-cancelled), "grace %v", tc.grace)
			var ie *podssh.InterruptedError
			require.ErrorAs(t, err, &ie)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, tc.sent, ie.Sent, "grace %v", tc.grace)
			assert.True(t, ie.Ended)
			assert.Equal(t, "KILL", ie.Signal)
			cancel()
		}
	})
}

// bubble makes, in a synctest bubble, a fake on the memory network (so
// that its SSH servers run on the bubble's clock) with a running pod and
// a connection to it; all are closed when f returns.
func bubble(t *testing.T) (*runpodtest.Server, string, *podssh.Conn) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve(), runpodtest.WithMemoryNetwork())
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	key, _ := newKey(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(key.PublicKey())))
	pod := srv.AddPod(runpodtest.Pod{Image: "runpod/base", Ports: []string{"22/tcp"}})
	conn, err := podssh.NewFromConfig(rp.Config()).Dial(t.Context(), pod, podssh.DialOptions{Key: key, HostKeys: new(podssh.MemoryHostKeys)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return srv, pod, conn
}

// blockedReader's first Read gives data; the next blocks until release
// is closed, then gives more. It counts the Reads under way.
type blockedReader struct {
	release chan struct{}
	reads   atomic.Int32
	active  atomic.Int32
}

func (r *blockedReader) Read(p []byte) (int, error) {
	r.active.Add(1)
	defer r.active.Add(-1)
	if r.reads.Add(1) > 1 {
		<-r.release
	}
	return copy(p, "more input\n"), nil
}

// TestRunWaitsForTheStdinCopy: Run returns only once its copy of Stdin
// stopped, so that nothing reads the caller's Stdin after Run returned:
// with a Read blocked when the command ended, Run waits for it to
// return.
func TestRunWaitsForTheStdinCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, pod, conn := bubble(t)
		fakessh.HandlePodCommand(srv, pod, func(_ context.Context, _ string, stdin io.Reader, _, _ io.Writer) int {
			line, err := bufio.NewReader(stdin).ReadString('\n')
			assert.NoError(t, err)
			assert.Equal(t, "more input\n", line)
			return 0 // and the copy is in its second Read
		})
		in := &blockedReader{release: make(chan struct{})}
		done := make(chan error, 1)
		go func() { done <- conn.Run(t.Context(), podssh.RunParams{Command: "head -1", Stdin: in}) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned (%v) while a Read of its Stdin was under way", err)
		default:
		}
		assert.EqualValues(t, 1, in.active.Load(), "the copy waits in Read")
		close(in.release)
		require.NoError(t, <-done)
		assert.Zero(t, in.active.Load(), "no Read under way once Run returned")
		reads := in.reads.Load()
		synctest.Wait()
		assert.Equal(t, reads, in.reads.Load(), "no Read after Run returned")
	})
}

// TestRunCommandAsWritten: the pod's handler receives RunParams.Command
// exactly, quotes, newlines and all, though Run sends it behind the line
// that reports its process group.
func TestRunCommandAsWritten(t *testing.T) {
	f := setup(t)
	got := make(chan string, 1)
	fakessh.HandlePodCommand(f.srv, f.pod, func(_ context.Context, cmd string, _ io.Reader, _, _ io.Writer) int {
		got <- cmd
		return 0
	})
	conn := f.dial(t, podssh.DialOptions{})
	for _, cmd := range []string{
		"python train.py --lr 0.1",
		`echo 'it'\''s' "$HOME" $$ \; done`,
		"cd /workspace\npython -c 'print(\"a\\tb\")' <<'EOF'\nx\nEOF\n",
		"exit 3",
	} {
		require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: cmd}), cmd)
		assert.Equal(t, cmd, <-got)
	}
	var ve *errs.ValidationError
	require.ErrorAs(t, conn.Run(t.Context(), podssh.RunParams{Command: "a\x00b"}), &ve)
}

// TestClientTerminalHangsUp: a command run with a terminal through
// Conn.Client gets SIGHUP when its session closes, as OpenSSH sends it.
func TestClientTerminalHangsUp(t *testing.T) {
	f := setup(t)
	started, ended := make(chan struct{}), make(chan error, 1)
	fakessh.HandlePodCommand(f.srv, f.pod, func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) int {
		close(started)
		<-ctx.Done()
		ended <- context.Cause(ctx)
		return 0
	})
	conn := f.dial(t, podssh.DialOptions{})
	sess, err := conn.Client().NewSession()
	require.NoError(t, err)
	require.NoError(t, sess.RequestPty("xterm", 40, 120, ssh.TerminalModes{}))
	require.NoError(t, sess.Start("htop"))
	<-started
	require.NoError(t, sess.Close())
	assert.ErrorContains(t, <-ended, "SIGHUP")
}

// sha256File hashes a file as it reads it.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	h := sha256.New()
	_, err = io.Copy(h, fh)
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

// TestCopy100MB: a 100 MB file goes to the pod's network volume and back
// with its SHA-256 and mode intact, streamed: neither side holds it in
// memory (without -race, the heap grows by less than a quarter of it).
func TestCopy100MB(t *testing.T) {
	if testing.Short() {
		t.Skip("copies 200 MB")
	}
	f := setup(t)
	const size = 100 << 20
	dir := t.TempDir()
	src := filepath.Join(dir, "model.bin")
	fh, err := os.OpenFile(src, os.O_CREATE|os.O_WRONLY, 0o640)
	require.NoError(t, err)
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(fh, h), io.LimitReader(mrand.NewChaCha8([32]byte{7}), size))
	require.NoError(t, err)
	require.NoError(t, fh.Close())
	want := hex.EncodeToString(h.Sum(nil))

	conn := f.dial(t, podssh.DialOptions{})
	var upErr, downErr error
	upPeak := testkit.PeakHeap(func() { upErr = conn.Upload(t.Context(), src, "/workspace/model.bin") })
	require.NoError(t, upErr)
	var out bytes.Buffer
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "sha256sum /workspace/model.bin", Stdout: &out}))
	assert.Equal(t, want+"  /workspace/model.bin\n", out.String(), "the pod's copy")

	dst := filepath.Join(dir, "back.bin")
	downPeak := testkit.PeakHeap(func() { downErr = conn.Download(t.Context(), dst, "/workspace/model.bin") })
	require.NoError(t, downErr)
	assert.Equal(t, want, sha256File(t, dst), "the copy back")
	st, err := os.Stat(dst)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "mode kept both ways")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file left")
	t.Logf("peak heap: upload %.1f MB, download %.1f MB", float64(upPeak)/(1<<20), float64(downPeak)/(1<<20))
	if !raceDetector {
		assert.Less(t, upPeak, uint64(size/4), "upload streams")
		assert.Less(t, downPeak, uint64(size/4), "download streams")
	}
}

// TestCopyDirectoryAndVolume: a directory goes up and back; a pod that
// mounts a network volume sees the volume's files at /workspace.
func TestCopyDirectoryAndVolume(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "a.txt"), []byte("a"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "sub", "b.sh"), []byte("#!/bin/sh\n"), 0o755))
	conn := f.dial(t, podssh.DialOptions{})
	require.NoError(t, conn.Upload(t.Context(), filepath.Join(dir, "data"), "/root"))
	b, err := fakessh.PodFile(f.srv, f.pod, "/root/data/sub/b.sh")
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/sh\n", string(b))
	require.NoError(t, fakessh.WritePodFile(f.srv, f.pod, "data/c.txt", []byte("from the pod")))
	back := filepath.Join(dir, "back")
	require.NoError(t, conn.Download(t.Context(), back, "/root/data"))
	for name, want := range map[string]string{"a.txt": "a", "sub/b.sh": "#!/bin/sh\n", "c.txt": "from the pod"} {
		got, err := os.ReadFile(filepath.Join(back, name))
		require.NoError(t, err, name)
		assert.Equal(t, want, string(got), name)
	}
	st, err := os.Stat(filepath.Join(back, "sub", "b.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())

	// A missing remote file fails and leaves nothing behind.
	err = conn.Download(t.Context(), filepath.Join(dir, "nope.bin"), "/root/nope.bin")
	require.Error(t, err)
	_, statErr := os.Stat(filepath.Join(dir, "nope.bin"))
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

// TestForward: an HTTP request to the forwarded local port reaches the
// pod's handler; Close ends the forward.
func TestForward(t *testing.T) {
	f := setup(t)
	fakessh.HandlePodPort(f.srv, f.pod, 8888, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "jupyter at %s", r.URL.Path)
	}))
	conn := f.dial(t, podssh.DialOptions{})
	fw, err := conn.Forward(t.Context(), 8888)
	require.NoError(t, err)
	for range 3 {
		assert.Equal(t, "jupyter at /lab", httpGet(t, fw, "/lab"))
	}
	require.NoError(t, fw.Close())
	hc := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer hc.CloseIdleConnections()
	_, err = hc.Get("http://" + fw.Addr().String() + "/lab")
	require.Error(t, err, "closed")

	// A port nothing serves on the pod: the tunnel is refused, and the
	// local connection closed.
	fw2, err := conn.Forward(t.Context(), 9999)
	require.NoError(t, err)
	defer fw2.Close()
	_, err = hc.Get("http://" + fw2.Addr().String() + "/")
	require.Error(t, err)
}

// httpGet gets path through fw, on a connection of its own, and returns
// the body.
func httpGet(t *testing.T, fw *podssh.Forward, path string) string {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get("http://" + fw.Addr().String() + path)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return string(body)
}

// TestHostKeyChangedRefused: after a pod's host key changes, Dial fails
// with a *HostKeyChangedError and runs nothing; a file store remembers
// keys across Services.
func TestHostKeyChangedRefused(t *testing.T) {
	f := setup(t)
	var ran atomic.Int32
	fakessh.HandlePodCommand(f.srv, f.pod, func(context.Context, string, io.Reader, io.Writer, io.Writer) int {
		ran.Add(1)
		return 0
	})
	first := fakessh.PodHostKey(f.srv, f.pod)
	conn := f.dial(t, podssh.DialOptions{})
	assert.Equal(t, first.Marshal(), conn.HostKey().Marshal())
	require.NoError(t, conn.Close())

	rotated := fakessh.RotatePodHostKey(f.srv, f.pod)
	_, err := f.svc.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key})
	var changed *podssh.HostKeyChangedError
	require.ErrorAs(t, err, &changed)
	assert.Equal(t, f.pod, changed.PodID)
	assert.Equal(t, []string{ssh.FingerprintSHA256(first)}, changed.Known)
	assert.Equal(t, ssh.FingerprintSHA256(rotated), changed.Got)
	assert.False(t, changed.Pinned)
	assert.Contains(t, err.Error(), changed.Addr)
	assert.Zero(t, ran.Load(), "nothing ran")

	// A known_hosts file: learnt by one Service, checked by another.
	path := filepath.Join(t.TempDir(), "known_hosts")
	store, err := podssh.OpenKnownHosts(path)
	require.NoError(t, err)
	f.dial(t, podssh.DialOptions{HostKeys: store})
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "runpod-pod="+f.pod)
	assert.True(t, strings.HasPrefix(string(b), "[203.0.113."), string(b))
	rp, err := f.srv.NewClient()
	require.NoError(t, err)
	other := podssh.NewFromConfig(rp.Config())
	again, err := podssh.OpenKnownHosts(path)
	require.NoError(t, err)
	c2, err := other.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, HostKeys: again})
	require.NoError(t, err, "the file's key")
	require.NoError(t, c2.Close())
	fakessh.RotatePodHostKey(f.srv, f.pod)
	_, err = other.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, HostKeys: again})
	require.ErrorAs(t, err, &changed)
	assert.Zero(t, ran.Load(), "nothing ran")
}

// TestDefaultHostKeysAcrossServices: with HostKeys left nil, host keys
// go to the user's known_hosts for RunPod (made 0600 in a 0700
// directory), so that a new Service, as a program making one per call
// would, refuses a pod whose key changed since another Service learnt
// it.
func TestDefaultHostKeysAcrossServices(t *testing.T) {
	f := setup(t)
	path, err := podssh.DefaultKnownHostsPath()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "runpod", "known_hosts"), path)
	require.NoError(t, f.dial(t, podssh.DialOptions{}).Close())
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "runpod-pod="+f.pod)

	first := fakessh.PodHostKey(f.srv, f.pod)
	rotated := fakessh.RotatePodHostKey(f.srv, f.pod)
	rp, err := f.srv.NewClient()
	require.NoError(t, err)
	_, err = podssh.NewFromConfig(rp.Config()).Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key})
	var changed *podssh.HostKeyChangedError
	require.ErrorAs(t, err, &changed, "a new Service knows the key another learnt")
	assert.Equal(t, []string{ssh.FingerprintSHA256(first)}, changed.Known)
	assert.Equal(t, ssh.FingerprintSHA256(rotated), changed.Got)
}

// TestDialAddr: DialAddr reaches any SSH server by address (here a fake
// pod's public one, through the Service's dialer); its host keys are
// kept by address, and a changed one is refused; bad input is a
// *errs.ValidationError.
func TestDialAddr(t *testing.T) {
	f := setup(t)
	rp, err := f.srv.NewClient()
	require.NoError(t, err)
	ap, err := rp.Pods.TCPAddress(t.Context(), f.pod, 22)
	require.NoError(t, err)
	addr := ap.String()
	svc := podssh.NewFromConfig(rp.Config())
	conn, err := svc.DialAddr(t.Context(), addr, podssh.DialOptions{Key: f.key})
	require.NoError(t, err)
	assert.Empty(t, conn.PodID())
	assert.Equal(t, addr, conn.Addr())
	var out bytes.Buffer
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "echo by address", Stdout: &out}))
	assert.Equal(t, "by address\n", out.String())
	var exit *podssh.ExitError
	require.ErrorAs(t, conn.Run(t.Context(), podssh.RunParams{Command: "exit 4"}), &exit)
	assert.Contains(t, exit.Error(), "command on "+addr)
	require.NoError(t, conn.Close())
	path, err := podssh.DefaultKnownHostsPath()
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "runpod-pod=", "kept by address")

	fakessh.RotatePodHostKey(f.srv, f.pod)
	_, err = podssh.NewFromConfig(rp.Config()).DialAddr(t.Context(), addr, podssh.DialOptions{Key: f.key})
	var changed *podssh.HostKeyChangedError
	require.ErrorAs(t, err, &changed)
	assert.Empty(t, changed.PodID)
	assert.Contains(t, err.Error(), "host key of "+addr+" has changed")

	for field, o := range map[string]struct {
		addr string
		o    podssh.DialOptions
	}{
		"addr":             {"no-port", podssh.DialOptions{Key: f.key}},
		"DialOptions.Port": {addr, podssh.DialOptions{Key: f.key, Port: 22}},
		"DialOptions.Key":  {addr, podssh.DialOptions{}},
	} {
		_, err := svc.DialAddr(t.Context(), o.addr, o.o)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
	}
	for _, bad := range []string{":22", "127.0.0.1:0", "127.0.0.1:x"} {
		_, err := svc.DialAddr(t.Context(), bad, podssh.DialOptions{Key: f.key})
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, bad)
	}
}

// TestPinnedHostKey: a pinned key is accepted; any other refused.
func TestPinnedHostKey(t *testing.T) {
	f := setup(t)
	conn := f.dial(t, podssh.DialOptions{HostKeys: podssh.PinnedHostKeys{fakessh.PodHostKey(f.srv, f.pod)}})
	require.NoError(t, conn.Close())
	stranger, _ := newKey(t)
	_, err := f.svc.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, HostKeys: podssh.PinnedHostKeys{stranger.PublicKey()}})
	var changed *podssh.HostKeyChangedError
	require.ErrorAs(t, err, &changed)
	assert.True(t, changed.Pinned)
	assert.Equal(t, []string{ssh.FingerprintSHA256(stranger.PublicKey())}, changed.Known)
}

// TestUnknownKeyRefused: a key that is not one of the account's is
// refused with a *AuthError, and no error or printed value shows a
// private key; a key in the pod's PUBLIC_KEY is let in.
func TestUnknownKeyRefused(t *testing.T) {
	f := setup(t)
	stranger, pem := newKey(t)
	o := podssh.DialOptions{Key: stranger}
	_, err := f.svc.Dial(t.Context(), f.pod, o)
	var auth *podssh.AuthError
	require.ErrorAs(t, err, &auth)
	assert.Equal(t, "root", auth.User)
	assert.Equal(t, ssh.FingerprintSHA256(stranger.PublicKey()), auth.Key)
	js, jerr := json.Marshal(o)
	require.NoError(t, jerr)
	testkit.NoSecret(t, err, o, &o, stranger, string(js), fmt.Sprintf("%v %+v %#v", o, o, []any{o}))
	assert.NotContains(t, string(js), string(pem))
	assert.Contains(t, fmt.Sprint(stranger), "SHA256:")

	// The platform gives the pod the account's keys as PUBLIC_KEY.
	id := f.srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"},
		Env: map[string]string{"PUBLIC_KEY": string(ssh.MarshalAuthorizedKey(stranger.PublicKey()))}})
	conn, err := f.svc.Dial(t.Context(), id, o)
	require.NoError(t, err)
	require.NoError(t, conn.Close())

	// Only root.
	_, err = f.svc.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, User: "ubuntu"})
	require.ErrorAs(t, err, &auth)
}

// TestParseKeySecrets: an encrypted key needs its passphrase, and
// neither appears in an error.
func TestParseKeySecrets(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	pass := []byte("correct horse battery staple")
	testkit.RegisterSecret(string(pass))
	block, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", pass)
	require.NoError(t, err)
	var pem bytes.Buffer
	require.NoError(t, pemEncode(&pem, block.Type, block.Bytes))
	testkit.RegisterSecret(pem.String())
	_, err = podssh.ParseKey(pem.Bytes(), nil)
	var missing *ssh.PassphraseMissingError
	require.ErrorAs(t, err, &missing)
	_, err = podssh.ParseKey(pem.Bytes(), []byte("wrong"))
	require.Error(t, err)
	testkit.NoSecret(t, err)
	k, err := podssh.ParseKey(pem.Bytes(), pass)
	require.NoError(t, err)
	testkit.NoSecret(t, k)
	path := filepath.Join(t.TempDir(), "id_ed25519")
	require.NoError(t, os.WriteFile(path, pem.Bytes(), 0o600))
	k2, err := podssh.LoadKey(path, pass)
	require.NoError(t, err)
	assert.Equal(t, k.PublicKey().Marshal(), k2.PublicKey().Marshal())
	_, err = podssh.ParseKey([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\nnot base64 at all\n-----END OPENSSH PRIVATE KEY-----\n"), nil)
	require.Error(t, err)
}

// TestBadInputBeforeNetwork: bad arguments are *errs.ValidationError
// naming the field, and nothing is sent.
func TestBadInputBeforeNetwork(t *testing.T) {
	f := setup(t)
	for field, call := range map[string]func() error{
		"podID":           func() error { _, err := f.svc.Dial(t.Context(), "", podssh.DialOptions{Key: f.key}); return err },
		"DialOptions.Key": func() error { _, err := f.svc.Dial(t.Context(), f.pod, podssh.DialOptions{}); return err },
		"DialOptions.Port": func() error {
			_, err := f.svc.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, Port: 70000})
			return err
		},
		"signer":   func() error { _, err := podssh.NewKey(nil); return err },
		"pemBytes": func() error { _, err := podssh.ParseKey(nil, nil); return err },
	} {
		var ve *errs.ValidationError
		require.ErrorAs(t, call(), &ve, field)
		assert.Equal(t, field, ve.Field)
	}
	assert.Empty(t, f.srv.Requests(), "nothing sent")
	conn := f.dial(t, podssh.DialOptions{})
	var ve *errs.ValidationError
	require.ErrorAs(t, conn.Run(t.Context(), podssh.RunParams{Command: "  "}), &ve)
	assert.Equal(t, "RunParams.Command", ve.Field)
	_, err := conn.Forward(t.Context(), 0)
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "port", ve.Field)
	require.ErrorAs(t, conn.Upload(t.Context(), "", "/x"), &ve)
	assert.Equal(t, "local", ve.Field)
}

// TestPodWithoutSSH: a pod that does not expose 22/tcp fails at once
// with pods.ErrPortNotExposed; a stopped pod's port is not mapped.
func TestPodWithoutSSH(t *testing.T) {
	f := setup(t)
	id := f.srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"8888/http"}})
	_, err := f.svc.Dial(t.Context(), id, podssh.DialOptions{Key: f.key})
	require.ErrorIs(t, err, pods.ErrPortNotExposed)
	f.srv.SetPodStatus(f.pod, pods.PodStatusExited)
	_, err = f.svc.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key})
	require.ErrorIs(t, err, pods.ErrNotRunning)
}

// TestDialWaitsForTheSSHServer: connections refused while the pod's SSH
// server starts are tried again, within DialOptions.StartWait; past it,
// the refusal is the error.
func TestDialWaitsForTheSSHServer(t *testing.T) {
	f := setup(t)
	rp, err := f.srv.NewClient()
	require.NoError(t, err)
	base := rp.Config().Dialer
	var refused atomic.Int32
	starting := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if refused.Add(1) <= 3 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		return base(ctx, network, addr)
	}
	rp2, err := f.srv.NewClient(option.WithDialer(starting))
	require.NoError(t, err)
	svc := podssh.NewFromConfig(rp2.Config())
	conn, err := svc.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, Poll: option.Poll[*pods.Pod]{Interval: time.Millisecond}})
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	assert.EqualValues(t, 4, refused.Load(), "three refusals, then the server listened")
}

// TestDialGivesUpAfterStartWait: on the bubble's clock, a pod whose SSH
// server never listens is dialled every Poll.Interval for StartWait
// (then the refusal is the error), and every second for
// DefaultStartWait when neither is set.
func TestDialGivesUpAfterStartWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := runpodtest.NewServer(contract.Check(), fakessh.Serve(), runpodtest.WithMemoryNetwork())
		defer srv.Close()
		key, _ := newKey(t)
		pod := srv.AddPod(runpodtest.Pod{Image: "runpod/base", Ports: []string{"22/tcp"}})
		var refused atomic.Int32
		never := func(_ context.Context, network, _ string) (net.Conn, error) {
			refused.Add(1)
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		rp, err := srv.NewClient(option.WithDialer(never))
		require.NoError(t, err)
		defer rp.CloseIdleConnections()
		svc := podssh.NewFromConfig(rp.Config())

		start := time.Now()
		_, err = svc.Dial(t.Context(), pod, podssh.DialOptions{Key: key, StartWait: 10 * time.Second, Poll: option.Poll[*pods.Pod]{Interval: 2 * time.Second}})
		assert.ErrorIs(t, err, syscall.ECONNREFUSED)
		assert.Equal(t, 10*time.Second, time.Since(start))
		assert.EqualValues(t, 6, refused.Load(), "at 0, 2, 4, 6, 8 and 10 s")

		refused.Store(0)
		start = time.Now()
		_, err = svc.Dial(t.Context(), pod, podssh.DialOptions{Key: key})
		assert.ErrorIs(t, err, syscall.ECONNREFUSED)
		assert.Equal(t, podssh.DefaultStartWait, time.Since(start))
		assert.EqualValues(t, 121, refused.Load(), "every second for two minutes")
	})
}

// TestPodStopEndsTheConnection: stopping the pod stops the SSH server in
// it: a running command ends without an exit status (an
// *InterruptedError: whether it finished its work is unknown), its
// handler's context ends, and the connection serves nothing more.
func TestPodStopEndsTheConnection(t *testing.T) {
	f := setup(t)
	rp, err := f.srv.NewClient()
	require.NoError(t, err)
	started, ended := make(chan struct{}), make(chan struct{})
	fakessh.HandlePodCommand(f.srv, f.pod, func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) int {
		close(started)
		<-ctx.Done()
		close(ended)
		return 0
	})
	conn := f.dial(t, podssh.DialOptions{})
	stopped := make(chan error, 1)
	go func() {
		<-started
		_, err := rp.Pods.Stop(t.Context(), f.pod)
		stopped <- err
	}()
	err = conn.Run(t.Context(), podssh.RunParams{Command: "train.py"})
	require.NoError(t, <-stopped)
	var lost *podssh.InterruptedError
	require.ErrorAs(t, err, &lost)
	assert.Empty(t, lost.Signal)
	assert.Error(t, lost.Err)
	assert.Contains(t, err.Error(), "ended without an exit status")
	<-ended
	assert.Error(t, conn.Run(t.Context(), podssh.RunParams{Command: "true"}), "the connection is gone")
}

// runGoroutines returns the stacks of the goroutines that run code of
// Run or of the stop it makes (its session's watch, a kill, the copy of
// Stdin), but not Run itself.
func runGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "podssh.(*Conn).Run.") || strings.Contains(g, "podssh.(*Conn).killGroup.") {
			out = append(out, g)
		}
	}
	return out
}

// TestRunJoinsItsGoroutines: every goroutine Run starts (the copy of
// Stdin, the watch of its session's end, the kills of a cancel) has ended
// when Run returns, whether the command ended, was stopped or was left
// running (Verbatim); what is
// left after the Conn's Close is goleak's (TestMain).
func TestRunJoinsItsGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, pod, conn := bubble(t)
		release := make(chan struct{})
		defer close(release) // before srv.Close, which waits for handlers
		started := make(chan struct{}, 1)
		fakessh.HandlePodCommand(srv, pod, func(ctx context.Context, cmd string, stdin io.Reader, stdout, _ io.Writer) int {
			if cmd == "cat" {
				_, _ = io.Copy(stdout, stdin)
				return 0
			}
			started <- struct{}{}
			<-release // ignores SIGTERM
			return 0
		})

		var out bytes.Buffer
		require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "cat", Stdin: strings.NewReader("in"), Stdout: &out}))
		require.Equal(t, "in", out.String())
		require.Empty(t, runGoroutines(), "after a command that ended")

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			<-started
			cancel()
		}()
		err := conn.Run(ctx, podssh.RunParams{Command: "train.py", Stdin: strings.NewReader("in"), Grace: time.Second})
		require.ErrorIs(t, err, context.Canceled)
		require.Empty(t, runGoroutines(), "after a command that was stopped")

		// Verbatim: Run cannot stop the command; it closes the session
		// and returns without its exit status, once the session's watch
		// saw the close.
		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		go func() {
			<-started
			cancel()
		}()
		err = conn.Run(ctx, podssh.RunParams{Command: "train.py", Verbatim: true})
		require.ErrorIs(t, err, context.Canceled)
		require.Empty(t, runGoroutines(), "after a command left running")

		require.NoError(t, conn.Close())
		require.Empty(t, runGoroutines(), "after Close")
	})
}
