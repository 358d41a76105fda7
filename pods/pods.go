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
//	addr, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, runpod.Poll[*pods.Pod]{}) // 203.0.113.7:10341
//
// Service (runpod.Client.Pods) lists, reads, creates, updates and deletes
// pods, runs their actions (Start, Stop, Restart, Terminate) and streams
// their logs (Logs). The request and pod types are generated from the
// platform's REST v2 document and keep its names: CreatePodRequest,
// UpdatePodRequest, Pod, ListPodsParams, GetPodLogsParams. Requests are
// validated before anything is sent: a *runpod.ValidationError names the
// field, such as "CreatePodRequest.Ports[0]".
//
// ProxyURL tells the HTTP proxy URL of an exposed HTTP port; TCPAddress
// tells the public address of an exposed TCP port once the pod runs, and
// WaitForTCP waits for it. When there is no address, the error says why:
// ErrNotRunning or ErrNotMapped (not yet), ErrPortNotExposed or ErrHTTPOnly
// (not ever).
//
// Create and actions are never repeated after an ambiguous failure
// (runpod.ErrOutcomeUnknown); reads, updates and deletes are retried.
package pods

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service manages pods. Get it as runpod.Client.Pods.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Pods = func(t *transport.Transport) any { return &Service{t: t} }
}

// List returns the account's pods. p.IncludeClusterPods, when true, also
// lists pods that belong to clusters.
func (s *Service) List(ctx context.Context, p ListPodsParams, opts ...option.CallOption) ([]Pod, error) {
	u := s.t.BaseURL("/v2/pods")
	if p.IncludeClusterPods != nil {
		u.RawQuery = "includeClusterPods=" + strconv.FormatBool(*p.IncludeClusterPods)
	}
	var out ListPodsResponse
	if err := s.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Idempotent: true}, &out, opts...); err != nil {
		return nil, err
	}
	return out.Pods, nil
}

// Get returns one pod; an unknown id is an error matching
// runpod.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.CallOption) (*Pod, error) {
	u, err := s.podURL(id, "")
	if err != nil {
		return nil, err
	}
	return rest.Get[Pod](ctx, s.t, u, opts)
}

// Create creates a pod. The request is validated first (nothing is sent
// when it is invalid) and never repeated after it may have reached the
// platform: after an ambiguous failure the error matches
// runpod.ErrOutcomeUnknown, and List tells whether the pod exists.
func (s *Service) Create(ctx context.Context, req CreatePodRequest, opts ...option.CallOption) (*Pod, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return rest.Create[Pod](ctx, s.t, s.t.BaseURL("/v2/pods"), req, opts)
}

// Update changes the fields req sets; the others stay. The same change
// applied twice gives the same pod, so it is retried like a read.
func (s *Service) Update(ctx context.Context, id string, req UpdatePodRequest, opts ...option.CallOption) (*Pod, error) {
	u, err := s.podURL(id, "")
	if err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return rest.Update[Pod](ctx, s.t, u, req, opts)
}

// Delete terminates and deletes a pod, irreversibly. A retried delete
// that finds the pod already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.CallOption) error {
	u, err := s.podURL(id, "")
	if err != nil {
		return err
	}
	return rest.Delete(ctx, s.t, u, opts)
}

// Start boots a stopped (EXITED or ERROR) pod.
func (s *Service) Start(ctx context.Context, id string, opts ...option.CallOption) (*Pod, error) {
	return s.action(ctx, id, PodActionStart, opts)
}

// Stop stops a pod, releasing its compute and keeping its disk.
func (s *Service) Stop(ctx context.Context, id string, opts ...option.CallOption) (*Pod, error) {
	return s.action(ctx, id, PodActionStop, opts)
}

// Restart restarts a running pod's container in place.
func (s *Service) Restart(ctx context.Context, id string, opts ...option.CallOption) (*Pod, error) {
	return s.action(ctx, id, PodActionRestart, opts)
}

// Terminate deletes the pod, like Delete, through the action route.
func (s *Service) Terminate(ctx context.Context, id string, opts ...option.CallOption) error {
	_, err := s.action(ctx, id, PodActionTerminate, opts)
	return err
}

// action posts {"action": a}. An action the pod's status does not allow
// is a *runpod.APIError with status 409 (see Pod.Actions).
func (s *Service) action(ctx context.Context, id string, a PodAction, opts []option.CallOption) (*Pod, error) {
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
	return rest.ItemURL(s.t, "/v2/pods", id, suffix, validPodID)
}

// validPodID checks a pod id: letters and digits, as the platform makes
// them.
func validPodID(id string) error { return rest.SegmentID("podID", id, "") }
