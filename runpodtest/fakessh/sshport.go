package fakessh

import (
	"fmt"
	"github.com/runpodkit/runpod-go/runpodtest"
	"net"
	"strconv"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Address is where Listen exposes a pod's SSH server: a port
// of the loopback interface, which programs that dial for themselves
// (OpenSSH's ssh, scp and sftp) reach unchanged.
type Address struct {
	// Host is the address to connect to, "127.0.0.1".
	Host string
	// Port is the port of the pod's SSH server there:
	// ssh -p Port root@Host, scp -P Port, sftp -P Port.
	Port int
	// HostKey is the host key the pod's SSH server presented when
	// Listen returned (RotatePodHostKey changes it).
	HostKey ssh.PublicKey
}

// String returns the address as host:port, "127.0.0.1:40123".
func (a Address) String() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }

// KnownHostsLine returns the known_hosts line of the address and its host
// key, "[127.0.0.1]:40123 ssh-ed25519 AAAA…", for a file that ssh is given
// with -o UserKnownHostsFile=<file> -o StrictHostKeyChecking=yes.
func (a Address) KnownHostsLine() string {
	return knownhosts.Line([]string{a.String()}, a.HostKey)
}

// Listen exposes the SSH server of pod id on a loopback port of its
// own and returns the address and host key, so that ssh, scp and sftp
// reach the pod as they reach a machine:
//
//	a, err := fakessh.Listen(srv, id)
//	os.WriteFile(knownHosts, []byte(a.KnownHostsLine()+"\n"), 0o600)
//	ssh -p <a.Port> -i <key> -o UserKnownHostsFile=<knownHosts> \
//	    -o StrictHostKeyChecking=yes -o BatchMode=yes root@127.0.0.1 'echo hi'
//	scp -P <a.Port> … ./model.bin root@127.0.0.1:/workspace/
//	sftp -P <a.Port> -b <batch file> … root@127.0.0.1
//
// It is what opts a pod in: without it, the pod's SSH server is reached
// only through the dialer srv.ClientOptions sets (option.WithDialer), at the
// pod's public address, and nothing listens on the machine. The server
// behind the port is that one: it lets in root with the account's keys
// and the pod's PUBLIC_KEY, and runs the same commands, SFTP and
// forwarding. The port is a real socket, with WithMemoryNetwork too.
//
// The pod must be RUNNING and expose 22/tcp, as the platform maps that
// port only then; otherwise Listen fails and nothing listens. While
// the pod runs, calling it again returns the same port. The port closes,
// with the connections made through it, when the pod stops, restarts or
// is deleted (once it runs again, Listen opens a new port), and
// when the server closes.
func Listen(srv *runpodtest.Server, id string) (Address, error) {
	s := of(srv)
	if _, ok := s.c.SSH.PodTarget(id); !ok {
		return Address{}, fmt.Errorf("runpodtest: pod %s is not RUNNING with 22/tcp exposed, so its SSH server has no port", id)
	}
	s.ssh.mu.Lock()
	p, err := s.podSSHLocked(id)
	if err != nil {
		s.ssh.mu.Unlock()
		return Address{}, err
	}
	ln := s.ssh.ports[id]
	if ln == nil {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			s.ssh.mu.Unlock()
			return Address{}, err
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
	if _, ok := s.c.SSH.PodTarget(id); !ok {
		s.ssh.mu.Lock()
		if s.ssh.ports[id] == ln {
			_ = ln.Close()
			delete(s.ssh.ports, id)
		}
		s.ssh.mu.Unlock()
		return Address{}, fmt.Errorf("runpodtest: pod %s stopped", id)
	}
	return Address{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, HostKey: key}, nil
}

// acceptPodSSH serves pod id's SSH server on each connection to ln, until
// ln closes.
func (s *server) acceptPodSSH(id string, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		publicKey, ok := s.c.SSH.PodTarget(id)
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
