package pods

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"strconv"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// Routes of the REST v2 document.
const (
	podsRoute   = "/v2/pods"
	podRoute    = "/v2/pods/{podId}"
	actionRoute = "/v2/pods/{podId}/action"
	logsRoute   = "/v2/pods/{podId}/logs"
)

// podIDRule is the rule of pod ids: letters and digits, as the platform makes
// them.
var podIDRule = rest.ID{Field: "podID"}

// podAt is the Path of one pod.
func podAt(id string) rest.Path { return rest.At(podRoute, podIDRule.Of(id)) }

// List returns the account's pods, every page of them (All reads them a
// page at a time). p.IncludeClusterPods, when true, also lists pods that
// belong to clusters.
func (s *Service) List(ctx context.Context, p ListPodsParams, opts ...option.RequestOption) ([]Pod, error) {
	r, err := rest.List(ctx, s.t, podsAt(p), opts, podPage)
	return r.Pods, err
}

// All returns the pods List returns, one at a time, holding one page of
// them: the first page is asked for when the loop starts, a failure ends
// the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, p ListPodsParams, opts ...option.RequestOption) iter.Seq2[Pod, error] {
	return rest.All(ctx, s.t, podsAt(p), opts, podPage)
}

// podsAt is the Path of the pod listing p asks for.
func podsAt(p ListPodsParams) rest.Path { return rest.At(podsRoute).Query(p.query()) }

// podPage tells where a page of the pod listing keeps its pods.
func podPage(r *listPodsResponse) (*[]Pod, *rest.Pagination) {
	return &r.Pods, (*rest.Pagination)(r.Pagination)
}

func (p ListPodsParams) query() string {
	if p.IncludeClusterPods == nil {
		return ""
	}
	return "includeClusterPods=" + strconv.FormatBool(*p.IncludeClusterPods)
}

// Get returns one pod; an unknown id is an error matching
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Pod, error) {
	return rest.Call[Pod](ctx, s.t, http.MethodGet, podAt(id), nil, opts)
}

// Create creates a pod. The request is validated first (nothing is sent
// when it is invalid) and never repeated after it may have reached the
// platform: after an ambiguous failure the error matches
// errs.ErrOutcomeUnknown, and List tells whether the pod exists.
//
// A create the platform refuses for want of capacity (a stock-out, or no
// host matching the request) is a *errs.CapacityError matching
// errs.ErrNoCapacity: nothing was created, and the request may be sent
// again, elsewhere (CreateWithFallback) or later (CreateWhenAvailable).
//
// A GPU pod's request always carries its GPU count: Create sends 1 when
// req.GPU.Count is nil or 0 (req itself is not changed). The document
// gives the count a default of 1, but the platform's scheduler matches no
// machine when the count is left out, and every such create fails as if
// no GPU were available (@runpod/mcp-server 3.3.0 CHANGELOG, verified
// live against both REST v2 hosts).
func (s *Service) Create(ctx context.Context, req CreatePodRequest, opts ...option.RequestOption) (*Pod, error) {
	req.GPU = withCount(req.GPU)
	p, err := rest.Call[Pod](ctx, s.t, http.MethodPost, rest.At(podsRoute), &req, opts)
	return p, fail.Capacity(err)
}

// withCount returns g with Count set to 1 when g leaves it nil or 0: a
// copy, so the caller's request is not changed. A nil g stays nil.
func withCount(g *CreateGPUConfig) *CreateGPUConfig {
	if g == nil || (g.Count != nil && *g.Count != 0) {
		return g
	}
	c, one := *g, 1
	c.Count = &one
	return &c
}

// Update changes the fields req sets; the others stay. The same change
// applied twice gives the same pod, so it is retried like a read.
func (s *Service) Update(ctx context.Context, id string, req UpdatePodRequest, opts ...option.RequestOption) (*Pod, error) {
	return rest.Call[Pod](ctx, s.t, http.MethodPatch, podAt(id), &req, opts)
}

// Delete terminates and deletes a pod, irreversibly. A retried delete
// that finds the pod already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, podAt(id), opts)
}

// Start boots a stopped (EXITED or ERROR) pod. A stopped pod starts on
// the machine that holds its disk; when that machine has no free GPU the
// error is a *errs.CapacityError matching errs.ErrNoCapacity, and the pod
// stays stopped.
func (s *Service) Start(ctx context.Context, id string, opts ...option.RequestOption) (*Pod, error) {
	return s.action(ctx, id, PodActionStart, opts)
}

// Stop stops a pod, releasing its compute and keeping its disk.
func (s *Service) Stop(ctx context.Context, id string, opts ...option.RequestOption) (*Pod, error) {
	return s.action(ctx, id, PodActionStop, opts)
}

// Restart restarts a running pod's container in place.
func (s *Service) Restart(ctx context.Context, id string, opts ...option.RequestOption) (*Pod, error) {
	return s.action(ctx, id, PodActionRestart, opts)
}

// Terminate deletes the pod, like Delete, through the action route.
func (s *Service) Terminate(ctx context.Context, id string, opts ...option.RequestOption) error {
	_, err := s.action(ctx, id, PodActionTerminate, opts)
	return err
}

// action posts {"action": a}; the platform answers with the pod, or with
// no content. An action the pod's status does not allow is a
// *errs.APIError with status 409 (see Pod.Actions).
func (s *Service) action(ctx context.Context, id string, a PodAction, opts []option.RequestOption) (*Pod, error) {
	r, err := rest.At(actionRoute, podIDRule.Of(id)).Request(s.t, http.MethodPost, podActionRequest{Action: a})
	if err != nil {
		return nil, err
	}
	var p *Pod
	err = s.t.DoDecode(ctx, r, func(b []byte) error {
		if len(b) == 0 { // 204 No Content
			return nil
		}
		p = new(Pod)
		return json.Unmarshal(b, p)
	}, opts...)
	if err != nil {
		return nil, fail.Capacity(err)
	}
	return p, nil
}
