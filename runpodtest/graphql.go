package runpodtest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// graphqlUnit is the state the GraphQL API serves: serverless endpoints
// (with their workers), the workers of templates, the account's discount
// and a count of mutations. The templates themselves are the templates
// unit's: this unit calls into it (with its own lock held, never the
// other way round) to check and record an endpoint's template.
type graphqlUnit struct {
	mu          sync.Mutex
	drain       time.Duration
	endpoints   map[string]*Endpoint
	endpointSeq int
	workerSeq   int                // worker ids
	releaseSeq  int                // release ids
	builds      map[string][]Build // by endpoint id, oldest first (builds.go)
	discount    *Discount
	mutations   map[string]int
	handlers    map[string]templateHandler // by template id
	// namedHandlers are the workers of templates by name
	// (HandleTemplateNamed).
	namedHandlers map[string]templateHandler
	// anyHandler, when set, is the worker of every other template
	// (HandleAnyTemplate).
	anyHandler *templateHandler
	// imageHandlers are the workers of container images (HandleImage).
	imageHandlers map[string]templateHandler
	// jobWorkers are the workers started for jobs in progress beyond an
	// endpoint's own, by endpoint id (see serverless.go).
	jobWorkers map[string][]endpointWorker
	// retired makes the GraphQL API answer 410 Gone (fakegraphql.Retire).
	retired atomic.Bool
	// exec is the GraphQL engine fakegraphql.Serve installs; without
	// it, POST /graphql answers as the retired API does.
	exec seam.Exec
}

// templateHandler is the worker a template's queue-based endpoints run.
type templateHandler struct {
	h    worker.Handler
	opts []QueueOption
}

func newGraphQLUnit() graphqlUnit {
	return graphqlUnit{
		drain:         DefaultWorkerDrain,
		endpoints:     map[string]*Endpoint{},
		mutations:     map[string]int{},
		handlers:      map[string]templateHandler{},
		namedHandlers: map[string]templateHandler{},
		imageHandlers: map[string]templateHandler{},
		jobWorkers:    map[string][]endpointWorker{},
	}
}

// gqlTypes maps the GraphQL API's endpoint types (QB, LB) to the REST v2
// API's (QUEUE, LOAD_BALANCER): one endpoint, two spellings.
var gqlTypes = map[string]serverless.EndpointType{"QB": serverless.EndpointTypeQueue, "LB": serverless.EndpointTypeLoadBalancer}

// routeGraphQL is the GraphQL API's route (fakegraphql.Route). It takes
// the key as the api_key query parameter or a Bearer header.
const routeGraphQL = "POST /graphql"

// DefaultWorkerDrain is how long a worker of the fake lingers after its
// endpoint was scaled down; see WithWorkerDrain.
const DefaultWorkerDrain = 2 * time.Second

// The fake's defaults for settings a save leaves out (the platform's own
// are not documented): a save replaces the whole endpoint, so these are
// also what an omitted field is reset to.
const (
	defaultIdleTimeout   = 5
	defaultScalerValue   = 4
	defaultWorkersMax    = 3
	defaultGPUCount      = 1
	defaultExecutionTime = 600000
)

// WithWorkerDrain sets how long workers linger after their endpoint was
// scaled down (DefaultWorkerDrain when not set).
func WithWorkerDrain(d time.Duration) Option { return func(s *Server) { s.graphql.drain = d } }

// Endpoint is the fake's record of a serverless endpoint, with every
// setting resolved: what saveEndpoint (GraphQL) or POST /v2/serverless
// (REST v2) stored, or what AddEndpoint was given with its defaults
// filled in. It is one record for both APIs and the job API: each field
// is one setting, which the two APIs may spell differently (GraphQL's
// instanceIds "cpu3c-2-4" is REST's cpu [{"id":"cpu3c","vcpuCount":2}],
// GraphQL's scalerType and scalerValue are REST's scaling). Its enums are
// the serverless package's, as the platform spells them on the wire.
type Endpoint struct {
	// ID is the endpoint's id; AddEndpoint makes one when it is empty.
	ID string
	// Name is the endpoint's name.
	Name string
	// TemplateID is the serverless template its workers run. For an
	// endpoint of an inline image (Image set, TemplateID empty, in
	// AddEndpoint or POST /v2/serverless) it is the template the fake
	// made for that image, as the platform makes one.
	TemplateID string
	// GPUs are the GPU pools workers come from, in order of preference
	// (gpuIds on the wire, comma-joined; REST gpu.pools). A CPU endpoint
	// has none. A "-<GPU type>" entry given to AddEndpoint (GraphQL's
	// spelling of an excluded type) is moved to ExcludedGPUTypes.
	GPUs []serverless.GPUPool
	// ExcludedGPUTypes lists GPU types never used, even within GPUs
	// (REST gpu.excludedTypes; in GraphQL's gpuIds, "-<type>" entries
	// after the pools).
	ExcludedGPUTypes []string
	// Type is serverless.EndpointTypeQueue (the default) or
	// EndpointTypeLoadBalancer (GraphQL's QB and LB).
	Type serverless.EndpointType
	// Locations restricts the regions of workers by country code
	// (GraphQL's locations, comma-joined); empty means any.
	Locations []serverless.Location
	// DataCenterIDs restricts workers to data centers such as "EU-RO-1"
	// (REST dataCenterIds). GraphQL's locations carries them too,
	// comma-joined after Locations, and a saveEndpoint whose locations
	// name data centers (ids with a '-') sets them.
	DataCenterIDs []string
	// FlashBoot is the cold-start mode (serverless.FlashBootOff by default).
	FlashBoot serverless.FlashBoot
	// ScalerType drives autoscaling (serverless.ScalerTypeQueueDelay by default).
	ScalerType serverless.ScalerType
	// ScalerValue is the scaler's threshold as GraphQL's scalerValue (an
	// Int) reports it (4 by default): the request count, or the queue
	// delay in seconds rounded up.
	ScalerValue int
	// QueueDelay is, for serverless.ScalerTypeQueueDelay scaling, the queue delay in
	// seconds as REST scaling.queueDelay carries it (a float, such as
	// 2.5); ScalerValue when 0. It is 0 for request-count scaling.
	QueueDelay float64
	// IdleTimeout is how long, in seconds, an idle worker stays (5 by
	// default; 10 for an endpoint created over REST, as the document
	// says).
	IdleTimeout int
	// WorkersMin workers are kept running (0 by default).
	WorkersMin int
	// WorkersMax caps the workers (3 by default).
	WorkersMax int
	// WorkersStandby is the number of standby workers GraphQL reports
	// (workersStandby). No API sets it: saveEndpoint does not take it,
	// and no save changes it.
	WorkersStandby int
	// GPUCount is the number of GPUs per worker (1 by default; 0 on a CPU
	// endpoint).
	GPUCount int
	// ExecutionTimeout limits each job (600 s by default; 300 s for an
	// endpoint created over REST, as the document says): whole
	// milliseconds on the wire, GraphQL's executionTimeoutMs and REST's
	// timeout.
	ExecutionTimeout time.Duration
	// NetworkVolumeID is the network volume mounted on workers (GraphQL's
	// networkVolumeId). The endpoint's network volumes are one list:
	// NetworkVolumeID, then the NetworkVolumeIDs that do not repeat it
	// (REST networkVolumes); a REST change of the list sets
	// NetworkVolumeID to its first entry and NetworkVolumeIDs to all of
	// it.
	NetworkVolumeID string
	// NetworkVolumeIDs lists the network volumes of GraphQL's
	// networkVolumeIds.
	NetworkVolumeIDs []string
	// GlobalVolumeIDs lists the global volume the workers mount (REST
	// globalVolumes; at most one).
	GlobalVolumeIDs []string
	// InstanceIDs are the CPU flavours of a CPU endpoint as GraphQL's
	// instanceIds spells them: flavour, vCPUs and GB of memory, as in
	// cpu3c-2-4. REST's cpu [{"id":"cpu3c","vcpuCount":2}] is the same
	// list (memory reported as the flavour's per-vCPU memory times the
	// vCPUs).
	InstanceIDs []string
	// MinCUDAVersion is the lowest CUDA version of a worker's host; empty
	// for none.
	MinCUDAVersion string
	// AllowedCUDAVersions lists the CUDA versions a worker's host may
	// have (REST gpu.allowedCudaVersions; GraphQL's allowedCudaVersions,
	// comma-joined); empty allows any.
	AllowedCUDAVersions []string
	// ModelReferences lists models cached for the workers.
	ModelReferences []string

	// Image is the container image of an endpoint of an inline image; on
	// an endpoint of a template it overrides the template's image when
	// set. Args, Disk, Env, Ports and Registry are the container's other
	// settings alike: the inline image's, or overrides of the template's
	// where set (a nil Env or Ports, an empty Args or Registry and a zero
	// Disk take the template's). REST reports the resolved container.
	Image string
	// Args is the container's start command.
	Args string
	// Disk is the container disk in GB (10 for an inline image when 0).
	Disk int
	// Env is the container's environment; GraphQL's env reports it.
	Env map[string]string
	// Ports are the ports the workers expose, such as "8000/http".
	Ports []string
	// Registry is the id of the registry credentials the image is pulled
	// with; empty for none.
	Registry string
	// CreatedAt is when the endpoint was created; the fake sets it (by
	// its clock) when zero.
	CreatedAt time.Time

	workers  []endpointWorker
	version  int       // the configuration version, from 1
	releases []release // oldest first; see serverless.go
}

// withDefaults fills the settings e leaves zero with the fake's defaults,
// and puts each setting in its one place (see normalize).
func (e Endpoint) withDefaults() Endpoint {
	e.Type = cmp.Or(e.Type, serverless.EndpointTypeQueue)
	e.FlashBoot = cmp.Or(e.FlashBoot, serverless.FlashBootOff)
	e.ScalerType = cmp.Or(e.ScalerType, serverless.ScalerTypeQueueDelay)
	e.ScalerValue = cmp.Or(e.ScalerValue, defaultScalerValue)
	e.IdleTimeout = cmp.Or(e.IdleTimeout, defaultIdleTimeout)
	e.WorkersMax = cmp.Or(e.WorkersMax, max(defaultWorkersMax, e.WorkersMin))
	if len(e.InstanceIDs) == 0 {
		e.GPUCount = cmp.Or(e.GPUCount, defaultGPUCount)
	}
	e.ExecutionTimeout = cmp.Or(e.ExecutionTimeout, defaultExecutionTime*time.Millisecond)
	e.normalize()
	return e
}

// normalize puts each setting in its one place: GraphQL's "-<type>"
// entries of the GPU pools become ExcludedGPUTypes, and the queue delay
// is QueueDelay (for queue-delay scaling), with ScalerValue its GraphQL
// spelling, rounded up.
func (e *Endpoint) normalize() {
	var pools []serverless.GPUPool
	moved := false
	for _, p := range e.GPUs {
		if t, ok := strings.CutPrefix(strings.TrimSpace(string(p)), "-"); ok {
			e.ExcludedGPUTypes = append(slices.Clip(e.ExcludedGPUTypes), strings.TrimSpace(t))
			moved = true
			continue
		}
		pools = append(pools, p)
	}
	if moved {
		e.GPUs = pools
	}
	if e.ScalerType == serverless.ScalerTypeQueueDelay {
		if e.QueueDelay == 0 {
			e.QueueDelay = float64(e.ScalerValue)
		}
		e.ScalerValue = int(math.Ceil(e.QueueDelay))
	} else {
		e.QueueDelay = 0
	}
}

// volumes returns the endpoint's network volumes as one list:
// NetworkVolumeID first, then NetworkVolumeIDs without repeats.
func (e *Endpoint) volumes() []string {
	out := []string{}
	for _, id := range append([]string{e.NetworkVolumeID}, e.NetworkVolumeIDs...) {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// setVolumes sets the endpoint's network volumes from one list.
func (e *Endpoint) setVolumes(ids []string) {
	e.NetworkVolumeID, e.NetworkVolumeIDs = "", nil
	if len(ids) > 0 {
		e.NetworkVolumeID, e.NetworkVolumeIDs = ids[0], slices.Clone(ids)
	}
}

// ownContainer is the container settings the endpoint itself holds.
func (e *Endpoint) ownContainer() container {
	return container{Image: e.Image, Args: e.Args, Disk: e.Disk, Env: e.Env, Ports: e.Ports, Registry: e.Registry}
}

// setContainer sets the endpoint's own container settings.
func (e *Endpoint) setContainer(c container) {
	e.Image, e.Args, e.Disk, e.Env, e.Ports, e.Registry = c.Image, c.Args, c.Disk, c.Env, c.Ports, c.Registry
}

// over returns base with the settings c sets in place of base's.
func (c container) over(base container) container {
	base.Image = cmp.Or(c.Image, base.Image)
	base.Args = cmp.Or(c.Args, base.Args)
	base.Disk = cmp.Or(c.Disk, base.Disk)
	base.Registry = cmp.Or(c.Registry, base.Registry)
	if c.Env != nil {
		base.Env = c.Env
	}
	if c.Ports != nil {
		base.Ports = c.Ports
	}
	return base
}

// snapshot returns a copy of e that shares nothing with it, without the
// fake's private state.
func (e *Endpoint) snapshot() Endpoint {
	c := *e
	c.workers, c.releases, c.version = nil, nil, 0
	c.GPUs, c.ExcludedGPUTypes = slices.Clone(e.GPUs), slices.Clone(e.ExcludedGPUTypes)
	c.Locations, c.DataCenterIDs = slices.Clone(e.Locations), slices.Clone(e.DataCenterIDs)
	c.NetworkVolumeIDs, c.InstanceIDs = slices.Clone(e.NetworkVolumeIDs), slices.Clone(e.InstanceIDs)
	c.GlobalVolumeIDs = slices.Clone(e.GlobalVolumeIDs)
	c.AllowedCUDAVersions, c.ModelReferences = slices.Clone(e.AllowedCUDAVersions), slices.Clone(e.ModelReferences)
	c.Env, c.Ports = maps.Clone(e.Env), slices.Clone(e.Ports)
	return c
}

// splitList splits a comma-joined wire list; "" is no item.
func splitList[T ~string](s string) []T {
	if s == "" {
		return nil
	}
	var out []T
	for part := range strings.SplitSeq(s, ",") {
		out = append(out, T(part))
	}
	return out
}

// joinList joins a list as the wire carries it.
func joinList[T ~string](items []T) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = string(it)
	}
	return strings.Join(parts, ",")
}

type endpointWorker struct {
	id       string
	status   string                          // desired status, as GraphQL reports it
	since    time.Time                       // when it started
	version  int                             // the endpoint's configuration version it runs
	state    serverless.EndpointWorkerStatus // as REST reports it; empty is IDLE (see serverless.go)
	goneAt   time.Time                       // zero while running
	draining bool
}

// AddTemplate registers serverless template ids; saveEndpoint accepts only
// serverless templates that exist, as the platform does. A new one gets
// the fake's defaults (its id as its name, a placeholder image, a 10 GB
// disk) and is listed by GET /v2/templates like one created there; an
// existing template of that id is marked serverless. For a template with
// settings of its own, use StoreTemplate.
func (s *Server) AddTemplate(ids ...string) {
	for _, id := range ids {
		s.templates.registerServerless(id)
	}
}

// AddEndpoint stores e with the fake's defaults for the settings it
// leaves zero (an empty ID gets a new one), with WorkersMin running
// workers, registers its TemplateID as a serverless template (so that
// later saves of it are accepted, and deleting the template is refused
// while the endpoint uses it), and returns its id: state for a test to
// start from without going through the API. An endpoint given an Image
// and no TemplateID runs that inline image: the fake makes its template,
// as the platform does. Jobs sent to it need a handler: use
// AddQueueEndpoint, HandleTemplate, HandleTemplateNamed, HandleImage or
// HandleAnyTemplate (before or after) or HandleQueue. AddEndpoint does not
// check its network volumes, as the API routes do.
func (s *Server) AddEndpoint(e Endpoint) string {
	e = e.withDefaults()
	var serve func() // set under the lock, run once it is released
	defer runIfSet(&serve)
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	if e.ID == "" {
		e.ID = s.graphql.newEndpointIDLocked()
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.now().UTC()
	}
	prev := ""
	if old := s.graphql.endpoints[e.ID]; old != nil {
		prev = old.TemplateID
	}
	switch {
	case e.TemplateID == "" && e.Image != "":
		e.Disk = cmp.Or(e.Disk, defaultServerlessDisk)
		e.TemplateID = s.templates.makeInline(e.ID, prev, e.ownContainer())
	case e.TemplateID != "":
		_ = s.templates.useForEndpoint(e.TemplateID, e.ID, prev, true) // registered: no error
	}
	e.version = 1
	e.workers = s.graphql.scaleWorkers(nil, e.WorkersMin, e.version, s.now())
	s.graphql.endpoints[e.ID] = &e
	serve = s.serveLocked(&e)
	return e.ID
}

// newEndpointIDLocked returns an id no endpoint has: "ep" and ten digits.
// g.mu is held.
func (g *graphqlUnit) newEndpointIDLocked() string {
	for {
		g.endpointSeq++
		if id := fmt.Sprintf("ep%010d", g.endpointSeq); g.endpoints[id] == nil {
			return id
		}
	}
}

// peekEndpointIDLocked returns the id newEndpointIDLocked will return
// next, without taking it. g.mu is held.
func (g *graphqlUnit) peekEndpointIDLocked() string {
	for seq := g.endpointSeq + 1; ; seq++ {
		if id := fmt.Sprintf("ep%010d", seq); g.endpoints[id] == nil {
			return id
		}
	}
}

// containerLocked returns the container e's workers run: its template's,
// with the settings e holds itself in their place. s.graphql.mu is held
// (the templates lock is taken after it).
func (s *Server) containerLocked(e *Endpoint) container {
	base, _ := s.templates.containerOf(e.TemplateID)
	return e.ownContainer().over(base)
}

// runIfSet calls *f if it is set: deferred before a lock is taken, it
// runs what was decided under the lock once the lock is released.
func runIfSet(f *func()) {
	if *f != nil {
		(*f)()
	}
}

// serveLocked returns what serves the jobs of queue-based endpoint e, to
// be called once s.graphql.mu is released: the handler registered for it
// (handlerLocked), or, when there is none, a queue whose jobs wait for one
// (awaitWorker). It returns nil for an endpoint that is not queue-based.
// s.graphql.mu is held.
func (s *Server) serveLocked(e *Endpoint) func() {
	id := e.ID
	th, _, ok := s.handlerLocked(e)
	switch {
	case ok:
		return func() { s.HandleQueue(id, th.h, th.opts...) }
	case e.Type == serverless.EndpointTypeQueue:
		return func() { s.awaitWorker(id) }
	}
	return nil
}

// The ways a handler is registered for an endpoint, strongest first.
const (
	byTemplateID   = iota + 1 // HandleTemplate
	byTemplateName            // HandleTemplateNamed
	byImage                   // HandleImage
	byAnyTemplate             // HandleAnyTemplate
)

// handlerLocked returns the handler that runs the jobs of queue-based
// endpoint e, and how it was registered: the handler of its template's id
// (HandleTemplate), else of its template's name (HandleTemplateNamed),
// else of its image (HandleImage), else the one for any template
// (HandleAnyTemplate). ok is false when there is none, or e is not
// queue-based. s.graphql.mu is held.
func (s *Server) handlerLocked(e *Endpoint) (th templateHandler, by int, ok bool) {
	g := &s.graphql
	if e.Type != serverless.EndpointTypeQueue {
		return th, 0, false
	}
	if th, ok := g.handlers[e.TemplateID]; ok {
		return th, byTemplateID, true
	}
	if len(g.namedHandlers) > 0 {
		if th, ok := g.namedHandlers[s.templates.nameOf(e.TemplateID)]; ok {
			return th, byTemplateName, true
		}
	}
	if len(g.imageHandlers) > 0 {
		if th, ok := g.imageHandlers[s.containerLocked(e).Image]; ok {
			return th, byImage, true
		}
	}
	if g.anyHandler != nil {
		return *g.anyHandler, byAnyTemplate, true
	}
	return th, 0, false
}

// AddQueueEndpoint is AddEndpoint for a queue-based endpoint whose workers
// run h (as HandleQueue serves it), in one call: the endpoint is listed
// by the GraphQL API, its template is registered, and jobs sent to it run.
// It returns the endpoint's id.
func (s *Server) AddQueueEndpoint(e Endpoint, h worker.Handler, opts ...QueueOption) string {
	e.Type = serverless.EndpointTypeQueue
	id := s.AddEndpoint(e)
	s.HandleQueue(id, h, opts...)
	return id
}

// HandleTemplate registers a serverless template whose workers run h, as
// the platform runs a template's image: every queue-based endpoint with
// this template, whether it exists already or is created later (by the
// SDK's Endpoints.Create, say), runs its jobs with h, the jobs it queued
// before included. Without it (or HandleTemplateNamed, HandleImage or
// HandleAnyTemplate), an endpoint created through the API is listed and
// its jobs are queued but never taken, as on the platform when no worker
// starts: they stay IN_QUEUE, /health counts them, /status, /cancel and
// /purge-queue answer, and /runsync answers with the job still IN_QUEUE
// once its wait passes. It wins over the other three; for a template the
// program under test creates, whose id the test does not know, use
// HandleTemplateNamed.
func (s *Server) HandleTemplate(templateID string, h worker.Handler, opts ...QueueOption) {
	s.templates.registerServerless(templateID)
	s.graphql.mu.Lock()
	s.graphql.handlers[templateID] = templateHandler{h: h, opts: opts}
	var ids []string
	for id, e := range s.graphql.endpoints {
		if e.TemplateID == templateID && e.Type == serverless.EndpointTypeQueue {
			ids = append(ids, id)
		}
	}
	s.graphql.mu.Unlock()
	for _, id := range ids {
		s.HandleQueue(id, h, opts...)
	}
}

// HandleImage registers the worker a container image runs, as the
// platform runs an image: every queue-based endpoint whose workers run
// image (an inline image given to POST /v2/serverless or AddEndpoint, or
// the image of its template), whether it exists already or is created
// later, runs its jobs with h. A handler registered for an endpoint's
// template with HandleTemplate or HandleTemplateNamed wins over this one.
func (s *Server) HandleImage(image string, h worker.Handler, opts ...QueueOption) {
	s.graphql.mu.Lock()
	s.graphql.imageHandlers[image] = templateHandler{h: h, opts: opts}
	s.serveRegistered(byImage, false)
}

// HandleTemplateNamed registers the worker of the templates named name,
// for a template the program under test creates itself (with
// rp.Templates.Create, say), whose id a test cannot know beforehand:
// every queue-based endpoint whose template has this name when the
// endpoint is created or moved to it, and every such endpoint that exists
// already, runs its jobs with h. The template must still be a serverless
// one for an endpoint to take it, as the platform checks. A handler
// registered for the template's id with HandleTemplate wins over this
// one, and this one over HandleImage's and HandleAnyTemplate's. It does
// not make a template.
func (s *Server) HandleTemplateNamed(name string, h worker.Handler, opts ...QueueOption) {
	s.graphql.mu.Lock()
	s.graphql.namedHandlers[name] = templateHandler{h: h, opts: opts}
	s.serveRegistered(byTemplateName, false)
}

// HandleAnyTemplate registers the worker of every queue-based endpoint
// that has no other: an endpoint whose template has no handler by id
// (HandleTemplate) or name (HandleTemplateNamed) and whose image has none
// (HandleImage) runs its jobs with h, whether it is created later (by the
// program under test, of a template it created, or of an inline image) or
// exists already; an endpoint whose jobs are served already (HandleQueue,
// AddQueueEndpoint) keeps its handler. Use it as the fallback of a test
// that does not care which template the program chose.
func (s *Server) HandleAnyTemplate(h worker.Handler, opts ...QueueOption) {
	s.graphql.mu.Lock()
	s.graphql.anyHandler = &templateHandler{h: h, opts: opts}
	s.serveRegistered(byAnyTemplate, true)
}

// serveRegistered serves, with the handler each now resolves to, the
// existing queue-based endpoints whose handler was registered by, and
// releases s.graphql.mu, which the caller holds. With unserved, an
// endpoint whose jobs are served already keeps its queue.
func (s *Server) serveRegistered(by int, unserved bool) {
	type serve struct {
		id string
		th templateHandler
	}
	var list []serve
	for id, e := range s.graphql.endpoints {
		if th, how, ok := s.handlerLocked(e); ok && how == by {
			list = append(list, serve{id, th})
		}
	}
	s.graphql.mu.Unlock()
	for _, sv := range list {
		if unserved {
			s.jobs.mu.Lock()
			q := s.jobs.queues[sv.id]
			served := q != nil && !q.idle && !q.deleted.Load()
			s.jobs.mu.Unlock()
			if served {
				continue
			}
		}
		s.HandleQueue(sv.id, sv.th.h, sv.th.opts...)
	}
}

// Endpoints returns a snapshot of the fake's endpoints, ordered by id.
func (s *Server) Endpoints() []Endpoint {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	var out []Endpoint
	for _, e := range s.graphql.endpoints {
		out = append(out, e.snapshot())
	}
	slices.SortFunc(out, func(a, b Endpoint) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// SetDiscount sets the account's serverless discount; nil removes it.
func (s *Server) SetDiscount(d *Discount) {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	s.graphql.discount = d
}

// Discount is the account's serverless discount as the fake reports it.
type Discount struct {
	// Factor multiplies serverless prices (0.9 is 10 % off).
	Factor float64
	// Type is what the discount applies to, such as "SERVERLESS".
	Type string
	// ExpirationDate is the last day it applies, as YYYY-MM-DD.
	ExpirationDate string
}

// mutationCount returns how many times the named GraphQL mutation was
// applied (fakegraphql.Mutations).
func (s *Server) mutationCount(name string) int {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	return s.graphql.mutations[name]
}

// graphQLGone is the detail of the 410 a retired GraphQL API answers.
const graphQLGone = "The GraphQL API is retired: use the REST API v2 (/v2), which manages serverless endpoints at /v2/serverless."

// graphQLSeam is the GraphQL API's side of the seam: fakegraphql binds
// its engine to the resolvers (gqlRoot) and serves POST /graphql with it.
func (s *Server) graphQLSeam() seam.GraphQL {
	return seam.GraphQL{
		Root:      &gqlRoot{s: s},
		Serve:     func(exec seam.Exec) { s.graphql.exec = exec },
		Retire:    s.graphql.retired.Store,
		Mutations: s.mutationCount,
	}
}

// registerGraphQL serves POST /graphql: with the engine fakegraphql
// installed; without it, as the platform will once it retires the API
// (410 Gone).
func (s *Server) registerGraphQL() {
	exec := s.graphql.exec
	serve := s.wrap(Route{Pattern: routeGraphQL, QueryKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query         string         `json:"query"`
			OperationName string         `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" {
			Problem(w, http.StatusBadRequest, "request body must be a JSON object with a query")
			return
		}
		WriteJSON(w, exec(r.Context(), req.Query, req.OperationName, req.Variables))
	}))
	s.apiMux.Handle(routeGraphQL, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if exec != nil && !s.graphql.retired.Load() {
			serve.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(http.MaxBytesReader(w, r.Body, 32<<20))
		entry := s.record(routeGraphQL, r, body)
		w.Header().Set("X-Request-Id", "req-"+strconv.FormatInt(s.requestID.Add(1), 10))
		s.finish(entry, Problem(w, http.StatusGone, graphQLGone))
	}))
}

// gqlError is an error the GraphQL engine reports with extensions.code.
type gqlError struct{ msg, code string }

func (e *gqlError) Error() string { return e.msg }

// Extensions gives the error's code to the GraphQL response.
func (e *gqlError) Extensions() map[string]any { return map[string]any{"code": e.code} }

func badInput(format string, args ...any) error {
	return &gqlError{msg: fmt.Sprintf(format, args...), code: "BAD_USER_INPUT"}
}

type gqlRoot struct{ s *Server }

func (r *gqlRoot) Myself(ctx context.Context) *gqlUser {
	if !hasPerm(ctx, PermissionServerlessRead) {
		return nil // the platform answers myself: null for a key it does not accept
	}
	return &gqlUser{s: r.s}
}

// cudaVersion is the REST v2 document's pattern of a CUDA version
// (CreateEndpointGpuConfig.allowedCudaVersions): major.minor.
var cudaVersion = regexp.MustCompile(`^\d+\.\d+$`)

// cpuFlavour is the shape of a CPU instance id: generation, class, vCPUs
// and GiB of memory, as in cpu3c-2-4 or cpu5g-8-32.
var cpuFlavour = regexp.MustCompile(`^cpu\d+[a-z]-\d+-\d+$`)

func hasPerm(ctx context.Context, p Permission) bool {
	perms, _ := ctx.Value(ctxKey{}).(map[Permission]bool)
	return perms[p]
}

type endpointInput struct {
	ID                  *string
	Name                string
	TemplateID          *string
	HubReleaseID        *string
	AllowedCudaVersions *string
	GpuIds              *string
	Type                *string
	IdleTimeout         *int32
	Locations           *string
	FlashBootType       *string
	ScalerType          *string
	ScalerValue         *int32
	WorkersMin          *int32
	WorkersMax          *int32
	NetworkVolumeID     *string
	NetworkVolumeIds    *[]struct{ NetworkVolumeID string }
	GpuCount            *int32
	InstanceIds         *[]string
	ExecutionTimeoutMs  *int32
	MinCudaVersion      *string
	ModelReferences     *[]string
}

func (r *gqlRoot) SaveEndpoint(ctx context.Context, args struct{ Input endpointInput }) (*gqlEndpoint, error) {
	if !hasPerm(ctx, PermissionServerlessWrite) {
		return nil, &gqlError{msg: "access denied", code: "FORBIDDEN"}
	}
	in := args.Input
	e := &Endpoint{
		Name: in.Name, TemplateID: orStr(in.TemplateID, ""), GPUs: splitList[serverless.GPUPool](orStr(in.GpuIds, "")),
		Type:       gqlTypes[orStr(in.Type, "QB")],
		FlashBoot:  serverless.FlashBoot(orStr(in.FlashBootType, "OFF")),
		ScalerType: serverless.ScalerType(orStr(in.ScalerType, "QUEUE_DELAY")), NetworkVolumeID: orStr(in.NetworkVolumeID, ""),
		MinCUDAVersion: orStr(in.MinCudaVersion, ""),
		IdleTimeout:    orInt(in.IdleTimeout, defaultIdleTimeout), ScalerValue: orInt(in.ScalerValue, defaultScalerValue),
		WorkersMin: orInt(in.WorkersMin, 0), WorkersMax: orInt(in.WorkersMax, defaultWorkersMax),
		GPUCount:         orInt(in.GpuCount, defaultGPUCount),
		ExecutionTimeout: time.Duration(orInt(in.ExecutionTimeoutMs, defaultExecutionTime)) * time.Millisecond,
	}
	// locations carries country codes and data center ids alike: an id
	// with a '-' (EU-RO-1) is a data center.
	for _, l := range splitList[string](orStr(in.Locations, "")) {
		if l = strings.TrimSpace(l); strings.Contains(l, "-") {
			e.DataCenterIDs = append(e.DataCenterIDs, l)
		} else if l != "" {
			e.Locations = append(e.Locations, serverless.Location(l))
		}
	}
	for _, v := range splitList[string](orStr(in.AllowedCudaVersions, "")) {
		if v = strings.TrimSpace(v); v != "" {
			e.AllowedCUDAVersions = append(e.AllowedCUDAVersions, v)
		}
	}
	if in.NetworkVolumeIds != nil {
		for _, v := range *in.NetworkVolumeIds {
			e.NetworkVolumeIDs = append(e.NetworkVolumeIDs, v.NetworkVolumeID)
		}
	}
	if in.InstanceIds != nil {
		e.InstanceIDs = slices.Clone(*in.InstanceIds)
	}
	if in.ModelReferences != nil {
		e.ModelReferences = slices.Clone(*in.ModelReferences)
	}
	if len(e.InstanceIDs) > 0 && in.GpuCount == nil {
		e.GPUCount = 0
	}
	e.normalize()
	switch {
	case len(strings.TrimSpace(e.Name)) < 3:
		return nil, badInput("Endpoint name must be at least 3 characters.")
	case e.TemplateID == "" && orStr(in.HubReleaseID, "") == "":
		return nil, badInput("templateId is required.")
	case strings.TrimSpace(joinList(e.GPUs)) == "" && len(e.InstanceIDs) == 0:
		// A CPU endpoint names CPU flavours in instanceIds instead of
		// GPU pools (as the platform's CLI creates them).
		return nil, badInput("gpuIds is required.")
	case strings.TrimSpace(joinList(e.GPUs)) != "" && len(e.InstanceIDs) > 0:
		return nil, badInput("An endpoint runs on GPU pools or on CPU instances, not both.")
	case slices.ContainsFunc(e.InstanceIDs, func(id string) bool { return !cpuFlavour.MatchString(id) }):
		return nil, badInput("Invalid CPU instance id in instanceIds %q.", e.InstanceIDs)
	case slices.ContainsFunc(e.AllowedCUDAVersions, func(v string) bool { return !cudaVersion.MatchString(v) }):
		return nil, badInput("Invalid CUDA version in allowedCudaVersions %q.", e.AllowedCUDAVersions)
	case e.Type == "":
		return nil, badInput("Invalid endpoint type %q.", orStr(in.Type, ""))
	case e.ScalerType != serverless.ScalerTypeQueueDelay && e.ScalerType != serverless.ScalerTypeRequestCount:
		return nil, badInput("Invalid scaler type %q.", e.ScalerType)
	case e.ScalerValue < 1:
		return nil, badInput("Scaler value cannot be less than 1.")
	case e.IdleTimeout < 1 || e.IdleTimeout > 3600:
		return nil, badInput("Idle timeout must be between 1 and 3600 seconds.")
	case e.WorkersMin < 0 || e.WorkersMax < e.WorkersMin:
		return nil, badInput("workersMax must be at least workersMin, and workersMin at least 0.")
	}

	s := r.s
	// A new endpoint of a template with a handler gets its queue before
	// the answer leaves, once the lock is released.
	var serve func() // set under the lock, run once it is released
	defer runIfSet(&serve)
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	now := s.now()
	// The template is checked, and recorded as the endpoint's, in the
	// templates unit: with the graphql lock held, which is the order the
	// two locks are taken in.
	var old *Endpoint
	if in.ID != nil {
		old = s.graphql.endpoints[*in.ID]
	}
	use := func(endpointID, previous string) error {
		switch err := s.templates.useForEndpoint(e.TemplateID, endpointID, previous, false); {
		case errors.Is(err, errTemplateNotFound):
			return &gqlError{msg: "template not found", code: "NOT_FOUND"}
		case err != nil:
			return badInput("Template %s is not a serverless template.", e.TemplateID)
		}
		return nil
	}
	// The network volumes must exist, each in one of the endpoint's data
	// centers when locations names some (checkVolumeRefs gives the
	// sources); a save sends them all, so all are checked.
	if in.ID == nil || old != nil {
		if vp := s.checkVolumeRefs(e.volumes(), e.DataCenterIDs, true); vp != nil {
			field := "networkVolumeIds"
			if e.volumes()[vp.index] == e.NetworkVolumeID {
				field = "networkVolumeId"
			}
			return nil, badInput("%s: %s.", field, vp.msg)
		}
	}
	switch {
	case in.ID != nil && old == nil:
		if err := use("", ""); err != nil {
			return nil, err
		}
		return nil, &gqlError{msg: "endpoint not found", code: "NOT_FOUND"}
	case old != nil:
		if err := use(old.ID, old.TemplateID); err != nil {
			return nil, err
		}
		e.ID, e.workers, e.version, e.releases = old.ID, old.workers, old.version, old.releases
		// Not EndpointInput fields, so no save changes them: the standby
		// workers, the creation time, and the container settings, which
		// belong with the template (an inline image's go with its
		// template when the save names another).
		e.WorkersStandby, e.CreatedAt = old.WorkersStandby, old.CreatedAt
		if old.TemplateID == e.TemplateID {
			e.setContainer(old.ownContainer())
		}
		s.graphql.release(e, now, serverless.ReleaseSourceManual, nil, settingsDiff(old, e))
	default:
		id := s.graphql.peekEndpointIDLocked()
		if err := use(id, ""); err != nil {
			return nil, err
		}
		e.ID = s.graphql.newEndpointIDLocked()
		e.version = 1
		e.CreatedAt = now.UTC()
	}
	e.workers = s.graphql.scaleWorkers(e.workers, e.WorkersMin, e.version, now)
	s.graphql.endpoints[e.ID] = e
	s.graphql.mutations["saveEndpoint"]++
	if in.ID == nil || old.TemplateID != e.TemplateID {
		serve = s.serveLocked(e)
	}
	return s.gqlEndpointLocked(e), nil
}

// updateEndpointTemplateInput is the input of updateEndpointTemplate.
type updateEndpointTemplateInput struct {
	EndpointID string
	TemplateID string
}

// UpdateEndpointTemplate changes the template of an endpoint and nothing
// else (runpod-python's update_endpoint_template, runpodctl's
// UpdateEndpointTemplate). The template must exist and be a serverless
// one, as saveEndpoint checks; a change records a MANUAL release.
func (r *gqlRoot) UpdateEndpointTemplate(ctx context.Context, args struct{ Input *updateEndpointTemplateInput }) (*gqlEndpoint, error) {
	if !hasPerm(ctx, PermissionServerlessWrite) {
		return nil, &gqlError{msg: "access denied", code: "FORBIDDEN"}
	}
	if args.Input == nil {
		return nil, badInput("input is required.")
	}
	in := *args.Input
	s := r.s
	var serve func() // set under the lock, run once it is released
	defer runIfSet(&serve)
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	old := s.graphql.endpoints[in.EndpointID]
	if old == nil {
		return nil, &gqlError{msg: "endpoint not found", code: "NOT_FOUND"}
	}
	if in.TemplateID == old.TemplateID {
		s.graphql.mutations["updateEndpointTemplate"]++
		return s.gqlEndpointLocked(old), nil
	}
	wasInline := s.templates.isInline(old.TemplateID, old.ID)
	switch err := s.templates.useForEndpoint(in.TemplateID, old.ID, old.TemplateID, false); {
	case errors.Is(err, errTemplateNotFound):
		return nil, &gqlError{msg: "template not found", code: "NOT_FOUND"}
	case err != nil:
		return nil, badInput("Template %s is not a serverless template.", in.TemplateID)
	}
	e := old.snapshot()
	e.workers, e.version, e.releases = old.workers, old.version, old.releases
	e.TemplateID = in.TemplateID
	if wasInline {
		e.setContainer(container{}) // the inline image went with its template
	}
	s.graphql.release(&e, s.now(), serverless.ReleaseSourceManual, nil, settingsDiff(old, &e))
	s.graphql.endpoints[e.ID] = &e
	s.graphql.mutations["updateEndpointTemplate"]++
	serve = s.serveLocked(&e)
	return s.gqlEndpointLocked(&e), nil
}

func (r *gqlRoot) DeleteEndpoint(ctx context.Context, args struct{ ID string }) (*string, error) {
	if !hasPerm(ctx, PermissionServerlessWrite) {
		return nil, &gqlError{msg: "access denied", code: "FORBIDDEN"}
	}
	s := r.s
	var end func() // set under the lock, run once it is released
	defer runIfSet(&end)
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	e := s.graphql.endpoints[args.ID]
	switch {
	case e == nil:
		return nil, &gqlError{msg: "endpoint not found", code: "NOT_FOUND"}
	case e.WorkersMin != 0 || e.WorkersMax != 0:
		return nil, badInput(notScaledDown)
	}
	s.graphql.deleteLocked(s, args.ID)
	s.graphql.mutations["deleteEndpoint"]++
	// GraphQL's documents say nothing of the jobs left (an endpoint
	// scaled to zero may still have queued ones): they end as REST's
	// delete ends them, since nothing is left to run them.
	end = func() { s.endJobs(args.ID) }
	return nil, nil
}

// notScaledDown is what the platform's GraphQL API answers to the delete
// of an endpoint that is not scaled to zero. REST v2's delete has no such
// rule (deleteEndpoint in endpoints.go).
const notScaledDown = "Endpoint must have workersMin and workersMax set to 0 before it can be deleted."

// deleteLocked deletes an endpoint and its workers; the caller ends its
// jobs (endJobs) once g.mu is released. Its bound template goes with it:
// the template the fake made for it, from the inline image it was created
// with or moved to. An account template it was created from or moved to
// (templateId) stays, and no longer counts it: REST v2's createEndpoint
// resolves templateId "at create time" into the endpoint's own container
// settings, and "later template edits do not affect the endpoint", so
// the template the platform binds to the endpoint is one of its own, not
// the account's (RunPod's CLI, reading endpoints over REST v2, likewise
// finds no link to a template in them). For an endpoint saved over
// GraphQL with an account template, no document says whether a delete
// takes that template, which other endpoints may use: the fake keeps it.
// g.mu is held.
func (g *graphqlUnit) deleteLocked(s *Server, id string) {
	e := g.endpoints[id]
	if e == nil {
		return
	}
	delete(g.endpoints, id)
	delete(g.jobWorkers, id)
	s.templates.releaseEndpoint(e.TemplateID, id)
	s.endpointDeleted(e) // its usage stays billed
}

// scaleWorkers keeps min workers running: missing ones start, running the
// endpoint's configuration version, extra ones drain and disappear after
// the unit's drain time. g.mu is held.
func (g *graphqlUnit) scaleWorkers(ws []endpointWorker, min, version int, now time.Time) []endpointWorker {
	running := 0
	out := ws[:0:0]
	for _, w := range ws {
		if !w.draining && running < min {
			running++
			out = append(out, w)
			continue
		}
		if !w.draining {
			w.status, w.draining, w.goneAt = "EXITED", true, now.Add(g.drain)
		}
		out = append(out, w)
	}
	for ; running < min; running++ {
		g.workerSeq++
		out = append(out, endpointWorker{id: fmt.Sprintf("wk%08d", g.workerSeq), status: "RUNNING", since: now, version: version})
	}
	return out
}

type gqlUser struct{ s *Server }

func (u *gqlUser) ID() *string { id := "user-1"; return &id }

func (u *gqlUser) Endpoints() *[]*gqlEndpoint {
	s := u.s
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	out := []*gqlEndpoint{}
	for _, e := range s.graphql.endpoints {
		out = append(out, s.gqlEndpointLocked(e))
	}
	slices.SortFunc(out, func(a, b *gqlEndpoint) int { return strings.Compare(a.e.ID, b.e.ID) })
	return &out
}

func (u *gqlUser) ServerlessDiscount() *gqlDiscount {
	u.s.graphql.mu.Lock()
	defer u.s.graphql.mu.Unlock()
	if u.s.graphql.discount == nil {
		return nil
	}
	return &gqlDiscount{*u.s.graphql.discount}
}

type gqlDiscount struct{ d Discount }

func (d *gqlDiscount) DiscountFactor() *float64 { return &d.d.Factor }
func (d *gqlDiscount) Type() *string            { return &d.d.Type }
func (d *gqlDiscount) ExpirationDate() *string  { return &d.d.ExpirationDate }

// gqlEndpoint is an endpoint as GraphQL reports it: a copy taken under
// the graphql lock, with the container its workers run, so that its
// fields resolve with no lock held.
type gqlEndpoint struct {
	s       *Server
	e       Endpoint
	workers []endpointWorker
	version int
	c       container
	now     time.Time
}

// gqlEndpointLocked copies e for GraphQL, with the workers running its
// jobs in progress beyond its own (forJobsLocked). s.graphql.mu is held
// (the jobs lock is taken after it).
func (s *Server) gqlEndpointLocked(e *Endpoint) *gqlEndpoint {
	now := s.now()
	workers, active := slices.Clone(e.workers), 0
	for _, w := range e.workers {
		if !w.draining {
			active++
		}
	}
	for _, w := range s.graphql.forJobsLocked(e, active, s.jobsRunning(e.ID), now) {
		if !slices.ContainsFunc(workers, func(x endpointWorker) bool { return x.id == w.id }) {
			workers = append(workers, w)
		} else {
			// A draining worker finishing a job is listed until it ends.
			i := slices.IndexFunc(workers, func(x endpointWorker) bool { return x.id == w.id })
			workers[i].goneAt = time.Time{}
			workers[i].draining = false
		}
	}
	return &gqlEndpoint{s: s, e: e.snapshot(), workers: workers, version: e.version, c: s.containerLocked(e), now: now}
}

func (g *gqlEndpoint) ID() string          { return g.e.ID }
func (g *gqlEndpoint) Name() string        { return g.e.Name }
func (g *gqlEndpoint) TemplateID() *string { return &g.e.TemplateID }

// GpuIds is the pools, then each excluded GPU type as "-<type>".
func (g *gqlEndpoint) GpuIds() *string {
	ids := joinList(g.e.GPUs)
	for _, t := range g.e.ExcludedGPUTypes {
		ids = strings.TrimPrefix(ids+",-"+t, ",")
	}
	return &ids
}

func (g *gqlEndpoint) Type() *string {
	for name, t := range gqlTypes {
		if t == g.e.Type {
			return &name
		}
	}
	return nil
}
func (g *gqlEndpoint) IdleTimeout() *int32 { return i32(g.e.IdleTimeout) }

// Locations is the country codes, then the data centers, comma-joined.
func (g *gqlEndpoint) Locations() *string {
	return ptr(strings.Trim(joinList(g.e.Locations)+","+joinList(g.e.DataCenterIDs), ","))
}
func (g *gqlEndpoint) FlashBootType() *string { return ptr(string(g.e.FlashBoot)) }
func (g *gqlEndpoint) ScalerType() *string    { return ptr(string(g.e.ScalerType)) }
func (g *gqlEndpoint) ScalerValue() *int32    { return i32(g.e.ScalerValue) }
func (g *gqlEndpoint) WorkersMin() *int32     { return i32(g.e.WorkersMin) }
func (g *gqlEndpoint) WorkersMax() *int32     { return i32(g.e.WorkersMax) }
func (g *gqlEndpoint) WorkersStandby() *int32 { return i32(g.e.WorkersStandby) }
func (g *gqlEndpoint) GpuCount() *int32       { return i32(g.e.GPUCount) }
func (g *gqlEndpoint) ExecutionTimeoutMs() *int32 {
	return i32(int(g.e.ExecutionTimeout / time.Millisecond))
}
func (g *gqlEndpoint) InstanceIds() *[]string     { return &g.e.InstanceIDs }
func (g *gqlEndpoint) ModelReferences() *[]string { return &g.e.ModelReferences }
func (g *gqlEndpoint) UserID() *string            { u := "user_fake"; return &u }
func (g *gqlEndpoint) Version() *int32            { return i32(g.version) }
func (g *gqlEndpoint) CreatedAt() *string {
	t := g.e.CreatedAt.UTC().Format(time.RFC3339)
	return &t
}

// AiKey is a stable fake key of the endpoint, made from its id.
func (g *gqlEndpoint) AiKey() *string {
	sum := sha256.Sum256([]byte("runpodtest ai key " + g.e.ID))
	k := "aik_" + hex.EncodeToString(sum[:12])
	return &k
}

// AllowedCudaVersions is the list, comma-joined; null when empty.
func (g *gqlEndpoint) AllowedCudaVersions() *string {
	if len(g.e.AllowedCUDAVersions) == 0 {
		return nil
	}
	return ptr(strings.Join(g.e.AllowedCUDAVersions, ","))
}

// Env is the environment of the container the workers run (the
// template's, or the endpoint's own), by name.
func (g *gqlEndpoint) Env() *[]*gqlEnvVar {
	out := []*gqlEnvVar{}
	for _, k := range slices.Sorted(maps.Keys(g.c.Env)) {
		out = append(out, &gqlEnvVar{key: k, value: g.c.Env[k]})
	}
	return &out
}

// ComputeType is CPU for an endpoint on CPU instances, else GPU.
func (g *gqlEndpoint) ComputeType() *string {
	c := "GPU"
	if len(g.e.InstanceIDs) > 0 {
		c = "CPU"
	}
	return &c
}

func (g *gqlEndpoint) NetworkVolumeID() *string {
	if g.e.NetworkVolumeID == "" {
		return nil
	}
	return &g.e.NetworkVolumeID
}

// NetworkVolume is the volume of networkVolumeId, with its data center
// when the fake has the volume.
func (g *gqlEndpoint) NetworkVolume() *gqlNetworkVolume {
	if g.e.NetworkVolumeID == "" {
		return nil
	}
	return &gqlNetworkVolume{s: g.s, id: g.e.NetworkVolumeID}
}

func (g *gqlEndpoint) MinCudaVersion() *string {
	if g.e.MinCUDAVersion == "" {
		return nil
	}
	return &g.e.MinCUDAVersion
}

func (g *gqlEndpoint) NetworkVolumeIds() *[]*gqlNetworkVolume {
	out := []*gqlNetworkVolume{}
	for _, id := range g.e.NetworkVolumeIDs {
		out = append(out, &gqlNetworkVolume{s: g.s, id: id})
	}
	return &out
}

// Pods lists the workers still present at the time of the request.
func (g *gqlEndpoint) Pods() *[]*gqlWorker {
	out := []*gqlWorker{}
	for _, w := range g.workers {
		if w.draining && !g.now.Before(w.goneAt) {
			continue
		}
		out = append(out, &gqlWorker{status: w.status})
	}
	return &out
}

type gqlEnvVar struct{ key, value string }

func (v *gqlEnvVar) Key() string   { return v.key }
func (v *gqlEnvVar) Value() string { return v.value }

// gqlNetworkVolume is a network volume of an endpoint; its data center is
// looked up in the fake's volumes when it resolves (no lock held).
type gqlNetworkVolume struct {
	s  *Server
	id string
}

func (v *gqlNetworkVolume) ID() string              { return v.id }
func (v *gqlNetworkVolume) NetworkVolumeID() string { return v.id }
func (v *gqlNetworkVolume) DataCenterID() *string {
	v.s.volumes.mu.Lock()
	defer v.s.volumes.mu.Unlock()
	if fv := v.s.volumes.byID[v.id]; fv != nil {
		return ptr(fv.DataCenter)
	}
	return nil
}

type gqlWorker struct{ status string }

func (w *gqlWorker) DesiredStatus() *string { return &w.status }

func orStr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func orInt(p *int32, def int) int {
	if p == nil {
		return def
	}
	return int(*p)
}

func i32(v int) *int32 {
	n := int32(v)
	return &n
}
