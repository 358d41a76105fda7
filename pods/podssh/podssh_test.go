package podssh_test

import (
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

func setup(t *testing.T) *fixture {
	t.Helper()
	srv := runpodtest.NewServer()
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
	f.srv.HandlePodCommand(f.pod, func(_ context.Context, cmd string, _ io.Reader, stdout, stderr io.Writer) int {
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

	f.srv.HandlePodCommand(f.pod, nil) // the built-in commands again
	stdout.Reset()
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "echo hello pod", Stdout: &stdout}))
	assert.Equal(t, "hello pod\n", stdout.String())
	err = conn.Run(t.Context(), podssh.RunParams{Command: "nvidia-smi", Stderr: &stderr})
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 127, exit.ExitStatus)
}

// TestRunStdin: Stdin reaches the command, which sees its end.
func TestRunStdin(t *testing.T) {
	f := setup(t)
	conn := f.dial(t, podssh.DialOptions{})
	in := strings.Repeat("line of input\n", 5000)
	var out bytes.Buffer
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "cat", Stdin: strings.NewReader(in), Stdout: &out}))
	assert.Equal(t, in, out.String())
	out.Reset()
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "sha256sum", Stdin: strings.NewReader(in), Stdout: &out}))
	sum := sha256.Sum256([]byte(in))
	assert.Equal(t, hex.EncodeToString(sum[:])+"  -\n", out.String())
}

// TestRunContextCancel: cancelling the context ends a command that runs
// until its context ends: the pod's handler sees its context end, and Run
// returns the context's error.
func TestRunContextCancel(t *testing.T) {
	f := setup(t)
	started, ended := make(chan struct{}), make(chan struct{})
	f.srv.HandlePodCommand(f.pod, func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
		_, _ = io.WriteString(stdout, "working\n")
		close(started)
		<-ctx.Done()
		close(ended)
		return 0
	})
	conn := f.dial(t, podssh.DialOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	var out bytes.Buffer
	err := conn.Run(ctx, podssh.RunParams{Command: "train.py", Stdout: &out})
	require.ErrorIs(t, err, context.Canceled)
	<-ended // the pod's command was ended too
	// The connection still serves other commands.
	f.srv.HandlePodCommand(f.pod, nil)
	require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "true"}))
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
	downPeak := testkit.PeakHeap(func() { downErr = conn.Download(t.Context(), "/workspace/model.bin", dst) })
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
	b, err := f.srv.PodFile(f.pod, "/root/data/sub/b.sh")
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/sh\n", string(b))
	require.NoError(t, f.srv.WritePodFile(f.pod, "data/c.txt", []byte("from the pod")))
	back := filepath.Join(dir, "back")
	require.NoError(t, conn.Download(t.Context(), "/root/data", back))
	for name, want := range map[string]string{"a.txt": "a", "sub/b.sh": "#!/bin/sh\n", "c.txt": "from the pod"} {
		got, err := os.ReadFile(filepath.Join(back, name))
		require.NoError(t, err, name)
		assert.Equal(t, want, string(got), name)
	}
	st, err := os.Stat(filepath.Join(back, "sub", "b.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())

	// A missing remote file fails and leaves nothing behind.
	err = conn.Download(t.Context(), "/root/nope.bin", filepath.Join(dir, "nope.bin"))
	require.Error(t, err)
	_, statErr := os.Stat(filepath.Join(dir, "nope.bin"))
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

// TestForward: an HTTP request to the forwarded local port reaches the
// pod's handler; Close ends the forward.
func TestForward(t *testing.T) {
	f := setup(t)
	f.srv.HandlePodPort(f.pod, 8888, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "jupyter at %s", r.URL.Path)
	}))
	conn := f.dial(t, podssh.DialOptions{})
	fw, err := conn.Forward(t.Context(), 8888)
	require.NoError(t, err)
	hc := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer hc.CloseIdleConnections()
	for range 3 {
		resp, err := hc.Get("http://" + fw.Addr().String() + "/lab")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, "jupyter at /lab", string(body))
	}
	require.NoError(t, fw.Close())
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

// TestHostKeyChangedRefused: after a pod's host key changes, Dial fails
// with a *HostKeyChangedError and runs nothing; a file store remembers
// keys across Services.
func TestHostKeyChangedRefused(t *testing.T) {
	f := setup(t)
	var ran atomic.Int32
	f.srv.HandlePodCommand(f.pod, func(context.Context, string, io.Reader, io.Writer, io.Writer) int {
		ran.Add(1)
		return 0
	})
	first := f.srv.PodHostKey(f.pod)
	conn := f.dial(t, podssh.DialOptions{})
	assert.Equal(t, first.Marshal(), conn.HostKey().Marshal())
	require.NoError(t, conn.Close())

	rotated := f.srv.RotatePodHostKey(f.pod)
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
	f.srv.RotatePodHostKey(f.pod)
	_, err = other.Dial(t.Context(), f.pod, podssh.DialOptions{Key: f.key, HostKeys: again})
	require.ErrorAs(t, err, &changed)
	assert.Zero(t, ran.Load(), "nothing ran")
}

// TestPinnedHostKey: a pinned key is accepted; any other refused.
func TestPinnedHostKey(t *testing.T) {
	f := setup(t)
	conn := f.dial(t, podssh.DialOptions{HostKeys: podssh.PinnedHostKeys{f.srv.PodHostKey(f.pod)}})
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
		srv := runpodtest.NewServer(runpodtest.WithMemoryNetwork())
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
	f.srv.HandlePodCommand(f.pod, func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) int {
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
