package podssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Forward is a local port forwarded to a port on the pod, as ssh -L does:
// each connection to Addr is tunnelled to 127.0.0.1:<port> on the pod.
// It ends with Close, with the context given to Conn.Forward, or with the
// connection.
type Forward struct {
	ln      net.Listener
	stop    func() bool
	once    sync.Once
	mu      sync.Mutex
	open    map[net.Conn]struct{}
	wg      sync.WaitGroup
	errOnce error
}

// Forward listens on 127.0.0.1 on a free port and tunnels each
// connection to it to port on the pod (direct-tcpip). It returns at once;
// Addr says where to connect.
func (c *Conn) Forward(ctx context.Context, port int) (*Forward, error) {
	if port < 1 || port > 65535 {
		return nil, fail.Invalid("port", "must be 1 to 65535, got %d", port)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("podssh: forward to pod %s: %w", c.podID, err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("podssh: forward to pod %s: %w", c.podID, err)
	}
	f := &Forward{ln: ln, open: map[net.Conn]struct{}{}}
	f.stop = context.AfterFunc(ctx, func() { _ = f.shut() })
	target := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	f.wg.Go(func() {
		for {
			local, err := ln.Accept()
			if err != nil {
				return
			}
			if !f.track(local, true) {
				_ = local.Close()
				return
			}
			f.wg.Go(func() {
				defer f.track(local, false)
				defer local.Close()
				remote, err := c.client.Dial("tcp", target)
				if err != nil {
					return
				}
				defer remote.Close()
				if !f.track(remote, true) {
					return
				}
				defer f.track(remote, false)
				pipe(local, remote)
			})
		}
	})
	return f, nil
}

// Addr returns the local address to connect to ("127.0.0.1:54321").
func (f *Forward) Addr() net.Addr { return f.ln.Addr() }

// Close stops listening, closes the tunnelled connections and waits for
// their goroutines.
func (f *Forward) Close() error {
	f.stop()
	err := f.shut()
	f.wg.Wait()
	return err
}

// shut closes the listener and the open connections, once.
func (f *Forward) shut() error {
	f.once.Do(func() {
		if err := f.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			f.errOnce = err
		}
		f.mu.Lock()
		for c := range f.open {
			_ = c.Close()
		}
		f.open = nil
		f.mu.Unlock()
	})
	return f.errOnce
}

// track adds or removes an open connection; adding fails once shut.
func (f *Forward) track(c net.Conn, add bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open == nil {
		return false
	}
	if add {
		f.open[c] = struct{}{}
	} else {
		delete(f.open, c)
	}
	return true
}

// pipe copies both ways until either side ends, then closes both.
func pipe(a, b net.Conn) {
	var wg sync.WaitGroup
	half := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	wg.Go(func() { half(a, b) })
	wg.Go(func() { half(b, a) })
	wg.Wait()
}
