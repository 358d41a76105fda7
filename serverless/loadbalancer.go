package serverless

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// LoadBalancer sends HTTP requests to a load-balancing endpoint, whose
// workers serve their own routes at https://<endpoint_id>.<inference host>.
// Requests go through the SDK's transport: the key as a Bearer header,
// retries per the transport's table, typed errors.
type LoadBalancer struct {
	t  *transport.Transport
	id string
}

// LoadBalancer returns the client of load-balancing endpoint id.
func (s *Service) LoadBalancer(id string) *LoadBalancer { return &LoadBalancer{t: s.t, id: id} }

// BaseURL returns the endpoint's address, https://<id>.<inference host>.
func (lb *LoadBalancer) BaseURL() (*url.URL, error) {
	id := strings.TrimSpace(lb.id)
	if id == "" || strings.ContainsAny(id, "./:@ ") {
		return nil, fail.Invalid("endpoint id", "want a plain endpoint id, got %q", lb.id)
	}
	base := lb.t.InferenceURL("")
	host := base.Hostname()
	if net.ParseIP(host) != nil {
		return nil, fail.Invalid("inference URL", "load-balancing endpoints need a host name, not the IP %s", host)
	}
	base.Host = id + "." + base.Host
	base.Path = strings.TrimSuffix(base.Path, "/")
	return base, nil
}

// Affinity asks the load balancer for a particular worker, by the id a
// previous response's WorkerID reported.
type Affinity struct {
	// WorkerID is the worker to ask for: an LBResponse.WorkerID.
	WorkerID string
	// Mode is "" (prefer the worker, else any), "strict" (that worker or
	// an error) or "strict-resume", as the platform's worker affinity
	// defines them. In the strict modes the platform answers 404 when the
	// worker is gone, and 400 when it waited too long for it.
	Mode string
}

// LBParams is a request to a load-balancing endpoint.
type LBParams struct {
	// Method is the HTTP method; empty means GET.
	Method string
	// Path is the worker route, such as "/generate"; it may carry a query.
	Path string
	// Body is sent as is; nil sends none. At most 30 MB, the platform's
	// payload limit.
	Body []byte
	// ContentType is the body's Content-Type; empty means
	// application/json. It is not sent without a Body.
	ContentType string
	// Header holds more request headers, sent as given; the SDK sets
	// Authorization, User-Agent and (with a Body) Content-Type itself,
	// over any given here.
	Header http.Header
	// Affinity, when set, is sent as the X-Runpod-Worker-Id header.
	Affinity *Affinity
	// Idempotent marks a request the worker can safely receive twice;
	// GET, HEAD, PUT, DELETE and OPTIONS are so by default.
	Idempotent bool
}

// LBResponse is a worker's 2xx answer. Other statuses are
// *errs.APIError.
type LBResponse struct {
	// StatusCode is the worker's 2xx status.
	StatusCode int
	// Header is the response's header.
	Header http.Header
	// Body is the whole response body, at most MaxLBBody bytes; empty
	// when the worker sent none.
	Body []byte
	// WorkerID is the worker that answered (X-Runpod-Worker-Id), for
	// affinity.
	WorkerID string
}

// MaxLBBody caps the response body Do reads, in bytes (30 MiB): the
// platform's payload limit. A larger body fails the call with a
// *errs.ResponseError matching errs.ErrResponseTooLarge.
const MaxLBBody = 30 << 20

// routeLB is the route template of every request to a load-balancing
// endpoint: the worker's routes are the caller's own, so one template
// names them all (the request's URL has the path).
const routeLB = "/{path}"

// Do sends req and reads the whole response (up to MaxLBBody).
func (lb *LoadBalancer) Do(ctx context.Context, req LBParams, opts ...option.RequestOption) (*LBResponse, error) {
	base, err := lb.BaseURL()
	if err != nil {
		return nil, err
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	ref, err := url.Parse(req.Path)
	if err != nil || !strings.HasPrefix(req.Path, "/") || ref.Host != "" {
		return nil, fail.Invalid("LBParams.Path", "want an absolute path such as /generate, got %q", req.Path)
	}
	u := *base
	u.Path += ref.Path
	u.RawQuery = ref.RawQuery
	h := req.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if a := req.Affinity; a != nil {
		v, err := a.header()
		if err != nil {
			return nil, err
		}
		h.Set("X-Runpod-Worker-Id", v)
	}
	idempotent := req.Idempotent
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		idempotent = true
	}
	resp, body, err := lb.t.DoBody(ctx, &transport.Request{Method: method, URL: &u, Route: routeLB, Body: req.Body, ContentType: req.ContentType, Header: h, Idempotent: idempotent, MaxBody: MaxLBBody}, opts...)
	if err != nil {
		return nil, err
	}
	return &LBResponse{StatusCode: resp.StatusCode, Header: resp.Header, Body: body, WorkerID: resp.Header.Get("X-Runpod-Worker-Id")}, nil
}

func (a *Affinity) header() (string, error) {
	id := strings.TrimSpace(a.WorkerID)
	if id == "" || strings.ContainsAny(id, " \r\n") {
		return "", fail.Invalid("Affinity.WorkerID", "want a worker id, got %q", a.WorkerID)
	}
	switch a.Mode {
	case "":
		return id, nil
	case "strict", "strict-resume":
		return a.Mode + " " + id, nil
	}
	return "", fail.Invalid("Affinity.Mode", `want "", "strict" or "strict-resume", got %q`, a.Mode)
}

// PingState is a load-balancing endpoint's health as /ping reports it.
type PingState string

const (
	// PingStateReady (200): a worker is serving.
	PingStateReady PingState = "ready"
	// PingStateInitializing (204): a worker is starting.
	PingStateInitializing PingState = "initializing"
	// PingStateUnhealthy: any other answer, or none.
	PingStateUnhealthy PingState = "unhealthy"
)

// Ping checks /ping once: ready (200), initializing (204) or unhealthy
// (another status, a server error, or no answer). A 401, 403 or 404 is
// returned as the error it is: a key that is refused or an endpoint that
// does not exist does not become healthy by waiting.
func (lb *LoadBalancer) Ping(ctx context.Context, opts ...option.RequestOption) (PingState, error) {
	resp, err := lb.Do(ctx, LBParams{Method: http.MethodGet, Path: "/ping"}, opts...)
	if err == nil {
		switch resp.StatusCode {
		case http.StatusOK:
			return PingStateReady, nil
		case http.StatusNoContent:
			return PingStateInitializing, nil
		}
		return PingStateUnhealthy, nil
	}
	var apiErr *errs.APIError
	var te *errs.TransportError
	switch {
	case errors.As(err, &apiErr) && isFinal(apiErr.StatusCode):
		return PingStateUnhealthy, err
	case errors.As(err, &apiErr), errors.As(err, &te) && ctx.Err() == nil:
		return PingStateUnhealthy, nil
	}
	return PingStateUnhealthy, err
}

// isFinal reports whether a /ping answer will not change by waiting.
func isFinal(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// WaitReady polls /ping until it answers 200, for as long as ctx allows.
// 204 (initializing), server errors and failed connections keep it
// waiting; cold starts take a while. A 401, 403 or 404 ends it at once
// with that error. It checks every o.Interval (the platform suggests 5 to
// 10 s before sending real traffic) and passes each state to o.OnCheck.
func (lb *LoadBalancer) WaitReady(ctx context.Context, o option.Poll[PingState], opts ...option.RequestOption) error {
	interval := lb.t.PollInterval(o.Interval)
	last := PingState("unknown")
	for {
		state, err := lb.Ping(ctx, opts...)
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("runpod: load-balancing endpoint %s: %w", lb.id, err)
		}
		if err == nil {
			last = state
			wait.Saw(o, state)
			if state == PingStateReady {
				return nil
			}
		}
		if err := wait.Sleep(ctx, interval); err != nil {
			return fmt.Errorf("runpod: load-balancing endpoint %s not ready (last %s): %w", lb.id, last, err)
		}
	}
}
