package serverless

import (
	"context"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// The REST v2 route templates of an endpoint's GitHub builds.
const (
	routeBuilds = "/v2/serverless/{endpointId}/builds"
	routeBuild  = "/v2/serverless/{endpointId}/builds/{buildId}"
)

// buildIDRule is the rule of a build id, such as "build_abc123".
var buildIDRule = rest.ID{Field: "buildID", Extra: "-_"}

// Builds returns the endpoint's GitHub builds, the newest first: what
// each built from which commit, and where it is. The platform lists the
// 100 newest builds and no more (the list has no further pages); Build
// reads an older one by id, such as an EndpointRelease.BuildID. An
// endpoint without GitHub builds has none (an empty slice). endpointID is
// checked before anything is sent (a *errs.ValidationError naming
// endpointID); an unknown endpoint is an error matching errs.ErrNotFound.
func (e *Endpoints) Builds(ctx context.Context, endpointID string, opts ...option.RequestOption) ([]EndpointBuild, error) {
	r, err := rest.Call[listEndpointBuildsResponse](ctx, e.t, http.MethodGet, rest.At(routeBuilds, endpointIDRule.Of(endpointID)), nil, opts)
	if err != nil {
		return nil, err
	}
	if r.Builds == nil {
		return []EndpointBuild{}, nil
	}
	return r.Builds, nil
}

// Build returns one GitHub build of the endpoint, however old. The ids
// are checked before anything is sent (a *errs.ValidationError naming
// endpointID or buildID); an unknown endpoint or build is an error
// matching errs.ErrNotFound.
func (e *Endpoints) Build(ctx context.Context, endpointID, buildID string, opts ...option.RequestOption) (*EndpointBuild, error) {
	return rest.Call[EndpointBuild](ctx, e.t, http.MethodGet, rest.At(routeBuild, endpointIDRule.Of(endpointID), buildIDRule.Of(buildID)), nil, opts)
}

// Terminal reports whether the build has ended: completed, failed,
// cancelled or failed its tests.
func (s EndpointBuildStatus) Terminal() bool {
	switch s {
	case EndpointBuildStatusCompleted, EndpointBuildStatusFailed, EndpointBuildStatusCancelled, EndpointBuildStatusTestFailed:
		return true
	}
	return false
}
