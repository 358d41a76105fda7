package fakessh_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
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

// openssh runs OpenSSH's programs against a fake pod's loopback port
// (Listen) with a key of the test's and the pod's host key alone
// trusted, and no configuration, agent or password prompt of the
// user's.
type openssh struct {
	t                        *testing.T
	srv                      *runpodtest.Server
	dir, keyFile, knownHosts string
	addr                     fakessh.Address
}

// newOpenSSH makes a key the account lets in, and files for the
// programs, in a directory of the test's.
func newOpenSSH(t *testing.T, srv *runpodtest.Server) *openssh {
	t.Helper()
	o := &openssh{t: t, srv: srv, dir: t.TempDir()}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	block, err := ssh.MarshalPrivateKey(priv, "")
	require.NoError(t, err)
	o.keyFile = filepath.Join(o.dir, "id_ed25519")
	require.NoError(t, os.WriteFile(o.keyFile, pem.EncodeToMemory(block), 0o600))
	signer, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	o.knownHosts = filepath.Join(o.dir, "known_hosts")
	return o
}

// listen opens pod id's port and trusts its host key there.
func (o *openssh) listen(id string) {
	o.t.Helper()
	a, err := fakessh.Listen(o.srv, id)
	require.NoError(o.t, err)
	assert.Equal(o.t, "127.0.0.1", a.Host)
	require.NoError(o.t, os.WriteFile(o.knownHosts, []byte(a.KnownHostsLine()+"\n"), 0o600))
	o.addr = a
}

// run runs prog (ssh, scp or sftp) with args after the options that aim
// it at the port (-p for ssh, -P for scp and sftp), and returns its
// output; an error holds the output and the exit status.
func (o *openssh) run(prog string, args ...string) (string, error) {
	o.t.Helper()
	path := lookOpenSSH(o.t, prog)
	port := "-P"
	if prog == "ssh" {
		port = "-p"
	}
	args = append([]string{"-F", "/dev/null", "-i", o.keyFile, port, strconv.Itoa(o.addr.Port),
		"-o", "UserKnownHostsFile=" + o.knownHosts, "-o", "GlobalKnownHostsFile=/dev/null",
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
		"-o", "IdentityAgent=none", "-o", "LogLevel=ERROR"}, args...)
	cmd := exec.CommandContext(o.t.Context(), path, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + o.dir}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %v: %w\n%s", prog, args, err, out)
	}
	return string(out), nil
}

// TestPodSCP: OpenSSH's scp, in its SFTP mode, copies a file and a
// directory to a fake pod and back, and exits 0 each time (it needs the
// server's exit-status after the sftp subsystem), through the pod's
// loopback port (Listen).
func TestPodSCP(t *testing.T) {
	lookOpenSSH(t, "scp")
	srv := runpodtest.NewServer(fakessh.Serve())
	defer srv.Close()
	o := newOpenSSH(t, srv)
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	o.listen(id)
	run := func(args ...string) {
		t.Helper()
		_, err := o.run("scp", append([]string{"-s", "-r", "-B"}, args...)...)
		require.NoError(t, err)
	}
	local := filepath.Join(o.dir, "model.bin")
	data := make([]byte, 300_000)
	_, _ = rand.Read(data)
	require.NoError(t, os.WriteFile(local, data, 0o640))
	run(local, "root@127.0.0.1:/workspace/model.bin")
	got, err := fakessh.PodFile(srv, id, "/workspace/model.bin")
	require.NoError(t, err)
	assert.Equal(t, data, got)

	require.NoError(t, fakessh.WritePodFile(srv, id, "/root/results/epoch1/loss.txt", []byte("0.01\n")))
	back := filepath.Join(o.dir, "back")
	require.NoError(t, os.Mkdir(back, 0o755))
	run("root@127.0.0.1:/workspace/model.bin", "root@127.0.0.1:/root/results", back)
	b, err := os.ReadFile(filepath.Join(back, "model.bin"))
	require.NoError(t, err)
	assert.Equal(t, data, b)
	b, err = os.ReadFile(filepath.Join(back, "results", "epoch1", "loss.txt"))
	require.NoError(t, err)
	assert.Equal(t, "0.01\n", string(b))
}

// TestPodSSHPortOpenSSH: through a pod's loopback port, OpenSSH's ssh
// runs a command (its output and exit status come back) with the host
// key Listen gave checked strictly, sftp in batch mode makes a
// directory, puts, lists, gets and removes a file, and after a restart
// ssh reaches the pod at the new port Listen gives.
func TestPodSSHPortOpenSSH(t *testing.T) {
	lookOpenSSH(t, "ssh")
	lookOpenSSH(t, "sftp")
	srv := runpodtest.NewServer(fakessh.Serve(), runpodtest.WithPodBoot(0, 0))
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	o := newOpenSSH(t, srv)
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	o.listen(id)

	out, err := o.run("ssh", "root@127.0.0.1", "echo hi")
	require.NoError(t, err)
	assert.Equal(t, "hi\n", out)
	_, err = o.run("ssh", "root@127.0.0.1", "exit 3")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode())

	data := make([]byte, 100_000)
	_, _ = rand.Read(data)
	local := filepath.Join(o.dir, "in.bin")
	require.NoError(t, os.WriteFile(local, data, 0o600))
	back := filepath.Join(o.dir, "back.bin")
	batch := filepath.Join(o.dir, "batch")
	require.NoError(t, os.WriteFile(batch, []byte("mkdir /workspace/data\nput "+local+" /workspace/data/in.bin\nls -1 /workspace/data\n"+
		"get /workspace/data/in.bin "+back+"\nrm /workspace/data/in.bin\n"), 0o600))
	out, err = o.run("sftp", "-b", batch, "root@127.0.0.1")
	require.NoError(t, err)
	assert.Contains(t, out, "/workspace/data/in.bin")
	b, err := os.ReadFile(back)
	require.NoError(t, err)
	assert.Equal(t, data, b)
	_, err = fakessh.PodFile(srv, id, "/workspace/data/in.bin")
	assert.ErrorIs(t, err, fs.ErrNotExist, "rm removed it")

	_, err = rp.Pods.Restart(t.Context(), id)
	require.NoError(t, err)
	_, err = o.run("ssh", "root@127.0.0.1", "echo closed")
	require.Error(t, err, "the restart closed the port")
	o.listen(id)
	out, err = o.run("ssh", "root@127.0.0.1", "echo again")
	require.NoError(t, err)
	assert.Equal(t, "again\n", out)
}
