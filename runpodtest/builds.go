package runpodtest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/runpodkit/runpod-go/serverless"
)

// An endpoint's GitHub builds, as the REST v2 API serves them
// (GET /v2/serverless/{id}/builds and /builds/{buildId}; docs.runpod.io
// /api-reference-v2/serverless/list-serverless-endpoint-builds and
// get-a-serverless-endpoint-build, with the @runpod/mcp-server 4.0.0
// schema):
//
//   - The list holds the endpoint's 100 newest builds, the newest first,
//     and has no further pages; an older build is still read by its id.
//   - A build is read by id whatever its age; an unknown endpoint or build
//     is a 404.
//   - The fake starts no build itself (it has no GitHub): AddBuild records
//     one, and AddRelease with serverless.ReleaseSourceGitBuild records
//     the build it names, COMPLETED, unless AddBuild recorded it first.

// Routes of the REST v2 operations on an endpoint's builds.
const (
	RouteEndpointBuilds = "GET /v2/serverless/{id}/builds"
	RouteEndpointBuild  = "GET /v2/serverless/{id}/builds/{buildId}"
)

// maxListedBuilds is how many builds the list holds: the newest 100.
const maxListedBuilds = 100

// Build is a GitHub build of an endpoint as a test records it with
// AddBuild.
type Build struct {
	// ID is the build's id; AddBuild makes one ("build00001") when empty.
	ID string
	// Status is where the build is; empty means
	// serverless.EndpointBuildStatusCompleted.
	Status serverless.EndpointBuildStatus
	// CommitHash, CommitMessage and Branch describe the commit that
	// started the build; empty ones are reported as null.
	CommitHash, CommitMessage, Branch string
	// CommitDate is when the commit was authored; zero is reported as
	// null.
	CommitDate time.Time
	// ImageName is the image the build makes; empty is reported as null.
	ImageName string
	// StartedAt is when the build started; zero means now (by the fake's
	// clock), except for a PENDING build, which has not started (null).
	StartedAt time.Time
}

// AddBuild records a GitHub build of the endpoint, the newest so far, and
// returns its id; it returns "" for an unknown endpoint. A build with the
// id of one already recorded replaces it (a test moves a build along, from
// BUILDING to COMPLETED, by adding it again).
func (s *Server) AddBuild(endpointID string, b Build) string {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	if s.graphql.endpoints[endpointID] == nil {
		return ""
	}
	return s.graphql.addBuild(endpointID, b, s.now())
}

// addBuild records b as the endpoint's newest build and returns its id.
// g.mu is held.
func (g *graphqlUnit) addBuild(endpointID string, b Build, now time.Time) string {
	if g.builds == nil {
		g.builds = map[string][]Build{}
	}
	list := g.builds[endpointID]
	for n := len(list) + 1; b.ID == ""; n++ {
		if id := fmt.Sprintf("build%05d", n); !g.hasBuild(endpointID, id) {
			b.ID = id
		}
	}
	b.Status = cmp.Or(b.Status, serverless.EndpointBuildStatusCompleted)
	if b.StartedAt.IsZero() && b.Status != serverless.EndpointBuildStatusPending {
		b.StartedAt = now
	}
	list = slices.DeleteFunc(slices.Clip(list), func(old Build) bool { return old.ID == b.ID })
	g.builds[endpointID] = append(list, b)
	return b.ID
}

// hasBuild reports whether the endpoint has a build of that id. g.mu is
// held.
func (g *graphqlUnit) hasBuild(endpointID, id string) bool {
	return slices.ContainsFunc(g.builds[endpointID], func(b Build) bool { return b.ID == id })
}

// buildJSON is a build as the REST v2 API reports it.
type buildJSON struct {
	ID            string     `json:"id"`
	Status        string     `json:"status"`
	CommitHash    *string    `json:"commitHash"`
	CommitMessage *string    `json:"commitMessage"`
	Branch        *string    `json:"branch"`
	CommitDate    *time.Time `json:"commitDate"`
	ImageName     *string    `json:"imageName"`
	StartedAt     *time.Time `json:"startedAt"`
}

func (b Build) json() buildJSON {
	return buildJSON{ID: b.ID, Status: string(b.Status), CommitHash: nullIfZero(b.CommitHash), CommitMessage: nullIfZero(b.CommitMessage),
		Branch: nullIfZero(b.Branch), CommitDate: nullIfZero(b.CommitDate.UTC()), ImageName: nullIfZero(b.ImageName),
		StartedAt: nullIfZero(b.StartedAt.UTC())}
}

// nullIfZero returns v, or nil (null on the wire) when v is its type's
// zero value.
func nullIfZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// builds returns the endpoint's builds, oldest first; for an unknown
// endpoint it answers 404 and reports false.
func (s *Server) builds(w http.ResponseWriter, endpointID string) ([]Build, bool) {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	if s.graphql.endpoints[endpointID] == nil {
		Problem(w, http.StatusNotFound, "endpoint not found")
		return nil, false
	}
	return slices.Clone(s.graphql.builds[endpointID]), true
}

func (s *Server) registerBuilds() {
	read := s.routes(PermissionServerlessRead)
	read(RouteEndpointBuilds, func(w http.ResponseWriter, r *http.Request) {
		builds, ok := s.builds(w, r.PathValue("id"))
		if !ok {
			return
		}
		out := []buildJSON{}
		for _, b := range slices.Backward(builds) {
			if len(out) == maxListedBuilds {
				break
			}
			out = append(out, b.json())
		}
		WriteJSON(w, map[string]any{"builds": out})
	})
	read(RouteEndpointBuild, func(w http.ResponseWriter, r *http.Request) {
		builds, ok := s.builds(w, r.PathValue("id"))
		if !ok {
			return
		}
		i := slices.IndexFunc(builds, func(b Build) bool { return b.ID == r.PathValue("buildId") })
		if i < 0 {
			Problem(w, http.StatusNotFound, "build not found")
			return
		}
		WriteJSON(w, builds[i].json())
	})
}
