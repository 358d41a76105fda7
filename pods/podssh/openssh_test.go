package podssh_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods/podssh"
)

// TestOpenSSH: podssh against Debian's OpenSSH server, logged in as root
// as on a pod (where OpenSSH refuses a client's signal and does not stop
// a command whose session closes). Exit statuses and the three streams
// are exact (1 MiB of binary stdin and stdout, stderr without the
// process group line); a cancelled command is stopped, by SIGTERM (its
// trap runs and leaves its mark on disk) or by SIGKILL after the grace
// when it ignores SIGTERM; a tree goes up and back with its contents and
// modes; a forwarded port reaches a loopback HTTP server; and after the
// server's host key changes, a new Service, with the default
// known_hosts, refuses it.
func TestOpenSSH(t *testing.T) {
	ctx := openSSHContext(t)
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	signer := rootKey(t)
	key, err := podssh.NewKey(signer)
	require.NoError(t, err)
	first := writeKey(t, filepath.Join(dir, "host_key")).PublicKey()
	srv := startSSHD(ctx, t, dir, 0, signer.PublicKey())

	conn, err := podssh.NewFromConfig(option.Config{}).DialAddr(ctx, srv.addr, podssh.DialOptions{Key: key})
	require.NoError(t, err, "sshd's log:\n%s", srv.log)
	t.Cleanup(func() { _ = conn.Close() }) // before sshd stops
	assert.Equal(t, first.Marshal(), conn.HostKey().Marshal())
	assert.Empty(t, conn.PodID())

	t.Run("ExitStatuses", func(t *testing.T) {
		for cmd, want := range map[string]int{
			"true": 0, "false": 1, "exit 3": 3, "exit 255": 255, "no-such-command-here": 127,
			"x=5\nexit $x": 5, "if": 2, "echo 'it'\\''s' >/dev/null; exit 9": 9,
		} {
			err := conn.Run(ctx, podssh.RunParams{Command: cmd})
			if want == 0 {
				assert.NoError(t, err, cmd)
				continue
			}
			var exit *podssh.ExitError
			if assert.ErrorAs(t, err, &exit, cmd) {
				assert.Equal(t, want, exit.ExitStatus, cmd)
			}
		}
	})

	t.Run("Streams", func(t *testing.T) {
		in := make([]byte, 1<<20)
		_, _ = mrand.NewChaCha8([32]byte{3}).Read(in)
		var stdout, stderr bytes.Buffer
		err := conn.Run(ctx, podssh.RunParams{Command: "cat; printf 'to stderr\\n' >&2; exit 7",
			Stdin: bytes.NewReader(in), Stdout: &stdout, Stderr: &stderr})
		var exit *podssh.ExitError
		require.ErrorAs(t, err, &exit)
		assert.Equal(t, 7, exit.ExitStatus)
		assert.True(t, bytes.Equal(in, stdout.Bytes()), "stdout is stdin, byte for byte (%d bytes of %d)", stdout.Len(), len(in))
		// The command runs under root's shell, which reads the machine's
		// ~/.bashrc first (bash does for a command from sshd): what that
		// writes to stderr (pyenv's rehash warnings when two sessions start
		// at once, on one machine) comes before the command's own line.
		assert.True(t, strings.HasSuffix(stderr.String(), "\nto stderr\n") || stderr.String() == "to stderr\n",
			"stderr ends with the command's line and holds none of stdin: %q", stderr.String())

		stdout.Reset()
		require.NoError(t, conn.Run(ctx, podssh.RunParams{Command: `echo "it's $((6*7))"`, Stdout: &stdout}))
		assert.Equal(t, "it's 42\n", stdout.String())
	})

	t.Run("CancelStopsTheCommand", func(t *testing.T) {
		work := t.TempDir()
		mark := filepath.Join(work, "stopped")
		ie := runCancelled(ctx, t, conn, podssh.RunParams{
			Command: fmt.Sprintf("trap 'echo stopped by TERM > %s; exit 143' TERM; echo running; sleep 300", mark),
			Grace:   time.Minute, // it stops at once; a slow machine is no reason to kill it
		})
		assert.Equal(t, []string{"TERM"}, ie.Sent)
		assert.True(t, ie.Ended, ie.Stop)
		assert.Equal(t, 143, ie.ExitStatus, "the trap's status")
		b, err := os.ReadFile(mark)
		require.NoError(t, err, "the trap ran")
		assert.Equal(t, "stopped by TERM\n", string(b))
		assertGroupGone(ctx, t, conn, ie.ProcessGroup)
	})

	t.Run("CancelKillsAfterGrace", func(t *testing.T) {
		ie := runCancelled(ctx, t, conn, podssh.RunParams{
			Command: "trap '' TERM; echo running; sleep 300", // sleep ignores TERM too
			Grace:   100 * time.Millisecond,
		})
		assert.Equal(t, []string{"TERM", "KILL"}, ie.Sent)
		assert.True(t, ie.Ended, ie.Stop)
		assert.Equal(t, "KILL", ie.Signal, "the shell leading the group was killed")
		// (sleep, orphaned by the shell's death, dies of the same SIGKILL a
		// moment later, reaped by init: not a thing to wait for here.)
	})

	t.Run("VerbatimCancelLeavesItRunning", func(t *testing.T) {
		// The command sent as it is, as Run did before: sshd refuses the
		// signal and the session's close does not stop it.
		running := newSignalWriter()
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			<-running.seen
			cancel()
		}()
		err := conn.Run(cctx, podssh.RunParams{Command: "echo $$; exec sleep 300", Stdout: running, Verbatim: true})
		cancel()
		var ie *podssh.InterruptedError
		require.ErrorAs(t, err, &ie)
		require.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, ie.ProcessGroup)
		pid := strings.TrimSpace(running.String())
		require.NoError(t, conn.Run(ctx, podssh.RunParams{Command: "kill -s 0 " + pid}), "still running after Run returned")
		require.NoError(t, conn.Run(ctx, podssh.RunParams{Command: "kill -s KILL " + pid}))
	})

	t.Run("CopyTree", func(t *testing.T) {
		local := filepath.Join(t.TempDir(), "tree")
		files := map[string]os.FileMode{"a.bin": 0o640, "sub/b.txt": 0o600, "sub/deeper/run.sh": 0o755, "empty": 0o644}
		rnd := mrand.NewChaCha8([32]byte{9})
		for name, mode := range files {
			p := filepath.Join(local, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			b := make([]byte, 100_000+len(name)*1000)
			if name == "empty" {
				b = nil
			}
			_, _ = rnd.Read(b)
			require.NoError(t, os.WriteFile(p, b, mode))
			require.NoError(t, os.Chmod(p, mode))
		}
		remote := t.TempDir() // the server is this machine
		require.NoError(t, conn.Upload(ctx, local, remote))
		assertSameTree(t, local, filepath.Join(remote, "tree"), files)
		var sums bytes.Buffer
		require.NoError(t, conn.Run(ctx, podssh.RunParams{Command: "cd " + remote + "/tree && sha256sum a.bin", Stdout: &sums}))
		assert.Equal(t, sha256File(t, filepath.Join(local, "a.bin"))+"  a.bin\n", sums.String())

		back := filepath.Join(t.TempDir(), "back")
		require.NoError(t, conn.Download(ctx, back, filepath.Join(remote, "tree")))
		assertSameTree(t, local, back, files)
	})

	t.Run("Forward", func(t *testing.T) {
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "served at "+r.URL.Path)
		}))
		defer web.Close()
		port := web.Listener.Addr().(*net.TCPAddr).Port
		fw, err := conn.Forward(ctx, port)
		require.NoError(t, err)
		defer fw.Close()
		assert.Equal(t, "served at /through/sshd", httpGet(t, fw, "/through/sshd"))
	})

	t.Run("ChangedHostKeyRefused", func(t *testing.T) {
		require.NoError(t, conn.Close())
		srv.stop()
		second := writeKey(t, filepath.Join(dir, "host_key")).PublicKey()
		again := startSSHD(ctx, t, dir, srv.port, signer.PublicKey())
		_, err := podssh.NewFromConfig(option.Config{}).DialAddr(ctx, again.addr, podssh.DialOptions{Key: key})
		var changed *podssh.HostKeyChangedError
		require.ErrorAs(t, err, &changed, "sshd's log:\n%s", again.log)
		assert.Equal(t, []string{ssh.FingerprintSHA256(first)}, changed.Known)
		assert.Equal(t, ssh.FingerprintSHA256(second), changed.Got)
		assert.Empty(t, changed.PodID)
		assert.Equal(t, again.addr, changed.Addr)
	})
}

// runCancelled runs p on conn, cancels it once it wrote to stdout, and
// returns the *InterruptedError, which must match context.Canceled and
// name a process group.
func runCancelled(ctx context.Context, t *testing.T, conn *podssh.Conn, p podssh.RunParams) *podssh.InterruptedError {
	t.Helper()
	running := newSignalWriter()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-running.seen
		cancel()
	}()
	p.Stdout = running
	err := conn.Run(cctx, p)
	var ie *podssh.InterruptedError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, context.Canceled)
	assert.Greater(t, ie.ProcessGroup, 1)
	assert.Contains(t, err.Error(), "process group "+strconv.Itoa(ie.ProcessGroup))
	t.Logf("%v", err)
	return ie
}

// assertGroupGone checks that no process is left in process group pgid.
func assertGroupGone(ctx context.Context, t *testing.T, conn *podssh.Conn, pgid int) {
	t.Helper()
	var exit *podssh.ExitError
	assert.ErrorAs(t, conn.Run(ctx, podssh.RunParams{Command: "kill -s 0 -- -" + strconv.Itoa(pgid)}), &exit,
		"no process left in the group")
}

// signalWriter records what is written to it and closes seen at the first
// write.
type signalWriter struct {
	lockedBuffer
	once sync.Once
	seen chan struct{}
}

func newSignalWriter() *signalWriter { return &signalWriter{seen: make(chan struct{})} }

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	w.once.Do(func() { close(w.seen) })
	return n, err
}

// assertSameTree checks that got holds files, with want's contents and
// the modes given.
func assertSameTree(t *testing.T, want, got string, files map[string]os.FileMode) {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(got, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	}))
	assert.Len(t, names, len(files), "no more, no fewer files (no temporary file left): %v", names)
	for name, mode := range files {
		p := filepath.Join(got, filepath.FromSlash(name))
		assert.Equal(t, sha256File(t, filepath.Join(want, filepath.FromSlash(name))), sha256File(t, p), name)
		st, err := os.Stat(p)
		if assert.NoError(t, err) {
			assert.Equal(t, mode, st.Mode().Perm(), name)
		}
	}
}
