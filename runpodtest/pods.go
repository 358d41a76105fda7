package runpodtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/pods"
)

// podsUnit holds the pods and how long their boot phases take.
type podsUnit struct {
	mu        sync.Mutex
	byID      map[string]*fakePod
	all       []*fakePod // every pod stored, deleted ones too, whose usage stays billed (metering.go)
	provision time.Duration
	start     time.Duration
}

func newPodsUnit() podsUnit {
	return podsUnit{byID: map[string]*fakePod{}, provision: DefaultPodPhase, start: DefaultPodPhase}
}

// The pods fake speaks the REST v2 wire format with structs of its own,
// written from the platform's published document (the SDK's types are not
// used, so a mistake in them cannot hide in the fake). The document's
// schema checks run before a handler (with contract.Check); the handlers
// apply the rules the document says the platform enforces itself: one of
// gpu or cpu, a GPU type of the catalog offered on the pod's cloud in at
// most its maxCount per pod (checkGPU), a CPU flavor of the catalog, the
// mount rules, a network volume that exists in the pod's data center
// (checkVolumeRefs), the allowed action for each status, and a cluster's
// pods (see clusters.go), listed only on request and changed or deleted
// only through their cluster.
//
// A pod's cost is what the catalog says its hardware costs on its cloud
// (GpuType.price: "the rate for a unit is the figure times gpu.count; the
// rate actually billed for a pod is reported as cost on the pod itself"),
// fixed when it is created, and 0.0 while it is EXITED (Pod.cost: "0.0
// when EXITED or TERMINATED"), both in
// ../shared/reference/platform-openapi-v2.json. A pod AddPod makes of a
// type the catalog does not have costs nothing. What a pod bills, on the
// fake's clock, is in metering.go.

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
	return func(s *Server) { s.pods.provision, s.pods.start = provisioning, starting }
}

// Pod is a fake pod as a test sets one up (AddPod) or reads it back
// (Pods).
type Pod struct {
	// ID is the pod's id; AddPod makes one when it is empty.
	ID string
	// Name is the pod's name.
	Name string
	// Image is the container image the pod runs.
	Image string
	// Status is the pod's status; AddPod starts a pod RUNNING when it is
	// empty.
	Status pods.PodStatus
	// GPU is the GPU type id of a GPU pod and GPUCount how many (1 when
	// 0); a CPU pod sets CPU (a flavor id such as cpu3c) and VCPUs (2 when
	// 0) instead. AddPod does not check them against the catalog; the pod
	// costs the catalog's secure-cloud price of its hardware (nothing for
	// a type the catalog does not have).
	GPU string
	// GPUCount is the number of GPUs of a GPU pod.
	GPUCount int
	// CPU is the CPU flavor id of a CPU pod.
	CPU string
	// VCPUs is the number of vCPUs of a CPU pod.
	VCPUs int
	// Ports are exposed ports: "8888/http", "22/tcp", or from "70000/tcp"
	// up, requests for symmetric TCP mapping.
	Ports []string
	// Env is the container's environment.
	Env map[string]string
	// Disk is the container disk in GB (50 when not set).
	Disk int
	// Locked pods cannot be stopped or restarted.
	Locked bool
	// CreatedAt is set by the fake.
	CreatedAt time.Time
}

// fakePod is a pod's state. Fields are guarded by Server.mu.
type fakePod struct {
	Pod
	args             string
	registry         *string
	cloud            string
	dataCenterID     string
	template         *string
	cudaVersion      *string
	mounts           mountsJSON
	globalNetworking bool
	rate             float64   // USD per hour while it runs, by the catalog's prices at its creation
	since            time.Time // when the current status began
	runningSince     time.Time
	symmetric        map[int]int     // symmetric request → the port assigned to it
	cluster          *podClusterJSON // membership of a cluster's pod; nil for a standalone pod
	logs             []logLine
	changed          chan struct{}
	usage            []meter           // its usage in the statuses it left, oldest first (metering.go)
	bootEnv          map[string]string // the environment its container got at its last boot, secrets resolved (podboot.go)
}

// Wire formats, as the REST v2 document describes them.
type (
	// containerJSON is a container's settings as the document shows them
	// on a pod and on a template.
	containerJSON struct {
		Image    string            `json:"image"`
		Args     string            `json:"args"`
		Disk     int               `json:"disk"`
		Mounts   mountsJSON        `json:"mounts"`
		Ports    []string          `json:"ports"`
		Env      map[string]string `json:"env"`
		Registry *string           `json:"registry"`
	}
	podJSON struct {
		ID      string         `json:"id"`
		Name    string         `json:"name"`
		Status  pods.PodStatus `json:"status"`
		Actions []string       `json:"actions"`
		containerJSON
		Cloud            string          `json:"cloud"`
		DataCenterID     *string         `json:"dataCenterId"`
		CUDAVersion      *string         `json:"cudaVersion"`
		SSH              sshJSON         `json:"ssh"`
		Template         *string         `json:"template"`
		Cost             float64         `json:"cost"`
		Locked           bool            `json:"locked"`
		Runtime          *runtimeJSON    `json:"runtime"`
		CreatedAt        time.Time       `json:"createdAt"`
		StartedAt        *time.Time      `json:"startedAt"`
		GlobalNetworking globalNetJSON   `json:"globalNetworking"`
		GPU              *gpuJSON        `json:"gpu,omitempty"`
		CPU              *cpuJSON        `json:"cpu,omitempty"`
		Cluster          *podClusterJSON `json:"cluster,omitempty"`
	}
	podClusterJSON struct {
		ID   string `json:"id"`
		Rank *int   `json:"rank"`
		Role string `json:"role,omitempty"`
		IP   string `json:"ip,omitempty"`
	}
	gpuJSON struct {
		ID    string `json:"id"`
		Count int    `json:"count"`
	}
	cpuJSON struct {
		ID        string `json:"id"`
		VcpuCount int    `json:"vcpuCount"`
		Memory    int    `json:"memory"`
	}
	mountsJSON struct {
		Persistent *persistentJSON `json:"persistent,omitempty"`
		Network    []networkJSON   `json:"network,omitempty"`
	}
	persistentJSON struct {
		Size int    `json:"size"`
		Path string `json:"path"`
	}
	networkJSON struct {
		VolumeID string `json:"volumeId"`
		Path     string `json:"path"`
	}
	sshJSON struct {
		Proxy  *sshEndpointJSON `json:"proxy"`
		Direct *sshEndpointJSON `json:"direct"`
	}
	sshEndpointJSON struct {
		Host     string `json:"host"`
		Port     int    `json:"port"`
		Username string `json:"username"`
		Command  string `json:"command"`
	}
	globalNetJSON struct {
		Enabled     bool   `json:"enabled"`
		IP          string `json:"ip,omitempty"`
		InternalDNS string `json:"internalDns,omitempty"`
	}
	runtimeJSON struct {
		Uptime int               `json:"uptime"`
		Ports  []runtimePortJSON `json:"ports"`
		GPUs   []utilJSON        `json:"gpus,omitempty"`
		CPU    utilJSON          `json:"cpu"`
		Memory utilJSON          `json:"memory"`
	}
	utilJSON struct {
		Util       int  `json:"util"`
		MemoryUtil *int `json:"memoryUtil,omitempty"`
	}
	runtimePortJSON struct {
		Private int     `json:"private"`
		Public  *int    `json:"public"`
		Type    string  `json:"type"`
		IP      *string `json:"ip"`
	}

	// containerInJSON is the container a create of a pod, a cluster or an
	// endpoint, or an update of a pod, gives: a field left out takes the
	// default, or stays as it is.
	containerInJSON struct {
		Image *string           `json:"image"`
		Args  *string           `json:"args"`
		Disk  *int              `json:"disk"`
		Env   map[string]string `json:"env"`
		Ports []string          `json:"ports"`
	}

	// containerPatchJSON is the container an update of a template or an
	// endpoint gives: a field present replaces the resource's, even when
	// empty; an absent one stays.
	containerPatchJSON struct {
		Image    *string            `json:"image"`
		Args     *string            `json:"args"`
		Disk     *int               `json:"disk"`
		Env      *map[string]string `json:"env"`
		Ports    *[]string          `json:"ports"`
		Registry json.RawMessage    `json:"registry"` // absent, null or an id
	}

	// createPodJSON is a create: what the pod runs, its name, where it
	// runs and on what.
	createPodJSON struct {
		containerInJSON
		Registry         *string          `json:"registry"`
		TemplateID       *string          `json:"templateId"`
		Mounts           *mountsPatchJSON `json:"mounts"`
		Name             string           `json:"name"`
		Cloud            *string          `json:"cloud"`
		DataCenterIDs    []string         `json:"dataCenterIds"`
		GlobalNetworking *bool            `json:"globalNetworking"`
		CPU              *createCPUJSON   `json:"cpu"`
		GPU              *struct {
			ID                  string   `json:"id"`
			Count               *int     `json:"count"`
			AllowedCUDAVersions []string `json:"allowedCudaVersions"`
			MinCUDAVersion      *string  `json:"minCudaVersion"`
		} `json:"gpu"`
	}
	updatePodJSON struct {
		containerInJSON
		Name             *string          `json:"name"`
		Registry         json.RawMessage  `json:"registry"` // absent, null (removes it) or an id
		GlobalNetworking *bool            `json:"globalNetworking"`
		Locked           *bool            `json:"locked"`
		Mounts           *mountsPatchJSON `json:"mounts"`
	}
	// mountsPatchJSON tells an explicit "network": [] from none.
	mountsPatchJSON struct {
		Persistent *persistentJSON `json:"persistent"`
		Network    *[]networkJSON  `json:"network"`
	}
)

// allowed lists the actions each status permits, as the platform does.
var allowed = map[pods.PodStatus][]string{
	pods.PodStatusRunning:      {"stop", "restart", "terminate"},
	pods.PodStatusExited:       {"start", "terminate"},
	pods.PodStatusError:        {"start", "terminate"},
	pods.PodStatusProvisioning: {"stop", "terminate"},
	pods.PodStatusStarting:     {"stop", "terminate"},
}

// actions returns what the pod allows now: a locked pod cannot be stopped
// or restarted, and a cluster's pod is terminated with its cluster only.
func (p *fakePod) actions() []string {
	out := []string{}
	for _, a := range allowed[p.Status] {
		if p.Locked && (a == "stop" || a == "restart") || p.cluster != nil && a == "terminate" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// AppendPodLog adds a line to a fake pod's log, sent to everyone streaming
// it.
func (s *Server) AppendPodLog(id string, source pods.LogSource, line string) {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	if p := s.pods.byID[id]; p != nil {
		p.log(s.now(), source, line)
	}
}

// SetPodStatus forces a fake pod into a status (for example pods.PodStatusError).
func (s *Server) SetPodStatus(id string, st pods.PodStatus) {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	if p := s.pods.byID[id]; p != nil {
		p.set(st, s.now())
		if st != pods.PodStatusRunning {
			s.dropPodSSH(id)
		}
	}
}

// AddPod stores a pod, in p.Status (RUNNING when empty; a running pod has
// its ports mapped), and returns its id: state for a test or demo to start
// from without going through POST /v2/pods.
func (s *Server) AddPod(p Pod) string {
	fp := &fakePod{Pod: p, cloud: "SECURE", dataCenterID: "EU-RO-1", changed: make(chan struct{})}
	if fp.ID == "" {
		fp.ID = newPodID()
	}
	switch {
	case fp.GPU != "":
		fp.GPUCount = max(fp.GPUCount, 1)
		fp.cudaVersion = ptr("12.8")
	case fp.CPU != "":
		fp.VCPUs = max(fp.VCPUs, 2)
	}
	fp.rate = s.podRate(fp.GPU, fp.GPUCount, fp.cloud, fp.CPU, fp.VCPUs)
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	st := cmp.Or(p.Status, pods.PodStatusRunning)
	s.storePodLocked(fp)
	fp.set(st, s.now())
	return fp.ID
}

// Pods returns a snapshot of the fake's pods, ordered by id.
func (s *Server) Pods() []Pod {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	return listOf(s.pods.byID, every(func(p *fakePod) Pod {
		s.advance(p)
		v := p.Pod
		v.Ports, v.Env = slices.Clone(v.Ports), maps.Clone(v.Env)
		return v
	}))
}

// podRate is what a pod costs per hour by the catalog's prices: gpus GPUs
// of type gpu at its price on cloud, or else vcpus vCPUs of flavor cpu; 0
// for hardware the catalog does not have. It takes the catalog's lock.
func (s *Server) podRate(gpu string, gpus int, cloud, cpu string, vcpus int) float64 {
	var rate float64
	if gpu != "" {
		o, _ := s.gpuOffer(gpu, cloud)
		rate = o.price * float64(gpus)
	} else if cpu != "" {
		price, _ := s.cpuPrice(cpu)
		rate = price * float64(vcpus)
	}
	return math.Round(rate*1e6) / 1e6
}

// storePodLocked fills the defaults of a new pod and stores it. s.pods.mu is
// held.
func (s *Server) storePodLocked(p *fakePod) {
	p.CreatedAt = s.now().UTC()
	if p.Disk < 1 {
		p.Disk = 50
	}
	if p.Ports == nil {
		p.Ports = []string{}
	}
	if p.Env == nil {
		p.Env = map[string]string{}
	}
	p.assignSymmetric()
	s.pods.byID[p.ID] = p
	s.pods.all = append(s.pods.all, p)
}

// log appends a line. Every line gets a distinct time (one nanosecond
// after the previous line when the clock has not moved), so its time,
// which is also its event id, says where to resume. s.pods.mu is held.
func (p *fakePod) log(now time.Time, source pods.LogSource, line string) {
	p.logs = appendLogLine(p.logs, now, string(source), line)
	close(p.changed)
	p.changed = make(chan struct{})
}

// set moves the pod to a status, closing its billed usage in the one it
// leaves (metering.go). s.pods.mu is held.
func (p *fakePod) set(st pods.PodStatus, now time.Time) {
	p.closeUsage(now)
	p.Status, p.since = st, now
	if st == pods.PodStatusRunning {
		p.runningSince = now
	}
	p.log(now, pods.LogSourceSystem, "status "+string(st))
}

// advance applies the boot phases that have elapsed by now. s.pods.mu is held.
func (s *Server) advance(p *fakePod) {
	now := s.now()
	for {
		switch {
		case p.Status == pods.PodStatusProvisioning && !now.Before(p.since.Add(s.pods.provision)):
			p.set(pods.PodStatusStarting, p.since.Add(s.pods.provision))
		case p.Status == pods.PodStatusStarting && !now.Before(p.since.Add(s.pods.start)):
			if !s.bootLocked(p, p.since.Add(s.pods.start)) {
				return
			}
			p.set(pods.PodStatusRunning, p.since.Add(s.pods.start))
			p.log(p.since, pods.LogSourceContainer, "container started: "+p.Image)
		default:
			return
		}
	}
}

// hash is a stable number for the pod and what, to make up addresses.
func (p *fakePod) hash(what string) uint32 {
	h := fnv.New32a()
	_, _ = io.WriteString(h, p.ID+"|"+what)
	return h.Sum32()
}

// publicIP is the pod's public IP: one per pod, as it is one machine.
func (p *fakePod) publicIP() string { return fmt.Sprintf("203.0.113.%d", 1+p.hash("ip")%250) }

// assignSymmetric gives every symmetric request of the pod's ports a port
// that is the same inside and outside, keeping the ones already given.
func (p *fakePod) assignSymmetric() {
	used := map[int]bool{}
	for _, spec := range p.Ports {
		n, _ := portOf(spec)
		used[n] = true
	}
	next := map[int]int{}
	for _, spec := range p.Ports {
		n, _ := portOf(spec)
		if n < symmetricBase {
			continue
		}
		if port, ok := p.symmetric[n]; ok {
			next[n] = port
			continue
		}
		port := 20000 + int(p.hash(spec)%40000)
		for used[port] {
			port++
		}
		used[port], next[n] = true, port
	}
	p.symmetric = next
}

// symmetricBase is the first port number that requests symmetric TCP
// mapping.
const symmetricBase = 70000

func portOf(spec string) (int, string) {
	n, proto, _ := strings.Cut(spec, "/")
	v, _ := strconv.Atoi(n)
	return v, proto
}

// podJSONLocked returns the pod as GET shows it: status advanced, the actions it
// allows, and the runtime (with port mappings) and SSH endpoints only
// while RUNNING. s.pods.mu is held.
func (s *Server) podJSONLocked(p *fakePod) podJSON {
	s.advance(p)
	v := podJSON{
		ID: p.ID, Name: p.Name, Status: p.Status, Actions: p.actions(),
		containerJSON: containerJSON{Image: p.Image, Args: p.args, Disk: p.Disk, Mounts: p.mounts,
			Ports: slices.Clone(p.Ports), Env: maps.Clone(p.Env), Registry: p.registry},
		Cloud: p.cloud, DataCenterID: ptr(p.dataCenterID), CUDAVersion: p.cudaVersion, Template: p.template, Locked: p.Locked,
		CreatedAt: p.CreatedAt, GlobalNetworking: globalNetJSON{Enabled: p.globalNetworking},
	}
	if p.cluster != nil {
		c := *p.cluster
		v.Cluster = &c
	}
	if p.globalNetworking {
		v.GlobalNetworking.IP = fmt.Sprintf("10.%d.%d.%d", 1+p.hash("gn")%250, p.hash("gn2")%256, 1+p.hash("gn3")%250)
		v.GlobalNetworking.InternalDNS = p.ID + ".runpod.internal"
	}
	if p.GPU != "" {
		v.GPU = &gpuJSON{ID: p.GPU, Count: p.GPUCount}
	} else if p.CPU != "" {
		v.CPU = &cpuJSON{ID: p.CPU, VcpuCount: p.VCPUs, Memory: p.VCPUs * memoryPerVCPU(p.CPU)}
	}
	if p.Status != pods.PodStatusExited && p.Status != pods.PodStatusTerminated {
		v.Cost = p.rate
	}
	if p.Status != pods.PodStatusRunning {
		return v
	}
	ip := p.publicIP()
	rt := &runtimeJSON{Uptime: int(s.now().Sub(p.runningSince) / time.Second), Ports: []runtimePortJSON{}}
	for _, spec := range p.Ports {
		n, proto := portOf(spec)
		switch {
		case n >= symmetricBase:
			port := p.symmetric[n]
			rt.Ports = append(rt.Ports, runtimePortJSON{Private: port, Public: ptr(port), Type: "tcp", IP: ptr(ip)})
		case proto == "tcp":
			public := 10000 + int(p.hash(spec)%10000)
			rt.Ports = append(rt.Ports, runtimePortJSON{Private: n, Public: ptr(public), Type: "tcp", IP: ptr(ip)})
			if n == 22 {
				v.SSH.Direct = &sshEndpointJSON{Host: ip, Port: public, Username: "root",
					Command: fmt.Sprintf("ssh root@%s -p %d -i ~/.ssh/id_ed25519", ip, public)}
			}
		default:
			rt.Ports = append(rt.Ports, runtimePortJSON{Private: n, Type: "http"})
		}
	}
	for range p.GPUCount {
		rt.GPUs = append(rt.GPUs, utilJSON{MemoryUtil: ptr(0)})
	}
	user := fmt.Sprintf("%s-%08x", p.ID, p.hash("ssh"))
	v.SSH.Proxy = &sshEndpointJSON{Host: "ssh.runpod.io", Port: 22, Username: user,
		Command: "ssh " + user + "@ssh.runpod.io -i ~/.ssh/id_ed25519"}
	v.Runtime = rt
	v.StartedAt = ptr(p.runningSince.UTC())
	return v
}

// podNotFound is the fake's answer about a pod it does not have.
const podNotFound = "pod not found"

// listPods answers GET /v2/pods: a cluster's pods are listed only when
// asked for.
func (s *Server) listPods(w http.ResponseWriter, r *http.Request) {
	withCluster := r.URL.Query().Get("includeClusterPods") == "true"
	serveList(w, r, &s.pods.mu, "pods", s.pods.byID, func(p *fakePod) (podJSON, bool) {
		if p.cluster != nil && !withCluster {
			return podJSON{}, false
		}
		return s.podJSONLocked(p), true
	})
}

// deletePod deletes a standalone pod; a cluster's goes with its cluster.
func (s *Server) deletePod(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.pods.mu, s.pods.byID, podNotFound, func(p *fakePod) {
		if !refuseClusterPod(w, p, "terminated") {
			p.set(pods.PodStatusTerminated, s.now()) // its billing ends
			delete(s.pods.byID, p.ID)
			s.dropPodSSH(p.ID)
			w.WriteHeader(http.StatusNoContent)
		}
	})
}

// badRequest answers a request that the document's schema allows but the
// platform refuses when it handles it, naming the field.
func badRequest(w http.ResponseWriter, field, format string, args ...any) {
	Problem(w, http.StatusBadRequest, "Request validation failed.", "$."+field+": "+fmt.Sprintf(format, args...))
}

// refuseMounts answers 400 for mounts the platform refuses (checkMounts),
// and reports whether it did.
func refuseMounts(w http.ResponseWriter, m *mountsPatchJSON) bool {
	field, problem := checkMounts(m)
	if problem != "" {
		badRequest(w, field, "%s", problem)
	}
	return problem != ""
}

// refusePorts answers 400 for port specs the platform refuses
// (checkPorts), and reports whether it did.
func refusePorts(w http.ResponseWriter, ports []string) bool {
	i, problem := checkPorts(ports)
	if problem != "" {
		badRequest(w, fmt.Sprintf("ports[%d]", i), "%s", problem)
	}
	return problem != ""
}

func (s *Server) createPod(w http.ResponseWriter, r *http.Request) {
	var req createPodJSON
	if !decodeBody(w, r, &req) {
		return
	}
	switch {
	case (req.GPU == nil) == (req.CPU == nil):
		badRequest(w, "gpu", "exactly one of gpu or cpu must be set")
		return
	case req.CPU != nil && req.Mounts != nil && req.Mounts.Persistent != nil:
		badRequest(w, "mounts.persistent", "CPU pods support network volumes only")
		return
	case req.GPU != nil && len(req.GPU.AllowedCUDAVersions) > 0 && req.GPU.MinCUDAVersion != nil:
		badRequest(w, "gpu.allowedCudaVersions", "mutually exclusive with minCudaVersion")
		return
	}
	if refuseMounts(w, req.Mounts) || refusePorts(w, req.Ports) {
		return
	}
	cloud := cmp.Or(deref(req.Cloud), "SECURE")
	var rate float64
	if g := req.GPU; g != nil {
		count := max(deref(g.Count), 1)
		o, field, problem := s.checkGPU(g.ID, count, cloud, "gpu.id", "gpu.count")
		if problem != "" {
			badRequest(w, field, "%s", problem)
			return
		}
		if g.Count == nil {
			// The document gives gpu.count a default of 1, but the
			// platform's scheduler matches no machine without it: every
			// such create fails as a stock-out would (@runpod/mcp-server
			// 3.3.0 CHANGELOG, verified live against both REST v2 hosts).
			refuseCapacity(w, http.StatusInternalServerError, "create pod", stockOutMessage)
			return
		}
		rate = o.price * float64(count)
	} else {
		// The flavor is one GET /v2/catalog/cpus lists (CpuType.id, the
		// id CreateCpuConfig takes).
		price, ok := s.cpuPrice(req.CPU.ID)
		if !ok {
			badRequest(w, "cpu.id", "unknown CPU flavor %q: GET /v2/catalog/cpus lists the CPU flavors", req.CPU.ID)
			return
		}
		rate = price * float64(req.CPU.VCPUCount)
	}
	s.applyPodTemplate(&req)
	p := &fakePod{
		Pod:  Pod{ID: newPodID(), Name: req.Name, Image: deref(req.Image), Ports: req.Ports, Env: req.Env, Disk: deref(req.Disk)},
		args: deref(req.Args), registry: req.Registry, cloud: cloud, template: req.TemplateID,
		globalNetworking: deref(req.GlobalNetworking), dataCenterID: "EU-RO-1", changed: make(chan struct{}),
		rate: math.Round(rate*1e6) / 1e6, mounts: req.Mounts.mounts(),
	}
	if len(req.DataCenterIDs) > 0 {
		p.dataCenterID = req.DataCenterIDs[0]
	}
	if g := req.GPU; g != nil {
		p.GPU, p.GPUCount = g.ID, max(deref(g.Count), 1)
		switch {
		case len(g.AllowedCUDAVersions) > 0:
			p.cudaVersion = ptr(g.AllowedCUDAVersions[0])
		case g.MinCUDAVersion != nil:
			p.cudaVersion = g.MinCUDAVersion
		default:
			p.cudaVersion = ptr("12.8")
		}
	} else {
		p.CPU, p.VCPUs = req.CPU.ID, req.CPU.VCPUCount
	}
	var stock gpuStock
	if req.GPU != nil {
		stock = s.gpuStockOf(req.GPU.ID) // the catalog's lock goes before the pods'
	}
	s.pods.mu.Lock()
	// The network volume is checked with the pods lock held, so that it
	// cannot be deleted before the pod that mounts it is stored.
	dc, vp := s.placeByVolumes(p.mounts.Network, req.DataCenterIDs)
	if vp != nil {
		s.pods.mu.Unlock()
		vp.refuseMount(w)
		return
	}
	if g := req.GPU; g != nil {
		// A pod runs where its GPU type has stock: in its volume's data
		// center when it mounts one.
		dcs := req.DataCenterIDs
		if dc != "" {
			dcs = []string{dc}
		}
		placed, refusal := stock.place(dcs, g.AllowedCUDAVersions, deref(g.MinCUDAVersion))
		if refusal != "" {
			s.pods.mu.Unlock()
			refuseCapacity(w, http.StatusInternalServerError, "create pod", refusal)
			return
		}
		dc = placed
	}
	p.dataCenterID = cmp.Or(dc, p.dataCenterID)
	s.storePodLocked(p)
	p.set(pods.PodStatusProvisioning, s.now())
	v := s.podJSONLocked(p)
	s.pods.mu.Unlock()
	writeCreated(w, v)
}

func (s *Server) updatePod(w http.ResponseWriter, r *http.Request) {
	var req updatePodJSON
	if !decodeBody(w, r, &req) || refusePorts(w, req.Ports) || refuseMounts(w, req.Mounts) {
		return
	}
	withResource(w, r, &s.pods.mu, s.pods.byID, podNotFound, func(p *fakePod) {
		if !refuseClusterPod(w, p, "modified") && p.patch(w, &req) {
			WriteJSON(w, s.podJSONLocked(p))
		}
	})
}

// patch applies an update to the pod, or answers 400 for a change of its
// mounts the platform refuses and reports false, changing nothing.
// s.pods.mu is held.
func (p *fakePod) patch(w http.ResponseWriter, req *updatePodJSON) bool {
	if m := req.Mounts; m != nil {
		// The kind of mount is fixed at create, and so is a network
		// volume's id; paths (and a persistent mount's size) may change.
		switch {
		case m.Persistent != nil && p.mounts.Persistent == nil:
			badRequest(w, "mounts.persistent", "the pod was created without a persistent mount")
			return false
		case m.Network != nil && len(p.mounts.Network) == 0:
			badRequest(w, "mounts.network", "the pod was created without a network volume")
			return false
		case m.Network != nil && (*m.Network)[0].VolumeID != p.mounts.Network[0].VolumeID:
			badRequest(w, "mounts.network[0].volumeId", "a network volume's id cannot change")
			return false
		}
		if m.Persistent != nil {
			p.mounts.Persistent = m.Persistent
		}
		if m.Network != nil {
			p.mounts.Network = *m.Network
		}
	}
	set(&p.Name, req.Name)
	set(&p.Image, req.Image)
	set(&p.args, req.Args)
	set(&p.Disk, req.Disk)
	if req.Env != nil {
		p.Env = req.Env
	}
	if req.Ports != nil {
		p.Ports = req.Ports
		p.assignSymmetric()
	}
	if id, sent := registryPatch(req.Registry); sent {
		p.registry = id
	}
	set(&p.globalNetworking, req.GlobalNetworking)
	set(&p.Locked, req.Locked)
	return true
}

func (s *Server) podAction(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Action string `json:"action"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	var stocks map[string]gpuStock
	if req.Action == "start" {
		stocks = s.gpuStocks() // the catalog's lock goes before the pods'
	}
	withResource(w, r, &s.pods.mu, s.pods.byID, podNotFound, func(p *fakePod) {
		// A stopped pod starts on the machine that holds its disk, which
		// may have no free GPU left.
		if req.Action == "start" && p.GPU != "" {
			s.advance(p)
			level, listed := stocks[p.GPU].levels[p.dataCenterID]
			if slices.Contains(p.actions(), "start") && listed && stockRank(level) == 0 {
				refuseCapacity(w, http.StatusBadRequest, "start pod", hostFullMessage)
				return
			}
		}
		s.actLocked(w, p, req.Action)
	})
}

// actLocked takes action on the pod, when its status (and its lock, and
// its cluster) allows it, and answers. s.pods.mu is held.
func (s *Server) actLocked(w http.ResponseWriter, p *fakePod, action string) {
	s.advance(p)
	if action == "terminate" && refuseClusterPod(w, p, "terminated") {
		return
	}
	if !slices.Contains(p.actions(), action) {
		detail := fmt.Sprintf("cannot %s a pod that is %s", action, p.Status)
		if p.Locked && slices.Contains(allowed[p.Status], action) {
			detail = fmt.Sprintf("cannot %s a locked pod", action)
		}
		Problem(w, http.StatusConflict, detail)
		return
	}
	now := s.now()
	if action != "start" { // the container stops, and its SSH server with it
		s.dropPodSSH(p.ID)
	}
	switch action {
	case "start":
		p.set(pods.PodStatusProvisioning, now)
	case "stop":
		p.set(pods.PodStatusExited, now)
	case "restart":
		p.set(pods.PodStatusStarting, now)
	case "terminate":
		p.set(pods.PodStatusTerminated, now)
		delete(s.pods.byID, p.ID)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	WriteJSON(w, s.podJSONLocked(p))
}

// placeByVolumes checks the network volumes a new pod (or cluster) mounts
// (checkVolumeRefs: each exists, in one of dcs when dcs is not empty), and
// returns the data center of the first, where the pod runs: a pod mounts
// a volume of its own data center. It returns "" when there is none.
func (s *Server) placeByVolumes(mounts []networkJSON, dcs []string) (string, *volumeProblem) {
	ids := make([]string, len(mounts))
	for i, m := range mounts {
		ids[i] = m.VolumeID
	}
	if vp := s.checkVolumeRefs(ids, dcs, true); vp != nil {
		return "", vp
	}
	if len(ids) == 0 {
		return "", nil
	}
	dc, _ := s.volumeDataCenter(ids[0])
	return dc, nil
}

// podUsing returns the id of the first pod, by id, that uses reports
// true for, or "" when there is none. It takes the pods lock, which the
// caller does not hold, and holds no other unit's with it.
func (s *Server) podUsing(uses func(p *fakePod) bool) string {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(s.pods.byID)) {
		if uses(s.pods.byID[id]) {
			return id
		}
	}
	return ""
}

// refuseClusterPod answers 409 for a pod that belongs to a cluster, which
// the pod routes do not change or delete (the cluster routes do), and
// reports whether it did. what is "modified" or "terminated".
func refuseClusterPod(w http.ResponseWriter, p *fakePod, what string) bool {
	if p.cluster == nil {
		return false
	}
	Problem(w, http.StatusConflict, fmt.Sprintf("pod belongs to cluster %s and cannot be %s via the pod endpoints; use /v2/clusters/%s", p.cluster.ID, what, p.cluster.ID))
	return true
}

// checkMounts applies the mount rules the platform enforces beyond the
// schema: a persistent mount or a network volume, not both, and no
// explicit empty network list. It returns the field and the problem.
func checkMounts(m *mountsPatchJSON) (string, string) {
	switch {
	case m == nil:
		return "", ""
	case m.Network != nil && len(*m.Network) == 0:
		return "mounts.network", "an empty list cannot clear a mount"
	case m.Network != nil && m.Persistent != nil:
		return "mounts", "persistent and network are mutually exclusive"
	}
	return "", ""
}

// mounts returns the mounts a create sets (none for nil).
func (m *mountsPatchJSON) mounts() mountsJSON {
	var out mountsJSON
	if m != nil {
		out.Persistent = m.Persistent
		if m.Network != nil {
			out.Network = *m.Network
		}
	}
	return out
}

// registryPatch reads an update's "registry": sent is false when it is
// absent; id is nil when it is null (the credentials are removed), else
// the credentials' id.
func registryPatch(raw json.RawMessage) (id *string, sent bool) {
	switch {
	case len(raw) == 0:
		return nil, false
	case string(raw) == "null":
		return nil, true
	}
	id = new(string)
	_ = json.Unmarshal(raw, id) // the document checked it is a string
	return id, true
}

// checkPorts checks port specs as the platform reads them: "<port>/http"
// or "<port>/tcp" with a port from 1 to 65535, or "<port>/tcp" from
// 70000 up, a request for symmetric TCP mapping. It returns the index of
// the first bad spec and the problem.
func checkPorts(ports []string) (int, string) {
	for i, spec := range ports {
		n, proto, ok := strings.Cut(spec, "/")
		v, err := strconv.Atoi(n)
		switch {
		case !ok || err != nil || strings.Trim(n, "0123456789") != "" || (proto != "http" && proto != "tcp"):
			return i, fmt.Sprintf("want <port>/http or <port>/tcp, got %q", spec)
		case v >= symmetricBase && proto != "tcp":
			return i, fmt.Sprintf("ports from %d request symmetric TCP mapping and are tcp, got %q", symmetricBase, spec)
		case v < 1 || (v > 65535 && v < symmetricBase):
			return i, fmt.Sprintf("want a port from 1 to 65535, or from %d for symmetric TCP mapping, got %q", symmetricBase, spec)
		}
	}
	return 0, ""
}

// servePodLogs streams a pod's log as Server-Sent Events: history first
// (tail lines, or what follows since / Last-Event-ID), then new lines as
// they come, until the client goes away or the server closes. An event's
// id is its line's time, which Last-Event-ID gives back to resume after
// it. The document has checked the parameters (tail 0 to 5000, a known
// source, date-times).
func (s *Server) servePodLogs(w http.ResponseWriter, r *http.Request) {
	lr := parseLogRequest(r)
	s.pods.mu.Lock()
	p, ok := lookup(w, r, s.pods.byID, podNotFound)
	if !ok {
		s.pods.mu.Unlock()
		return
	}
	s.advance(p)
	next := lr.first(p.logs)
	s.pods.mu.Unlock()
	s.streamLog(w, r, lr, next, func(next int) ([]logLine, <-chan struct{}) {
		s.pods.mu.Lock()
		defer s.pods.mu.Unlock()
		s.advance(p)
		return slices.Clone(p.logs[next:]), p.changed
	}, func() <-chan time.Time {
		return time.After(s.pods.provision + s.pods.start + time.Millisecond) // boot phases that elapsed
	})
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
