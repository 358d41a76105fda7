package runpodtest

import (
	"crypto/rand"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// What the REST surfaces share: each unit keeps its resources in a map by
// id under its own lock, lists them ordered by id and gets one by the
// request's {id} (404 when there is none), decodes a request's body (400
// when it cannot), answers a create with 201, and makes ids shaped like
// the platform's.

// registerREST adds the REST v2 routes of the surfaces whose unit keeps
// its resources by id: pods, network volumes, templates, instant
// clusters, serverless endpoints and registry credentials. The handlers
// are in each surface's file; the list and get routes that need nothing
// but the resources are collections.
func (s *Server) registerREST() {
	pods := collection[*fakePod, podJSON]{&s.pods.mu, s.pods.byID, "pods", podNotFound, s.podJSONLocked}
	volumes := collection[*fakeVolume, volumeJSON]{&s.volumes.mu, s.volumes.byID, "networkVolumes", volumeNotFound, (*fakeVolume).json}
	templates := collection[*fakeTemplate, templateJSON]{&s.templates.mu, s.templates.byID, "templates", templateNotFound, (*fakeTemplate).json}
	clusters := collection[*fakeCluster, clusterJSON]{&s.clusters.mu, s.clusters.byID, "clusters", clusterNotFound, s.clusterJSON}
	endpoints := collection[*Endpoint, endpointJSON]{&s.graphql.mu, s.graphql.endpoints, "endpoints", endpointNotFound, s.endpointJSONLocked}
	s.handleREST(PermissionPodsRead, PermissionPodsWrite, map[string]http.HandlerFunc{
		RoutePods:      s.listPods,
		RoutePod:       pods.get,
		RouteCreatePod: s.createPod,
		RouteUpdatePod: s.updatePod,
		RouteDeletePod: s.deletePod,
		RoutePodAction: s.podAction,
		RoutePodLogs:   s.servePodLogs,
	})
	s.handleREST(PermissionVolumesRead, PermissionVolumesWrite, map[string]http.HandlerFunc{
		RouteNetworkVolumes:      s.listVolumes,
		RouteNetworkVolume:       volumes.get,
		RouteCreateNetworkVolume: s.createVolume,
		RouteUpdateNetworkVolume: s.updateVolume,
		RouteDeleteNetworkVolume: s.deleteVolume,
	})
	s.handleREST(PermissionTemplatesRead, PermissionTemplatesWrite, map[string]http.HandlerFunc{
		RouteTemplates:      templates.list,
		RouteTemplate:       templates.get,
		RouteCreateTemplate: s.createTemplate,
		RouteUpdateTemplate: s.updateTemplate,
		RouteDeleteTemplate: s.deleteTemplate,
	})
	s.handleREST(PermissionClustersRead, PermissionClustersWrite, map[string]http.HandlerFunc{
		RouteClusters:      clusters.list,
		RouteCluster:       clusters.get,
		RouteClusterPods:   s.clusterPods,
		RouteCreateCluster: s.createCluster,
		RouteUpdateCluster: s.updateCluster,
		RouteDeleteCluster: s.deleteCluster,
	})
	s.handleREST(PermissionServerlessRead, PermissionServerlessWrite, map[string]http.HandlerFunc{
		RouteEndpoints:      endpoints.list,
		RouteEndpoint:       endpoints.get,
		RouteCreateEndpoint: s.createEndpoint,
		RouteUpdateEndpoint: s.updateEndpoint,
		RouteDeleteEndpoint: s.deleteEndpoint,
	})
	s.handleREST(PermissionRegistriesRead, PermissionRegistriesWrite, map[string]http.HandlerFunc{
		RouteRegistries:       s.listRegistries,
		RouteRegistry:         s.getRegistry,
		RouteCreateRegistry:   s.createRegistry,
		RouteDeleteRegistry:   s.deleteRegistry,
		RouteDelegations:      s.listDelegations,
		RouteCreateDelegation: s.createDelegation,
		RouteRevokeDelegation: s.revokeDelegation,
	})
}

// handleREST adds a surface's REST routes, by pattern: a GET needs the
// surface's read permission, any other method its write permission.
func (s *engine) handleREST(read, write Permission, routes map[string]http.HandlerFunc) {
	for pattern, h := range routes {
		p := write
		if strings.HasPrefix(pattern, http.MethodGet+" ") {
			p = read
		}
		s.Handle(Route{Pattern: pattern, Permission: p}, h)
	}
}

// locked runs f with mu held and returns what it returns.
func locked[T any](mu *sync.Mutex, f func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return f()
}

// appendLocked appends v to *list with mu held.
func appendLocked[T any](mu *sync.Mutex, list *[]T, v ...T) {
	mu.Lock()
	defer mu.Unlock()
	*list = append(*list, v...)
}

// listOf renders the values of m ordered by id, leaving out those render
// declines (ok false). The list is never nil: an empty one is [] on the
// wire.
func listOf[V, J any](m map[string]V, render func(V) (J, bool)) []J {
	out := []J{}
	for _, id := range slices.Sorted(maps.Keys(m)) {
		if v, ok := render(m[id]); ok {
			out = append(out, v)
		}
	}
	return out
}

// every is a render for listOf that keeps every value.
func every[V, J any](render func(V) J) func(V) (J, bool) {
	return func(v V) (J, bool) { return render(v), true }
}

// serveList answers a list route: the values of m that render keeps,
// rendered under mu and ordered by id, as {key: [...]}. A request for a
// page of a paged list (pageOf) gets that page and its pagination, only
// its values rendered: the page starts after the id its cursor ended
// with.
func serveList[V, J any](w http.ResponseWriter, r *http.Request, mu *sync.Mutex, key string, m map[string]V, render func(V) (J, bool)) {
	p := pageOf(r)
	if p == nil {
		mu.Lock()
		list := listOf(m, render)
		mu.Unlock()
		WriteJSON(w, map[string]any{key: list})
		return
	}
	mu.Lock()
	ids := slices.Sorted(maps.Keys(m))
	i := 0
	if p.cursor != nil {
		i, _ = slices.BinarySearch(ids, p.cursor.last)
		if i < len(ids) && ids[i] == p.cursor.last {
			i++
		}
	}
	list, page := []J{}, pagination{}
	for ; i < len(ids); i++ {
		v, ok := render(m[ids[i]])
		if !ok {
			continue
		}
		if len(list) == p.size {
			page = pagination{NextCursor: p.next(ids[i-1], i), HasNextPage: true}
			break
		}
		list = append(list, v)
	}
	mu.Unlock()
	p.served = true
	WriteJSON(w, map[string]any{key: list, "pagination": page})
}

// lookup returns the value of m the request's {id} names, or answers 404
// with notFound and reports false.
func lookup[V any](w http.ResponseWriter, r *http.Request, m map[string]V, notFound string) (V, bool) {
	v, ok := m[r.PathValue("id")]
	if !ok {
		Problem(w, http.StatusNotFound, notFound)
	}
	return v, ok
}

// collection is a unit's resources as its list and get routes serve
// them: by id in a map under the unit's lock, each rendered as the
// document describes it. A unit makes its map once, so a collection can
// keep it.
type collection[V, J any] struct {
	mu       *sync.Mutex
	byID     map[string]V
	key      string // the list answer is {key: [...]}
	notFound string // the answer about an id the map lacks
	render   func(V) J
}

// list answers the list route: every resource, ordered by id.
func (c collection[V, J]) list(w http.ResponseWriter, r *http.Request) {
	serveList(w, r, c.mu, c.key, c.byID, every(c.render))
}

// get answers the get route: the resource the request's {id} names, or
// 404.
func (c collection[V, J]) get(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, c.mu, c.byID, c.notFound, func(v V) { WriteJSON(w, c.render(v)) })
}

// writeOne answers a get route: the value of m the request's {id} names,
// rendered, or 404 with notFound.
func writeOne[V, J any](w http.ResponseWriter, r *http.Request, m map[string]V, notFound string, render func(V) J) {
	if v, ok := lookup(w, r, m, notFound); ok {
		WriteJSON(w, render(v))
	}
}

// withResource runs f, with mu held, on the value of m the request's {id}
// names, or answers 404 with notFound.
func withResource[V any](w http.ResponseWriter, r *http.Request, mu *sync.Mutex, m map[string]V, notFound string, f func(V)) {
	mu.Lock()
	defer mu.Unlock()
	if v, ok := lookup(w, r, m, notFound); ok {
		f(v)
	}
}

// decodeBody decodes the request's JSON body into v, or answers 400 and
// reports false. The document's schema has checked the body before the
// handler runs, so this is a last guard.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		Problem(w, http.StatusBadRequest, "request could not be processed", "$: "+err.Error())
		return false
	}
	return true
}

// writeCreated writes v as a 201 application/json response, the answer
// to a create.
func writeCreated(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(v)
}

// randomID returns n random lower-case letters and digits, the shape of
// the platform's ids.
func randomID(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}

// newPodID makes a pod's (and a cluster's) id: 14 random lower-case
// letters and digits.
func newPodID() string { return randomID(14) }
