// Package fakessh serves SSH to the pods of a runpodtest server: exec,
// a shell, SFTP and port forwarding, as a pod's OpenSSH serves them for
// root (see the notes in ssh.go). A server started without Serve has no
// SSH: a pod's SSH port refuses connections, as a port nothing listens
// on, so a test that does not use SSH does not link an SSH or SFTP
// library.
//
//	srv := runpodtest.NewServer(fakessh.Serve())
//	defer srv.Close()
//	fakessh.HandlePodCommand(srv, podID, handler)
//	// podssh.Dial with srv.ClientOptions() reaches the pod; ssh, scp and
//	// sftp reach it at the address fakessh.Listen returns.
package fakessh

import (
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
)

// server is the SSH side of one runpodtest server.
type server struct {
	c   *seam.Core
	ssh sshUnit
}

// Serve returns the runpodtest option that serves SSH on the server's
// pods: through the dialer of its ClientOptions (option.WithDialer) at
// each RUNNING pod's public address of 22/tcp, and on a loopback port of
// a pod's own once Listen opens it. A pod that stops, restarts or is
// deleted drops its SSH connections and closes that port.
func Serve() runpodtest.Option {
	return func(srv *runpodtest.Server) {
		c := seam.Of(srv)
		if c == nil {
			panic("fakessh: the server was not made by runpodtest.NewServer")
		}
		if c.SSH.State != nil {
			return
		}
		s := &server{c: c}
		c.SSH.State = s
		c.SSH.DialPod = s.dialPod
		c.SSH.DropPod = s.dropPodSSH
		c.SSH.Close = s.closeSSH
	}
}

// of returns srv's SSH side; it panics when srv was started without
// Serve.
func of(srv *runpodtest.Server) *server {
	c := seam.Of(srv)
	if c == nil {
		panic("fakessh: the server was not made by runpodtest.NewServer")
	}
	s, ok := c.SSH.State.(*server)
	if !ok {
		panic("fakessh: the server serves no SSH: start it with runpodtest.NewServer(fakessh.Serve())")
	}
	return s
}
