package runpodtest

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// The global volumes fake speaks the REST v2 wire format with structs of
// its own, written from the platform's global volume pages of October
// 2026 and its storage guide (the derived document's supplement cites
// them). The document's schema checks run before a handler; the handlers
// apply what the pages say the platform does itself: a name is trimmed
// at both ends and must keep a character that is not white space (422
// otherwise); the list is paged like every list; a volume has no size and
// no data center.
//
// Attaching: an endpoint takes globalVolumes (ids, at most one). The
// storage guide's rules are enforced on create and update (400): the
// volume must exist, an endpoint on CPUs cannot mount one, and an
// endpoint cannot have a global volume and network volumes at once. A pod
// takes none over REST (the guide: the console only), so the pod create
// has no field for it and refuses one as an unknown property.

// Routes of the REST v2 global volume operations.
const (
	RouteGlobalVolumes      = "GET /v2/global-volumes"
	RouteCreateGlobalVolume = "POST /v2/global-volumes"
	RouteGlobalVolume       = "GET /v2/global-volumes/{id}"
	RouteUpdateGlobalVolume = "PATCH /v2/global-volumes/{id}"
	RouteDeleteGlobalVolume = "DELETE /v2/global-volumes/{id}"
)

// GlobalVolume is a global volume of the fake, as a test adds one
// (AddGlobalVolume) or reads it back (GlobalVolumes).
type GlobalVolume struct {
	// ID is the volume's id, gsb_…; AddGlobalVolume makes one when it is
	// empty.
	ID string
	// Name is the volume's name.
	Name string
	// CreatedAt is when it was made; AddGlobalVolume sets the server's
	// time when it is zero.
	CreatedAt time.Time
}

// globalVolumesUnit holds the global volumes by id.
type globalVolumesUnit struct {
	mu   sync.Mutex
	byID map[string]*GlobalVolume
}

func newGlobalVolumesUnit() globalVolumesUnit {
	return globalVolumesUnit{byID: map[string]*GlobalVolume{}}
}

// Wire formats, as the platform's pages describe them.
type (
	globalVolumeJSON struct {
		ID              string    `json:"id"`
		Name            string    `json:"name"`
		CreatedAt       time.Time `json:"createdAt"`
		CreatedByUserID *string   `json:"createdByUserId"`
	}
	globalVolumeInJSON struct {
		Name *string `json:"name"`
	}
)

// globalVolumeNotFound is the fake's answer about a global volume it does
// not have.
const globalVolumeNotFound = "global volume not found"

func (v *GlobalVolume) json() globalVolumeJSON {
	return globalVolumeJSON{ID: v.ID, Name: v.Name, CreatedAt: v.CreatedAt.UTC(), CreatedByUserID: ptr(delegatorUserID)}
}

func (s *Server) registerGlobalVolumes() {
	vols := collection[*GlobalVolume, globalVolumeJSON]{&s.globalVolumes.mu, s.globalVolumes.byID, "globalVolumes", globalVolumeNotFound, (*GlobalVolume).json}
	s.handleREST(PermissionVolumesRead, PermissionVolumesWrite, map[string]http.HandlerFunc{
		RouteGlobalVolumes:      vols.list,
		RouteGlobalVolume:       vols.get,
		RouteCreateGlobalVolume: s.createGlobalVolume,
		RouteUpdateGlobalVolume: s.updateGlobalVolume,
		RouteDeleteGlobalVolume: s.deleteGlobalVolume,
	})
}

// AddGlobalVolume stores a global volume and returns its id: state for a
// test to start from without going through POST /v2/global-volumes.
func (s *Server) AddGlobalVolume(v GlobalVolume) string {
	if v.ID == "" {
		v.ID = "gsb_" + randomID(10)
	}
	if v.CreatedAt.IsZero() {
		v.CreatedAt = s.now()
	}
	s.globalVolumes.mu.Lock()
	defer s.globalVolumes.mu.Unlock()
	s.globalVolumes.byID[v.ID] = &v
	return v.ID
}

// GlobalVolumes returns the global volumes, ordered by id.
func (s *Server) GlobalVolumes() []GlobalVolume {
	s.globalVolumes.mu.Lock()
	defer s.globalVolumes.mu.Unlock()
	out := []GlobalVolume{}
	for _, id := range slices.Sorted(maps.Keys(s.globalVolumes.byID)) {
		out = append(out, *s.globalVolumes.byID[id])
	}
	return out
}

// globalVolumeName trims a name as the platform does, or answers 422 for
// one that is all white space and reports false.
func globalVolumeName(w http.ResponseWriter, name string) (string, bool) {
	n := strings.TrimFunc(name, unicode.IsSpace)
	if n == "" {
		Problem(w, http.StatusUnprocessableEntity, "Request validation failed.", "$.name: must contain at least one non-whitespace character")
		return "", false
	}
	return n, true
}

func (s *Server) createGlobalVolume(w http.ResponseWriter, r *http.Request) {
	var req globalVolumeInJSON
	if !decodeBody(w, r, &req) {
		return
	}
	name, ok := globalVolumeName(w, deref(req.Name))
	if !ok {
		return
	}
	id := s.AddGlobalVolume(GlobalVolume{Name: name, CreatedAt: s.now().UTC()})
	s.globalVolumes.mu.Lock()
	v := s.globalVolumes.byID[id].json()
	s.globalVolumes.mu.Unlock()
	writeCreated(w, v)
}

func (s *Server) updateGlobalVolume(w http.ResponseWriter, r *http.Request) {
	var req globalVolumeInJSON
	if !decodeBody(w, r, &req) {
		return
	}
	name, ok := globalVolumeName(w, deref(req.Name))
	if !ok {
		return
	}
	withResource(w, r, &s.globalVolumes.mu, s.globalVolumes.byID, globalVolumeNotFound, func(v *GlobalVolume) {
		v.Name = name
		WriteJSON(w, v.json())
	})
}

func (s *Server) deleteGlobalVolume(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.globalVolumes.mu, s.globalVolumes.byID, globalVolumeNotFound, func(v *GlobalVolume) {
		delete(s.globalVolumes.byID, v.ID)
		w.WriteHeader(http.StatusNoContent)
	})
}

// checkGlobalVolumes checks the global volumes an endpoint would have
// with network volumes beside them, on CPUs or not, as the storage guide
// states the rules: at most one, existing, GPU endpoints only, and not
// with network volumes. It returns the refusal, or nil.
func (s *Server) checkGlobalVolumes(global, network []string, cpu bool) *endpointError {
	switch {
	case len(global) == 0:
		return nil
	case len(global) > 1:
		return refuse("globalVolumes", "an endpoint can attach at most one global volume")
	case len(network) > 0:
		return refuse("globalVolumes", "an endpoint cannot use a global volume and network volumes at the same time: detach the network volumes first")
	case cpu:
		return refuse("globalVolumes", "global volumes are available on GPU endpoints only")
	}
	s.globalVolumes.mu.Lock()
	defer s.globalVolumes.mu.Unlock()
	if s.globalVolumes.byID[global[0]] == nil {
		return refuse("globalVolumes[0]", "global volume %s not found", global[0])
	}
	return nil
}
