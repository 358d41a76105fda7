package runpodtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// accountUnit is the account's state: its registered SSH keys.
type accountUnit struct {
	mu      sync.Mutex
	sshKeys []string
}

// Routes of the account's SSH keys.
const (
	// RouteSSHKeys lists them (getSshKeys).
	RouteSSHKeys = "GET /v2/account/ssh-keys"
	// RouteSetSSHKeys replaces them (updateSshKeys).
	RouteSetSSHKeys = "PUT /v2/account/ssh-keys"
)

// SetSSHKeys replaces the account's registered SSH public keys.
func (s *Server) SetSSHKeys(keys ...string) {
	s.account.mu.Lock()
	defer s.account.mu.Unlock()
	s.account.sshKeys = slices.Clone(keys)
}

func (s *Server) registerAccount() {
	s.Handle(Route{Pattern: RouteSSHKeys, Permission: PermissionAccountRead}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.account.mu.Lock()
		keys := append([]string{}, s.account.sshKeys...)
		s.account.mu.Unlock()
		WriteJSON(w, map[string][]string{"keys": keys})
	}))
	// The document has checked the body: an object with exactly "keys",
	// each entry of the public key line's shape. The platform replaces the
	// whole set (an empty list removes every key) and answers with it; a
	// key whose second word is not base64 is not a key, and is refused
	// with 422 like the document's own checks.
	s.Handle(Route{Pattern: RouteSetSSHKeys, Permission: PermissionAccountWrite}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Keys []string `json:"keys"`
		}
		if !decodeBody(w, r, &req) {
			return
		}
		var problems []string
		for i, k := range req.Keys {
			_, rest, _ := strings.Cut(k, " ")
			body, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", " "), " ")
			if b, err := base64.StdEncoding.DecodeString(body); err != nil || len(b) == 0 {
				problems = append(problems, fmt.Sprintf("$.keys[%d]: the key is not valid base64", i))
			}
		}
		if len(problems) > 0 {
			Problem(w, http.StatusUnprocessableEntity, "Request validation failed.", problems...)
			return
		}
		keys := append([]string{}, req.Keys...)
		s.account.mu.Lock()
		s.account.sshKeys = slices.Clone(keys)
		s.account.mu.Unlock()
		WriteJSON(w, map[string][]string{"keys": keys})
	}))
}
