package runpodtest

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	graphql "github.com/graph-gophers/graphql-go"

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
	workerSeq   int // worker ids
	releaseSeq  int // release ids
	discount    *Discount
	mutations   map[string]int
	handlers    map[string]templateHandler // by template id
}

// templateHandler is the worker a template's queue-based endpoints run.
type templateHandler struct {
	h    worker.Handler
	opts []QueueOption
}

func newGraphQLUnit() graphqlUnit {
	return graphqlUnit{
		drain:     DefaultWorkerDrain,
		endpoints: map[string]*Endpoint{},
		mutations: map[string]int{},
		handlers:  map[string]templateHandler{},
	}
}

// gqlTypes maps the GraphQL API's endpoint types (QB, LB) to the REST v2
// API's (QUEUE, LOAD_BALANCER): one endpoint, two spellings.
var gqlTypes = map[string]serverless.EndpointType{"QB": serverless.EndpointTypeQueue, "LB": serverless.EndpointTypeLoadBalancer}

// RouteGraphQL is the GraphQL API's route. It takes the key as the api_key
// query parameter or a Bearer header.
const RouteGraphQL = "POST /graphql"

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
// setting resolved: what saveEndpoint stored, or what AddEndpoint was given
// with its defaults filled in. Its enums are the serverless package's, as
// the platform spells them on the wire.
type Endpoint struct {
	// ID is the endpoint's id; AddEndpoint makes one when it is empty.
	ID string
	// Name is the endpoint's name.
	Name string
	// TemplateID is the serverless template its workers run.
	TemplateID string
	// GPUs are the GPU pools workers come from, in order of preference
	// (gpuIds on the wire, comma-joined). A CPU endpoint has none.
	GPUs []serverless.GPUPool
	// Type is serverless.EndpointTypeQueue (the default) or LoadBalancing.
	Type serverless.EndpointType
	// Locations restricts the regions of workers (comma-joined on the
	// wire); empty means any.
	Locations []serverless.Location
	// FlashBoot is the cold-start mode (serverless.FlashBootOff by default).
	FlashBoot serverless.FlashBoot
	// ScalerType drives autoscaling (serverless.QueueDelay by default).
	ScalerType serverless.ScalerType
	// ScalerValue is the scaler's threshold (4 by default).
	ScalerValue int
	// IdleTimeout is how long, in seconds, an idle worker stays (5 by
	// default).
	IdleTimeout int
	// WorkersMin workers are kept running (0 by default).
	WorkersMin int
	// WorkersMax caps the workers (3 by default).
	WorkersMax int
	// GPUCount is the number of GPUs per worker (1 by default).
	GPUCount int
	// ExecutionTimeout limits each job (600 s by default; whole
	// milliseconds on the wire).
	ExecutionTimeout time.Duration
	// NetworkVolumeID is the network volume mounted on workers.
	NetworkVolumeID string
	// NetworkVolumeIDs lists more network volumes.
	NetworkVolumeIDs []string
	// InstanceIDs are the CPU flavours of a CPU endpoint (cpu3c-2-4, …).
	InstanceIDs []string
	// MinCUDAVersion is the lowest CUDA version of a worker's host.
	MinCUDAVersion string
	// ModelReferences lists models cached for the workers.
	ModelReferences []string

	workers  []endpointWorker
	version  int       // the configuration version, from 1
	releases []release // oldest first; see serverless.go
}

// withDefaults fills the settings e leaves zero with the fake's defaults.
func (e Endpoint) withDefaults() Endpoint {
	e.Type = cmp.Or(e.Type, serverless.EndpointTypeQueue)
	e.FlashBoot = cmp.Or(e.FlashBoot, serverless.FlashBootOff)
	e.ScalerType = cmp.Or(e.ScalerType, serverless.QueueDelay)
	e.ScalerValue = cmp.Or(e.ScalerValue, defaultScalerValue)
	e.IdleTimeout = cmp.Or(e.IdleTimeout, defaultIdleTimeout)
	e.WorkersMax = cmp.Or(e.WorkersMax, max(defaultWorkersMax, e.WorkersMin))
	if len(e.InstanceIDs) == 0 {
		e.GPUCount = cmp.Or(e.GPUCount, defaultGPUCount)
	}
	e.ExecutionTimeout = cmp.Or(e.ExecutionTimeout, defaultExecutionTime*time.Millisecond)
	return e
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
// start from without going through saveEndpoint. Jobs sent to it need a handler: use
// AddQueueEndpoint, HandleTemplate (before or after) or HandleQueue.
func (s *Server) AddEndpoint(e Endpoint) string {
	e = e.withDefaults()
	var serve func()
	defer func() {
		if serve != nil {
			serve() // after the lock is released
		}
	}()
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	if e.ID == "" {
		s.graphql.endpointSeq++
		e.ID = fmt.Sprintf("ep%010d", s.graphql.endpointSeq)
	}
	if e.TemplateID != "" {
		prev := ""
		if old := s.graphql.endpoints[e.ID]; old != nil {
			prev = old.TemplateID
		}
		_ = s.templates.useForEndpoint(e.TemplateID, e.ID, prev, true) // registered: no error
	}
	e.version = 1
	e.workers = s.graphql.scaleWorkers(nil, e.WorkersMin, e.version, s.now())
	s.graphql.endpoints[e.ID] = &e
	if th, ok := s.graphql.handlers[e.TemplateID]; ok && e.Type == serverless.EndpointTypeQueue {
		id := e.ID
		serve = func() { s.HandleQueue(id, th.h, th.opts...) }
	}
	return e.ID
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
// SDK's Endpoints.Create, say), runs its jobs with h. Without it, an
// endpoint created through the API is listed but its jobs are never taken.
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

// Endpoints returns a snapshot of the fake's endpoints, ordered by id.
func (s *Server) Endpoints() []Endpoint {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	var out []Endpoint
	for _, e := range s.graphql.endpoints {
		c := *e
		c.workers, c.releases = nil, nil
		out = append(out, c)
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

// Mutations returns how many times the named GraphQL mutation (for
// example "saveEndpoint") was applied: the proof that a retry never
// applied one twice.
func (s *Server) Mutations(name string) int {
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	return s.graphql.mutations[name]
}

// graphQLSchema is the fake's own schema of the platform's GraphQL API;
// see graphql.graphql for what it is written from.
//
//go:embed graphql.graphql
var graphQLSchema string

func (s *Server) registerGraphQL() {
	schema := graphql.MustParseSchema(graphQLSchema, &gqlRoot{s: s})
	s.Handle(Route{Pattern: RouteGraphQL, QueryKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query         string         `json:"query"`
			OperationName string         `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" {
			Problem(w, http.StatusBadRequest, "request body must be a JSON object with a query")
			return
		}
		WriteJSON(w, schema.Exec(r.Context(), req.Query, req.OperationName, req.Variables))
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
	if !hasPerm(ctx, ServerlessRead) {
		return nil // the platform answers myself: null for a key it does not accept
	}
	return &gqlUser{s: r.s}
}

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
	if !hasPerm(ctx, ServerlessWrite) {
		return nil, &gqlError{msg: "access denied", code: "FORBIDDEN"}
	}
	in := args.Input
	e := &Endpoint{
		Name: in.Name, TemplateID: orStr(in.TemplateID, ""), GPUs: splitList[serverless.GPUPool](orStr(in.GpuIds, "")),
		Type: gqlTypes[orStr(in.Type, "QB")], Locations: splitList[serverless.Location](orStr(in.Locations, "")),
		FlashBoot:  serverless.FlashBoot(orStr(in.FlashBootType, "OFF")),
		ScalerType: serverless.ScalerType(orStr(in.ScalerType, "QUEUE_DELAY")), NetworkVolumeID: orStr(in.NetworkVolumeID, ""),
		MinCUDAVersion: orStr(in.MinCudaVersion, ""),
		IdleTimeout:    orInt(in.IdleTimeout, defaultIdleTimeout), ScalerValue: orInt(in.ScalerValue, defaultScalerValue),
		WorkersMin: orInt(in.WorkersMin, 0), WorkersMax: orInt(in.WorkersMax, defaultWorkersMax),
		GPUCount:         orInt(in.GpuCount, defaultGPUCount),
		ExecutionTimeout: time.Duration(orInt(in.ExecutionTimeoutMs, defaultExecutionTime)) * time.Millisecond,
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
	case e.Type == "":
		return nil, badInput("Invalid endpoint type %q.", orStr(in.Type, ""))
	case e.ScalerType != serverless.QueueDelay && e.ScalerType != serverless.RequestCount:
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
	var serve func()
	defer func() {
		if serve != nil {
			serve()
		}
	}()
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
		s.graphql.release(e, now, serverless.ReleaseSourceManual, nil, settingsDiff(old, e))
	default:
		id := fmt.Sprintf("ep%010d", s.graphql.endpointSeq+1)
		if err := use(id, ""); err != nil {
			return nil, err
		}
		s.graphql.endpointSeq++
		e.ID = id
		e.version = 1
	}
	e.workers = s.graphql.scaleWorkers(e.workers, e.WorkersMin, e.version, now)
	s.graphql.endpoints[e.ID] = e
	s.graphql.mutations["saveEndpoint"]++
	if th, ok := s.graphql.handlers[e.TemplateID]; ok && in.ID == nil && e.Type == serverless.EndpointTypeQueue {
		id := e.ID
		serve = func() { s.HandleQueue(id, th.h, th.opts...) }
	}
	return &gqlEndpoint{e: *e, now: now}, nil
}

func (r *gqlRoot) DeleteEndpoint(ctx context.Context, args struct{ ID string }) (*string, error) {
	if !hasPerm(ctx, ServerlessWrite) {
		return nil, &gqlError{msg: "access denied", code: "FORBIDDEN"}
	}
	s := r.s
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	e := s.graphql.endpoints[args.ID]
	switch {
	case e == nil:
		return nil, &gqlError{msg: "endpoint not found", code: "NOT_FOUND"}
	case e.WorkersMin != 0 || e.WorkersMax != 0:
		return nil, badInput("Endpoint must have workersMin and workersMax set to 0 before it can be deleted.")
	}
	delete(s.graphql.endpoints, args.ID)
	s.templates.releaseEndpoint(e.TemplateID, args.ID)
	s.graphql.mutations["deleteEndpoint"]++
	return nil, nil
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
	now := s.now()
	out := []*gqlEndpoint{}
	for _, e := range s.graphql.endpoints {
		out = append(out, &gqlEndpoint{e: *e, now: now})
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

type gqlEndpoint struct {
	e   Endpoint
	now time.Time
}

func (g *gqlEndpoint) ID() string          { return g.e.ID }
func (g *gqlEndpoint) Name() string        { return g.e.Name }
func (g *gqlEndpoint) TemplateID() *string { return &g.e.TemplateID }
func (g *gqlEndpoint) GpuIds() *string     { return ptr(joinList(g.e.GPUs)) }
func (g *gqlEndpoint) Type() *string {
	for name, t := range gqlTypes {
		if t == g.e.Type {
			return &name
		}
	}
	return nil
}
func (g *gqlEndpoint) IdleTimeout() *int32    { return i32(g.e.IdleTimeout) }
func (g *gqlEndpoint) Locations() *string     { return ptr(joinList(g.e.Locations)) }
func (g *gqlEndpoint) FlashBootType() *string { return ptr(string(g.e.FlashBoot)) }
func (g *gqlEndpoint) ScalerType() *string    { return ptr(string(g.e.ScalerType)) }
func (g *gqlEndpoint) ScalerValue() *int32    { return i32(g.e.ScalerValue) }
func (g *gqlEndpoint) WorkersMin() *int32     { return i32(g.e.WorkersMin) }
func (g *gqlEndpoint) WorkersMax() *int32     { return i32(g.e.WorkersMax) }
func (g *gqlEndpoint) GpuCount() *int32       { return i32(g.e.GPUCount) }
func (g *gqlEndpoint) ExecutionTimeoutMs() *int32 {
	return i32(int(g.e.ExecutionTimeout / time.Millisecond))
}
func (g *gqlEndpoint) InstanceIds() *[]string     { return &g.e.InstanceIDs }
func (g *gqlEndpoint) ModelReferences() *[]string { return &g.e.ModelReferences }
func (g *gqlEndpoint) UserID() *string            { u := "user_fake"; return &u }
func (g *gqlEndpoint) Version() *int32            { return i32(g.e.version) }
func (g *gqlEndpoint) WorkersStandby() *int32     { return i32(0) }
func (g *gqlEndpoint) CreatedAt() *string         { t := g.now.UTC().Format(time.RFC3339); return &t }

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

func (g *gqlEndpoint) MinCudaVersion() *string {
	if g.e.MinCUDAVersion == "" {
		return nil
	}
	return &g.e.MinCUDAVersion
}

func (g *gqlEndpoint) NetworkVolumeIds() *[]*gqlNetworkVolume {
	out := []*gqlNetworkVolume{}
	for _, id := range g.e.NetworkVolumeIDs {
		out = append(out, &gqlNetworkVolume{id: id})
	}
	return &out
}

// Pods lists the workers still present at the time of the request.
func (g *gqlEndpoint) Pods() *[]*gqlWorker {
	out := []*gqlWorker{}
	for _, w := range g.e.workers {
		if w.draining && !g.now.Before(w.goneAt) {
			continue
		}
		out = append(out, &gqlWorker{status: w.status})
	}
	return &out
}

type gqlNetworkVolume struct{ id string }

func (v *gqlNetworkVolume) NetworkVolumeID() string { return v.id }
func (v *gqlNetworkVolume) DataCenterID() *string   { return nil }

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
