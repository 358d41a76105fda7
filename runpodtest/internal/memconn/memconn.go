// Package memconn holds the in-memory network pieces the fake's servers
// share: a listener whose connections are net.Pipe ends handed to it, and
// a connection that reports the addresses a TCP connection would.
package memconn

import (
	"net"
	"sync"
)

// Listener hands out the server's ends of the pipes given to it on
// Conns, until Close.
type Listener struct {
	addr  *net.TCPAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewListener returns a listener at addr.
func NewListener(addr *net.TCPAddr) *Listener {
	return &Listener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// Conns is where a dialer hands the listener a connection's server end.
func (l *Listener) Conns() chan<- net.Conn { return l.conns }

// Done is closed when the listener is.
func (l *Listener) Done() <-chan struct{} { return l.done }

// TCPAddr is the listener's address.
func (l *Listener) TCPAddr() *net.TCPAddr { return l.addr }

// Accept returns the next connection handed to the listener, or
// net.ErrClosed once it is closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes the listener; it may be called more than once.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the listener's address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Conn is one end of a pipe with the addresses its side of a TCP
// connection would see.
type Conn struct {
	net.Conn
	Local, Remote net.Addr
}

// LocalAddr is the end's own address.
func (c Conn) LocalAddr() net.Addr { return c.Local }

// RemoteAddr is the other end's address.
func (c Conn) RemoteAddr() net.Addr { return c.Remote }
