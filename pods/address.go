package pods

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
)

// Errors of TCPAddress, matched with errors.Is.
var (
	// ErrNotRunning: the pod has no runtime yet (or any more), so no port
	// is mapped. WaitForTCP keeps waiting through it.
	ErrNotRunning = errors.New("runpod: pod is not running, so its ports are not mapped yet")
	// ErrPortNotExposed: the pod does not expose the port at all.
	ErrPortNotExposed = errors.New("runpod: pod does not expose the port")
	// ErrHTTPOnly: the port is exposed as HTTP only; reach it through
	// ProxyURL.
	ErrHTTPOnly = errors.New("runpod: port is exposed as http only; use its proxy URL")
	// ErrNotMapped: the port is exposed as TCP but has no public mapping
	// yet (the pod is still initializing). WaitForTCP keeps waiting.
	ErrNotMapped = errors.New("runpod: TCP port has no public mapping yet")
)

// ProxyURL returns the proxy URL of an exposed HTTP port:
// https://<podID>-<internalPort>.<proxy host>. The platform serves it
// without authentication, so the app inside must check requests itself.
func (s *Service) ProxyURL(podID string, internalPort int) (*url.URL, error) {
	if err := validPodID(podID); err != nil {
		return nil, err
	}
	if err := validPort("internalPort", internalPort); err != nil {
		return nil, err
	}
	return &url.URL{Scheme: "https", Host: strings.ToLower(podID) + "-" + strconv.Itoa(internalPort) + "." + s.t.ProxyHost()}, nil
}

// TCPAddress returns the public IP and mapped external port of an exposed
// TCP port. While the pod is not running the error matches ErrNotRunning;
// a port the pod does not expose, ErrPortNotExposed; an HTTP-only port,
// ErrHTTPOnly; a TCP port not mapped yet, ErrNotMapped.
func (s *Service) TCPAddress(ctx context.Context, podID string, internalPort int, opts ...transport.CallOption) (netip.AddrPort, error) {
	if err := validPort("internalPort", internalPort); err != nil {
		return netip.AddrPort{}, err
	}
	p, err := s.Get(ctx, podID, opts...)
	if err != nil {
		return netip.AddrPort{}, err
	}
	return p.TCPAddress(internalPort)
}

// TCPAddress reads the public address of an exposed TCP port from the
// pod; see Service.TCPAddress for the errors.
func (p *Pod) TCPAddress(internalPort int) (netip.AddrPort, error) {
	declared := exposure(p.Ports, internalPort)
	if p.Runtime == nil {
		if declared == "" {
			return netip.AddrPort{}, fmt.Errorf("%w: %d (pod %s exposes %s)", ErrPortNotExposed, internalPort, p.ID, strings.Join(p.Ports, ", "))
		}
		return netip.AddrPort{}, fmt.Errorf("%w (pod %s is %s)", ErrNotRunning, p.ID, p.Status)
	}
	httpOnly := false
	for _, rp := range p.Runtime.Ports {
		if rp.Private == nil || *rp.Private != internalPort {
			continue
		}
		if rp.Type == nil || !strings.EqualFold(*rp.Type, "tcp") {
			httpOnly = true
			continue
		}
		if rp.Public == nil || rp.IP == nil || *rp.IP == "" {
			return netip.AddrPort{}, fmt.Errorf("%w: %d on pod %s", ErrNotMapped, internalPort, p.ID)
		}
		ip, err := netip.ParseAddr(*rp.IP)
		if err != nil || *rp.Public < 1 || *rp.Public > 65535 {
			return netip.AddrPort{}, fmt.Errorf("runpod: pod %s reports an unusable address %q:%d for port %d", p.ID, *rp.IP, *rp.Public, internalPort)
		}
		return netip.AddrPortFrom(ip, uint16(*rp.Public)), nil
	}
	switch {
	case httpOnly || declared == "http":
		return netip.AddrPort{}, fmt.Errorf("%w: %d on pod %s", ErrHTTPOnly, internalPort, p.ID)
	case declared == "tcp":
		return netip.AddrPort{}, fmt.Errorf("%w: %d on pod %s", ErrNotMapped, internalPort, p.ID)
	}
	return netip.AddrPort{}, fmt.Errorf("%w: %d (pod %s exposes %s)", ErrPortNotExposed, internalPort, p.ID, strings.Join(p.Ports, ", "))
}

// exposure returns how ports ("8888/http", "22/tcp") expose port: "http",
// "tcp" (either wins over http when both are listed), or "".
func exposure(ports []string, port int) string {
	kind := ""
	for _, spec := range ports {
		n, proto, _ := strings.Cut(strings.TrimSpace(spec), "/")
		if v, err := strconv.Atoi(n); err == nil && v == port {
			if strings.EqualFold(proto, "tcp") {
				return "tcp"
			}
			kind = "http"
		}
	}
	return kind
}

// WaitOptions tunes WaitForTCP.
type WaitOptions struct {
	// Interval between checks; default 3 seconds.
	Interval time.Duration
	// OnPoll is called with the pod after each check.
	OnPoll func(*Pod)
}

// WaitForTCP polls the pod until the TCP port has a public mapping, for as
// long as ctx allows, and returns it. It keeps waiting while the pod boots
// (ErrNotRunning, ErrNotMapped) and stops at once on an error that waiting
// cannot fix: the port is not exposed or is HTTP only, or the pod is
// stopped, failed or terminated.
func (s *Service) WaitForTCP(ctx context.Context, podID string, internalPort int, o WaitOptions, opts ...transport.CallOption) (netip.AddrPort, error) {
	if err := validPort("internalPort", internalPort); err != nil {
		return netip.AddrPort{}, err
	}
	interval := o.Interval
	if interval <= 0 {
		interval = 3 * time.Second
	}
	for {
		p, err := s.Get(ctx, podID, opts...)
		if err != nil {
			return netip.AddrPort{}, err
		}
		if o.OnPoll != nil {
			o.OnPoll(p)
		}
		addr, err := p.TCPAddress(internalPort)
		switch {
		case err == nil:
			return addr, nil
		case !errors.Is(err, ErrNotRunning) && !errors.Is(err, ErrNotMapped):
			return netip.AddrPort{}, err
		case p.Status == PodStatusExited || p.Status == PodStatusError || p.Status == PodStatusTerminated:
			return netip.AddrPort{}, fmt.Errorf("runpod: pod %s is %s; its port %d will not be mapped: %w", podID, p.Status, internalPort, err)
		}
		if err := wait.Sleep(ctx, interval); err != nil {
			return netip.AddrPort{}, fmt.Errorf("runpod: waiting for TCP port %d of pod %s (%s): %w", internalPort, podID, p.Status, err)
		}
	}
}

func validPort(field string, port int) error {
	if port < 1 || port > 65535 {
		return errs.Invalid(field, "must be 1 to 65535, got %d", port)
	}
	return nil
}

// SymmetricPortBase is the first port number that requests symmetric TCP
// mapping: a port spec of 70000/tcp or above asks the platform for a
// public TCP port equal to the port the container listens on, which the
// container learns from RUNPOD_TCP_PORT_70000 (and so on).
const SymmetricPortBase = 70000

// validPorts checks port specs such as "8888/http" and "22/tcp": ports 1
// to 65535, or from SymmetricPortBase up as TCP.
func validPorts(field string, ports []string) error {
	for i, spec := range ports {
		n, proto, ok := strings.Cut(spec, "/")
		v, err := strconv.Atoi(n)
		switch {
		case !ok || err != nil || (proto != "http" && proto != "tcp"):
			return errs.Invalid(fmt.Sprintf("%s[%d]", field, i), `want "<port>/http" or "<port>/tcp", got %q`, spec)
		case v >= SymmetricPortBase && proto != "tcp":
			return errs.Invalid(fmt.Sprintf("%s[%d]", field, i), `ports from %d request symmetric TCP mapping: want "%d/tcp", got %q`, SymmetricPortBase, v, spec)
		case v < 1 || (v > 65535 && v < SymmetricPortBase):
			return errs.Invalid(fmt.Sprintf("%s[%d]", field, i), "want a port from 1 to 65535, or from %d for symmetric TCP mapping, got %q", SymmetricPortBase, spec)
		}
	}
	return nil
}
