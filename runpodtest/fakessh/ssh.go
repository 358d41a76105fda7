package fakessh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/memconn"
)

// SSH to pods, as the platform documents it: a pod that exposes 22/tcp
// while it is RUNNING has that port mapped to a public port of its public
// IP (runtime.ports, ssh.direct), where the container's SSH server lets
// in root with the account's SSH public keys, which the platform gives
// the container as the PUBLIC_KEY environment variable. A pod that is not
// RUNNING, or does not expose 22/tcp, has nothing listening there: the
// connection is refused.
//
// The fake serves each pod's SSH server in process, started the first
// time the pod's SSH port is dialled, over loopback connections: the
// dialer of the clients NewClient returns (option.WithDialer, set by
// ClientOptions) hands addresses of the fake's pods (203.0.113.x, the
// TEST-NET block) to it, and loopback addresses to the network; a pod
// opted in with Listen also has a loopback port of its own
// (sshport.go), for programs that dial for themselves. Each server has:
//
//   - a host key of its own (PodHostKey; RotatePodHostKey makes a new
//     one, as a pod whose container made new host keys);
//   - as authorized keys, the account's SSH keys (SetSSHKeys, or PUT
//     /v2/account/ssh-keys) and the lines of the pod's PUBLIC_KEY, read at
//     each connection (the platform copies them when the container
//     starts; the fake does not model that delay), for the user root only;
//   - commands (exec requests), run as OpenSSH runs them for root: the
//     pod's login shell (a small POSIX sh, see sshshell.go's notes and
//     HandlePodCommand) runs the command line in a process of its own,
//     which leads its own process group, and hands what it does not run
//     itself to the pod's PodCommandHandler; the session's exit-status
//     (or exit-signal) is the command's. As OpenSSH does for root, the
//     server refuses a client's "signal" request, and closing a session
//     without a terminal does not stop its command: a client stops it
//     with kill(1) over another session, signalling the process group
//     (kill -s TERM -- -<pgid>), the group's id being the shell's $$;
//   - a terminal (pty-req) for an exec or a shell request: the command's
//     output and errors are the terminal's (each "\n" sent as "\r\n"),
//     its input is echoed and read a line at a time, and closing the
//     session sends it SIGHUP; a shell request runs the login shell on
//     that input ("# " prompting for each line with a terminal);
//   - SFTP (the "sftp" subsystem) over the pod's file system: a
//     temporary directory per pod holding /root (the home and start
//     directory) and /workspace, where the pod's network volume, if it
//     mounts one, is the volume's files (WriteVolumeFile, the S3 API);
//     read and seed it with PodFile and WritePodFile; exit-status 0 when
//     the client ends it, as sftp-server's;
//   - direct-tcpip forwarding to 127.0.0.1 or localhost on the pod, to
//     the handlers tests give with HandlePodPort; other ports refuse.
//
// A pod that stops, restarts or is deleted loses its processes (SIGKILL)
// and its connections. Server.Close ends every process's context, closes
// every connection, waits for the handlers to return and removes the
// file systems.

// PodCommandHandler runs a command line sent to a pod over SSH, standing
// for the pod's shell running it and all it starts: cmd is the command
// line as the client wrote it (the exec request's, or what it gave eval,
// as podssh.Conn.Run sends RunParams.Command; see HandlePodCommand), stdin
// the session's input (end of file when the client closes it), stdout
// and stderr its output streams. It returns the exit status. ctx ends
// when the command's process is sent a signal (kill from another
// session; SIGHUP when a session with a terminal closes; SIGKILL when
// the pod stops), not when a session without a terminal closes, and when
// the server closes. A handler that returns after a signal ended ctx
// died of it: the session reports exit-signal with that signal. One that
// does not return is still ended by SIGKILL, as the kernel would end it.
type PodCommandHandler func(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (exitCode int)

// sshUnit holds the pods' SSH servers.
type sshUnit struct {
	mu     sync.Mutex
	pods   map[string]*podSSH
	dir    string                  // the pods' file systems: dir/<pod id>
	conns  map[net.Conn]string     // each server connection, and its pod's id
	ln     net.Listener            // the loopback listener the servers' connections come through
	ports  map[string]net.Listener // Listen's listener of each pod
	closed bool
	wg     sync.WaitGroup
}

// podSSH is one pod's SSH server.
type podSSH struct {
	hostKey ssh.Signer
	handler PodCommandHandler
	ports   map[int]*podPort
	root    string // the pod's file system
	procs   procTable
}

// podPort is a handler a test gave for a port of the pod.
type podPort struct {
	ln  *memconn.Listener
	srv *http.Server
}

// podSSHLocked returns the pod's SSH server state, made on first use.
// s.ssh.mu is held.
func (s *server) podSSHLocked(id string) (*podSSH, error) {
	if s.ssh.closed {
		return nil, errors.New("runpodtest: server closed")
	}
	if p := s.ssh.pods[id]; p != nil {
		return p, nil
	}
	if s.ssh.pods == nil {
		s.ssh.pods, s.ssh.conns = map[string]*podSSH{}, map[net.Conn]string{}
	}
	if s.ssh.dir == "" {
		dir, err := os.MkdirTemp("", "runpodtest-pods-")
		if err != nil {
			return nil, err
		}
		s.ssh.dir = dir
	}
	if strings.ContainsAny(id, `/\`) || id == "" || id == "." || id == ".." {
		return nil, fmt.Errorf("runpodtest: pod id %q cannot name a directory", id)
	}
	root := s.ssh.dir + string(os.PathSeparator) + id
	for _, d := range []string{"root", "workspace"} {
		if err := os.MkdirAll(root+string(os.PathSeparator)+d, 0o755); err != nil {
			return nil, err
		}
	}
	p := &podSSH{hostKey: newHostKey(), ports: map[int]*podPort{}, root: root}
	s.ssh.pods[id] = p
	return p, nil
}

func newHostKey() ssh.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		panic(err)
	}
	return signer
}

// withPodSSH runs f on pod id's SSH state under its lock.
func (s *server) withPodSSH(id string, f func(p *podSSH)) error {
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	p, err := s.podSSHLocked(id)
	if err != nil {
		return err
	}
	f(p)
	return nil
}

// PodHostKey returns the host key pod id's SSH server presents, for a
// test that pins it. It panics after Close.
func PodHostKey(srv *runpodtest.Server, id string) ssh.PublicKey {
	s := of(srv)
	var key ssh.PublicKey
	if err := s.withPodSSH(id, func(p *podSSH) { key = p.hostKey.PublicKey() }); err != nil {
		panic(err)
	}
	return key
}

// RotatePodHostKey gives pod id's SSH server a new host key, as a pod
// whose container made new host keys (or a machine in the middle) would
// present, and returns it. Connections already open keep theirs. It
// panics after Close.
func RotatePodHostKey(srv *runpodtest.Server, id string) ssh.PublicKey {
	s := of(srv)
	signer := newHostKey()
	if err := s.withPodSSH(id, func(p *podSSH) { p.hostKey = signer }); err != nil {
		panic(err)
	}
	return signer.PublicKey()
}

// HandlePodCommand sets the handler of the commands sent to pod id over
// SSH. The pod's login shell runs itself a command line made only of its
// builtins (":", eval, exit, kill and printf, with quoting, $$, $? and
// >&2 as sh has them); every other command line goes to the handler
// whole, as the client wrote it. The arguments of eval are a command
// line of their own, which the handler gets whole, whatever it holds:
// podssh.Conn.Run sends RunParams.Command through eval, behind a line
// that prints the shell's $$, so a handler receives RunParams.Command
// exactly, as it receives what a plain SSH client sends.
//
// nil restores the default handler, which knows these commands
// (arguments split at white space, no quoting) and answers any other
// with status 127 and "sh: 1: <name>: not found" on stderr:
//
//	echo [args…]        prints its arguments
//	cat [paths…]        copies its input, or the files, to its output
//	true, false         exit 0, 1
//	exit N              exits N
//	sha256sum paths…    prints each file's SHA-256 as sha256sum(1) does
//
// Paths are the pod's (see PodFile); a relative one is under /root.
func HandlePodCommand(srv *runpodtest.Server, id string, h PodCommandHandler) {
	s := of(srv)
	if err := s.withPodSSH(id, func(p *podSSH) { p.handler = h }); err != nil {
		panic(err)
	}
}

// HandlePodPort serves h on port of pod id, reached by forwarding over
// SSH (direct-tcpip) to 127.0.0.1 or localhost on the pod; nil removes
// it. The port need not be exposed: it is the pod's inside.
func HandlePodPort(srv *runpodtest.Server, id string, port int, h http.Handler) {
	s := of(srv)
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	p, err := s.podSSHLocked(id)
	if err != nil {
		panic(err)
	}
	if old := p.ports[port]; old != nil {
		_ = old.srv.Close()
		delete(p.ports, port)
	}
	if h == nil {
		return
	}
	ln := memconn.NewListener(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	hs := &http.Server{Handler: h}
	p.ports[port] = &podPort{ln: ln, srv: hs}
	s.ssh.wg.Go(func() { _ = hs.Serve(ln) })
}

// dropPodSSH kills the processes of pod id and closes its SSH
// connections: the pod stopped, restarted or went away, and its
// container with it. A caller may hold s.pods.mu (the SSH code never
// takes it under s.ssh.mu).
func (s *server) dropPodSSH(id string) {
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	// The SSH server goes down with the container: its connections are
	// cut before the processes die, so no exit status reaches a client.
	if ln := s.ssh.ports[id]; ln != nil {
		_ = ln.Close()
		delete(s.ssh.ports, id)
	}
	for c, pod := range s.ssh.conns {
		if pod == id {
			_ = c.Close()
		}
	}
	if p := s.ssh.pods[id]; p != nil {
		p.procs.killAll("KILL")
	}
}

// closeSSH closes every SSH connection and port handler and removes the
// pods' file systems.
func (s *server) closeSSH() {
	s.ssh.mu.Lock()
	s.ssh.closed = true
	for c := range s.ssh.conns {
		_ = c.Close()
	}
	for _, p := range s.ssh.pods {
		for _, pp := range p.ports {
			_ = pp.srv.Close()
		}
	}
	if s.ssh.ln != nil {
		_ = s.ssh.ln.Close()
	}
	for _, ln := range s.ssh.ports {
		_ = ln.Close()
	}
	dir := s.ssh.dir
	s.ssh.mu.Unlock()
	s.ssh.wg.Wait()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// dialPod connects to the SSH server of the pod whose public address is
// host:port, or is refused as the platform's machines refuse a port
// nothing listens on.
func (s *server) dialPod(ctx context.Context, network, host, port string) (net.Conn, error) {
	refused := &net.OpError{Op: "dial", Net: network, Addr: &net.TCPAddr{IP: net.ParseIP(host)}, Err: syscall.ECONNREFUSED}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	public, err := strconv.Atoi(port)
	if err != nil {
		return nil, refused
	}
	id, env, ok := s.c.SSH.Target(host, public)
	if !ok {
		return nil, refused
	}
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	if _, err := s.podSSHLocked(id); err != nil {
		return nil, refused
	}
	var client, server net.Conn
	if s.c.SSH.InMemory() {
		client, server = bufferedPipe(&s.ssh.wg)
	} else if client, server, err = s.loopbackPairLocked(ctx); err != nil {
		return nil, err
	}
	podAddr := &net.TCPAddr{IP: net.ParseIP(host), Port: public}
	if err := s.serveConnLocked(id, env, memconn.Conn{Conn: server, Local: podAddr, Remote: server.RemoteAddr()}); err != nil {
		_, _ = client.Close(), server.Close()
		return nil, refused
	}
	return memconn.Conn{Conn: client, Local: client.LocalAddr(), Remote: podAddr}, nil
}

// serveConnLocked serves pod id's SSH server on the server's end of a
// connection, until it closes or the pod drops it; publicKey is the pod's
// PUBLIC_KEY. s.ssh.mu is held.
func (s *server) serveConnLocked(id, publicKey string, sc net.Conn) error {
	p, err := s.podSSHLocked(id)
	if err != nil {
		return err
	}
	s.ssh.conns[sc] = id
	cfg := s.serverConfig(id, publicKey)
	cfg.AddHostKey(p.hostKey)
	s.ssh.wg.Go(func() {
		defer func() {
			s.ssh.mu.Lock()
			delete(s.ssh.conns, sc)
			s.ssh.mu.Unlock()
			_ = sc.Close()
		}()
		s.serveSSH(id, sc, cfg)
	})
	return nil
}

// loopbackPairLocked returns the two ends of a new loopback TCP
// connection. (SSH needs a buffered connection: both ends send their
// version at once, which a net.Pipe deadlocks on.) s.ssh.mu is held, so
// the connection accepted is the one dialled.
func (s *server) loopbackPairLocked(ctx context.Context) (client, server net.Conn, err error) {
	if s.ssh.ln == nil {
		if s.ssh.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, nil, err
		}
	}
	var d net.Dialer
	client, err = d.DialContext(ctx, "tcp", s.ssh.ln.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	for {
		server, err = s.ssh.ln.Accept()
		if err != nil {
			_ = client.Close()
			return nil, nil, err
		}
		if server.RemoteAddr().String() == client.LocalAddr().String() {
			return client, server, nil
		}
		_ = server.Close() // not ours
	}
}

// serverConfig lets in root with the account's keys and the pod's
// PUBLIC_KEY lines.
func (s *server) serverConfig(id, publicKey string) *ssh.ServerConfig {
	return &ssh.ServerConfig{
		PublicKeyCallback: func(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if meta.User() != "root" {
				return nil, fmt.Errorf("runpodtest: pod %s has no user %q", id, meta.User())
			}
			lines := s.c.SSH.AccountKeys()
			lines = append(lines, strings.Split(publicKey, "\n")...)
			want := string(key.Marshal())
			for _, line := range lines {
				k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
				if err == nil && string(k.Marshal()) == want {
					return nil, nil
				}
			}
			return nil, fmt.Errorf("runpodtest: key not authorized on pod %s", id)
		},
	}
}

// serveSSH serves one connection to pod id until it closes.
func (s *server) serveSSH(id string, conn net.Conn, cfg *ssh.ServerConfig) {
	sconn, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	defer sconn.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { ssh.DiscardRequests(reqs) })
	for nc := range chans {
		switch nc.ChannelType() {
		case "session":
			ch, creqs, err := nc.Accept()
			if err != nil {
				continue
			}
			wg.Go(func() { s.serveSession(id, ch, creqs) })
		case "direct-tcpip":
			s.forwardPort(id, nc, &wg)
		default:
			_ = nc.Reject(ssh.UnknownChannelType, "unknown channel type")
		}
	}
}

// serveSession answers a session's requests as OpenSSH answers root's:
// exec and shell (with a terminal when pty-req came first), the sftp
// subsystem; signal refused.
func (s *server) serveSession(id string, ch ssh.Channel, reqs <-chan *ssh.Request) {
	var (
		term    bool
		started bool
		proc    *podProc
	)
	for req := range reqs {
		ok := false
		switch req.Type {
		case "pty-req":
			ok = !started
			term = term || ok
		case "window-change":
			ok = term
		case "exec", "shell":
			var payload struct{ Command string }
			if started || req.Type == "exec" && ssh.Unmarshal(req.Payload, &payload) != nil {
				break
			}
			started, ok = true, true
			_ = req.Reply(true, nil)
			proc = s.startProcess(id, ch, term, req.Type == "shell", payload.Command)
			continue
		case "subsystem":
			var payload struct{ Name string }
			if started || ssh.Unmarshal(req.Payload, &payload) != nil || payload.Name != "sftp" {
				break
			}
			started, ok = true, true
			_ = req.Reply(true, nil)
			s.ssh.wg.Go(func() {
				// The request server closes what it serves when done: the
				// exit status comes first.
				rs := sftp.NewRequestServer(unclosed{ch}, s.podHandlers(id), sftp.WithStartDirectory("/root"))
				_ = rs.Serve()
				_ = rs.Close()
				sendExit(ch, 0, "")
				_ = ch.Close()
			})
			continue
		case "signal":
			// OpenSSH: "session signalling requires privilege separation",
			// which a root session does not have.
		}
		if req.WantReply {
			_ = req.Reply(ok, nil)
		}
	}
	// The client closed the session. A command with a terminal loses it
	// (SIGHUP); one without goes on, its output going nowhere.
	if term && proc != nil {
		proc.deliver("HUP")
	}
}

// startProcess starts the process of a session's command (or shell) on
// pod id, reporting its end on ch.
func (s *server) startProcess(id string, ch ssh.Channel, term, interactive bool, cmd string) *podProc {
	s.ssh.mu.Lock()
	pod := s.ssh.pods[id]
	s.ssh.mu.Unlock()
	proc := pod.procs.spawn(s.c.Base())
	var stdin io.Reader = ch
	stdout, stderr := io.Writer(ch), io.Writer(ch.Stderr())
	stopTTY := func() {}
	if term {
		out := &onlcr{w: ch}
		stdout, stderr = out, out
		stdin, stopTTY = ttyInput(ch, out, &s.ssh.wg)
	}
	program, custom := s.commandHandler(id)
	sh := &shell{procs: &pod.procs, proc: proc, program: program, custom: custom, stdin: stdin, stdout: stdout, stderr: stderr}
	s.ssh.wg.Go(func() {
		status := make(chan int, 1)
		s.ssh.wg.Go(func() {
			if interactive {
				status <- sh.interactive(term)
				return
			}
			code, _ := sh.runLine(cmd, stdout, stderr)
			status <- code
		})
		code := 0
		select {
		case code = <-status:
		case <-proc.killed: // SIGKILL waits for no one
		}
		sig := proc.signal()
		pod.procs.exit(proc)
		stopTTY()
		sendExit(ch, code, sig)
		_ = ch.Close()
	})
	return proc
}

// unclosed is a channel whose Close is left to its owner.
type unclosed struct{ ssh.Channel }

func (unclosed) Close() error { return nil }

// sendExit reports a command's end: killed by signal sig, or exited with
// code.
func sendExit(ch ssh.Channel, code int, sig string) {
	if sig != "" {
		_, _ = ch.SendRequest("exit-signal", false, ssh.Marshal(struct {
			Signal     string
			CoreDumped bool
			Message    string
			Lang       string
		}{Signal: sig}))
		return
	}
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
}

// bufferedPipe returns the two ends of an in-memory connection that,
// unlike a net.Pipe, takes a write before the other end reads, as SSH
// needs (both ends send their version first): a goroutine of wg's relays
// each way.
func bufferedPipe(wg *sync.WaitGroup) (net.Conn, net.Conn) {
	a, aRelay := net.Pipe()
	bRelay, b := net.Pipe()
	relay := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_, _ = dst.Close(), src.Close()
	}
	wg.Go(func() { relay(bRelay, aRelay) })
	wg.Go(func() { relay(aRelay, bRelay) })
	return a, b
}

// commandHandler returns pod id's command handler, and whether a test
// set it.
func (s *server) commandHandler(id string) (PodCommandHandler, bool) {
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	if p := s.ssh.pods[id]; p != nil && p.handler != nil {
		return p.handler, true
	}
	return func(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
		return s.builtin(id, cmd, stdin, stdout, stderr)
	}, false
}

// forwardPort accepts a direct-tcpip channel to a port of the pod that
// has a handler, and refuses any other.
func (s *server) forwardPort(id string, nc ssh.NewChannel, wg *sync.WaitGroup) {
	var target struct {
		Host       string
		Port       uint32
		OriginHost string
		OriginPort uint32
	}
	if err := ssh.Unmarshal(nc.ExtraData(), &target); err != nil {
		_ = nc.Reject(ssh.ConnectionFailed, "bad request")
		return
	}
	s.ssh.mu.Lock()
	var pp *podPort
	if p := s.ssh.pods[id]; p != nil && (target.Host == "127.0.0.1" || target.Host == "localhost" || target.Host == "::1") {
		pp = p.ports[int(target.Port)]
	}
	s.ssh.mu.Unlock()
	if pp == nil {
		_ = nc.Reject(ssh.ConnectionFailed, "connect failed: connection refused")
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		return
	}
	wg.Go(func() { ssh.DiscardRequests(reqs) })
	client, server := net.Pipe()
	select {
	case pp.ln.Conns() <- memconn.Conn{Conn: server, Local: pp.ln.TCPAddr(), Remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(target.OriginPort)}}:
	case <-pp.ln.Done():
		_, _, _ = client.Close(), server.Close(), ch.Close()
		return
	}
	wg.Go(func() {
		defer ch.Close()
		defer client.Close()
		var both sync.WaitGroup
		both.Go(func() {
			_, _ = io.Copy(client, ch)
			_ = client.Close()
		})
		_, _ = io.Copy(ch, client)
		_ = ch.CloseWrite()
		_ = ch.Close()
		both.Wait()
	})
}
