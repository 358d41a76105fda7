// Package podssh runs commands on pods, copies files to and from them
// and forwards ports to them, over SSH to a pod's public SSH port: the
// pod's internal port 22, which it must expose as "22/tcp", mapped to a
// public port (pods.Service.TCPAddress). The platform lets in root with
// the account's SSH public keys (copied into the pod as PUBLIC_KEY when
// it starts).
//
//	ssh := podssh.NewFromConfig(rp.Config())
//	key, err := podssh.LoadKey(filepath.Join(home, ".ssh", "id_ed25519"), nil)
//	conn, err := ssh.Dial(ctx, podID, podssh.DialOptions{Key: key})
//	defer conn.Close()
//	err = conn.Run(ctx, podssh.RunParams{Command: "nvidia-smi", Stdout: os.Stdout, Stderr: os.Stderr})
//	err = conn.Upload(ctx, "model.bin", "/workspace/model.bin")
//
// Host keys are trusted on first use: the first key a pod presents at an
// address is recorded in a HostKeyStore (the Service's MemoryHostKeys
// unless DialOptions.HostKeys names another, such as a KnownHostsFile),
// and a different key later is refused with a *HostKeyChangedError.
// PinnedHostKeys accepts given keys only.
//
// The TCP connection is dialled with option.WithDialer's function when
// the Config has one (runpodtest's clients reach the fake's pods that
// way), else with a net.Dialer. The package is separate from pods so
// that a program that does not use SSH does not link x/crypto/ssh.
package podssh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

// Service opens SSH connections to pods. Build it with NewFromConfig; it
// is safe for concurrent use.
type Service struct {
	pods  *pods.Service
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	known *MemoryHostKeys
}

// NewFromConfig returns the service built from cfg (option.NewConfig, or
// runpod.Client.Config): it asks the pods API for a pod's address with
// cfg's key and options, and dials with cfg.Dialer. Host keys it learns
// are kept in memory for its life, unless DialOptions.HostKeys says
// otherwise.
func NewFromConfig(cfg option.Config) *Service {
	dial := cfg.Dialer
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	return &Service{pods: pods.NewFromConfig(cfg), dial: dial, known: new(MemoryHostKeys)}
}

// DefaultUser is the user pods let in.
const DefaultUser = "root"

// DialOptions says how Dial connects.
type DialOptions struct {
	// Key authenticates the connection; its public half must be one of
	// the account's SSH keys (or in the pod's PUBLIC_KEY). Required.
	Key Key
	// User is who logs in; empty means DefaultUser.
	User string
	// Port is the pod's internal SSH port, exposed as "<Port>/tcp"; zero
	// means 22.
	Port int
	// HostKeys checks the pod's host key; nil means the Service's
	// MemoryHostKeys, which trusts each pod's first key for the life of
	// the Service.
	HostKeys HostKeyStore
	// Poll tunes the wait for the pod's port to be mapped
	// (pods.Service.WaitForTCP); its Interval (1 s when zero) is also the
	// pause between connections refused while the SSH server starts.
	Poll option.Poll[*pods.Pod] `json:"-"`
	// StartWait is how long Dial keeps connecting while the pod's port is
	// mapped but its SSH server does not listen yet (connections refused
	// or reset): DefaultStartWait when zero. The context still bounds it.
	StartWait time.Duration
}

// DefaultStartWait is how long Dial waits, by default, for a pod's SSH
// server to listen once its port is mapped: a pod is RUNNING when its
// container starts, a moment before the server in it listens.
const DefaultStartWait = 2 * time.Minute

// AuthError reports that the pod refused the key: it is not one of the
// account's SSH keys, the pod started before it was added, or User does
// not exist on the pod.
type AuthError struct {
	// PodID is the pod dialled.
	PodID string
	// Addr is the public address dialled.
	Addr string
	// User is who tried to log in.
	User string
	// Key is the SHA-256 fingerprint of the key offered.
	Key string
}

// Error names the pod, the user and the key's fingerprint.
func (e *AuthError) Error() string {
	return fmt.Sprintf("podssh: pod %s at %s refused %s with key %s (is it one of the account's SSH keys, added before the pod started?)",
		e.PodID, e.Addr, e.User, e.Key)
}

// Conn is an SSH connection to one pod. Its methods are safe for
// concurrent use: each command, copy and forward runs on its own channel
// of the connection. Close it when done.
type Conn struct {
	podID   string
	addr    string
	client  *ssh.Client
	hostKey ssh.PublicKey
}

// Dial waits for the pod's SSH port to be mapped (as
// pods.Service.WaitForTCP, with o.Poll and opts), connects to it, checks
// the pod's host key against o.HostKeys and logs in with o.Key. The
// context bounds the wait and the handshake; the Conn outlives it. Bad
// input is a *errs.ValidationError before anything is sent; a refused
// key, a *AuthError; a changed host key, a *HostKeyChangedError.
func (s *Service) Dial(ctx context.Context, podID string, o DialOptions, opts ...option.RequestOption) (*Conn, error) {
	if err := (rest.ID{Field: "podID"}).Check(podID); err != nil {
		return nil, err
	}
	if o.Key.IsZero() {
		return nil, fail.Invalid("DialOptions.Key", "no key: use LoadKey, ParseKey or NewKey")
	}
	port := o.Port
	if port == 0 {
		port = 22
	}
	if port < 1 || port > 65535 {
		return nil, fail.Invalid("DialOptions.Port", "must be 1 to 65535, got %d", o.Port)
	}
	user := o.User
	if user == "" {
		user = DefaultUser
	}
	if strings.ContainsFunc(user, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return nil, fail.Invalid("DialOptions.User", "must not contain control characters")
	}
	store := o.HostKeys
	if store == nil {
		store = s.known
	}
	ap, err := s.pods.WaitForTCP(ctx, podID, port, o.Poll, opts...)
	if err != nil {
		return nil, err
	}
	addr := ap.String()
	known, err := store.HostKeys(podID, addr)
	if err != nil {
		return nil, fmt.Errorf("podssh: host keys of pod %s at %s: %w", podID, addr, err)
	}
	_, pinned := store.(PinnedHostKeys)
	var (
		mu      sync.Mutex // the handshake calls back from its own goroutine
		hostErr error
		hostKey ssh.PublicKey
	)
	cfg := &ssh.ClientConfig{
		User: user,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(o.Key.Signer())},
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			mu.Lock()
			defer mu.Unlock()
			hostKey = key
			if len(known) == 0 {
				if err := store.AddHostKey(podID, addr, key); err != nil {
					hostErr = fmt.Errorf("podssh: record host key of pod %s at %s: %w", podID, addr, err)
					return hostErr
				}
				return nil
			}
			if containsKey(known, key) {
				return nil
			}
			fps := make([]string, len(known))
			for i, k := range known {
				fps[i] = ssh.FingerprintSHA256(k)
			}
			hostErr = &HostKeyChangedError{PodID: podID, Addr: addr, Known: fps, Got: ssh.FingerprintSHA256(key), Pinned: pinned}
			return hostErr
		},
		HostKeyAlgorithms: hostKeyAlgorithms(known),
	}
	nc, err := s.dialStarted(ctx, addr, o)
	if err != nil {
		return nil, fmt.Errorf("podssh: dial pod %s at %s: %w", podID, addr, err)
	}
	c, chans, reqs, err := handshake(ctx, nc, addr, cfg)
	mu.Lock()
	defer mu.Unlock()
	switch {
	case hostErr != nil:
		return nil, hostErr
	case ctx.Err() != nil:
		return nil, fmt.Errorf("podssh: connecting to pod %s at %s: %w", podID, addr, ctx.Err())
	case err != nil && strings.Contains(err.Error(), "unable to authenticate"):
		return nil, &AuthError{PodID: podID, Addr: addr, User: user, Key: ssh.FingerprintSHA256(o.Key.PublicKey())}
	case err != nil:
		return nil, fmt.Errorf("podssh: connecting to pod %s at %s: %w", podID, addr, err)
	}
	return &Conn{podID: podID, addr: addr, client: ssh.NewClient(c, chans, reqs), hostKey: hostKey}, nil
}

// dialStarted dials addr, again after o.Poll.Interval while the
// connection is refused or reset (the SSH server is not listening yet),
// for at most o.StartWait.
func (s *Service) dialStarted(ctx context.Context, addr string, o DialOptions) (net.Conn, error) {
	interval := cmp.Or(o.Poll.Interval, time.Second)
	until := time.Now().Add(cmp.Or(o.StartWait, DefaultStartWait))
	for {
		nc, err := s.dial(ctx, "tcp", addr)
		starting := errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
		if err == nil || !starting || time.Now().Add(interval).After(until) {
			return nc, err
		}
		if werr := wait.Sleep(ctx, interval); werr != nil {
			return nil, errors.Join(werr, err)
		}
	}
}

// handshake runs the SSH handshake on nc, ended by ctx: its deadline is
// the connection's until the handshake is over, and its end closes the
// connection.
func handshake(ctx context.Context, nc net.Conn, addr string, cfg *ssh.ClientConfig) (ssh.Conn, <-chan ssh.NewChannel, <-chan *ssh.Request, error) {
	if d, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	c, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	if !stop() {
		if err == nil {
			_ = c.Close()
		}
		return nil, nil, nil, errors.Join(err, ctx.Err())
	}
	if err != nil {
		return nil, nil, nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	return c, chans, reqs, nil
}

// PodID returns the pod's id.
func (c *Conn) PodID() string { return c.podID }

// Addr returns the public address connected to ("203.0.113.7:10022").
func (c *Conn) Addr() string { return c.addr }

// HostKey returns the host key the pod presented.
func (c *Conn) HostKey() ssh.PublicKey { return c.hostKey }

// Client returns the underlying *ssh.Client, for what this package does
// not wrap (a shell with a terminal, agent forwarding).
func (c *Conn) Client() *ssh.Client { return c.client }

// Close closes the connection, ending every command, copy and forward on
// it.
func (c *Conn) Close() error {
	if err := c.client.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
