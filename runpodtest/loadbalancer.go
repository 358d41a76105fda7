package runpodtest

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/runpodkit/runpod-go/serverless"
)

// loadBalancerUnit maps endpoint ids to their load-balancing endpoints.
type loadBalancerUnit struct {
	mu   sync.Mutex
	byID map[string]*LoadBalancer
}

// LoadBalancer is a fake load-balancing endpoint, served at
// <id>.<inference host>.
type LoadBalancer struct {
	s       *Server
	id      string
	h       http.Handler
	engine  http.Handler
	mu      sync.Mutex
	ping    serverless.PingState
	workers []string
	next    int
}

// HandleLoadBalancer makes id a load-balancing endpoint whose workers run
// h. It starts ready (serverless.PingStateReady) with two workers. Requests carry the platform's
// X-Runpod-Worker-Id response header and honour worker affinity.
func (s *Server) HandleLoadBalancer(id string, h http.Handler) *LoadBalancer {
	lb := &LoadBalancer{s: s, id: id, h: h, ping: serverless.PingStateReady, workers: []string{id + "-w1", id + "-w2"}}
	lb.engine = s.wrap(Route{Pattern: RouteLoadBalancer(id), Permission: PermissionInference, Inference: true}, http.HandlerFunc(lb.serve))
	s.loadBalancers.mu.Lock()
	defer s.loadBalancers.mu.Unlock()
	s.loadBalancers.byID[id] = lb
	return lb
}

// RouteLoadBalancer is the route name of load-balancing endpoint id, for
// FailNext, SetLatency, Count and Acted.
func RouteLoadBalancer(id string) string { return "LB " + id }

// SetPing sets what /ping answers: 200 for serverless.PingStateReady, 204 for
// PingInitializing, 503 for anything else. Anything but PingReady also
// makes other requests fail with 503 {"error":"no workers available"}.
func (lb *LoadBalancer) SetPing(p serverless.PingState) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	lb.ping = p
}

// SetWorkers replaces the endpoint's worker ids.
func (lb *LoadBalancer) SetWorkers(ids ...string) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	lb.workers = slices.Clone(ids)
}

func (s *Server) serveLoadBalancer(id string, w http.ResponseWriter, r *http.Request) {
	s.loadBalancers.mu.Lock()
	lb := s.loadBalancers.byID[id]
	s.loadBalancers.mu.Unlock()
	if lb == nil {
		s.unrouted(s.inferenceMux, w, r)
		return
	}
	lb.engine.ServeHTTP(w, r)
}

func (lb *LoadBalancer) serve(w http.ResponseWriter, r *http.Request) {
	lb.mu.Lock()
	ping := lb.ping
	lb.mu.Unlock()
	if r.URL.Path == "/ping" {
		switch ping {
		case serverless.PingStateReady:
			WriteJSON(w, map[string]string{"status": "healthy"})
		case serverless.PingStateInitializing:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		return
	}
	if ping != serverless.PingStateReady {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":"no workers available"}` + "\n"))
		return
	}
	worker, ok := lb.pick(r.Header.Get("X-Runpod-Worker-Id"))
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"affinity_worker_gone"}` + "\n"))
		return
	}
	w.Header().Set("X-Runpod-Worker-Id", worker)
	lb.h.ServeHTTP(w, r)
}

// pick chooses a worker: the one the affinity header names when it exists
// ("<id>", "strict <id>" or "strict-resume <id>"), otherwise round robin;
// a strict affinity to a missing worker fails.
func (lb *LoadBalancer) pick(affinity string) (string, bool) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	mode, id := "", strings.TrimSpace(affinity)
	if m, rest, ok := strings.Cut(id, " "); ok {
		mode, id = m, strings.TrimSpace(rest)
	}
	if id != "" {
		if slices.Contains(lb.workers, id) {
			return id, true
		}
		if mode == "strict" || mode == "strict-resume" {
			return "", false
		}
	}
	if len(lb.workers) == 0 {
		return "", false
	}
	lb.next++
	return lb.workers[lb.next%len(lb.workers)], true
}
