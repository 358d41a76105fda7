package runpodtest_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// sshClient dials the fake as a client made with ClientOptions would, with
// x/crypto/ssh alone.
func sshClient(t *testing.T, srv *runpodtest.Server, addr string, signer ssh.Signer, hostKey ssh.PublicKey) (*ssh.Client, error) {
	t.Helper()
	cfg, err := option.NewConfig(srv.ClientOptions()...)
	require.NoError(t, err)
	require.NotNil(t, cfg.Dialer, "ClientOptions sets the dialer")
	nc, err := cfg.Dialer(t.Context(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	c, chans, reqs, err := ssh.NewClientConn(nc, addr, &ssh.ClientConfig{User: "root",
		Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: ssh.FixedHostKey(hostKey)})
	if err != nil {
		return nil, err
	}
	client := ssh.NewClient(c, chans, reqs)
	t.Cleanup(func() { _ = client.Close() })
	return client, nil
}

func testSigner(t *testing.T) ssh.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	s, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	return s
}

// TestPodSSH: a running pod that exposes 22/tcp answers on its public
// address with its host key, lets in root with the account's keys, and
// runs commands; the account's keys are read at each connection.
func TestPodSSH(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	addr, err := rp.Pods.TCPAddress(t.Context(), id, 22)
	require.NoError(t, err)
	signer := testSigner(t)

	_, err = sshClient(t, srv, addr.String(), signer, srv.PodHostKey(id))
	require.ErrorContains(t, err, "unable to authenticate", "not an account key yet")
	// Through the account's API, as a user adds a key.
	require.NoError(t, rp.Do(t.Context(), "PUT", "/v2/account/ssh-keys",
		map[string][]string{"keys": {strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))}}, nil))
	client, err := sshClient(t, srv, addr.String(), signer, srv.PodHostKey(id))
	require.NoError(t, err)
	sess, err := client.NewSession()
	require.NoError(t, err)
	out, err := sess.Output("echo hi")
	require.NoError(t, err)
	assert.Equal(t, "hi\n", string(out))

	require.NoError(t, srv.WritePodFile(id, "/workspace/x.txt", []byte("abc")))
	sess, err = client.NewSession()
	require.NoError(t, err)
	var stderr bytes.Buffer
	sess.Stderr = &stderr
	out, err = sess.Output("cat /workspace/x.txt /nope")
	var exit *ssh.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.ExitStatus())
	assert.Equal(t, "abc", string(out))
	assert.Equal(t, "cat: /nope: No such file or directory\n", stderr.String())

	// A rotated host key is what the next connection presents.
	rotated := srv.RotatePodHostKey(id)
	_, err = sshClient(t, srv, addr.String(), signer, srv.PodHostKey(id))
	require.NoError(t, err)
	assert.Equal(t, rotated.Marshal(), srv.PodHostKey(id).Marshal())
}

// TestPodSSHRefused: nothing answers for a pod that is not RUNNING, one
// that does not expose 22/tcp, or an address of no pod; addresses other
// than the fake's and loopback are not dialled.
func TestPodSSHRefused(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	cfg := rp.Config()
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp", "8000/tcp"}})
	addr, err := rp.Pods.TCPAddress(t.Context(), id, 22)
	require.NoError(t, err)
	other, err := rp.Pods.TCPAddress(t.Context(), id, 8000)
	require.NoError(t, err)

	_, err = cfg.Dialer(t.Context(), "tcp", other.String())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "a TCP port other than 22")
	srv.SetPodStatus(id, pods.PodStatusExited)
	_, err = cfg.Dialer(t.Context(), "tcp", addr.String())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "a stopped pod")
	_, err = cfg.Dialer(t.Context(), "tcp", "203.0.113.251:22")
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	_, err = cfg.Dialer(t.Context(), "tcp", "192.0.2.1:22")
	var op *net.OpError
	assert.ErrorAs(t, err, &op, "not the fake's")
}

// TestPodCommandHandlerContext: the handler's context ends when the
// client closes the session.
func TestPodCommandHandlerContext(t *testing.T) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	signer := testSigner(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	started, ended := make(chan struct{}), make(chan struct{})
	srv.HandlePodCommand(id, func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) int {
		close(started)
		<-ctx.Done()
		close(ended)
		return 0
	})
	addr, err := rp.Pods.TCPAddress(t.Context(), id, 22)
	require.NoError(t, err)
	client, err := sshClient(t, srv, addr.String(), signer, srv.PodHostKey(id))
	require.NoError(t, err)
	sess, err := client.NewSession()
	require.NoError(t, err)
	require.NoError(t, sess.Start("sleep infinity"))
	<-started
	require.NoError(t, sess.Close())
	<-ended
}

// FuzzPodBuiltinCommands: the built-in commands take any command line
// without panicking.
func FuzzPodBuiltinCommands(f *testing.F) {
	srv := runpodtest.NewServer()
	defer srv.Close()
	signer, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(make([]byte, 32)))
	if err != nil {
		f.Fatal(err)
	}
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	_ = srv.WritePodFile(id, "f.txt", []byte("data"))
	for _, s := range []string{"echo a b", "cat f.txt", "sha256sum f.txt /", "exit 300", "exit x", "false", "", "cat ../../../etc/passwd"} {
		f.Add(s)
	}
	rp, err := srv.NewClient()
	if err != nil {
		f.Fatal(err)
	}
	addr, err := rp.Pods.TCPAddress(context.Background(), id, 22)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		client, err := sshClient(t, srv, addr.String(), signer, srv.PodHostKey(id))
		require.NoError(t, err)
		sess, err := client.NewSession()
		require.NoError(t, err)
		defer sess.Close()
		err = sess.Run(cmd)
		var exit *ssh.ExitError
		if err != nil && !assert.ErrorAs(t, err, &exit) {
			return
		}
	})
}
