// Package demo connects the examples to RunPod: to the real platform when
// RUNPOD_API_KEY is set, and otherwise to an in-process fake
// (runpodtest) filled with demo data, so every example runs offline.
package demo

import (
	"fmt"
	"io"
	"os"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// Session is a connected client and, offline, the fake behind it.
type Session struct {
	Client *runpod.Client
	// Fake is the fake platform, or nil when talking to the real one.
	Fake *runpodtest.Server
}

// Close releases the client's connections and stops the fake.
func (s *Session) Close() {
	s.Client.CloseIdleConnections()
	if s.Fake != nil {
		s.Fake.Close()
	}
}

// Connect returns a session on the real platform when RUNPOD_API_KEY is
// set, and on a seeded fake otherwise; it says which on w.
func Connect(w io.Writer, opts ...runpod.Option) (*Session, error) {
	if os.Getenv(runpod.EnvAPIKey) != "" {
		rp, err := runpod.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(w, "Using your RunPod account (RUNPOD_API_KEY is set).")
		return &Session{Client: rp}, nil
	}
	srv := runpodtest.NewServer()
	Seed(srv)
	rp, err := srv.NewClient(opts...)
	if err != nil {
		srv.Close()
		return nil, err
	}
	fmt.Fprintln(w, "RUNPOD_API_KEY is not set: running against the built-in fake platform (runpodtest).")
	return &Session{Client: rp, Fake: srv}, nil
}

// Seed fills a fake with the demo account's data.
func Seed(srv *runpodtest.Server) {
	srv.SetSSHKeys(
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com",
	)
}
