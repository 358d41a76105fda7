package runpodtest

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/runpodkit/runpod-go/volumes"
)

// The network volumes fake speaks the REST v2 wire format with structs of
// its own, written from the platform's published document (the SDK's
// types are not used, so a mistake in them cannot hide in the fake). The
// document's schema checks run before a handler (contract.Check: required
// fields, a non-empty name and data center, sizes from 10 to 4096 GB, a
// known tier, no unknown property, at least one field in an update, all
// answered 422); the handlers apply the rules the document says the
// platform enforces itself, answered 400 with the field named: a data
// center the platform knows, a tier that data center offers, and a size
// that never shrinks; a delete of a volume an endpoint or a pod uses is
// refused (see deleteVolume).

// Routes of the REST v2 network volume operations.
const (
	RouteNetworkVolumes      = "GET /v2/network-volumes"
	RouteCreateNetworkVolume = "POST /v2/network-volumes"
	RouteNetworkVolume       = "GET /v2/network-volumes/{id}"
	RouteUpdateNetworkVolume = "PATCH /v2/network-volumes/{id}"
	RouteDeleteNetworkVolume = "DELETE /v2/network-volumes/{id}"
)

// volumeTiers returns the network volume tiers data center dc offers, as
// the catalog lists them (its primary tier, the one a create without a
// type gets, first); ok is false for a data center the catalog does not
// have. It takes the catalog's lock, never while holding the volumes
// lock.
func (s *Server) volumeTiers(dc string) (tiers []string, ok bool) {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	d, ok := s.catalog.dcs[dc]
	if !ok {
		return nil, false
	}
	for _, t := range d.NetworkVolumeTypes {
		tiers = append(tiers, string(t))
	}
	return tiers, true
}

// defaultVolumeSize is the size, in GB, AddNetworkVolume gives a volume
// whose Size is 0.
const defaultVolumeSize = 50

// volumesUnit holds the account's network volumes.
type volumesUnit struct {
	mu   sync.Mutex
	byID map[string]*fakeVolume
	seq  int // orders volumes by creation
}

func newVolumesUnit() volumesUnit { return volumesUnit{byID: map[string]*fakeVolume{}} }

// NetworkVolume is a fake network volume as a test sets one up
// (AddNetworkVolume) or reads it back (NetworkVolumes).
//
// The fake makes volumes in the data centers of its catalog, in the tiers
// each lists (DataCenter.NetworkVolumeTypes, the first being the primary
// tier): by default EU-RO-1, US-TX-3 and US-KS-2 offer STANDARD and
// HIGH_PERFORMANCE, EU-SE-1, CA-MTL-1 and AP-JP-1 STANDARD. A create
// naming another data center, or a tier its data center does not offer,
// is refused with 400.
type NetworkVolume struct {
	// ID is the volume's id; AddNetworkVolume makes one when it is empty.
	ID string
	// Name is the volume's name.
	Name string
	// Size is the volume's size in GB, from 10 to 4096 (50 when 0).
	Size int
	// DataCenter is the id of the volume's data center (EU-RO-1 when
	// empty).
	DataCenter string
	// Type is the volume's storage tier (its data center's primary tier
	// when empty, STANDARD in a data center the fake does not list).
	Type volumes.VolumeType
}

// fakeVolume is a volume's state. Fields are guarded by volumesUnit.mu.
type fakeVolume struct {
	NetworkVolume
	seq int
}

// Wire formats, as the REST v2 document describes them.
type (
	volumeJSON struct {
		ID         string `json:"id"`
		Name       string `json:"name"`
		Size       int    `json:"size"`
		DataCenter string `json:"dataCenter"`
		Type       string `json:"type"`
	}
	createVolumeJSON struct {
		Name       string  `json:"name"`
		Size       int     `json:"size"`
		DataCenter string  `json:"dataCenter"`
		Type       *string `json:"type"`
	}
	updateVolumeJSON struct {
		Name *string `json:"name"`
		Size *int    `json:"size"`
	}
)

func (v *fakeVolume) json() volumeJSON {
	return volumeJSON{ID: v.ID, Name: v.Name, Size: v.Size, DataCenter: v.DataCenter, Type: string(v.Type)}
}

// AddNetworkVolume stores a network volume and returns its id: state for a
// test or demo to start from without going through POST
// /v2/network-volumes. Zero fields get the defaults NetworkVolume lists;
// the data center is not checked, so a test may place a volume anywhere.
func (s *Server) AddNetworkVolume(v NetworkVolume) string {
	v.ID = cmp.Or(v.ID, randomID(volumeIDLength))
	v.Size = cmp.Or(v.Size, defaultVolumeSize)
	v.DataCenter = cmp.Or(v.DataCenter, "EU-RO-1")
	if v.Type == "" {
		v.Type = "STANDARD"
		if tiers, _ := s.volumeTiers(v.DataCenter); len(tiers) > 0 {
			v.Type = volumes.VolumeType(tiers[0])
		}
	}
	s.volumes.mu.Lock()
	defer s.volumes.mu.Unlock()
	return s.storeVolumeLocked(v).ID
}

// NetworkVolumes returns a snapshot of the fake's network volumes, in the
// order they were created.
func (s *Server) NetworkVolumes() []NetworkVolume {
	s.volumes.mu.Lock()
	defer s.volumes.mu.Unlock()
	out := []NetworkVolume{}
	for _, v := range s.sortedVolumesLocked() {
		out = append(out, v.NetworkVolume)
	}
	return out
}

// storeVolumeLocked stores v as the newest volume. s.volumes.mu is held.
func (s *Server) storeVolumeLocked(v NetworkVolume) *fakeVolume {
	s.volumes.seq++
	fv := &fakeVolume{NetworkVolume: v, seq: s.volumes.seq}
	s.volumes.byID[v.ID] = fv
	return fv
}

// sortedVolumesLocked returns the volumes in creation order. s.volumes.mu
// is held.
func (s *Server) sortedVolumesLocked() []*fakeVolume {
	list := make([]*fakeVolume, 0, len(s.volumes.byID))
	for _, v := range s.volumes.byID {
		list = append(list, v)
	}
	slices.SortFunc(list, func(a, b *fakeVolume) int { return cmp.Compare(a.seq, b.seq) })
	return list
}

// volumeNotFound is the fake's answer about a network volume it does not
// have.
const volumeNotFound = "network volume not found"

// listVolumes answers GET /v2/network-volumes, in the order the volumes
// were created.
func (s *Server) listVolumes(w http.ResponseWriter, _ *http.Request) {
	s.volumes.mu.Lock()
	list := []volumeJSON{}
	for _, v := range s.sortedVolumesLocked() {
		list = append(list, v.json())
	}
	s.volumes.mu.Unlock()
	WriteJSON(w, map[string]any{"networkVolumes": list})
}

// deleteVolume deletes a network volume nothing uses. A volume a
// serverless endpoint or a pod (a cluster's pods too) mounts is refused
// with 400 naming what uses it: the platform refuses to delete a volume
// still attached ("You must remove this network volume from all pods
// before deleting it.", its answer to deleteNetworkVolume recorded in
// dstackai/dstack PR #3781), and the REST document gives the in-use
// refusal of the same kind for templates and registries 400
// (../shared/reference/platform-openapi-v2.json, deleteTemplate and
// deleteRegistry). The locks are taken in the fake's order (graphql, pods,
// volumes) and held together, so that no endpoint or pod can take the
// volume between the check and the delete.
func (s *Server) deleteVolume(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	s.volumes.mu.Lock()
	defer s.volumes.mu.Unlock()
	if _, ok := lookup(w, r, s.volumes.byID, volumeNotFound); !ok {
		return
	}
	if user := s.volumeUserLocked(id); user != "" {
		Problem(w, http.StatusBadRequest, "network volume is in use by "+user+" and cannot be deleted: remove it from every pod and serverless endpoint first")
		return
	}
	delete(s.volumes.byID, id)
	// Its files go with it (volumefiles.go), and what the S3 API knew of
	// them; the S3 lock comes after the volumes lock in the fake's order.
	s.removeVolumeFiles(id)
	w.WriteHeader(http.StatusNoContent)
}

// volumeUserLocked names the first serverless endpoint, or else pod, that
// mounts network volume id ("serverless endpoint <id>", "pod <id>"), or
// returns "" when none does. s.graphql.mu and s.pods.mu are held.
func (s *Server) volumeUserLocked(id string) string {
	for _, eid := range slices.Sorted(maps.Keys(s.graphql.endpoints)) {
		if slices.Contains(s.graphql.endpoints[eid].volumes(), id) {
			return "serverless endpoint " + eid
		}
	}
	for _, pid := range slices.Sorted(maps.Keys(s.pods.byID)) {
		p := s.pods.byID[pid]
		if slices.ContainsFunc(p.mounts.Network, func(m networkJSON) bool { return m.VolumeID == id }) {
			if p.cluster != nil {
				return "pod " + pid + " of cluster " + p.cluster.ID
			}
			return "pod " + pid
		}
	}
	return ""
}

// volumeDataCenter returns the data center of network volume id, and
// false when the fake has no such volume. It takes the volumes lock, which
// is the last of the fake's locks: a caller may hold the graphql or the
// pods lock.
func (s *Server) volumeDataCenter(id string) (string, bool) {
	s.volumes.mu.Lock()
	defer s.volumes.mu.Unlock()
	v := s.volumes.byID[id]
	if v == nil {
		return "", false
	}
	return v.DataCenter, true
}

// volumeProblem is what is wrong with a reference to a network volume.
type volumeProblem struct {
	index int    // which of the ids
	msg   string // the refusal's wording
}

// refuseMount answers 400 naming the pod's (or cluster's) network mount at
// fault.
func (vp *volumeProblem) refuseMount(w http.ResponseWriter) {
	badRequest(w, fmt.Sprintf("mounts.network[%d].volumeId", vp.index), "%s", vp.msg)
}

// checkVolumeRefs checks the network volumes a pod, cluster or endpoint
// names, as the platform does: each must exist (a pod's
// mounts.network[].volumeId is "ID of an existing NetworkVolume",
// platform-openapi-v2.json NetworkMount), and it must be in a data center
// the resource may run in, when dcs restricts them (a pod's volume is "in
// the same data center as the pod", NetworkMount; a volume is tied to its
// data center, docs storage/network-volumes and flash/configuration/
// storage, so an endpoint's workers that mount it run there). Volumes
// that do not exist are skipped when exist is false (a fixture's volumes,
// which AddEndpoint does not check, on a change of data centers only). It
// returns nil when all is well.
func (s *Server) checkVolumeRefs(ids, dcs []string, exist bool) *volumeProblem {
	for i, id := range ids {
		dc, ok := s.volumeDataCenter(id)
		switch {
		case !ok && exist:
			return &volumeProblem{i, fmt.Sprintf("network volume %s not found", id)}
		case ok && len(dcs) > 0 && !slices.Contains(dcs, dc):
			return &volumeProblem{i, fmt.Sprintf("network volume %s is in data center %s, which is not among the data centers allowed (%s)",
				id, dc, strings.Join(dcs, ", "))}
		}
	}
	return nil
}

func (s *Server) createVolume(w http.ResponseWriter, r *http.Request) {
	var req createVolumeJSON
	if !decodeBody(w, r, &req) {
		return
	}
	tiers, ok := s.volumeTiers(req.DataCenter)
	switch {
	case !ok:
		badRequest(w, "dataCenter", "unknown data center %q: GET /v2/catalog/datacenters lists the data centers", req.DataCenter)
		return
	case len(tiers) == 0:
		badRequest(w, "dataCenter", "data center %s offers no network volumes", req.DataCenter)
		return
	case req.Type != nil && !slices.Contains(tiers, *req.Type):
		badRequest(w, "type", "data center %s does not offer %s network volumes", req.DataCenter, *req.Type)
		return
	}
	tier := tiers[0]
	if req.Type != nil {
		tier = *req.Type
	}
	v := NetworkVolume{ID: randomID(volumeIDLength), Name: req.Name, Size: req.Size, DataCenter: req.DataCenter, Type: volumes.VolumeType(tier)}
	writeCreated(w, locked(&s.volumes.mu, func() volumeJSON { return s.storeVolumeLocked(v).json() }))
}

// updateVolume renames or grows a volume. A size below the current one is
// refused with 400 naming size, as the document says; the same size again
// is no change, so a repeated grow succeeds.
func (s *Server) updateVolume(w http.ResponseWriter, r *http.Request) {
	var req updateVolumeJSON
	if !decodeBody(w, r, &req) {
		return
	}
	withResource(w, r, &s.volumes.mu, s.volumes.byID, volumeNotFound, func(v *fakeVolume) {
		if req.Size != nil && *req.Size < v.Size {
			badRequest(w, "size", "a network volume cannot shrink: %d GB is below its current %d GB", *req.Size, v.Size)
			return
		}
		set(&v.Name, req.Name)
		set(&v.Size, req.Size)
		WriteJSON(w, v.json())
	})
}

// volumeIDLength is the length of a network volume's id, ten lowercase
// letters and digits like the platform's.
const volumeIDLength = 10
