package runpodtest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"

	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
	"github.com/runpodkit/runpod-go/runpodtest/internal/volstore"
)

// The pods' side of SSH: where a pod's SSH port is, whose keys it takes
// and what it mounts, which the SSH servers of package fakessh read
// through the seam; and the dialer of ClientOptions, which hands the
// pods' addresses to fakessh (refused without it, as a port nothing
// listens on) and loopback to the network.

// sshSeam is what fakessh reads of the server.
func (s *Server) sshSeam() seam.SSH {
	return seam.SSH{
		Target:    s.sshTarget,
		PodTarget: s.podSSHTarget,
		Mounts:    s.podMounts,
		AccountKeys: func() []string {
			s.account.mu.Lock()
			defer s.account.mu.Unlock()
			return append([]string{}, s.account.sshKeys...)
		},
		VolumeRoot: func(id string) (*os.Root, error) { return volstore.Root(s.storage.dir, id, true) },
		InMemory:   func() bool { return s.network != nil },
	}
}

// dropPodSSH kills the processes of pod id and closes its SSH
// connections, when fakessh serves them.
func (s *Server) dropPodSSH(id string) {
	if f := s.core.SSH.DropPod; f != nil {
		f(id)
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
		if s.core.SSH.DialPod == nil { // no SSH server: the port refuses, as nothing listens
			return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.TCPAddr{IP: net.ParseIP(host)}, Err: syscall.ECONNREFUSED}
		}
		return s.core.SSH.DialPod(ctx, network, host, port)
	case host == "localhost" || err == nil && ip.IsLoopback():
		if s.network != nil {
			return s.network.dial(ctx, addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("runpodtest: the fake dials only its pods (203.0.113.x) and loopback, not %s", addr)}
}

// sshTarget finds the RUNNING pod whose public ip:port is its 22/tcp, and
// returns its id and PUBLIC_KEY.
func (s *Server) sshTarget(ip string, public int) (id, publicKey string, ok bool) {
	addr, err := netip.ParseAddr(ip)
	if err != nil || public <= 0 || public > 65535 {
		return "", "", false
	}
	want := netip.AddrPortFrom(addr, uint16(public))
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	for _, p := range s.pods.byID {
		if got, ok := s.sshAddrLocked(p); ok && got == want {
			return p.ID, p.Env["PUBLIC_KEY"], true
		}
	}
	return "", "", false
}

// sshAddrLocked returns the public address of pod p's 22/tcp, when p is
// RUNNING and exposes it. s.pods.mu is held.
func (s *Server) sshAddrLocked(p *fakePod) (netip.AddrPort, bool) {
	v := s.podJSONLocked(p)
	if v.Status != pods.PodStatusRunning || v.Runtime == nil {
		return netip.AddrPort{}, false
	}
	for _, rp := range v.Runtime.Ports {
		if rp.Type == "tcp" && rp.Private == 22 && rp.Public != nil && rp.IP != nil {
			if ip, err := netip.ParseAddr(*rp.IP); err == nil && *rp.Public > 0 && *rp.Public <= 65535 {
				return netip.AddrPortFrom(ip, uint16(*rp.Public)), true
			}
		}
	}
	return netip.AddrPort{}, false
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

// podSSHTarget returns pod id's PUBLIC_KEY when it is RUNNING and exposes
// 22/tcp.
func (s *Server) podSSHTarget(id string) (publicKey string, ok bool) {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	p := s.pods.byID[id]
	if p == nil {
		return "", false
	}
	if _, ok := s.sshAddrLocked(p); !ok {
		return "", false
	}
	return p.Env["PUBLIC_KEY"], true
}
