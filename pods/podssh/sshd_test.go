package podssh_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
)

// envRequireOpenSSH, set to 1 (CI's .ci/run does), turns the tests that
// need OpenSSH (sshd, ssh, scp) and root from skipped into failed when
// they cannot run, so that CI never passes without them.
const envRequireOpenSSH = "PODSSH_TEST_REQUIRE_OPENSSH"

// needOpenSSH ends t because OpenSSH cannot be run here: skipped on a
// developer's machine, failed where envRequireOpenSSH is set.
func needOpenSSH(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(envRequireOpenSSH) != "" {
		t.Fatalf("%s; %s is set, so this test must run: install openssh-server and openssh-client and run as root", why, envRequireOpenSSH)
	}
	t.Skipf("skipped: %s (install openssh-server and openssh-client and run as root to run it; CI sets %s=1, which fails it instead)", why, envRequireOpenSSH)
}

// sshd is a real OpenSSH server on a loopback port, with a host key and
// configuration of its own, letting in root with one key.
type sshd struct {
	dir  string
	addr string
	port int
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{} // closed when the process exited
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// sshdBinary returns the path of sshd, or ends t.
func sshdBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("sshd")
	if err != nil {
		path = "/usr/sbin/sshd"
		if _, err := os.Stat(path); err != nil {
			needOpenSSH(t, "no sshd (Debian's package openssh-server)")
		}
	}
	if os.Geteuid() != 0 {
		needOpenSSH(t, "sshd lets in root, the only user pods let in, only when it runs as root, and this test runs as uid "+strconv.Itoa(os.Geteuid()))
	}
	// sshd's privilege separation needs its empty directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		needOpenSSH(t, "cannot make /run/sshd: "+err.Error())
	}
	return path
}

// writeKey writes a new Ed25519 private key to path, in OpenSSH's
// format, and returns its signer.
func writeKey(t *testing.T, path string) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	block, err := ssh.MarshalPrivateKey(priv, "")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(block), 0o600))
	signer, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	return signer
}

// startSSHD starts sshd in dir with the host key at dir/host_key, letting
// in root with authorized, on port (a free one when 0). It waits for
// sshd's "Server listening" line, within ctx; its cleanup stops it.
func startSSHD(ctx context.Context, t *testing.T, dir string, port int, authorized ssh.PublicKey) *sshd {
	t.Helper()
	bin := sshdBinary(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(authorized), 0o600))
	cfg := strings.Join([]string{
		"HostKey " + filepath.Join(dir, "host_key"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PermitRootLogin prohibit-password",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no", // the temporary directory's parents are not root's alone
		"PidFile none",
		"ListenAddress 127.0.0.1",
		"AllowTcpForwarding yes",
		"Subsystem sftp internal-sftp",
		"LogLevel VERBOSE",
		"",
	}, "\n")
	cfgPath := filepath.Join(dir, "sshd_config")
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
	fixed := port != 0
	for attempt := 0; ; attempt++ {
		if !fixed {
			port = freePort(t)
		}
		s, err := runSSHD(ctx, bin, dir, cfgPath, port)
		if err == nil {
			t.Cleanup(s.stop)
			return s
		}
		if fixed || attempt == 4 || ctx.Err() != nil {
			needOpenSSH(t, "sshd did not start: "+err.Error())
		}
		t.Logf("sshd on port %d: %v; trying another port", port, err)
	}
}

// freePort returns a loopback port no one listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// runSSHD starts sshd and waits, within ctx, for its line saying it
// listens; an exit first (a port taken, a bad configuration) is the
// error, with sshd's log.
func runSSHD(ctx context.Context, bin, dir, cfgPath string, port int) (*sshd, error) {
	cmd := exec.Command(bin, "-D", "-e", "-f", cfgPath, "-p", strconv.Itoa(port))
	listening := make(chan struct{})
	log := &watchedLog{want: "Server listening on 127.0.0.1 port " + strconv.Itoa(port), seen: listening}
	cmd.Stderr = log
	// sshd's children (one per connection) log there too: once sshd
	// exited, Wait does not wait for the last of them.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sshd{dir: dir, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), port: port, cmd: cmd, log: &log.lockedBuffer, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = cmd.Wait()
	}()
	select {
	case <-listening:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("sshd exited: %s", s.log.String())
	case <-ctx.Done():
		s.stop()
		return nil, fmt.Errorf("sshd did not listen: %w; its log: %s", ctx.Err(), s.log.String())
	}
}

// watchedLog keeps what sshd logs and closes seen at the first line
// holding want.
type watchedLog struct {
	lockedBuffer
	want string
	seen chan struct{}
	once sync.Once
	line []byte
}

func (w *watchedLog) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		if strings.Contains(string(w.line[:i]), w.want) {
			w.once.Do(func() { close(w.seen) })
		}
		w.line = w.line[i+1:]
	}
	return n, err
}

// stop ends sshd and waits for it.
func (s *sshd) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
}

// rootKey returns a key for root, and its signer.
func rootKey(t *testing.T) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	s, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	return s
}

// openSSHContext bounds a test against sshd: generous, for a busy
// machine, but not forever.
func openSSHContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
