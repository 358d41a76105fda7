package runpodtest_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/runpodkit/runpod-go/runpodtest"
)

// envRequireOpenSSH, set to 1 (CI's .ci/run does), fails the tests that
// need OpenSSH's programs where they are missing, rather than skipping
// them.
const envRequireOpenSSH = "PODSSH_TEST_REQUIRE_OPENSSH"

// lookOpenSSH returns the path of OpenSSH's program name, or ends t:
// skipped on a developer's machine, failed where envRequireOpenSSH is
// set.
func lookOpenSSH(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv(envRequireOpenSSH) != "" {
		t.Fatalf("no %s (%v); %s is set, so this test must run: install openssh-client", name, err, envRequireOpenSSH)
	}
	t.Skipf("skipped: no %s (install openssh-client to run it; CI sets %s=1, which fails it instead)", name, envRequireOpenSSH)
	return ""
}

// bridge listens on a loopback port and connects each connection to it
// to addr with dial, as the fake's clients reach its pods; it stops when
// the test ends.
func bridge(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error), addr string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	track := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		open[c] = true
	}
	wg.Go(func() {
		for {
			local, err := ln.Accept()
			if err != nil {
				return
			}
			remote, err := dial(context.Background(), "tcp", addr)
			if err != nil {
				_ = local.Close()
				continue
			}
			track(local)
			track(remote)
			wg.Go(func() {
				_, _ = io.Copy(remote, local)
				_ = remote.Close()
			})
			wg.Go(func() {
				_, _ = io.Copy(local, remote)
				_ = local.Close()
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// TestPodSCP: OpenSSH's scp, in its SFTP mode, copies a file and a
// directory to a fake pod and back, and exits 0 each time (it needs the
// server's exit-status after the sftp subsystem), over a loopback port
// bridged to the fake's dialer.
func TestPodSCP(t *testing.T) {
	scp := lookOpenSSH(t, "scp")
	lookOpenSSH(t, "ssh")
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	dir := t.TempDir()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	block, err := ssh.MarshalPrivateKey(priv, "")
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "id_ed25519")
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600))
	signer, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	ap, err := rp.Pods.TCPAddress(t.Context(), id, 22)
	require.NoError(t, err)
	port := bridge(t, rp.Config().Dialer, ap.String())
	knownHosts := filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, srv.PodHostKey(id))
	require.NoError(t, os.WriteFile(knownHosts, []byte(line+"\n"), 0o600))

	run := func(args ...string) {
		t.Helper()
		args = append([]string{"-s", "-r", "-B", "-F", "/dev/null", "-i", keyFile, "-P", strconv.Itoa(port),
			"-o", "UserKnownHostsFile=" + knownHosts, "-o", "GlobalKnownHostsFile=/dev/null",
			"-o", "StrictHostKeyChecking=yes", "-o", "IdentitiesOnly=yes", "-o", "LogLevel=ERROR"}, args...)
		cmd := exec.CommandContext(t.Context(), scp, args...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "scp %v:\n%s", args, out)
	}
	local := filepath.Join(dir, "model.bin")
	data := make([]byte, 300_000)
	_, _ = rand.Read(data)
	require.NoError(t, os.WriteFile(local, data, 0o640))
	run(local, "root@127.0.0.1:/workspace/model.bin")
	got, err := srv.PodFile(id, "/workspace/model.bin")
	require.NoError(t, err)
	assert.Equal(t, data, got)

	require.NoError(t, srv.WritePodFile(id, "/root/results/epoch1/loss.txt", []byte("0.01\n")))
	back := filepath.Join(dir, "back")
	require.NoError(t, os.Mkdir(back, 0o755))
	run("root@127.0.0.1:/workspace/model.bin", "root@127.0.0.1:/root/results", back)
	b, err := os.ReadFile(filepath.Join(back, "model.bin"))
	require.NoError(t, err)
	assert.Equal(t, data, b)
	b, err = os.ReadFile(filepath.Join(back, "results", "epoch1", "loss.txt"))
	require.NoError(t, err)
	assert.Equal(t, "0.01\n", string(b))
}
