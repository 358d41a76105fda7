package runpodtest

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/pods"
)

// Routes of the REST v2 pod operations.
const (
	RoutePods      = "GET /v2/pods"
	RouteCreatePod = "POST /v2/pods"
	RoutePod       = "GET /v2/pods/{id}"
	RouteUpdatePod = "PATCH /v2/pods/{id}"
	RouteDeletePod = "DELETE /v2/pods/{id}"
	RoutePodAction = "POST /v2/pods/{id}/action"
	RoutePodLogs   = "GET /v2/pods/{id}/logs"
)

// Default boot phases of a fake pod: PROVISIONING, then STARTING, each this
// long, then RUNNING.
const DefaultPodPhase = 300 * time.Millisecond

// WithPodBoot sets how long a fake pod spends PROVISIONING and then
// STARTING before it is RUNNING (DefaultPodPhase each when not set).
func WithPodBoot(provisioning, starting time.Duration) Option {
	return func(s *Server) { s.podProvision, s.podStart = provisioning, starting }
}

type fakePod struct {
	pod          pods.Pod
	since        time.Time // when the current status began
	runningSince time.Time
	logs         []podLog
	seq          int
	changed      chan struct{}
}

type podLog struct {
	id   string
	line pods.LogEvent
}

// allowed lists the actions each status permits, as the platform does.
var allowed = map[pods.PodStatus][]pods.PodAction{
	pods.PodStatusRunning:      {pods.PodActionStop, pods.PodActionRestart, pods.PodActionTerminate},
	pods.PodStatusExited:       {pods.PodActionStart, pods.PodActionTerminate},
	pods.PodStatusError:        {pods.PodActionStart, pods.PodActionTerminate},
	pods.PodStatusProvisioning: {pods.PodActionStop, pods.PodActionTerminate},
	pods.PodStatusStarting:     {pods.PodActionStop, pods.PodActionTerminate},
}

// AppendPodLog adds a line to a fake pod's log, sent to everyone streaming
// it.
func (s *Server) AppendPodLog(id string, source pods.LogSource, line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pods[id]; p != nil {
		p.log(s.now(), source, line)
	}
}

// SetPodStatus forces a fake pod into a status (for example ERROR).
func (s *Server) SetPodStatus(id string, st pods.PodStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pods[id]; p != nil {
		p.set(st, s.now())
	}
}

// AddPod stores a pod made from req, already in status st (RUNNING pods
// have their ports mapped), and returns its id: state for a test or demo to
// start from without going through POST /v2/pods.
func (s *Server) AddPod(req pods.CreatePodRequest, st pods.PodStatus) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.newPodLocked(req)
	p.set(st, s.now())
	return p.pod.ID
}

// Pods returns a snapshot of the fake's pods as GET would show them.
func (s *Server) Pods() []pods.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []pods.Pod
	for _, p := range s.pods {
		out = append(out, s.viewLocked(p))
	}
	slices.SortFunc(out, func(a, b pods.Pod) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// log appends a line. s.mu is held.
func (p *fakePod) log(now time.Time, source pods.LogSource, line string) {
	p.seq++
	p.logs = append(p.logs, podLog{id: fmt.Sprintf("%s/%012d", now.UTC().Format(time.RFC3339Nano), p.seq), line: pods.LogEvent{Time: now.UTC(), Source: source, Line: line}})
	close(p.changed)
	p.changed = make(chan struct{})
}

// set moves the pod to a status. s.mu is held.
func (p *fakePod) set(st pods.PodStatus, now time.Time) {
	p.pod.Status, p.since = st, now
	if st == pods.PodStatusRunning {
		p.runningSince = now
	}
	p.log(now, pods.LogSourceSystem, "status "+string(st))
}

// advance applies the boot phases that have elapsed by now. s.mu is held.
func (s *Server) advance(p *fakePod) {
	now := s.now()
	for {
		switch {
		case p.pod.Status == pods.PodStatusProvisioning && !now.Before(p.since.Add(s.podProvision)):
			p.set(pods.PodStatusStarting, p.since.Add(s.podProvision))
		case p.pod.Status == pods.PodStatusStarting && !now.Before(p.since.Add(s.podStart)):
			p.set(pods.PodStatusRunning, p.since.Add(s.podStart))
			p.log(p.since, pods.LogSourceContainer, "container started: "+p.pod.Image)
		default:
			return
		}
	}
}

// viewLocked returns the pod as GET shows it: status advanced, actions,
// and the runtime (with port mappings) only while RUNNING.
func (s *Server) viewLocked(p *fakePod) pods.Pod {
	s.advance(p)
	v := p.pod
	v.Actions = slices.Clone(allowed[v.Status])
	if v.Actions == nil {
		v.Actions = []pods.PodAction{}
	}
	v.Runtime = nil
	if v.Status == pods.PodStatusRunning {
		rt := &pods.PodRuntime{Uptime: ptr(int(s.now().Sub(p.runningSince) / time.Second))}
		for _, spec := range v.Ports {
			n, proto, _ := strings.Cut(spec, "/")
			port, _ := strconv.Atoi(n)
			rp := pods.PodRuntimePort{Private: ptr(port), Type: ptr(proto)}
			if proto == "tcp" {
				h := fnv.New32a()
				_, _ = io.WriteString(h, v.ID+spec)
				rp.Public = ptr(10000 + int(h.Sum32()%50000))
				rp.IP = ptr(fmt.Sprintf("203.0.113.%d", 1+h.Sum32()%250))
			}
			rt.Ports = append(rt.Ports, rp)
		}
		v.Runtime = rt
		v.StartedAt = ptr(p.runningSince)
	}
	return v
}

func (s *Server) registerPods() {
	read := func(pattern string, h http.HandlerFunc) {
		s.Handle(Route{Pattern: pattern, Permission: PodsRead}, h)
	}
	write := func(pattern string, h http.HandlerFunc) {
		s.Handle(Route{Pattern: pattern, Permission: PodsWrite}, h)
	}
	read(RoutePods, func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, pods.ListPodsResponse{Pods: nonNilPods(s.Pods())})
	})
	read(RoutePod, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		p := s.pods[r.PathValue("id")]
		var v pods.Pod
		if p != nil {
			v = s.viewLocked(p)
		}
		s.mu.Unlock()
		if p == nil {
			Problem(w, http.StatusNotFound, "pod not found")
			return
		}
		WriteJSON(w, v)
	})
	write(RouteCreatePod, func(w http.ResponseWriter, r *http.Request) {
		var req pods.CreatePodRequest
		if problem := decodeStrict(r.Body, &req); problem != "" {
			Problem(w, http.StatusBadRequest, "request could not be processed", problem)
			return
		}
		if err := req.Validate(); err != nil {
			Problem(w, http.StatusUnprocessableEntity, "Request validation failed.", err.Error())
			return
		}
		s.mu.Lock()
		p := s.newPodLocked(req)
		p.set(pods.PodStatusProvisioning, s.now())
		v := s.viewLocked(p)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(v)
	})
	write(RouteUpdatePod, func(w http.ResponseWriter, r *http.Request) {
		var req pods.UpdatePodRequest
		if problem := decodeStrict(r.Body, &req); problem != "" {
			Problem(w, http.StatusBadRequest, "request could not be processed", problem)
			return
		}
		if err := req.Validate(); err != nil {
			Problem(w, http.StatusUnprocessableEntity, "Request validation failed.", err.Error())
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p := s.pods[r.PathValue("id")]
		if p == nil {
			Problem(w, http.StatusNotFound, "pod not found")
			return
		}
		if req.Name != nil {
			p.pod.Name = *req.Name
		}
		if req.Image != nil {
			p.pod.Image = *req.Image
		}
		if req.Args != nil {
			p.pod.Args = *req.Args
		}
		if req.Disk != nil {
			p.pod.Disk = *req.Disk
		}
		if req.Env != nil {
			p.pod.Env = req.Env
		}
		if req.Ports != nil {
			p.pod.Ports = req.Ports
		}
		if req.Locked != nil {
			p.pod.Locked = *req.Locked
		}
		WriteJSON(w, s.viewLocked(p))
	})
	write(RouteDeletePod, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.pods[r.PathValue("id")] == nil {
			Problem(w, http.StatusNotFound, "pod not found")
			return
		}
		delete(s.pods, r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
	write(RoutePodAction, func(w http.ResponseWriter, r *http.Request) {
		var req pods.PodActionRequest
		if problem := decodeStrict(r.Body, &req); problem != "" || !req.Action.Valid() {
			Problem(w, http.StatusBadRequest, "request could not be processed", "action must be start, stop, restart or terminate")
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p := s.pods[r.PathValue("id")]
		if p == nil {
			Problem(w, http.StatusNotFound, "pod not found")
			return
		}
		s.advance(p)
		if !slices.Contains(allowed[p.pod.Status], req.Action) {
			Problem(w, http.StatusConflict, fmt.Sprintf("cannot %s a pod that is %s", req.Action, p.pod.Status))
			return
		}
		now := s.now()
		switch req.Action {
		case pods.PodActionStart:
			p.set(pods.PodStatusProvisioning, now)
		case pods.PodActionStop:
			p.set(pods.PodStatusExited, now)
		case pods.PodActionRestart:
			p.set(pods.PodStatusStarting, now)
		case pods.PodActionTerminate:
			p.set(pods.PodStatusTerminated, now)
			delete(s.pods, p.pod.ID)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		WriteJSON(w, s.viewLocked(p))
	})
	read(RoutePodLogs, s.servePodLogs)
}

// newPodLocked stores a new pod made from req. s.mu is held.
func (s *Server) newPodLocked(req pods.CreatePodRequest) *fakePod {
	p := &fakePod{changed: make(chan struct{}), pod: pods.Pod{
		ID: newPodID(), Name: req.Name, Image: deref(req.Image), Args: deref(req.Args), Disk: deref(req.Disk), Env: req.Env, Ports: req.Ports,
		Registry: req.Registry, Mounts: deref(req.Mounts), Cloud: deref(req.Cloud), CreatedAt: s.now().UTC(), Template: req.TemplateID,
		GlobalNetworking: pods.PodGlobalNetworking{Enabled: deref(req.GlobalNetworking)},
	}}
	if p.pod.Cloud == "" {
		p.pod.Cloud = pods.CloudSecure
	}
	if req.GPU != nil {
		count := max(deref(req.GPU.Count), 1)
		p.pod.GPU = &pods.GPUConfig{ID: req.GPU.ID, Count: ptr(count)}
		p.pod.Cost = 0.69 * float64(count)
	} else if req.CPU != nil {
		p.pod.CPU = &pods.CPUConfig{ID: req.CPU.ID, VcpuCount: req.CPU.VcpuCount, Memory: req.CPU.VcpuCount * 4}
		p.pod.Cost = 0.06 * float64(req.CPU.VcpuCount)
	}
	s.pods[p.pod.ID] = p
	return p
}

// servePodLogs streams a pod's log as Server-Sent Events: history first
// (tail lines, or what follows since / Last-Event-ID), then new lines as
// they come, until the client goes away or the server closes.
func (s *Server) servePodLogs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tail := 100
	if v := q.Get("tail"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 5000 {
			Problem(w, http.StatusBadRequest, "tail must be 0 to 5000")
			return
		}
		tail = n
	}
	source := pods.LogSource(q.Get("source"))
	if source != "" && !source.Valid() {
		Problem(w, http.StatusBadRequest, "source must be container or system")
		return
	}
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			Problem(w, http.StatusBadRequest, "since must be an RFC 3339 time")
			return
		}
		since = t
	}
	after := r.Header.Get("Last-Event-ID")

	s.mu.Lock()
	p := s.pods[r.PathValue("id")]
	if p == nil {
		s.mu.Unlock()
		Problem(w, http.StatusNotFound, "pod not found")
		return
	}
	s.advance(p)
	next := max(len(p.logs)-tail, 0)
	switch {
	case after != "":
		next = len(p.logs)
		for i, l := range p.logs {
			if l.id == after {
				next = i + 1
			}
		}
	case !since.IsZero():
		next = len(p.logs)
		for i, l := range p.logs {
			if !l.line.Time.Before(since) {
				next = i
				break
			}
		}
	}
	s.mu.Unlock()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	for {
		s.mu.Lock()
		s.advance(p)
		pending := slices.Clone(p.logs[next:])
		next = len(p.logs)
		ch := p.changed
		s.mu.Unlock()
		var buf bytes.Buffer
		for _, l := range pending {
			if source != "" && l.line.Source != source {
				continue
			}
			data, _ := json.Marshal(l.line)
			fmt.Fprintf(&buf, "id: %s\ndata: %s\n\n", l.id, data)
		}
		if buf.Len() > 0 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			flush()
		}
		select {
		case <-ch:
		case <-time.After(s.podProvision + s.podStart + time.Millisecond):
			// wake up to apply boot phases that elapsed
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

// decodeStrict decodes JSON refusing unknown fields, as the platform's
// schemas do; it returns the problem's errors entry, or "".
func decodeStrict(r io.Reader, v any) string {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return "$: additional properties " + strings.ReplaceAll(name, `"`, "'") + " not allowed"
		}
		return "$: " + err.Error()
	}
	return ""
}

func newPodID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 14)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}

func nonNilPods(p []pods.Pod) []pods.Pod {
	if p == nil {
		return []pods.Pod{}
	}
	return p
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
