package runpodtest

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The secrets fake speaks the REST v2 wire format with structs of its
// own, written from the platform's secrets pages (the derived document's
// supplement cites them). The document's schema checks (name pattern and
// length, value and description lengths, no empty update) run before a
// handler; the handlers apply what the pages say the platform does
// itself:
//
//   - a value is write-only: the fake keeps it, and no response carries it;
//   - a name starting with RUNPOD, in any case, is refused (400), a value
//     of 16 MiB or more of UTF-8 or a description over 65,535 bytes too
//     (422: the schema counts characters, the platform bytes);
//   - a name the account has already is refused (409); names are matched
//     in any case, as the listing's name filter matches them;
//   - an update sets the value first, then the description;
//   - a delete is not refused while references remain.
//
// References: when a pod boots (it reaches RUNNING after a create, a
// start or a restart), each "{{ RUNPOD_SECRET_<name> }}" in its
// environment is replaced with the secret's value at that moment, so a
// rotation reaches a running pod only at its next boot (PodEnv shows what
// the container got). A reference to a secret the account does not have
// fails the boot: the pod goes to ERROR with a system log line naming the
// secret, as the console's guide warns deployments fail when a secret
// they use is deleted.

// Routes of the REST v2 secrets operations.
const (
	RouteSecrets      = "GET /v2/account/secrets"
	RouteCreateSecret = "POST /v2/account/secrets"
	RouteSecret       = "GET /v2/account/secrets/{id}"
	RouteUpdateSecret = "PATCH /v2/account/secrets/{id}"
	RouteDeleteSecret = "DELETE /v2/account/secrets/{id}"
)

// Limits the platform's pages give, in bytes of UTF-8.
const (
	secretValueMax       = 16 << 20 // a value must be smaller
	secretDescriptionMax = 65535
)

// Secret is an account secret of the fake, as a test reads it back
// (Secrets): everything but its value, which the fake keeps and no
// response or method returns (PodEnv shows where it went).
type Secret struct {
	// ID is the secret's id.
	ID string
	// Name is the secret's name.
	Name string
	// Description is its description; nil for none.
	Description *string
	// CreatedAt is when it was created.
	CreatedAt time.Time
	// ValueSetAt is when its value was last set (created or rotated).
	ValueSetAt time.Time
}

// secretsUnit holds the account's secrets by id.
type secretsUnit struct {
	mu   sync.Mutex
	byID map[string]*fakeSecret
}

type fakeSecret struct {
	Secret
	value string
}

func newSecretsUnit() secretsUnit { return secretsUnit{byID: map[string]*fakeSecret{}} }

// Wire formats, as the platform's pages describe them.
type (
	secretJSON struct {
		ID                 string    `json:"id"`
		Name               string    `json:"name"`
		Description        *string   `json:"description"`
		CreatedAt          time.Time `json:"createdAt"`
		ValueLastUpdatedAt time.Time `json:"valueLastUpdatedAt"`
	}
	createSecretJSON struct {
		Name        string  `json:"name"`
		Value       string  `json:"value"`
		Description *string `json:"description"`
	}
	updateSecretJSON struct {
		Value       *string `json:"value"`
		Description *string `json:"description"`
	}
)

func (f *fakeSecret) json() secretJSON {
	return secretJSON{ID: f.ID, Name: f.Name, Description: f.Description, CreatedAt: f.CreatedAt.UTC(), ValueLastUpdatedAt: f.ValueSetAt.UTC()}
}

// secretNotFound is the fake's answer about a secret it does not have.
const secretNotFound = "secret not found"

func (s *Server) registerSecrets() {
	s.handleREST(PermissionAccountRead, PermissionAccountWrite, map[string]http.HandlerFunc{
		RouteSecrets:      s.listSecrets,
		RouteCreateSecret: s.createSecret,
		RouteSecret:       s.getSecret,
		RouteUpdateSecret: s.updateSecret,
		RouteDeleteSecret: s.deleteSecret,
	})
}

// AddSecret stores a secret and returns its id: state for a test to start
// from without going through POST /v2/account/secrets. It panics when the
// account already has a secret of that name.
func (s *Server) AddSecret(name, value string) string {
	s.secrets.mu.Lock()
	defer s.secrets.mu.Unlock()
	if s.secretByNameLocked(name) != nil {
		panic("runpodtest: AddSecret: the account already has a secret named " + name)
	}
	now := s.now().UTC()
	f := &fakeSecret{Secret: Secret{ID: randomID(12), Name: name, CreatedAt: now, ValueSetAt: now}, value: value}
	s.secrets.byID[f.ID] = f
	return f.ID
}

// Secrets returns the account's secrets, ordered by id, without their
// values.
func (s *Server) Secrets() []Secret {
	s.secrets.mu.Lock()
	defer s.secrets.mu.Unlock()
	out := []Secret{}
	for _, id := range slices.Sorted(maps.Keys(s.secrets.byID)) {
		out = append(out, s.secrets.byID[id].Secret)
	}
	return out
}

// secretByNameLocked returns the secret named name in any case, or nil.
// s.secrets.mu is held.
func (s *Server) secretByNameLocked(name string) *fakeSecret {
	for _, f := range s.secrets.byID {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

func (s *Server) listSecrets(w http.ResponseWriter, r *http.Request) {
	s.secrets.mu.Lock()
	defer s.secrets.mu.Unlock()
	list := []secretJSON{}
	name, filtered := r.URL.Query()["name"]
	for _, id := range slices.Sorted(maps.Keys(s.secrets.byID)) {
		f := s.secrets.byID[id]
		if !filtered || strings.EqualFold(f.Name, name[0]) {
			list = append(list, f.json())
		}
	}
	WriteJSON(w, map[string]any{"secrets": list})
}

func (s *Server) getSecret(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.secrets.mu, s.secrets.byID, secretNotFound, func(f *fakeSecret) { WriteJSON(w, f.json()) })
}

// secretRules answers for a value or description the schema lets
// through and the platform does not (sizes in bytes), and reports
// whether it did.
func secretRules(w http.ResponseWriter, value, description *string) bool {
	switch {
	case value != nil && len(*value) >= secretValueMax:
		Problem(w, http.StatusUnprocessableEntity, "Request validation failed.", "$.value: must be smaller than 16 MiB of UTF-8 text")
	case description != nil && len(*description) > secretDescriptionMax:
		Problem(w, http.StatusUnprocessableEntity, "Request validation failed.", "$.description: at most 65,535 bytes of UTF-8 text")
	default:
		return false
	}
	return true
}

func (s *Server) createSecret(w http.ResponseWriter, r *http.Request) {
	var req createSecretJSON
	if !decodeBody(w, r, &req) || secretRules(w, &req.Value, req.Description) {
		return
	}
	if len(req.Name) >= len("RUNPOD") && strings.EqualFold(req.Name[:len("RUNPOD")], "RUNPOD") {
		badRequest(w, "name", "names beginning with the reserved prefix RUNPOD are rejected")
		return
	}
	s.secrets.mu.Lock()
	defer s.secrets.mu.Unlock()
	if s.secretByNameLocked(req.Name) != nil {
		Problem(w, http.StatusConflict, "a secret with this name already exists")
		return
	}
	now := s.now().UTC()
	f := &fakeSecret{Secret: Secret{ID: randomID(12), Name: req.Name, Description: req.Description, CreatedAt: now, ValueSetAt: now}, value: req.Value}
	s.secrets.byID[f.ID] = f
	writeCreated(w, f.json())
}

func (s *Server) updateSecret(w http.ResponseWriter, r *http.Request) {
	var req updateSecretJSON
	if !decodeBody(w, r, &req) || secretRules(w, req.Value, req.Description) {
		return
	}
	withResource(w, r, &s.secrets.mu, s.secrets.byID, secretNotFound, func(f *fakeSecret) {
		if req.Value != nil {
			f.value, f.ValueSetAt = *req.Value, s.now().UTC()
		}
		if req.Description != nil {
			d := *req.Description
			f.Description = &d
		}
		WriteJSON(w, f.json())
	})
}

func (s *Server) deleteSecret(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.secrets.mu, s.secrets.byID, secretNotFound, func(f *fakeSecret) {
		delete(s.secrets.byID, f.ID)
		w.WriteHeader(http.StatusNoContent)
	})
}

// resolveSecrets returns env with each reference to a secret replaced by
// the secret's current value, and the name of the first secret referred
// to that the account does not have ("" when every one resolves).
func (s *Server) resolveSecrets(env map[string]string) (map[string]string, string) {
	s.secrets.mu.Lock()
	defer s.secrets.mu.Unlock()
	out := make(map[string]string, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		v, missing := expandSecretRefs(env[k], func(name string) (string, bool) {
			f := s.secretByNameLocked(name)
			if f == nil || f.Name != name {
				return "", false
			}
			return f.value, true
		})
		if missing != "" {
			return nil, missing
		}
		out[k] = v
	}
	return out, ""
}

// expandSecretRefs replaces each "{{ RUNPOD_SECRET_<name> }}" of v (spaces
// or tabs inside the braces optional) with lookup(name), and returns the
// first name lookup does not know. Other text is kept as it is.
func expandSecretRefs(v string, lookup func(string) (string, bool)) (string, string) {
	const prefix = "RUNPOD_SECRET_"
	var b strings.Builder
	for {
		i := strings.Index(v, "{{")
		if i < 0 {
			b.WriteString(v)
			return b.String(), ""
		}
		b.WriteString(v[:i])
		rest := strings.TrimLeft(v[i+2:], " \t")
		name, after, ok := "", "", strings.HasPrefix(rest, prefix)
		if ok {
			rest = rest[len(prefix):]
			end := strings.IndexAny(rest, " \t}")
			if ok = end > 0; ok {
				name, after = rest[:end], strings.TrimLeft(rest[end:], " \t")
				ok = strings.HasPrefix(after, "}}")
			}
		}
		if !ok {
			b.WriteByte('{') // "{{{ RUNPOD_SECRET_x }}": a reference may start one further
			v = v[i+1:]
			continue
		}
		value, found := lookup(name)
		if !found {
			return "", name
		}
		b.WriteString(value)
		v = after[2:]
	}
}
