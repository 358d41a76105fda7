package runpodtest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"

	"github.com/pkg/sftp"

	"github.com/runpodkit/runpod-go/pods"
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
// TEST-NET block) to it, and loopback addresses to the network. Each
// server has:
//
//   - a host key of its own (PodHostKey; RotatePodHostKey makes a new
//     one, as a pod whose container made new host keys);
//   - as authorized keys, the account's SSH keys (SetSSHKeys, or PUT
//     /v2/account/ssh-keys) and the lines of the pod's PUBLIC_KEY, read at
//     each connection (the platform copies them when the container
//     starts; the fake does not model that delay), for the user root only;
//   - commands (exec requests) run by the pod's PodCommandHandler
//     (HandlePodCommand), by default a few built-in commands (see
//     HandlePodCommand); a "signal" request, or the session's close, ends
//     the handler's context, and the session's exit-status (or
//     exit-signal, after a signal) is the handler's;
//   - SFTP (the "sftp" subsystem) over the pod's file system: a
//     temporary directory per pod holding /root (the home and start
//     directory) and /workspace, where the pod's network volume, if it
//     mounts one, is the volume's files (WriteVolumeFile, the S3 API);
//     read and seed it with PodFile and WritePodFile;
//   - direct-tcpip forwarding to 127.0.0.1 or localhost on the pod, to
//     the handlers tests give with HandlePodPort; other ports refuse.
//
// Server.Close closes every connection and removes the file systems.

// PodCommandHandler runs a command sent to a pod over SSH: cmd is the
// command line as the client sent it, stdin the session's input (end of
// file when the client closes it), stdout and stderr its output streams.
// It returns the exit status. ctx ends when the client sends a signal or
// closes the session, or the server closes.
type PodCommandHandler func(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (exitCode int)

// sshUnit holds the pods' SSH servers.
type sshUnit struct {
	mu     sync.Mutex
	pods   map[string]*podSSH
	dir    string              // the pods' file systems: dir/<pod id>
	conns  map[net.Conn]string // each server connection, and its pod's id
	ln     net.Listener        // the loopback listener the servers' connections come through
	closed bool
	wg     sync.WaitGroup
}

// podSSH is one pod's SSH server.
type podSSH struct {
	hostKey ssh.Signer
	handler PodCommandHandler
	ports   map[int]*podPort
	root    string // the pod's file system
}

// podPort is a handler a test gave for a port of the pod.
type podPort struct {
	ln  *memListener
	srv *http.Server
}

// podSSHLocked returns the pod's SSH server state, made on first use.
// s.ssh.mu is held.
func (s *Server) podSSHLocked(id string) (*podSSH, error) {
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
func (s *Server) withPodSSH(id string, f func(p *podSSH)) error {
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
func (s *Server) PodHostKey(id string) ssh.PublicKey {
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
func (s *Server) RotatePodHostKey(id string) ssh.PublicKey {
	signer := newHostKey()
	if err := s.withPodSSH(id, func(p *podSSH) { p.hostKey = signer }); err != nil {
		panic(err)
	}
	return signer.PublicKey()
}

// HandlePodCommand sets the handler of the commands sent to pod id over
// SSH; nil restores the default, which knows these commands (arguments
// split at white space, no quoting) and answers any other with status 127
// and "sh: 1: <name>: not found" on stderr:
//
//	echo [args…]        prints its arguments
//	cat [paths…]        copies its input, or the files, to its output
//	true, false         exit 0, 1
//	exit N              exits N
//	sha256sum paths…    prints each file's SHA-256 as sha256sum(1) does
//
// Paths are the pod's (see PodFile); a relative one is under /root.
func (s *Server) HandlePodCommand(id string, h PodCommandHandler) {
	if err := s.withPodSSH(id, func(p *podSSH) { p.handler = h }); err != nil {
		panic(err)
	}
}

// HandlePodPort serves h on port of pod id, reached by forwarding over
// SSH (direct-tcpip) to 127.0.0.1 or localhost on the pod; nil removes
// it. The port need not be exposed: it is the pod's inside.
func (s *Server) HandlePodPort(id string, port int, h http.Handler) {
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
	ln := &memListener{addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h}
	p.ports[port] = &podPort{ln: ln, srv: srv}
	s.ssh.wg.Go(func() { _ = srv.Serve(ln) })
}

// dropPodSSH closes the SSH connections of pod id: the pod stopped,
// restarted or went away, and the SSH server in its container with it.
// A caller may hold s.pods.mu (the SSH code never takes it under
// s.ssh.mu).
func (s *Server) dropPodSSH(id string) {
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	for c, pod := range s.ssh.conns {
		if pod == id {
			_ = c.Close()
		}
	}
}

// closeSSH closes every SSH connection and port handler and removes the
// pods' file systems.
func (s *Server) closeSSH() {
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
	dir := s.ssh.dir
	s.ssh.mu.Unlock()
	s.ssh.wg.Wait()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// testNet is where the fake's pods' public IPs are (TEST-NET-3).
var testNet = netip.MustParsePrefix("203.0.113.0/24")

// dial is the dialer of the clients NewClient returns
// (option.WithDialer): the fake's pods for their public addresses, the
// network (or the memory network) for loopback, nothing else.
func (s *Server) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case err == nil && testNet.Contains(ip):
		return s.dialPod(ctx, network, host, port)
	case host == "localhost" || err == nil && ip.IsLoopback():
		if s.network != nil {
			return s.network.dial(ctx, addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("runpodtest: the fake dials only its pods (203.0.113.x) and loopback, not %s", addr)}
}

// dialPod connects to the SSH server of the pod whose public address is
// host:port, or is refused as the platform's machines refuse a port
// nothing listens on.
func (s *Server) dialPod(ctx context.Context, network, host, port string) (net.Conn, error) {
	refused := &net.OpError{Op: "dial", Net: network, Addr: &net.TCPAddr{IP: net.ParseIP(host)}, Err: syscall.ECONNREFUSED}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	public, err := strconv.Atoi(port)
	if err != nil {
		return nil, refused
	}
	id, env, ok := s.sshTarget(host, public)
	if !ok {
		return nil, refused
	}
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	p, err := s.podSSHLocked(id)
	if err != nil {
		return nil, refused
	}
	client, server, err := s.loopbackPairLocked(ctx)
	if err != nil {
		return nil, err
	}
	podAddr := &net.TCPAddr{IP: net.ParseIP(host), Port: public}
	sc := pipeConn{Conn: server, local: podAddr, remote: server.RemoteAddr()}
	s.ssh.conns[sc] = id
	cfg := s.serverConfig(id, env)
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
	return pipeConn{Conn: client, local: client.LocalAddr(), remote: podAddr}, nil
}

// loopbackPairLocked returns the two ends of a new loopback TCP
// connection. (SSH needs a buffered connection: both ends send their
// version at once, which a net.Pipe deadlocks on.) s.ssh.mu is held, so
// the connection accepted is the one dialled.
func (s *Server) loopbackPairLocked(ctx context.Context) (client, server net.Conn, err error) {
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

// sshTarget finds the RUNNING pod whose public ip:port is its 22/tcp, and
// returns its id and PUBLIC_KEY.
func (s *Server) sshTarget(ip string, public int) (id, publicKey string, ok bool) {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	for _, p := range s.pods.byID {
		v := s.podJSONLocked(p)
		if v.Status != pods.PodStatusRunning || v.Runtime == nil {
			continue
		}
		for _, rp := range v.Runtime.Ports {
			if rp.Type == "tcp" && rp.Private == 22 && rp.Public != nil && *rp.Public == public && rp.IP != nil && *rp.IP == ip {
				return p.ID, p.Env["PUBLIC_KEY"], true
			}
		}
	}
	return "", "", false
}

// podMounts returns the network volumes pod id mounts, by path.
func (s *Server) podMounts(id string) map[string]string {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	out := map[string]string{}
	if p := s.pods.byID[id]; p != nil {
		for _, m := range p.mounts.Network {
			path := m.Path
			if path == "" {
				path = "/workspace"
			}
			out["/"+strings.Trim(path, "/")] = m.VolumeID
		}
	}
	return out
}

// serverConfig lets in root with the account's keys and the pod's
// PUBLIC_KEY lines.
func (s *Server) serverConfig(id, publicKey string) *ssh.ServerConfig {
	return &ssh.ServerConfig{
		PublicKeyCallback: func(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if meta.User() != "root" {
				return nil, fmt.Errorf("runpodtest: pod %s has no user %q", id, meta.User())
			}
			s.account.mu.Lock()
			lines := append([]string{}, s.account.sshKeys...)
			s.account.mu.Unlock()
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
func (s *Server) serveSSH(id string, conn net.Conn, cfg *ssh.ServerConfig) {
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

// serveSession answers a session's requests: exec, the sftp subsystem
// and signals; no shell or terminal.
func (s *Server) serveSession(id string, ch ssh.Channel, reqs <-chan *ssh.Request) {
	ctx, cancel := context.WithCancel(s.base)
	defer cancel()
	var (
		wg       sync.WaitGroup
		started  bool
		sigMu    sync.Mutex
		signaled string
	)
	defer wg.Wait()
	defer ch.Close()
	for req := range reqs {
		switch req.Type {
		case "exec":
			var payload struct{ Command string }
			if started || ssh.Unmarshal(req.Payload, &payload) != nil {
				_ = req.Reply(false, nil)
				continue
			}
			started = true
			_ = req.Reply(true, nil)
			h := s.commandHandler(id)
			wg.Go(func() {
				code := h(ctx, payload.Command, ch, ch, ch.Stderr())
				sigMu.Lock()
				sig := signaled
				sigMu.Unlock()
				if sig != "" {
					_, _ = ch.SendRequest("exit-signal", false, ssh.Marshal(struct {
						Signal     string
						CoreDumped bool
						Message    string
						Lang       string
					}{Signal: sig}))
				} else {
					_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
				}
				_ = ch.Close()
			})
		case "subsystem":
			var payload struct{ Name string }
			if started || ssh.Unmarshal(req.Payload, &payload) != nil || payload.Name != "sftp" {
				_ = req.Reply(false, nil)
				continue
			}
			started = true
			_ = req.Reply(true, nil)
			wg.Go(func() {
				rs := sftp.NewRequestServer(ch, s.podHandlers(id), sftp.WithStartDirectory("/root"))
				_ = rs.Serve()
				_ = rs.Close()
			})
		case "signal":
			var payload struct{ Signal string }
			if ssh.Unmarshal(req.Payload, &payload) == nil {
				sigMu.Lock()
				signaled = payload.Signal
				sigMu.Unlock()
				cancel()
			}
			if req.WantReply {
				_ = req.Reply(true, nil)
			}
		default: // env, pty-req, shell, …
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
	cancel() // the session closed
}

// commandHandler returns pod id's command handler.
func (s *Server) commandHandler(id string) PodCommandHandler {
	s.ssh.mu.Lock()
	defer s.ssh.mu.Unlock()
	if p := s.ssh.pods[id]; p != nil && p.handler != nil {
		return p.handler
	}
	return func(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
		return s.builtin(id, cmd, stdin, stdout, stderr)
	}
}

// forwardPort accepts a direct-tcpip channel to a port of the pod that
// has a handler, and refuses any other.
func (s *Server) forwardPort(id string, nc ssh.NewChannel, wg *sync.WaitGroup) {
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
	case pp.ln.conns <- pipeConn{Conn: server, local: pp.ln.addr, remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(target.OriginPort)}}:
	case <-pp.ln.done:
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
