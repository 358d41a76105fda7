package runpodtest

import (
	"net/http"
	"slices"
	"sync"
)

// accountUnit is the account's state: its registered SSH keys.
type accountUnit struct {
	mu      sync.Mutex
	sshKeys []string
}

// RouteSSHKeys is the route of the account's SSH keys (getSshKeys).
const RouteSSHKeys = "GET /v2/account/ssh-keys"

// SetSSHKeys replaces the account's registered SSH public keys.
func (s *Server) SetSSHKeys(keys ...string) {
	s.account.mu.Lock()
	defer s.account.mu.Unlock()
	s.account.sshKeys = slices.Clone(keys)
}

func (s *Server) registerAccount() {
	s.Handle(Route{Pattern: RouteSSHKeys, Permission: AccountRead}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.account.mu.Lock()
		keys := append([]string{}, s.account.sshKeys...)
		s.account.mu.Unlock()
		WriteJSON(w, map[string][]string{"keys": keys})
	}))
}
