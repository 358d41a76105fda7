package runpodtest

import (
	"fmt"
	"net"
	"strconv"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// PodSSHAddress is where ListenPodSSH exposes a pod's SSH server: a port
// of the loopback interface, which programs that dial for themselves
// (OpenSSH's ssh, scp and sftp) reach unchanged.
type PodSSHAddress struct {
	// Host is the address to connect to, "127.0.0.1".
	Host string
	// Port is the port of the pod's SSH server there:
	// ssh -p Port root@Host, scp -P Port, sftp -P Port.
	Port int
	// HostKey is the host key the pod's SSH server presented when
	// ListenPodSSH returned (RotatePodHostKey changes it).
	HostKey ssh.PublicKey
}

// String returns the address as host:port, "127.0.0.1:40123".
func (a PodSSHAddress) String() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }

// KnownHostsLine returns the known_hosts line of the address and its host
// key, "[127.0.0.1]:40123 ssh-ed25519 AAAA…", for a file that ssh is given
// with -o UserKnownHostsFile=<file> -o StrictHostKeyChecking=yes.
func (a PodSSHAddress) KnownHostsLine() string {
	return knownhosts.Line([]string{a.String()}, a.HostKey)
}

// ListenPodSSH exposes the SSH server of pod id on a loopback port of its
// own and returns the address and host key, so that ssh, scp and sftp
// reach the pod as they reach a machine:
//
//	a, err := srv.ListenPodSSH(id)
//	os.WriteFile(knownHosts, []byte(a.KnownHostsLine()+"\n"), 0o600)
//	ssh -p <a.Port> -i <key> -o UserKnownHostsFile=<knownHosts> \
//	    -o StrictHostKeyChecking=yes -o BatchMode=yes root@127.0.0.1 'echo hi'
//	scp -P <a.Port> … ./model.bin root@127.0.0.1:/workspace/
//	sftp -P <a.Port> -b <batch file> … root@127.0.0.1
//
// It is what opts a pod in: without it, the pod's SSH server is reached
// only through the dialer ClientOptions sets (option.WithDialer), at the
// pod's public address, and nothing listens on the machine. The server
// behind the port is that one: it lets in root with the account's keys
// and the pod's PUBLIC_KEY, and runs the same commands, SFTP and
// forwarding. The port is a real socket, with WithMemoryNetwork too.
//
// The pod must be RUNNING and expose 22/tcp, as the platform maps that
// port only then; otherwise ListenPodSSH fails and nothing listens. While
// the pod runs, calling it again returns the same port. The port closes,
// with the connections made through it, when the pod stops, restarts or
// is deleted (once it runs again, ListenPodSSH opens a new port), and
// when the server closes.
func (s *Server) ListenPodSSH(id string) (PodSSHAddress, error) {
	if _, ok := s.podSSHTarget(id); !ok {
		return PodSSHAddress{}, fmt.Errorf("runpodtest: pod %s is not RUNNING with 22/tcp exposed, so its SSH server has no port", id)
	}
	s.ssh.mu.Lock()
	p, err := s.podSSHLocked(id)
	if err != nil {
		s.ssh.mu.Unlock()
		return PodSSHAddress{}, err
	}
	ln := s.ssh.ports[id]
	if ln == nil {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			s.ssh.mu.Unlock()
			return PodSSHAddress{}, err
		}
		if s.ssh.ports == nil {
			s.ssh.ports = map[string]net.Listener{}
		}
		s.ssh.ports[id] = ln
		s.ssh.wg.Go(func() { s.acceptPodSSH(id, ln) })
	}
	key := p.hostKey.PublicKey()
	s.ssh.mu.Unlock()
	// A pod that stopped since the check above dropped its SSH state
	// before the port was there to close.
	if _, ok := s.podSSHTarget(id); !ok {
		s.ssh.mu.Lock()
		if s.ssh.ports[id] == ln {
			_ = ln.Close()
			delete(s.ssh.ports, id)
		}
		s.ssh.mu.Unlock()
		return PodSSHAddress{}, fmt.Errorf("runpodtest: pod %s stopped", id)
	}
	return PodSSHAddress{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, HostKey: key}, nil
}

// acceptPodSSH serves pod id's SSH server on each connection to ln, until
// ln closes.
func (s *Server) acceptPodSSH(id string, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		publicKey, ok := s.podSSHTarget(id)
		if ok {
			s.ssh.mu.Lock()
			err = s.serveConnLocked(id, publicKey, c)
			s.ssh.mu.Unlock()
		}
		if !ok || err != nil {
			_ = c.Close()
		}
	}
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
