package runpodtest

import (
	"net/http"
	"slices"
)

// RouteSSHKeys is the route of the account's SSH keys (getSshKeys).
const RouteSSHKeys = "GET /v2/account/ssh-keys"

// SetSSHKeys replaces the account's registered SSH public keys.
func (s *Server) SetSSHKeys(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sshKeys = slices.Clone(keys)
}

func (s *Server) registerAccount() {
	s.Handle(Route{Pattern: RouteSSHKeys, Permission: AccountRead}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		keys := append([]string{}, s.sshKeys...)
		s.mu.Unlock()
		WriteJSON(w, map[string][]string{"keys": keys})
	}))
}
