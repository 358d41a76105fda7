package podssh_test

import (
	"bytes"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/pkg/sftp"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
)

// testServer is an SSH server of the test's own on a loopback port, for
// what neither the fake nor sshd can be made to do: it lets in one key,
// serves the sftp subsystem with the handlers given, and answers every
// exec request with exit status 0.
type testServer struct {
	addr    string
	ln      net.Listener
	mu      sync.Mutex
	conns   map[net.Conn]bool
	hostKey ssh.Signer // for the next connection
	wg      sync.WaitGroup
}

// setHostKey gives the server a new host key from its next connection
// on, as a machine whose keys were made anew (or one in the middle).
func (s *testServer) setHostKey(k ssh.Signer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostKey = k
}

// startTestServer serves on 127.0.0.1, with hostKey, until the test ends.
func startTestServer(t *testing.T, hostKey ssh.Signer, client ssh.PublicKey, handlers sftp.Handlers) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &testServer{addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}, hostKey: hostKey}
	s.wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
				if bytes.Equal(key.Marshal(), client.Marshal()) {
					return nil, nil
				}
				return nil, errors.New("not the test's key")
			}}
			s.mu.Lock()
			s.conns[nc] = true
			cfg.AddHostKey(s.hostKey)
			s.mu.Unlock()
			s.wg.Go(func() { s.serve(nc, cfg, handlers) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		s.mu.Lock()
		for nc := range s.conns {
			_ = nc.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// serve serves one connection.
func (s *testServer) serve(nc net.Conn, cfg *ssh.ServerConfig, handlers sftp.Handlers) {
	defer nc.Close()
	sc, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	s.wg.Go(func() { ssh.DiscardRequests(reqs) })
	for nch := range chans {
		if nch.ChannelType() != "session" {
			_ = nch.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		s.wg.Go(func() {
			defer ch.Close()
			for req := range creqs {
				switch req.Type {
				case "subsystem":
					_ = req.Reply(true, nil)
					s.wg.Go(func() {
						rs := sftp.NewRequestServer(ch, handlers)
						_ = rs.Serve()
						_ = rs.Close()
					})
				case "exec":
					_ = req.Reply(true, nil)
					_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{0}))
					_ = ch.Close()
				default:
					if req.WantReply {
						_ = req.Reply(false, nil)
					}
				}
			}
		})
	}
}
