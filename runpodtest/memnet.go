package runpodtest

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// WithMemoryNetwork serves the fake's hosts on an in-memory network
// instead of loopback sockets: the client of Client (and so of
// NewClient) dials them there, each connection a net.Pipe, and
// Connections still counts them. Nothing else can reach the fake then.
// Its purpose is a testing/synctest bubble: a goroutine blocked on a
// socket keeps the bubble's clock from moving, one blocked on a pipe does
// not, so a server made inside a bubble with WithMemoryNetwork runs on
// the bubble's clock, long polls and job run times included (a handler
// that sleeps for a minute takes no real time). Webhook deliveries still
// go over real sockets.
func WithMemoryNetwork() Option {
	return func(s *Server) { s.network = &memNetwork{listeners: map[int]*memListener{}} }
}

// memNetwork is the network of WithMemoryNetwork: listeners on made-up
// loopback ports, whose connections are pipes.
type memNetwork struct {
	mu        sync.Mutex
	listeners map[int]*memListener
}

// listen returns a listener on the next free made-up port.
func (n *memNetwork) listen() net.Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	port := 10000 + len(n.listeners)
	l := &memListener{addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, conns: make(chan net.Conn), done: make(chan struct{})}
	n.listeners[port] = l
	return l
}

// dial connects to the listener of addr's port, as a dial to loopback
// would; a port no listener has, or one closed, is refused.
func (n *memNetwork) dial(ctx context.Context, addr string) (net.Conn, error) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	_, p, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("bad address " + addr)}
	}
	n.mu.Lock()
	l := n.listeners[port]
	n.mu.Unlock()
	if l == nil {
		return nil, refused
	}
	client, server := net.Pipe()
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	select {
	case l.conns <- pipeConn{Conn: server, local: l.addr, remote: local}:
		return pipeConn{Conn: client, local: local, remote: l.addr}, nil
	case <-l.done:
		_, _ = client.Close(), server.Close()
		return nil, refused
	case <-ctx.Done():
		_, _ = client.Close(), server.Close()
		return nil, ctx.Err()
	}
}

// memListener hands out the server's ends of the pipes dialed to it.
type memListener struct {
	addr  *net.TCPAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *memListener) Addr() net.Addr { return l.addr }

// pipeConn is one end of a pipe with loopback addresses, as the server
// and client of a loopback connection see them.
type pipeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c pipeConn) LocalAddr() net.Addr  { return c.local }
func (c pipeConn) RemoteAddr() net.Addr { return c.remote }
