// Package pods manages RunPod pods over the REST v2 API and tells how to
// reach them: the HTTP proxy URL of an exposed HTTP port, and the public
// IP and mapped port of an exposed TCP port.
//
//	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
//		Name:  "notebook",
//		Image: runpod.Ptr("runpod/pytorch:2.4.0"),
//		GPU:   &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090"},
//		Ports: []string{"8888/http", "22/tcp"},
//	})
//	u, _ := rp.Pods.ProxyURL(pod.ID, 8888)          // https://<id>-8888.proxy.runpod.net
//	addr, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, pods.WaitOptions{}) // 203.0.113.7:10341
//
// Create and actions are never repeated after an ambiguous failure
// (runpod.ErrOutcomeUnknown); reads, updates and deletes are retried.
package pods

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/internal/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service manages pods. Get it as runpod.Client.Pods.
type Service struct {
	t *transport.Transport
}

// NewService is called by runpod.NewClient; applications use rp.Pods.
func NewService(t *transport.Transport) *Service { return &Service{t: t} }

// ListOptions filters List.
type ListOptions struct {
	// IncludeClusterPods also lists pods that belong to clusters.
	IncludeClusterPods bool
}

// List returns the account's pods.
func (s *Service) List(ctx context.Context, o ListOptions, opts ...transport.CallOption) ([]Pod, error) {
	u := s.t.BaseURL("/v2/pods")
	if o.IncludeClusterPods {
		u.RawQuery = "includeClusterPods=true"
	}
	var out ListPodsResponse
	if err := s.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Idempotent: true}, &out, opts...); err != nil {
		return nil, err
	}
	return out.Pods, nil
}

// Get returns one pod; an unknown id is an error matching
// runpod.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...transport.CallOption) (*Pod, error) {
	u, err := s.podURL(id, "")
	if err != nil {
		return nil, err
	}
	var p Pod
	if err := s.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Idempotent: true}, &p, opts...); err != nil {
		return nil, err
	}
	return &p, nil
}

// Create creates a pod. The request is validated first (nothing is sent
// when it is invalid) and never repeated after it may have reached the
// platform: after an ambiguous failure the error matches
// runpod.ErrOutcomeUnknown, and List tells whether the pod exists.
func (s *Service) Create(ctx context.Context, req CreatePodRequest, opts ...transport.CallOption) (*Pod, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	body, err := transport.MarshalBody(req)
	if err != nil {
		return nil, err
	}
	var p Pod
	if err := s.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: s.t.BaseURL("/v2/pods"), Body: body}, &p, opts...); err != nil {
		return nil, err
	}
	return &p, nil
}

// Update changes the fields req sets; the others stay. The same change
// applied twice gives the same pod, so it is retried like a read.
func (s *Service) Update(ctx context.Context, id string, req UpdatePodRequest, opts ...transport.CallOption) (*Pod, error) {
	u, err := s.podURL(id, "")
	if err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	body, err := transport.MarshalBody(req)
	if err != nil {
		return nil, err
	}
	var p Pod
	if err := s.t.DoJSON(ctx, &transport.Request{Method: http.MethodPatch, URL: u, Body: body, Idempotent: true}, &p, opts...); err != nil {
		return nil, err
	}
	return &p, nil
}

// Delete terminates and deletes a pod, irreversibly. A retried delete
// that finds the pod already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...transport.CallOption) error {
	u, err := s.podURL(id, "")
	if err != nil {
		return err
	}
	var info transport.ResponseInfo
	err = s.t.DoJSON(ctx, &transport.Request{Method: http.MethodDelete, URL: u, Idempotent: true}, nil, append(opts, transport.WithResponseInto(&info))...)
	if errors.Is(err, errs.ErrNotFound) && info.Attempts > 1 {
		return nil // an earlier attempt deleted it
	}
	return err
}

// Start boots a stopped (EXITED or ERROR) pod.
func (s *Service) Start(ctx context.Context, id string, opts ...transport.CallOption) (*Pod, error) {
	return s.action(ctx, id, PodActionStart, opts)
}

// Stop stops a pod, releasing its compute and keeping its disk.
func (s *Service) Stop(ctx context.Context, id string, opts ...transport.CallOption) (*Pod, error) {
	return s.action(ctx, id, PodActionStop, opts)
}

// Restart restarts a running pod's container in place.
func (s *Service) Restart(ctx context.Context, id string, opts ...transport.CallOption) (*Pod, error) {
	return s.action(ctx, id, PodActionRestart, opts)
}

// Terminate deletes the pod, like Delete, through the action route.
func (s *Service) Terminate(ctx context.Context, id string, opts ...transport.CallOption) error {
	_, err := s.action(ctx, id, PodActionTerminate, opts)
	return err
}

// action posts {"action": a}. An action the pod's status does not allow
// is a *runpod.APIError with status 409 (see Pod.Actions).
func (s *Service) action(ctx context.Context, id string, a PodAction, opts []transport.CallOption) (*Pod, error) {
	u, err := s.podURL(id, "/action")
	if err != nil {
		return nil, err
	}
	body, err := transport.MarshalBody(PodActionRequest{Action: a})
	if err != nil {
		return nil, err
	}
	var p *Pod
	err = s.t.DoDecode(ctx, &transport.Request{Method: http.MethodPost, URL: u, Body: body}, func(b []byte) error {
		if len(b) == 0 { // 204 No Content
			return nil
		}
		p = new(Pod)
		return json.Unmarshal(b, p)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Service) podURL(id, suffix string) (*url.URL, error) {
	if err := validPodID(id); err != nil {
		return nil, err
	}
	return s.t.BaseURL("/v2/pods/" + url.PathEscape(id) + suffix), nil
}

// validPodID checks a pod id: letters and digits, as the platform makes
// them.
func validPodID(id string) error {
	if id == "" {
		return errs.Invalid("podID", "is empty")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return errs.Invalid("podID", "want letters and digits, got %q", id)
		}
	}
	return nil
}

// Validate checks the request before anything is sent: a name, an image
// unless a template is given, at most one of gpu and cpu, well-formed
// ports and sizes.
func (r *CreatePodRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.Name) == "":
		return errs.Invalid("CreatePodRequest.Name", "is required")
	case (r.Image == nil || strings.TrimSpace(*r.Image) == "") && (r.TemplateID == nil || *r.TemplateID == ""):
		return errs.Invalid("CreatePodRequest.Image", "is required unless TemplateID is given")
	case r.GPU != nil && r.CPU != nil:
		return errs.Invalid("CreatePodRequest.CPU", "a pod has GPUs or a CPU flavor, not both")
	case r.GPU != nil && strings.TrimSpace(r.GPU.ID) == "":
		return errs.Invalid("CreatePodRequest.GPU.ID", "is required")
	case r.GPU != nil && r.GPU.Count != nil && *r.GPU.Count < 1:
		return errs.Invalid("CreatePodRequest.GPU.Count", "must be at least 1, got %d", *r.GPU.Count)
	case r.CPU != nil && (strings.TrimSpace(r.CPU.ID) == "" || r.CPU.VcpuCount < 2):
		return errs.Invalid("CreatePodRequest.CPU", "needs an id and at least 2 vCPUs")
	case r.Disk != nil && *r.Disk < 1:
		return errs.Invalid("CreatePodRequest.Disk", "must be at least 1 GB, got %d", *r.Disk)
	case r.Cloud != nil && !r.Cloud.Valid():
		return errs.Invalid("CreatePodRequest.Cloud", "want SECURE or COMMUNITY, got %q", *r.Cloud)
	}
	if err := validPorts("CreatePodRequest.Ports", r.Ports); err != nil {
		return err
	}
	return validMounts("CreatePodRequest.Mounts", r.Mounts)
}

// Validate checks the request before anything is sent.
func (r *UpdatePodRequest) Validate() error {
	switch {
	case r.Name != nil && strings.TrimSpace(*r.Name) == "":
		return errs.Invalid("UpdatePodRequest.Name", "must not be empty")
	case r.Disk != nil && *r.Disk < 1:
		return errs.Invalid("UpdatePodRequest.Disk", "must be at least 1 GB, got %d", *r.Disk)
	}
	if err := validPorts("UpdatePodRequest.Ports", r.Ports); err != nil {
		return err
	}
	return validMounts("UpdatePodRequest.Mounts", r.Mounts)
}

func validMounts(field string, m *Mounts) error {
	if m == nil {
		return nil
	}
	if p := m.Persistent; p != nil && (p.Size < 10 || !strings.HasPrefix(p.Path, "/")) {
		return errs.Invalid(field+".Persistent", "needs at least 10 GB and an absolute path")
	}
	if len(m.Network) > 1 {
		return errs.Invalid(field+".Network", "at most one network volume")
	}
	for _, n := range m.Network {
		if n.VolumeID == "" || !strings.HasPrefix(n.Path, "/") {
			return errs.Invalid(field+".Network", "needs a volume id and an absolute path")
		}
	}
	return nil
}
