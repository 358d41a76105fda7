package pods

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
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
	if err := podIDRule.Check(podID); err != nil {
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
// ErrHTTPOnly; a TCP port not mapped yet, ErrNotMapped. internalPort may
// be a symmetric request (SymmetricPortBase and up); see Pod.TCPAddress.
func (s *Service) TCPAddress(ctx context.Context, podID string, internalPort int, opts ...option.RequestOption) (netip.AddrPort, error) {
	if err := validTCPPort("internalPort", internalPort); err != nil {
		return netip.AddrPort{}, err
	}
	p, err := rest.Call[Pod](ctx, s.t, http.MethodGet, podAt(podID), nil, opts)
	if err != nil {
		return netip.AddrPort{}, err
	}
	return p.TCPAddress(internalPort)
}

// TCPAddress reads the public address of an exposed TCP port from the
// pod; see Service.TCPAddress for the errors.
//
// Symmetric ports: a pod that asks for "70000/tcp" gets a port N that is
// the same inside and outside (the container reads it from
// RUNPOD_TCP_PORT_70000), and the runtime lists it as private N, public N.
// TCPAddress(N) returns IP:N like any mapped port. TCPAddress(70000), the
// request itself, returns the mapping the runtime lists under 70000 if it
// lists one, and otherwise, when the pod makes only that one symmetric
// request, the one mapping whose public and private ports are equal and
// that no other port spec of the pod names. With several symmetric
// requests that pairing is ambiguous: the error says to ask for N.
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
		return p.mapped(rp, internalPort)
	}
	switch {
	case declared == "tcp" && internalPort >= SymmetricPortBase:
		return p.symmetric(internalPort)
	case httpOnly || declared == "http":
		return netip.AddrPort{}, fmt.Errorf("%w: %d on pod %s", ErrHTTPOnly, internalPort, p.ID)
	case declared == "tcp":
		return netip.AddrPort{}, fmt.Errorf("%w: %d on pod %s", ErrNotMapped, internalPort, p.ID)
	}
	return netip.AddrPort{}, fmt.Errorf("%w: %d (pod %s exposes %s)", ErrPortNotExposed, internalPort, p.ID, strings.Join(p.Ports, ", "))
}

// mapped returns the public address of a runtime TCP port.
func (p *Pod) mapped(rp PodRuntimePort, internalPort int) (netip.AddrPort, error) {
	if rp.Public == nil || rp.IP == nil || *rp.IP == "" {
		return netip.AddrPort{}, fmt.Errorf("%w: %d on pod %s", ErrNotMapped, internalPort, p.ID)
	}
	ip, err := netip.ParseAddr(*rp.IP)
	if err != nil || *rp.Public < 1 || *rp.Public > 65535 {
		return netip.AddrPort{}, fmt.Errorf("runpod: pod %s reports an unusable address %q:%d for port %d", p.ID, *rp.IP, *rp.Public, internalPort)
	}
	return netip.AddrPortFrom(ip, uint16(*rp.Public)), nil
}

// symmetric finds the mapping of a symmetric request the runtime does not
// list under the request's own number (see TCPAddress).
func (p *Pod) symmetric(request int) (netip.AddrPort, error) {
	requests := 0
	for _, spec := range p.Ports {
		if n, _, _ := strings.Cut(strings.TrimSpace(spec), "/"); atLeast(n, SymmetricPortBase) {
			requests++
		}
	}
	if requests > 1 {
		return netip.AddrPort{}, fmt.Errorf("runpod: pod %s makes %d symmetric TCP port requests, so %d cannot be told apart; ask for the port its container reads from RUNPOD_TCP_PORT_%d", p.ID, requests, request, request)
	}
	var found []PodRuntimePort
	for _, rp := range p.Runtime.Ports {
		if rp.Private != nil && rp.Public != nil && *rp.Private == *rp.Public && rp.Type != nil && strings.EqualFold(*rp.Type, "tcp") && exposure(p.Ports, *rp.Private) == "" {
			found = append(found, rp)
		}
	}
	switch len(found) {
	case 0:
		return netip.AddrPort{}, fmt.Errorf("%w: symmetric port %d on pod %s", ErrNotMapped, request, p.ID)
	case 1:
		return p.mapped(found[0], request)
	}
	return netip.AddrPort{}, fmt.Errorf("runpod: pod %s lists %d symmetric TCP mappings for one request; ask for the port its container reads from RUNPOD_TCP_PORT_%d", p.ID, len(found), request)
}

// atLeast reports whether n is a decimal number of at least floor.
func atLeast(n string, floor int) bool {
	v, err := strconv.Atoi(n)
	return err == nil && v >= floor
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

// WaitForTCP polls the pod until the TCP port has a public mapping, for as
// long as ctx allows, and returns it. It keeps waiting while the pod boots
// (ErrNotRunning, ErrNotMapped) and stops at once on an error that waiting
// cannot fix: the port is not exposed or is HTTP only, or the pod is
// stopped, failed or terminated. It checks every o.Interval and passes
// the pod to o.OnCheck after each check.
func (s *Service) WaitForTCP(ctx context.Context, podID string, internalPort int, o option.Poll[*Pod], opts ...option.RequestOption) (netip.AddrPort, error) {
	if err := validTCPPort("internalPort", internalPort); err != nil {
		return netip.AddrPort{}, err
	}
	interval := s.t.PollInterval(o.Interval)
	for {
		p, err := rest.Call[Pod](ctx, s.t, http.MethodGet, podAt(podID), nil, opts)
		if err != nil {
			return netip.AddrPort{}, err
		}
		wait.Saw(o, p)
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
		return fail.Invalid(field, "must be 1 to 65535, got %d", port)
	}
	return nil
}

// validTCPPort accepts a port or a symmetric request.
func validTCPPort(field string, port int) error {
	if port < 1 || (port > 65535 && port < SymmetricPortBase) {
		return fail.Invalid(field, "must be 1 to 65535, or a symmetric request from %d, got %d", SymmetricPortBase, port)
	}
	return nil
}
