package runpodtest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The registries fake speaks the REST v2 wire format with structs of its
// own, written from the platform's published document. The document's
// schema checks (required fields, minimum lengths, no unknown properties)
// run before a handler; the handlers apply what the document says the
// platform does itself: credentials are write-only (the fake keeps no
// username or password, so no response can carry one), a credential a pod
// pulls its image with cannot be deleted (400), and a delegation's
// repository, region and registry host come from its ARN.

// registriesUnit holds the registry credentials and ECR delegations, in
// the order they were made.
type registriesUnit struct {
	mu          sync.Mutex
	registries  []Registry
	delegations []fakeDelegation
}

// fakeDelegation is a delegation and whether it was given a name (an
// empty one included).
type fakeDelegation struct {
	Delegation
	named bool
}

// Routes of the REST v2 registry operations.
const (
	RouteRegistries       = "GET /v2/registries"
	RouteCreateRegistry   = "POST /v2/registries"
	RouteRegistry         = "GET /v2/registries/{id}"
	RouteDeleteRegistry   = "DELETE /v2/registries/{id}"
	RouteDelegations      = "GET /v2/registries/delegations"
	RouteCreateDelegation = "POST /v2/registries/delegations"
	RouteRevokeDelegation = "DELETE /v2/registries/delegations/{id}"
)

// Registry is a registry credential of the fake, as a test adds one
// (AddRegistry) or reads it back (Registries): its id and name. The fake
// keeps no username or password, as no response may carry them.
type Registry struct {
	// ID is the credential's id.
	ID string
	// Name is the credential's name.
	Name string
}

// Delegation is an ECR delegation of the fake, as a test adds one
// (AddDelegation) or reads it back (Delegations).
type Delegation struct {
	// ID is the delegation's id; AddDelegation makes one when it is empty.
	ID string
	// Name is the delegation's name; empty for none.
	Name string
	// Resource is the ARN of the delegated ECR repository, such as
	// "arn:aws:ecr:us-east-2:123456789012:repository/team/app".
	Resource string
	// CreatedAt is when it was made; AddDelegation sets the server's time
	// when it is zero.
	CreatedAt time.Time
}

// Wire formats, as the REST v2 document describes them.
type (
	registryJSON struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	createRegistryJSON struct {
		Name     string `json:"name"`
		Username string `json:"username"`
		Password string `json:"password"`
	}
	delegationJSON struct {
		ID                string    `json:"id"`
		Name              *string   `json:"name"`
		DelegatorUserID   string    `json:"delegatorUserId"`
		AWSUser           string    `json:"awsUser"`
		Repository        string    `json:"repository"`
		Tag               string    `json:"tag"`
		AWSRegion         string    `json:"awsRegion"`
		DockerRegistryURI string    `json:"dockerRegistryUri"`
		CreatedAt         time.Time `json:"createdAt"`
	}
	createDelegationJSON struct {
		Resource string  `json:"resource"`
		Name     *string `json:"name"`
	}
)

// delegatorUserID is the id of the fake account's user, who makes every
// delegation.
const delegatorUserID = "user_fake"

// AddRegistry stores a registry credential named name and returns its id:
// state for a test or demo to start from without going through POST
// /v2/registries.
func (s *Server) AddRegistry(name string) string {
	reg := Registry{ID: randomID(8), Name: name}
	appendLocked(&s.registries.mu, &s.registries.registries, reg)
	return reg.ID
}

// Registries returns a snapshot of the fake's registry credentials, in the
// order they were made.
func (s *Server) Registries() []Registry {
	return locked(&s.registries.mu, func() []Registry { return slices.Clone(s.registries.registries) })
}

// AddDelegation stores an ECR delegation and returns its id. It panics
// when d.Resource is not the ARN of an ECR repository, as the platform
// refuses one.
func (s *Server) AddDelegation(d Delegation) string {
	if _, problem := parseECRARN(d.Resource); problem != "" {
		panic("runpodtest: AddDelegation: " + problem)
	}
	d.ID = cmp.Or(d.ID, newDelegationID())
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.now()
	}
	d.CreatedAt = d.CreatedAt.UTC()
	appendLocked(&s.registries.mu, &s.registries.delegations, fakeDelegation{Delegation: d, named: d.Name != ""})
	return d.ID
}

// Delegations returns a snapshot of the fake's ECR delegations, in the
// order they were made.
func (s *Server) Delegations() []Delegation {
	s.registries.mu.Lock()
	defer s.registries.mu.Unlock()
	out := []Delegation{}
	for _, d := range s.registries.delegations {
		out = append(out, d.Delegation)
	}
	return out
}

// listRegistries answers GET /v2/registries, in the order the credentials
// were made.
func (s *Server) listRegistries(w http.ResponseWriter, _ *http.Request) {
	list := []registryJSON{}
	for _, r := range s.Registries() {
		list = append(list, registryJSON(r))
	}
	WriteJSON(w, map[string]any{"registries": list})
}

// getRegistry answers GET /v2/registries/{id}.
func (s *Server) getRegistry(w http.ResponseWriter, r *http.Request) {
	s.registries.mu.Lock()
	defer s.registries.mu.Unlock()
	if i := s.registryIndexLocked(r.PathValue("id")); i >= 0 {
		WriteJSON(w, registryJSON(s.registries.registries[i]))
	} else {
		Problem(w, http.StatusNotFound, registryNotFound)
	}
}

// listDelegations answers GET /v2/registries/delegations, in the order
// the delegations were made.
func (s *Server) listDelegations(w http.ResponseWriter, _ *http.Request) {
	s.registries.mu.Lock()
	list := []delegationJSON{}
	for _, d := range s.registries.delegations {
		list = append(list, delegationWire(d))
	}
	s.registries.mu.Unlock()
	WriteJSON(w, map[string]any{"delegations": list})
}

// revokeDelegation deletes a delegation.
func (s *Server) revokeDelegation(w http.ResponseWriter, r *http.Request) {
	s.registries.mu.Lock()
	defer s.registries.mu.Unlock()
	i := slices.IndexFunc(s.registries.delegations, func(d fakeDelegation) bool { return d.ID == r.PathValue("id") })
	if i < 0 {
		Problem(w, http.StatusNotFound, "delegation not found")
		return
	}
	s.registries.delegations = slices.Delete(s.registries.delegations, i, i+1)
	w.WriteHeader(http.StatusNoContent)
}

// registryNotFound is the fake's answer about a registry credential it
// does not have.
const registryNotFound = "registry not found"

// registryIndexLocked returns the index of the credential id, or -1.
// s.registries.mu is held.
func (s *Server) registryIndexLocked(id string) int {
	return slices.IndexFunc(s.registries.registries, func(r Registry) bool { return r.ID == id })
}

// createRegistry stores the credential's id and name. The username and
// password are read (the document has checked that they are there) and
// dropped: the platform never gives them back, so the fake does not keep
// them.
func (s *Server) createRegistry(w http.ResponseWriter, r *http.Request) {
	var req createRegistryJSON
	if !decodeBody(w, r, &req) {
		return
	}
	reg := Registry{ID: randomID(8), Name: req.Name}
	appendLocked(&s.registries.mu, &s.registries.registries, reg)
	writeCreated(w, registryJSON(reg))
}

// deleteRegistry deletes a credential no pod pulls its image with.
func (s *Server) deleteRegistry(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// The pods are looked at under their own lock, released before the
	// credentials' is taken: no handler holds both.
	user := s.podUsing(func(p *fakePod) bool { return p.registry != nil && *p.registry == id })
	s.registries.mu.Lock()
	defer s.registries.mu.Unlock()
	i := s.registryIndexLocked(id)
	switch {
	case i < 0:
		Problem(w, http.StatusNotFound, registryNotFound)
	case user != "":
		Problem(w, http.StatusBadRequest, fmt.Sprintf("registry is in use by pod %s and cannot be deleted", user))
	default:
		s.registries.registries = slices.Delete(s.registries.registries, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) createDelegation(w http.ResponseWriter, r *http.Request) {
	var req createDelegationJSON
	if !decodeBody(w, r, &req) {
		return
	}
	if _, problem := parseECRARN(req.Resource); problem != "" {
		badRequest(w, "resource", "%s", problem)
		return
	}
	d := fakeDelegation{Delegation: Delegation{ID: newDelegationID(), Resource: req.Resource, CreatedAt: s.now().UTC()}}
	if req.Name != nil {
		d.Name, d.named = *req.Name, true
	}
	appendLocked(&s.registries.mu, &s.registries.delegations, d)
	writeCreated(w, delegationWire(d))
}

// ecrRepo is what an ECR repository's ARN names.
type ecrRepo struct {
	region, account, repository string
}

// parseECRARN reads "arn:<partition>:ecr:<region>:<account>:repository/<name>".
// It returns the problem when s is not such an ARN.
func parseECRARN(s string) (ecrRepo, string) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[1] == "" {
		return ecrRepo{}, fmt.Sprintf("not an ARN: %q", s)
	}
	name, ok := strings.CutPrefix(f[5], "repository/")
	switch {
	case f[2] != "ecr":
		return ecrRepo{}, fmt.Sprintf("not an ECR ARN: %q", s)
	case f[3] == "" || f[4] == "" || strings.Trim(f[4], "0123456789") != "":
		return ecrRepo{}, fmt.Sprintf("an ECR ARN needs a region and an account id: %q", s)
	case !ok || name == "":
		return ecrRepo{}, fmt.Sprintf("not an ECR repository ARN: %q", s)
	}
	return ecrRepo{region: f[3], account: f[4], repository: name}, ""
}

// delegationWire is d as the platform reports it: the repository's name,
// region and Docker host read from its ARN, the tag the platform pulls
// by default (latest).
func delegationWire(d fakeDelegation) delegationJSON {
	repo, _ := parseECRARN(d.Resource)
	v := delegationJSON{
		ID: d.ID, DelegatorUserID: delegatorUserID, AWSUser: repo.account, Repository: repo.repository, Tag: "latest",
		AWSRegion: repo.region, DockerRegistryURI: repo.account + ".dkr.ecr." + repo.region + ".amazonaws.com", CreatedAt: d.CreatedAt,
	}
	if d.named {
		v.Name = ptr(d.Name)
	}
	return v
}

// newDelegationID makes a delegation's id: "deleg_" and 12 random
// lower-case letters and digits.
func newDelegationID() string { return "deleg_" + randomID(12) }
