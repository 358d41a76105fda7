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
// Service.DialAddr connects the same way to any SSH server by address
// ("127.0.0.1:2222").
//
// # Host keys
//
// A host key is trusted on first use and kept. By default
// (DialOptions.HostKeys nil) it is kept in the user's known_hosts file
// for RunPod (DefaultHostKeys: runpod/known_hosts in os.UserConfigDir,
// made 0600 in a 0700 directory), which every Service of every program
// of the user shares: once a pod's key is known at its address, any
// later connection to it there, from another Service or another run,
// refuses a different key with a *HostKeyChangedError before it sends
// anything. DialOptions.HostKeys chooses otherwise: a KnownHostsFile of
// your own (OpenKnownHosts), PinnedHostKeys (the keys given, and no
// other), or MemoryHostKeys (for the life of the program only, so that
// the next run trusts whatever key it is shown first).
//
// # Cancelling a command
//
// When Run's context ends, Run stops the command on the pod before it
// returns: SIGTERM to the command's process group, then, after
// RunParams.Grace (DefaultGrace), SIGKILL; the *InterruptedError it
// returns says what was done and how the command ended. OpenSSH, which
// pods run, stops nothing itself for root: it refuses a client's signal
// and lets a command whose session closed run on (see Conn.Run for the
// mechanism). A process that leaves the command's process group (setsid,
// a shell's job control, a daemon) is not stopped.
//
// # Local files
//
// The pod is not trusted with the local file system. Download writes
// only under its target, through an os.Root: a name from the pod that is
// not one plain name ("..", "/etc", "a/b", a NUL byte) is refused with an
// *errs.UnsafePathError, never mapped to another; no symbolic link in
// the target is followed on the way to a write; temporary files are
// created exclusively under unpredictable names and renamed within the
// target. Upload reads a directory through an os.Root too, skipping
// links.
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
	"strconv"
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

// Service opens SSH connections to pods, or to any SSH server by
// address (DialAddr). Build it with NewFromConfig; it is safe for
// concurrent use.
type Service struct {
	pods *pods.Service
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// NewFromConfig returns the service built from cfg (option.NewConfig, or
// runpod.Client.Config): it asks the pods API for a pod's address with
// cfg's key and options, and dials with cfg.Dialer. A zero Config serves
// DialAddr alone. Host keys are checked against DialOptions.HostKeys, by
// default the known_hosts file DefaultHostKeys opens, shared by every
// Service and every run of every program of the user.
func NewFromConfig(cfg option.Config) *Service {
	dial := cfg.Dialer
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	return &Service{pods: pods.NewFromConfig(cfg), dial: dial}
}

// DefaultUser is the user pods let in, and the user DialAddr logs in as
// unless told otherwise.
const DefaultUser = "root"

// DialOptions says how Dial and DialAddr connect.
type DialOptions struct {
	// Key authenticates the connection; its public half must be one of
	// the account's SSH keys (or in the pod's PUBLIC_KEY). Required.
	Key Key
	// User is who logs in; empty means DefaultUser.
	User string
	// Port is the pod's internal SSH port, exposed as "<Port>/tcp"; zero
	// means 22. Dial only: DialAddr's address has its port.
	Port int
	// HostKeys checks the server's host key; nil means DefaultHostKeys,
	// the user's known_hosts file for RunPod, so that a key learnt once is
	// required by every later connection of any Service in any program
	// of the user. Give a KnownHostsFile of your own, PinnedHostKeys, or
	// (for keys that need not outlive the program, as a test's)
	// a MemoryHostKeys.
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

// AuthError reports that the server refused the key: it is not one of
// the account's SSH keys, the pod started before it was added, or User
// does not exist on the pod.
type AuthError struct {
	// PodID is the pod dialled; empty after DialAddr.
	PodID string
	// Addr is the address dialled.
	Addr string
	// User is who tried to log in.
	User string
	// Key is the SHA-256 fingerprint of the key offered.
	Key string
}

// Error names the pod (or the address), the user and the key's
// fingerprint.
func (e *AuthError) Error() string {
	if e.PodID == "" {
		return fmt.Sprintf("podssh: %s refused %s with key %s", e.Addr, e.User, e.Key)
	}
	return fmt.Sprintf("podssh: pod %s at %s refused %s with key %s (is it one of the account's SSH keys, added before the pod started?)",
		e.PodID, e.Addr, e.User, e.Key)
}

// Conn is an SSH connection to one pod (or server). Its methods are safe
// for concurrent use: each command, copy and forward runs on its own
// channel of the connection. Close it when done.
type Conn struct {
	podID   string
	addr    string
	client  *ssh.Client
	hostKey ssh.PublicKey
	// bg holds what a Run leaves behind when the server does not answer
	// in time (the wait for a session's end after it was closed, a kill
	// that did not answer): each ends when the connection does, and
	// Close waits for them.
	bg sync.WaitGroup
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
	port := cmp.Or(o.Port, 22)
	if port < 1 || port > 65535 {
		return nil, fail.Invalid("DialOptions.Port", "must be 1 to 65535, got %d", o.Port)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	ap, err := s.pods.WaitForTCP(ctx, podID, port, o.Poll, opts...)
	if err != nil {
		return nil, err
	}
	return s.connect(ctx, podID, ap.String(), o)
}

// DialAddr connects to the SSH server at addr ("127.0.0.1:2222",
// "[::1]:22", "host.example:22"), any server, not only a pod's, as Dial
// does once it knows a pod's address: connections refused are tried
// again for o.StartWait, the host key is checked against o.HostKeys,
// where it is kept by address (not by pod), and o.Key logs in as o.User
// (DefaultUser when empty). The dialer is the Service's, as for pods.
// o.Port and o.Poll's OnCheck are not used.
func (s *Service) DialAddr(ctx context.Context, addr string, o DialOptions) (*Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil, fail.Invalid("addr", "must be host:port, got %q", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fail.Invalid("addr", "port must be 1 to 65535, got %q", port)
	}
	if o.Port != 0 {
		return nil, fail.Invalid("DialOptions.Port", "is for Dial; DialAddr's address has the port")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	return s.connect(ctx, "", addr, o)
}

// check validates what Dial and DialAddr share.
func (o DialOptions) check() error {
	if o.Key.IsZero() {
		return fail.Invalid("DialOptions.Key", "no key: use LoadKey, ParseKey or NewKey")
	}
	if strings.ContainsFunc(o.User, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fail.Invalid("DialOptions.User", "must not contain control characters")
	}
	return nil
}

// connect dials addr (pod podID's, or any server's when podID is empty),
// checks its host key and logs in.
func (s *Service) connect(ctx context.Context, podID, addr string, o DialOptions) (*Conn, error) {
	user := cmp.Or(o.User, DefaultUser)
	what := describe(podID, addr)
	store := o.HostKeys
	if store == nil {
		kh, err := DefaultHostKeys()
		if err != nil {
			return nil, err
		}
		store = kh
	}
	known, err := store.HostKeys(podID, addr)
	if err != nil {
		return nil, fmt.Errorf("podssh: host keys of %s: %w", what, err)
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
					var changed *HostKeyChangedError
					if errors.As(err, &changed) {
						hostErr = err
					} else {
						hostErr = fmt.Errorf("podssh: record host key of %s: %w", what, err)
					}
					return hostErr
				}
				return nil
			}
			if containsKey(known, key) {
				return nil
			}
			hostErr = &HostKeyChangedError{PodID: podID, Addr: addr, Known: fingerprints(known), Got: ssh.FingerprintSHA256(key), Pinned: pinned}
			return hostErr
		},
		HostKeyAlgorithms: hostKeyAlgorithms(known),
	}
	nc, err := s.dialStarted(ctx, addr, o)
	if err != nil {
		return nil, fmt.Errorf("podssh: dial %s: %w", what, err)
	}
	c, chans, reqs, err := handshake(ctx, nc, addr, cfg)
	mu.Lock()
	defer mu.Unlock()
	switch {
	case hostErr != nil:
		return nil, hostErr
	case ctx.Err() != nil:
		return nil, fmt.Errorf("podssh: connecting to %s: %w", what, ctx.Err())
	case err != nil && strings.Contains(err.Error(), "unable to authenticate"):
		return nil, &AuthError{PodID: podID, Addr: addr, User: user, Key: ssh.FingerprintSHA256(o.Key.PublicKey())}
	case err != nil:
		return nil, fmt.Errorf("podssh: connecting to %s: %w", what, err)
	}
	return &Conn{podID: podID, addr: addr, client: ssh.NewClient(c, chans, reqs), hostKey: hostKey}, nil
}

// describe names pod podID at addr, or the server at addr.
func describe(podID, addr string) string {
	if podID == "" {
		return addr
	}
	return "pod " + podID + " at " + addr
}

// target names the connection's pod, or its server's address, in
// messages.
func (c *Conn) target() string { return target(c.podID, c.addr) }

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

// PodID returns the pod's id; empty for a Conn from DialAddr.
func (c *Conn) PodID() string { return c.podID }

// Addr returns the address connected to ("203.0.113.7:10022").
func (c *Conn) Addr() string { return c.addr }

// HostKey returns the host key the pod presented.
func (c *Conn) HostKey() ssh.PublicKey { return c.hostKey }

// Client returns the underlying *ssh.Client, for what this package does
// not wrap (a shell with a terminal, agent forwarding). A command run
// with a terminal (Session.RequestPty) is sent SIGHUP by OpenSSH when its
// session closes, even for root; without one, closing its session does
// not stop it, which is why Run stops a cancelled command as it does.
func (c *Conn) Client() *ssh.Client { return c.client }

// Close closes the connection, ending every command, copy and forward on
// it.
func (c *Conn) Close() error {
	err := c.client.Close()
	c.bg.Wait() // the connection is closed: every session's wait ends
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
