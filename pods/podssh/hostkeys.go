package podssh

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyStore holds the host keys of pods (and servers) a program has
// connected to. Dial checks the key a pod presents against it: with no
// key known for the pod at its address, the key is trusted on first use
// and added; with keys known, the presented key must be one of them, or
// Dial fails with a *HostKeyChangedError and sends nothing over the
// connection. DialAddr does the same with an empty podID: keys kept by
// address alone. KnownHostsFile (DefaultHostKeys, the default),
// MemoryHostKeys and PinnedHostKeys implement it.
type HostKeyStore interface {
	// HostKeys returns the keys known for pod podID at addr (its public
	// address, "203.0.113.7:10022"), or for the server at addr when podID
	// is empty; none means it was never seen there.
	HostKeys(podID, addr string) ([]ssh.PublicKey, error)
	// AddHostKey records key as the host key of pod podID (or of the
	// server, when podID is empty) at addr, after a first connection
	// trusted it.
	AddHostKey(podID, addr string, key ssh.PublicKey) error
}

// HostKeyChangedError reports that a pod presented a host key other than
// the one known (or pinned) for it at its address: the connection was
// refused, and nothing was sent. It is what a machine in the middle
// looks like, and also what a pod whose container made new host keys
// looks like; remove the old key from the store only when you know which.
type HostKeyChangedError struct {
	// PodID is the pod dialled; empty after DialAddr.
	PodID string
	// Addr is the address dialled ("203.0.113.7:10022").
	Addr string
	// Known are the SHA-256 fingerprints of the keys the store holds for
	// the pod at Addr.
	Known []string
	// Got is the SHA-256 fingerprint of the key the pod presented.
	Got string
	// Pinned reports that the known keys were pinned (PinnedHostKeys),
	// not learnt.
	Pinned bool
}

// Error names the pod, the address and both fingerprints.
func (e *HostKeyChangedError) Error() string {
	what := "known"
	if e.Pinned {
		what = "pinned"
	}
	return fmt.Sprintf("podssh: host key of %s has changed: it presented %s, the %s key is %s; connection refused",
		describe(e.PodID, e.Addr), e.Got, what, strings.Join(e.Known, ", "))
}

// fingerprints returns the SHA-256 fingerprints of keys.
func fingerprints(keys []ssh.PublicKey) []string {
	fps := make([]string, len(keys))
	for i, k := range keys {
		fps[i] = ssh.FingerprintSHA256(k)
	}
	return fps
}

// MemoryHostKeys is a HostKeyStore in memory, for the life of the
// program: a key learnt there is forgotten when the program ends, so the
// next run trusts whatever key it is shown first. Use it where that is
// meant (tests, servers made for one run); DefaultHostKeys keeps keys
// across runs. The zero value is ready to use and safe for concurrent
// use.
type MemoryHostKeys struct {
	mu   sync.Mutex
	keys map[hostID][]ssh.PublicKey
}

type hostID struct{ pod, addr string }

// HostKeys returns the keys known for pod podID at addr.
func (m *MemoryHostKeys) HostKeys(podID, addr string) ([]ssh.PublicKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.keys[hostID{podID, addr}]), nil
}

// AddHostKey records key for pod podID at addr.
func (m *MemoryHostKeys) AddHostKey(podID, addr string, key ssh.PublicKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[hostID][]ssh.PublicKey{}
	}
	id := hostID{podID, addr}
	if !containsKey(m.keys[id], key) {
		m.keys[id] = append(m.keys[id], key)
	}
	return nil
}

// Remove forgets the keys of pod podID at addr, so that the next Dial
// trusts what the pod presents.
func (m *MemoryHostKeys) Remove(podID, addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.keys, hostID{podID, addr})
}

// PinnedHostKeys is a HostKeyStore that accepts only its keys, for every
// pod it is used with, and never learns one: a pod presenting another key
// fails Dial with a *HostKeyChangedError whose Pinned is true.
type PinnedHostKeys []ssh.PublicKey

// HostKeys returns the pinned keys.
func (p PinnedHostKeys) HostKeys(string, string) ([]ssh.PublicKey, error) {
	if len(p) == 0 {
		return nil, errors.New("podssh: PinnedHostKeys holds no key")
	}
	return slices.Clone(p), nil
}

// AddHostKey refuses: pinned keys are given, not learnt.
func (p PinnedHostKeys) AddHostKey(string, string, ssh.PublicKey) error {
	return errors.New("podssh: PinnedHostKeys learns no key")
}

// podComment marks a line of a known_hosts file as a pod's: its comment
// is podComment followed by the pod's id.
const podComment = "runpod-pod="

// DefaultKnownHostsPath returns the file DefaultHostKeys keeps host keys
// in: runpod/known_hosts in the user's configuration directory
// (os.UserConfigDir: $XDG_CONFIG_HOME, else ~/.config, on Linux;
// ~/Library/Application Support on macOS; %AppData% on Windows).
func DefaultKnownHostsPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("podssh: no default known_hosts file (%w); set DialOptions.HostKeys (OpenKnownHosts, PinnedHostKeys)", err)
	}
	return filepath.Join(dir, "runpod", "known_hosts"), nil
}

// defaults holds the KnownHostsFile of each default path opened, so that
// every Service of the program shares one (and its lock).
var defaults struct {
	mu    sync.Mutex
	files map[string]*KnownHostsFile
}

// DefaultHostKeys returns the HostKeyStore Dial and DialAddr use when
// DialOptions.HostKeys is nil: the KnownHostsFile at
// DefaultKnownHostsPath, made on first use (the file 0600, its directory
// 0700), shared by every Service of the program and by every run of
// every program of the user. A pod's host key learnt once is thus
// required by every later connection to the pod at that address, and a
// different one refused with a *HostKeyChangedError, however many
// Services or runs come between.
func DefaultHostKeys() (*KnownHostsFile, error) {
	path, err := DefaultKnownHostsPath()
	if err != nil {
		return nil, err
	}
	defaults.mu.Lock()
	defer defaults.mu.Unlock()
	if k := defaults.files[path]; k != nil {
		return k, nil
	}
	k, err := OpenKnownHosts(path)
	if err != nil {
		return nil, err
	}
	if defaults.files == nil {
		defaults.files = map[string]*KnownHostsFile{}
	}
	defaults.files[path] = k
	return k, nil
}

// KnownHostsFile is a HostKeyStore kept in a file in OpenSSH's
// known_hosts format. A line it adds names the address as OpenSSH does
// ("[203.0.113.7]:10022 ssh-ed25519 AAAA… runpod-pod=<pod id>"), so
// ssh(1) given the file with -o UserKnownHostsFile accepts the pod too.
// A line whose comment names a pod applies to that pod only (a new pod
// given the same address by the platform is a first use, not a changed
// key); a line without one, as ssh(1) writes them, applies to the
// address, hashed host names included; DialAddr's lines have no such
// comment and apply to their address. @revoked keys are never
// accepted; @cert-authority lines are ignored. It is safe for concurrent
// use within one program; programs sharing the file append whole lines.
type KnownHostsFile struct {
	mu   sync.Mutex
	path string
}

// OpenKnownHosts returns the store kept in the file at path, creating it
// (and its directory) when it does not exist, and checks that it can be
// read.
func OpenKnownHosts(path string) (*KnownHostsFile, error) {
	if path == "" {
		return nil, errors.New("podssh: known hosts file: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("podssh: known hosts file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("podssh: known hosts file: %w", err)
	}
	defer f.Close()
	if _, err := readKnownHosts(f, "", ""); err != nil { // a syntax check
		return nil, fmt.Errorf("podssh: known hosts file %s: %w", path, err)
	}
	return &KnownHostsFile{path: path}, nil
}

// HostKeys returns the keys the file holds for pod podID at addr. A key
// the file revokes is an error.
func (k *KnownHostsFile) HostKeys(podID, addr string) ([]ssh.PublicKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f, err := os.Open(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("podssh: known hosts file: %w", err)
	}
	defer f.Close()
	found, err := readKnownHosts(f, podID, addr)
	if err != nil {
		return nil, fmt.Errorf("podssh: known hosts file %s: %w", k.path, err)
	}
	return found.keys, nil
}

// AddHostKey appends a line for pod podID (or, when podID is empty, for
// the server) at addr, unless the file holds keys for it by then (another
// program learnt one meanwhile): a key among them is not added again, and
// another is refused with a *HostKeyChangedError.
func (k *KnownHostsFile) AddHostKey(podID, addr string, key ssh.PublicKey) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if f, err := os.Open(k.path); err == nil {
		found, err := readKnownHosts(f, podID, addr)
		_ = f.Close()
		switch {
		case err != nil:
			return fmt.Errorf("podssh: known hosts file %s: %w", k.path, err)
		case containsKey(found.keys, key):
			return nil
		case len(found.keys) > 0:
			return &HostKeyChangedError{PodID: podID, Addr: addr, Known: fingerprints(found.keys), Got: ssh.FingerprintSHA256(key)}
		}
	}
	f, err := os.OpenFile(k.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("podssh: known hosts file: %w", err)
	}
	if _, err := io.WriteString(f, knownLine(addr, key, podID)); err != nil {
		_ = f.Close()
		return fmt.Errorf("podssh: known hosts file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("podssh: known hosts file: %w", err)
	}
	return nil
}

// knownLine is the known_hosts line of key for pod podID at addr, or for
// the server at addr when podID is empty.
func knownLine(addr string, key ssh.PublicKey, podID string) string {
	if podID == "" {
		return knownhosts.Line([]string{addr}, key) + "\n"
	}
	return knownhosts.Line([]string{addr}, key) + " " + podComment + podID + "\n"
}

// knownFound is what a known_hosts file says of one pod at one address.
type knownFound struct {
	keys    []ssh.PublicKey
	revoked []ssh.PublicKey
}

// maxKnownHostsLine bounds a line of a known_hosts file.
const maxKnownHostsLine = 64 << 10

// readKnownHosts reads a known_hosts file and returns the keys that apply
// to pod podID at addr, or to the server at addr when podID is empty
// (lines naming a pod do not); nothing when addr is empty: a syntax
// check. A line that is not a known_hosts line is an error naming its
// number.
func readKnownHosts(r io.Reader, podID, addr string) (knownFound, error) {
	var out knownFound
	host := knownhosts.Normalize(addr)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxKnownHostsLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		marker, hosts, key, comment, _, err := ssh.ParseKnownHosts(line)
		if err != nil {
			return knownFound{}, fmt.Errorf("line %d: not a known_hosts line", n)
		}
		if addr == "" || marker == "cert-authority" {
			continue
		}
		if pod, ok := strings.CutPrefix(strings.TrimSpace(comment), podComment); ok && pod != podID {
			continue
		}
		if !matchHost(hosts, host) {
			continue
		}
		if marker == "revoked" {
			out.revoked = append(out.revoked, key)
			continue
		}
		if !containsKey(out.keys, key) {
			out.keys = append(out.keys, key)
		}
	}
	if err := sc.Err(); err != nil {
		return knownFound{}, err
	}
	if len(out.revoked) > 0 {
		return knownFound{}, fmt.Errorf("a key of %s is revoked (%s)", addr, ssh.FingerprintSHA256(out.revoked[0]))
	}
	return out, nil
}

// matchHost reports whether the host patterns of a line name host (as
// knownhosts.Normalize writes it): literally, or hashed (|1|salt|hash).
// Wildcard and negated patterns are not matched.
func matchHost(patterns []string, host string) bool {
	for _, p := range patterns {
		if p == host {
			return true
		}
		if rest, ok := strings.CutPrefix(p, "|1|"); ok {
			salt64, hash64, ok := strings.Cut(rest, "|")
			if !ok {
				continue
			}
			salt, err1 := base64.StdEncoding.DecodeString(salt64)
			want, err2 := base64.StdEncoding.DecodeString(hash64)
			if err1 != nil || err2 != nil {
				continue
			}
			mac := hmac.New(sha1.New, salt)
			mac.Write([]byte(host))
			if hmac.Equal(mac.Sum(nil), want) {
				return true
			}
		}
	}
	return false
}

// containsKey reports whether keys holds key.
func containsKey(keys []ssh.PublicKey, key ssh.PublicKey) bool {
	b := key.Marshal()
	return slices.ContainsFunc(keys, func(k ssh.PublicKey) bool { return bytes.Equal(k.Marshal(), b) })
}

// hostKeyAlgorithms returns the algorithms that verify keys, so that the
// pod is asked for a key of a kind the store knows (a server with an RSA
// and an Ed25519 key would otherwise seem to have changed).
func hostKeyAlgorithms(keys []ssh.PublicKey) []string {
	var algos []string
	for _, k := range keys {
		switch k.Type() {
		case ssh.KeyAlgoRSA:
			algos = append(algos, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			algos = append(algos, k.Type())
		}
	}
	slices.Sort(algos)
	return slices.Compact(algos)
}
