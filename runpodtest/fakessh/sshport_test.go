package fakessh_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// dialPort connects to a pod's loopback port as a program of the user's
// does (a plain TCP dial), checks the server's host key against the
// known_hosts line Listen gave, and runs cmd.
func dialPort(t *testing.T, a fakessh.Address, signer ssh.Signer, cmd string) (string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "known_hosts")
	require.NoError(t, os.WriteFile(file, []byte(a.KnownHostsLine()+"\n"), 0o600))
	hostKey, err := knownhosts.New(file)
	require.NoError(t, err)
	client, err := ssh.Dial("tcp", a.String(), &ssh.ClientConfig{User: "root",
		Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: hostKey})
	if err != nil {
		return "", err
	}
	defer client.Close()
	sess, err := client.NewSession()
	require.NoError(t, err)
	out, err := sess.Output(cmd)
	return string(out), err
}

// requireRefused checks that nothing listens at addr (host:port) any
// more.
func requireRefused(t *testing.T, addr, msg string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err == nil {
		_ = c.Close()
	}
	require.True(t, errors.Is(err, syscall.ECONNREFUSED), "%s: %v", msg, err)
}

// keyedPod starts a fake with opts, closed when the test ends, whose
// account lets in a new key, and a running pod exposing 22/tcp; it
// returns them with the key.
func keyedPod(t *testing.T, opts ...runpodtest.Option) (*runpodtest.Server, string, ssh.Signer) {
	t.Helper()
	srv := runpodtest.NewServer(append([]runpodtest.Option{fakessh.Serve()}, opts...)...)
	t.Cleanup(srv.Close)
	signer := testSigner(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	return srv, srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}}), signer
}

// TestListenPodSSH: Listen opens a loopback port where a pod's SSH
// server answers with the host key it reports and lets in the account's
// keys; calling it again gives the same port; it refuses a pod that is
// not RUNNING or does not expose 22/tcp; the port closes when the pod
// stops, restarts or is deleted (a pod running again gets a port anew),
// and when the server closes; connections made through it end with the
// pod.
func TestListenPodSSH(t *testing.T) {
	srv, id, signer := keyedPod(t, runpodtest.WithPodBoot(0, 0))
	rp, err := srv.NewClient()
	require.NoError(t, err)
	a, err := fakessh.Listen(srv, id)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", a.Host)
	assert.Equal(t, fakessh.PodHostKey(srv, id).Marshal(), a.HostKey.Marshal())
	out, err := dialPort(t, a, signer, "echo hi")
	require.NoError(t, err)
	assert.Equal(t, "hi\n", out)
	again, err := fakessh.Listen(srv, id)
	require.NoError(t, err)
	assert.Equal(t, a.Port, again.Port, "one port per running pod")
	_, err = dialPort(t, a, testSigner(t), "echo hi")
	require.ErrorContains(t, err, "unable to authenticate", "only the account's keys")

	// A connection through the port ends when the pod stops.
	client, err := ssh.Dial("tcp", a.String(), &ssh.ClientConfig{User: "root",
		Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: ssh.FixedHostKey(a.HostKey)})
	require.NoError(t, err)
	defer client.Close()
	_, err = rp.Pods.Stop(t.Context(), id)
	require.NoError(t, err)
	require.Error(t, client.Wait(), "the pod's stop closed the connection")
	requireRefused(t, a.String(), "a stopped pod's port closes")
	_, err = fakessh.Listen(srv, id)
	require.ErrorContains(t, err, "not RUNNING")

	_, err = rp.Pods.Start(t.Context(), id)
	require.NoError(t, err)
	a, err = fakessh.Listen(srv, id)
	require.NoError(t, err)
	out, err = dialPort(t, a, signer, "echo back")
	require.NoError(t, err)
	assert.Equal(t, "back\n", out)
	_, err = rp.Pods.Restart(t.Context(), id)
	require.NoError(t, err)
	requireRefused(t, a.String(), "a restart closes the port")
	a, err = fakessh.Listen(srv, id)
	require.NoError(t, err)
	require.NoError(t, rp.Pods.Terminate(t.Context(), id))
	requireRefused(t, a.String(), "a deleted pod's port closes")
	_, err = fakessh.Listen(srv, id)
	require.Error(t, err)

	noSSH := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"8888/http"}})
	_, err = fakessh.Listen(srv, noSSH)
	require.ErrorContains(t, err, "22/tcp", "a pod that does not expose 22/tcp has no SSH server to expose")
	exited := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}, Status: pods.PodStatusExited})
	_, err = fakessh.Listen(srv, exited)
	require.Error(t, err)

	last := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	a, err = fakessh.Listen(srv, last)
	require.NoError(t, err)
	srv.Close()
	requireRefused(t, a.String(), "Close closes every port")
	_, err = fakessh.Listen(srv, last)
	require.Error(t, err)
}

// TestListenPodSSHMemoryNetwork: under WithMemoryNetwork the port is a
// real loopback socket all the same, for the programs that dial it.
func TestListenPodSSHMemoryNetwork(t *testing.T) {
	srv, id, signer := keyedPod(t, runpodtest.WithMemoryNetwork())
	a, err := fakessh.Listen(srv, id)
	require.NoError(t, err)
	out, err := dialPort(t, a, signer, "echo mem")
	require.NoError(t, err)
	assert.Equal(t, "mem\n", out)
}
