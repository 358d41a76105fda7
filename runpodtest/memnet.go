package runpodtest

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"syscall"

	"github.com/runpodkit/runpod-go/runpodtest/internal/memconn"
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
	return func(s *Server) { s.network = &memNetwork{listeners: map[int]*memconn.Listener{}} }
}

// memNetwork is the network of WithMemoryNetwork: listeners on made-up
// loopback ports, whose connections are pipes.
type memNetwork struct {
	mu        sync.Mutex
	listeners map[int]*memconn.Listener
}

// listen returns a listener on the next free made-up port.
func (n *memNetwork) listen() net.Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	port := 10000 + len(n.listeners)
	l := memconn.NewListener(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
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
	case l.Conns() <- memconn.Conn{Conn: server, Local: l.TCPAddr(), Remote: local}:
		return memconn.Conn{Conn: client, Local: local, Remote: l.TCPAddr()}, nil
	case <-l.Done():
		_, _ = client.Close(), server.Close()
		return nil, refused
	case <-ctx.Done():
		_, _ = client.Close(), server.Close()
		return nil, ctx.Err()
	}
}
