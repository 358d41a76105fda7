package fakessh_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pkg/sftp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
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
	srv := runpodtest.NewServer(fakessh.Serve())
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	addr, err := rp.Pods.TCPAddress(t.Context(), id, 22)
	require.NoError(t, err)
	signer := testSigner(t)

	_, err = sshClient(t, srv, addr.String(), signer, fakessh.PodHostKey(srv, id))
	require.ErrorContains(t, err, "unable to authenticate", "not an account key yet")
	// Through the account's API, as a user adds a key.
	require.NoError(t, rp.Do(t.Context(), "PUT", "/v2/account/ssh-keys",
		map[string][]string{"keys": {strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))}}, nil))
	client, err := sshClient(t, srv, addr.String(), signer, fakessh.PodHostKey(srv, id))
	require.NoError(t, err)
	sess, err := client.NewSession()
	require.NoError(t, err)
	out, err := sess.Output("echo hi")
	require.NoError(t, err)
	assert.Equal(t, "hi\n", string(out))

	require.NoError(t, fakessh.WritePodFile(srv, id, "/workspace/x.txt", []byte("abc")))
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
	rotated := fakessh.RotatePodHostKey(srv, id)
	_, err = sshClient(t, srv, addr.String(), signer, fakessh.PodHostKey(srv, id))
	require.NoError(t, err)
	assert.Equal(t, rotated.Marshal(), fakessh.PodHostKey(srv, id).Marshal())
}

// TestPodSSHRefused: nothing answers for a pod that is not RUNNING, one
// that does not expose 22/tcp, or an address of no pod; addresses other
// than the fake's and loopback are not dialled.
func TestPodSSHRefused(t *testing.T) {
	srv := runpodtest.NewServer(fakessh.Serve())
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

// podSSHFixture is a fake with one pod that exposes 22/tcp, an account
// key, and an SSH client of the pod's.
type podSSHFixture struct {
	srv    *runpodtest.Server
	id     string
	client *ssh.Client
}

func newPodSSH(t *testing.T) *podSSHFixture {
	t.Helper()
	srv := runpodtest.NewServer(fakessh.Serve())
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	signer := testSigner(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	addr, err := rp.Pods.TCPAddress(t.Context(), id, 22)
	require.NoError(t, err)
	client, err := sshClient(t, srv, addr.String(), signer, fakessh.PodHostKey(srv, id))
	require.NoError(t, err)
	return &podSSHFixture{srv: srv, id: id, client: client}
}

// run runs cmd in a session of its own and returns its stdout, stderr
// and what Session.Run returned.
func (f *podSSHFixture) run(t *testing.T, cmd string) (string, string, error) {
	t.Helper()
	sess, err := f.client.NewSession()
	require.NoError(t, err)
	defer sess.Close()
	var stdout, stderr bytes.Buffer
	sess.Stdout, sess.Stderr = &stdout, &stderr
	err = sess.Run(cmd)
	return stdout.String(), stderr.String(), err
}

// blockingHandler returns a handler that reports each call on started,
// then waits for its context to end (or for release, closed, when it
// ignores it), and reports the cause on ended.
func blockingHandler(ignoreContext bool, release <-chan struct{}) (fakessh.PodCommandHandler, chan string, chan error) {
	started, ended := make(chan string, 4), make(chan error, 4)
	return func(ctx context.Context, cmd string, _ io.Reader, stdout, _ io.Writer) int {
		_, _ = io.WriteString(stdout, "running\n")
		started <- cmd
		if ignoreContext {
			<-release
		} else {
			<-ctx.Done()
		}
		ended <- context.Cause(ctx)
		return 0
	}, started, ended
}

// TestPodShellProcessGroups: as on a pod with OpenSSH, logged in as
// root: the server refuses a client's signal; a session without a
// terminal that closes leaves its command running; the shell's $$ names
// the command's process group, which kill, from another session, ends;
// the handler is given the command line as the client wrote it, be it
// the exec request's or eval's argument.
func TestPodShellProcessGroups(t *testing.T) {
	f := newPodSSH(t)
	h, started, ended := blockingHandler(false, nil)
	fakessh.HandlePodCommand(f.srv, f.id, h)

	ch, reqs, err := f.client.OpenChannel("session", nil)
	require.NoError(t, err)
	go ssh.DiscardRequests(reqs)
	const cmd = "python train.py --lr '0.1'\necho \"done\""
	ok, err := ch.SendRequest("exec", true, ssh.Marshal(struct{ Command string }{
		`printf 'pid %d\n' "$$" >&2; eval '` + strings.ReplaceAll(cmd, "'", `'\''`) + `'`}))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, cmd, <-started, "eval's argument, as written")
	line, err := bufio.NewReader(ch.Stderr()).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "pid "), "\n"))
	require.NoError(t, err, line)
	assert.Greater(t, pid, 1)

	ok, err = ch.SendRequest("signal", true, ssh.Marshal(struct{ Signal string }{"TERM"}))
	require.NoError(t, err)
	assert.False(t, ok, "OpenSSH refuses a root session's signal")
	require.NoError(t, ch.Close())

	stdout, stderr, err := f.run(t, "kill -s 0 "+strconv.Itoa(pid))
	require.NoError(t, err, "the command outlives its session: %s", stderr)
	assert.Empty(t, stdout)
	_, _, err = f.run(t, "kill -s TERM -- -"+strconv.Itoa(pid))
	require.NoError(t, err)
	assert.ErrorContains(t, <-ended, "SIGTERM", "the signal, not the session's close, ended it")
	_, stderr, err = f.run(t, "kill -0 -- -"+strconv.Itoa(pid))
	var exit *ssh.ExitError
	require.ErrorAs(t, err, &exit, "the group is gone")
	assert.Equal(t, 1, exit.ExitStatus())
	assert.Equal(t, "sh: 1: kill: No such process\n", stderr)

	// A plain command line goes to the handler as it is.
	sess, err := f.client.NewSession()
	require.NoError(t, err)
	require.NoError(t, sess.Start("sleep infinity"))
	assert.Equal(t, "sleep infinity", <-started)
	_, _, err = f.run(t, "kill -s KILL -- -1") // every process but the sender's
	require.NoError(t, err)
	err = sess.Wait()
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, "KILL", exit.Signal())
	assert.ErrorContains(t, <-ended, "SIGKILL")
}

// TestPodShellBuiltins: printf, $$, $?, quoting, && and ||, eval and exit
// run in the shell, and kill's errors are sh's.
func TestPodShellBuiltins(t *testing.T) {
	f := newPodSSH(t)
	for cmd, want := range map[string]string{
		`printf '%s|%d|%%\n' "a b" 42`:                          "a b|42|%\n",
		`printf 'x\n' >&2; printf 'y\n'`:                        "y\n",
		`printf a 2>&1 >/dev/null; printf b`:                    "b",
		`exit 3 || printf no; printf yes`:                       "",
		`eval printf "'%s\n'" ok`:                               "ok\n",
		`: && printf '%d\n' $?`:                                 "0\n",
		"printf 'one\\n'\n# a comment\nprintf \"two\\n\" # too": "one\ntwo\n",
		`eval 'echo from the default handler'`:                  "from the default handler\n",
	} {
		stdout, _, err := f.run(t, cmd)
		if strings.HasPrefix(cmd, "exit 3") {
			var exit *ssh.ExitError
			assert.ErrorAs(t, err, &exit, cmd)
			continue
		}
		assert.NoError(t, err, cmd)
		assert.Equal(t, want, stdout, cmd)
	}
	stdout, stderr, err := f.run(t, `printf '%d\n' $$ && printf '%d\n' $$`)
	require.NoError(t, err, stderr)
	pids := strings.Fields(stdout)
	require.Len(t, pids, 2)
	assert.Equal(t, pids[0], pids[1], "one shell")
	for cmd, msg := range map[string]string{
		"kill -s NOPE 1": "invalid signal number or name: NOPE",
		"kill x":         "Illegal number: x",
		"kill -s TERM":   "usage",
	} {
		_, stderr, err := f.run(t, cmd)
		assert.Error(t, err, cmd)
		assert.Contains(t, stderr, msg, cmd)
	}
}

// TestPodTerminal: a command with a terminal gets SIGHUP when its session
// closes, and its stderr is the terminal's; a shell with a terminal
// prompts, echoes and runs the lines typed until exit.
func TestPodTerminal(t *testing.T) {
	f := newPodSSH(t)
	h, started, ended := blockingHandler(false, nil)
	fakessh.HandlePodCommand(f.srv, f.id, h)
	sess, err := f.client.NewSession()
	require.NoError(t, err)
	require.NoError(t, sess.RequestPty("xterm", 24, 80, ssh.TerminalModes{}))
	stdout, err := sess.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sess.Start("train.py"))
	assert.Equal(t, "train.py", <-started)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "running\r\n", line)
	require.NoError(t, sess.Close())
	assert.ErrorContains(t, <-ended, "SIGHUP")

	fakessh.HandlePodCommand(f.srv, f.id, nil)
	sess, err = f.client.NewSession()
	require.NoError(t, err)
	require.NoError(t, sess.RequestPty("xterm", 24, 80, ssh.TerminalModes{}))
	out, err := sess.StdoutPipe()
	require.NoError(t, err)
	in, err := sess.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, sess.Shell())
	// Each line is typed once the shell has answered the one before, as a
	// person types: a terminal echoes what is typed ahead as it arrives,
	// in among the output, as a real one does.
	screen := bufio.NewReader(out)
	var seen strings.Builder
	readUntil := func(want string) {
		t.Helper()
		for !strings.HasSuffix(seen.String(), want) {
			b, err := screen.ReadByte()
			require.NoError(t, err, "the terminal showed %q, waiting for %q", seen.String(), want)
			seen.WriteByte(b)
		}
	}
	readUntil("# ")
	for _, line := range []string{"echo hi", "echo there"} {
		_, err = io.WriteString(in, line+"\r")
		require.NoError(t, err)
		readUntil(line + "\r\n" + strings.TrimPrefix(line, "echo ") + "\r\n# ")
	}
	_, err = io.WriteString(in, "exit 3\r")
	require.NoError(t, err)
	readUntil("exit 3\r\n")
	var exit *ssh.ExitError
	require.ErrorAs(t, sess.Wait(), &exit)
	assert.Equal(t, 3, exit.ExitStatus())
}

// TestPodSFTPExitStatus: the sftp subsystem ends with exit-status 0, as
// OpenSSH's does, once the client ends its input.
func TestPodSFTPExitStatus(t *testing.T) {
	f := newPodSSH(t)
	require.NoError(t, fakessh.WritePodFile(f.srv, f.id, "/workspace/x.txt", []byte("abc")))
	ch, reqs, err := f.client.OpenChannel("session", nil)
	require.NoError(t, err)
	ok, err := ch.SendRequest("subsystem", true, ssh.Marshal(struct{ Name string }{"sftp"}))
	require.NoError(t, err)
	require.True(t, ok)
	sc, err := sftp.NewClientPipe(ch, halfCloser{ch})
	require.NoError(t, err)
	fi, err := sc.Stat("/workspace/x.txt")
	require.NoError(t, err)
	assert.EqualValues(t, 3, fi.Size())
	require.NoError(t, sc.Close())
	var got []string
	for req := range reqs {
		got = append(got, req.Type)
		if req.Type == "exit-status" {
			assert.Equal(t, ssh.Marshal(struct{ Status uint32 }{0}), req.Payload)
		}
	}
	assert.Equal(t, []string{"exit-status"}, got)
	_ = ch.Close()
}

// halfCloser's Close ends what it writes, as a client's end of input.
type halfCloser struct{ ch ssh.Channel }

func (h halfCloser) Write(p []byte) (int, error) { return h.ch.Write(p) }
func (h halfCloser) Close() error                { return h.ch.CloseWrite() }

// TestPodKillIgnoringHandler: SIGTERM does not end a handler that
// ignores its context (as a command that traps it); SIGKILL ends its
// process at once, though the handler has not returned.
func TestPodKillIgnoringHandler(t *testing.T) {
	f := newPodSSH(t)
	release := make(chan struct{})
	defer close(release)
	h, started, _ := blockingHandler(true, release)
	fakessh.HandlePodCommand(f.srv, f.id, h)
	sess, err := f.client.NewSession()
	require.NoError(t, err)
	stderr, err := sess.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, sess.Start(`printf '%d\n' $$ >&2; eval stubborn`))
	assert.Equal(t, "stubborn", <-started)
	line, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	group := "-" + strings.TrimSpace(line)
	_, _, err = f.run(t, "kill -s TERM -- "+group)
	require.NoError(t, err)
	_, _, err = f.run(t, "kill -s 0 -- "+group)
	require.NoError(t, err, "still there after SIGTERM")
	_, _, err = f.run(t, "kill -s KILL -- "+group)
	require.NoError(t, err)
	var exit *ssh.ExitError
	require.ErrorAs(t, sess.Wait(), &exit)
	assert.Equal(t, "KILL", exit.Signal())
}

// FuzzPodBuiltinCommands: the built-in commands take any command line
// without panicking.
func FuzzPodBuiltinCommands(f *testing.F) {
	srv := runpodtest.NewServer(fakessh.Serve())
	defer srv.Close()
	signer, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(make([]byte, 32)))
	if err != nil {
		f.Fatal(err)
	}
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	id := srv.AddPod(runpodtest.Pod{Image: "x", Ports: []string{"22/tcp"}})
	_ = fakessh.WritePodFile(srv, id, "f.txt", []byte("data"))
	for _, s := range []string{"echo a b", "cat f.txt", "sha256sum f.txt /", "exit 300", "exit x", "false", "", "cat ../../../etc/passwd",
		`printf '%s%d\n' m "$$" >&2; eval 'echo it'\''s'`, "kill -s TERM -- -1", "printf '%q' x", "a && || b", `eval "x \$$"`} {
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
		client, err := sshClient(t, srv, addr.String(), signer, fakessh.PodHostKey(srv, id))
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
