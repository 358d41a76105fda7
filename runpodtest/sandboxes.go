package runpodtest

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sandboxes, as the REST v2 API serves them (/v2/sandboxes; the docs pages
// api-reference-v2/sandboxes/*.mdx and sandboxes/overview.mdx of
// runpod/docs, read 2026-11-28). The fake speaks the wire format with
// structs of its own, from those pages:
//
//   - A create takes exactly one of imageName and templateId (400 for both
//     or neither), names a template, CPU flavor and data center that exist
//     (422 otherwise), and answers 201 with the sandbox CREATING. The
//     account must have the balance for it (402; SetBalance) and the
//     platform the room (503; SetSandboxCapacity); neither refusal creates
//     anything.
//   - CREATING lasts DefaultSandboxCreating on the fake's clock, then the
//     sandbox is RUNNING, or FAILED when its image is one FailSandboxImage
//     names. For DefaultSandboxWarmup after RUNNING its container is
//     still starting: exec and logs answer 409, as they do once it has
//     ended. WithSandboxTiming changes both.
//   - idleTimeoutSeconds (default 600) and maxLifetimeSeconds (default
//     3600) are clamped to 7200 and 86400; the sandbox terminates once
//     the fake's clock is past the first of its idle deadline
//     (idleExpiresAt, moved on by every exec) and its lifetime's end
//     (expiresAt): "time after which the sandbox is terminated".
//   - DELETE terminates; terminating a terminated sandbox succeeds. A
//     terminated sandbox stays readable by id; the list leaves it out
//     unless state=TERMINATED; labels=key=value filters (each must match).
//   - exec runs the command with the test's handler (HandleSandboxCommand)
//     or a small built-in one (echo, true, false, env, sleep, exit, and
//     sh -c with those joined by && or ;), and cuts a command longer than
//     SandboxExecCap with an error, keeping its output. Its answer is
//     {output, error}: combined output, and null or the failure.
//   - logs stream as Server-Sent Events (id = the line's time), with the
//     platform's lifecycle lines and what AppendSandboxLog adds; the stream
//     ends when the sandbox does.
//   - A sandbox bills SandboxPricePerVCPU per vCPU-hour, per second, from
//     its create to its end (a FAILED one nothing): Sandboxes reports it.
//     The billing reports do not include sandboxes (no bucket is
//     documented for them).
//
// Faults (FailNext with DropAfter on RouteCreateSandbox) create the
// sandbox and drop the answer, as a connection reset after the platform
// acted.

// Routes of the REST v2 sandbox operations.
const (
	RouteSandboxes        = "GET /v2/sandboxes"
	RouteCreateSandbox    = "POST /v2/sandboxes"
	RouteSandbox          = "GET /v2/sandboxes/{id}"
	RouteTerminateSandbox = "DELETE /v2/sandboxes/{id}"
	RouteSandboxExec      = "POST /v2/sandboxes/{id}/exec"
	RouteSandboxLogs      = "GET /v2/sandboxes/{id}/logs"
)

// Timing and limits of the fake's sandboxes.
const (
	// DefaultSandboxCreating is how long a sandbox is CREATING.
	DefaultSandboxCreating = 5 * time.Second
	// DefaultSandboxWarmup is how long after RUNNING its container
	// starts: exec and logs answer 409 until then (the docs: 10 to 30 s).
	DefaultSandboxWarmup = 15 * time.Second
	// SandboxExecCap is the fake's per-command execution cap; the
	// platform documents its own as "short" without a figure.
	SandboxExecCap = 30 * time.Second
	// SandboxPricePerVCPU is what one vCPU of a sandbox costs per hour,
	// in USD (the docs' example: 2 vCPUs at $0.026).
	SandboxPricePerVCPU = 0.013
)

// The platform's sandbox policy, from the overview's table.
const (
	sandboxIdleDefault = 600
	sandboxIdleMax     = 7200
	sandboxLifeDefault = 3600
	sandboxLifeMax     = 86400
	sandboxNotFound    = "sandbox not found"
)

// Termination reasons the fake reports; the platform has not documented
// its values yet.
const (
	SandboxReasonRequested   = "terminated by request"
	SandboxReasonIdle        = "idle timeout reached"
	SandboxReasonMaxLifetime = "maximum lifetime reached"
)

// WithSandboxTiming sets how long a sandbox is CREATING and how long after
// RUNNING its container starts (DefaultSandboxCreating and
// DefaultSandboxWarmup when not set).
func WithSandboxTiming(creating, warmup time.Duration) Option {
	return func(s *Server) { s.sandboxes.creating, s.sandboxes.warmup = creating, warmup }
}

// SandboxCommand runs a command of a sandbox's exec: argv as sent, env the
// sandbox's environment. It returns what the exec answers.
type SandboxCommand func(sandboxID string, argv []string, env map[string]string) SandboxResult

// SandboxResult is how a command ran.
type SandboxResult struct {
	// Output is its stdout and stderr, combined.
	Output string
	// Error is its failure ("" for success), such as "exit status 1".
	Error string
	// Took is how long it ran; past SandboxExecCap it is killed, its
	// output kept and Error saying so.
	Took time.Duration
}

// Sandbox is a fake sandbox as a test reads it back (Sandboxes).
type Sandbox struct {
	// ID is the sandbox's id.
	ID string
	// Name is its name (the fake makes "sandbox-<id>" when none is given).
	Name string
	// State is CREATING, RUNNING, TERMINATED or FAILED.
	State string
	// ImageName is the image it runs (its template's, for one made from
	// a template).
	ImageName string
	// Template is the template it was made from, "" for none.
	Template string
	// Labels are its labels, as created.
	Labels map[string]string
	// Env is its environment, as created.
	Env map[string]string
	// VCPUs is its vCPU count (2 when the create gave none).
	VCPUs int
	// IdleTimeout and MaxLifetime are its timeouts after the defaults and
	// the clamping.
	IdleTimeout, MaxLifetime time.Duration
	// CreatedAt is when it was created, by the fake's clock.
	CreatedAt time.Time
	// TerminatedAt is when it ended; zero while it is alive.
	TerminatedAt time.Time
	// TerminationReason is why it ended (SandboxReasonRequested and its
	// siblings, or FailSandboxImage's reason).
	TerminationReason string
	// Commands lists the argv of every exec that ran, in order.
	Commands [][]string
	// Cost is what the sandbox has billed so far, in USD.
	Cost float64
}

// sandboxesUnit holds the sandboxes and the knobs of their platform.
type sandboxesUnit struct {
	mu        sync.Mutex
	byID      map[string]*fakeSandbox
	creating  time.Duration
	warmup    time.Duration
	capacity  int     // live sandboxes there is room for; < 0: no limit
	balance   float64 // USD; +Inf: no limit
	failImage map[string]string
	handler   SandboxCommand
}

func newSandboxesUnit() sandboxesUnit {
	return sandboxesUnit{byID: map[string]*fakeSandbox{}, creating: DefaultSandboxCreating, warmup: DefaultSandboxWarmup,
		capacity: -1, balance: math.Inf(1), failImage: map[string]string{}}
}

type fakeSandbox struct {
	Sandbox
	template     *string
	image        *string
	flavor       string
	memory       int
	dataCenter   string
	lastActivity time.Time
	runningAt    time.Time // zero until RUNNING
	logs         []logLine
	changed      chan struct{}
}

// Wire formats, as the docs pages show them.
type (
	createSandboxJSON struct {
		ImageName          *string           `json:"imageName"`
		TemplateID         *string           `json:"templateId"`
		Name               *string           `json:"name"`
		CPUFlavorID        *string           `json:"cpuFlavorId"`
		VCPUCount          *int              `json:"vcpuCount"`
		MemoryInGb         *int              `json:"memoryInGb"`
		DataCenterID       *string           `json:"dataCenterId"`
		Env                map[string]string `json:"env"`
		IdleTimeoutSeconds *int              `json:"idleTimeoutSeconds"`
		MaxLifetimeSeconds *int              `json:"maxLifetimeSeconds"`
		Labels             map[string]string `json:"labels"`
	}
	sandboxComputeJSON struct {
		VCPUCount         float64 `json:"vcpuCount"`
		MemoryInGb        float64 `json:"memoryInGb"`
		ContainerDiskInGb int     `json:"containerDiskInGb"`
		CostPerHr         float64 `json:"costPerHr"`
	}
	sandboxJSON struct {
		ID                 string              `json:"id"`
		Name               string              `json:"name"`
		State              string              `json:"state"`
		TemplateID         *string             `json:"templateId"`
		ImageName          *string             `json:"imageName"`
		CPUFlavorID        *string             `json:"cpuFlavorId"`
		Compute            *sandboxComputeJSON `json:"compute,omitempty"`
		IdleTimeoutSeconds int                 `json:"idleTimeoutSeconds"`
		MaxLifetimeSeconds int                 `json:"maxLifetimeSeconds"`
		LastActivityAt     time.Time           `json:"lastActivityAt"`
		IdleExpiresAt      time.Time           `json:"idleExpiresAt"`
		ExpiresAt          time.Time           `json:"expiresAt"`
		Labels             map[string]string   `json:"labels"`
		TerminationReason  *string             `json:"terminationReason"`
		TerminatedAt       *time.Time          `json:"terminatedAt"`
		CreatedAt          time.Time           `json:"createdAt"`
		UpdatedAt          time.Time           `json:"updatedAt"`
	}
	execJSON struct {
		Command []string `json:"command"`
	}
	execResultJSON struct {
		Output string  `json:"output"`
		Error  *string `json:"error"`
	}
)

// SetSandboxCapacity sets how many live (CREATING or RUNNING) sandboxes
// the platform has room for; a create beyond them is answered 503 and
// creates nothing. A negative n (the default) is no limit.
func (s *Server) SetSandboxCapacity(n int) {
	s.sandboxes.mu.Lock()
	defer s.sandboxes.mu.Unlock()
	s.sandboxes.capacity = n
}

// SetBalance sets the account's balance in USD, which sandbox creates
// read: a create is answered 402, creating nothing, when the balance less
// what the account's sandboxes have billed is below one hour of the new
// sandbox's cost. The default is no limit.
func (s *Server) SetBalance(usd float64) {
	s.sandboxes.mu.Lock()
	defer s.sandboxes.mu.Unlock()
	s.sandboxes.balance = usd
}

// FailSandboxImage makes the sandboxes created from image (or from a
// template of that image) end FAILED, with reason, instead of RUNNING.
func (s *Server) FailSandboxImage(image, reason string) {
	s.sandboxes.mu.Lock()
	defer s.sandboxes.mu.Unlock()
	s.sandboxes.failImage[image] = reason
}

// HandleSandboxCommand runs every exec with h instead of the built-in
// commands; nil restores them.
func (s *Server) HandleSandboxCommand(h SandboxCommand) {
	s.sandboxes.mu.Lock()
	defer s.sandboxes.mu.Unlock()
	s.sandboxes.handler = h
}

// AppendSandboxLog adds a line to the sandbox's container log (its main
// process's stdout), at the fake's time; it reports false for an unknown
// sandbox.
func (s *Server) AppendSandboxLog(id, line string) bool {
	s.sandboxes.mu.Lock()
	defer s.sandboxes.mu.Unlock()
	sb := s.sandboxes.byID[id]
	if sb == nil {
		return false
	}
	sb.log(s.now(), "container", line)
	return true
}

// Sandboxes returns every sandbox, terminated ones too, ordered by
// creation, as they are at the fake's time.
func (s *Server) Sandboxes() []Sandbox {
	s.sandboxes.mu.Lock()
	defer s.sandboxes.mu.Unlock()
	now := s.now()
	out := []Sandbox{}
	for _, sb := range s.sandboxes.byID {
		s.advanceSandbox(sb)
		c := sb.Sandbox
		c.Labels, c.Env = maps.Clone(c.Labels), maps.Clone(c.Env)
		c.Commands = slices.Clone(c.Commands)
		c.Cost = sb.cost(now)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Sandbox) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out
}

func (s *Server) registerSandboxes() {
	s.handleREST(PermissionSandboxesRead, PermissionSandboxesWrite, map[string]http.HandlerFunc{
		RouteSandboxes:        s.listSandboxes,
		RouteCreateSandbox:    s.createSandbox,
		RouteSandbox:          s.getSandbox,
		RouteTerminateSandbox: s.terminateSandbox,
		RouteSandboxExec:      s.execSandbox,
		RouteSandboxLogs:      s.serveSandboxLogs,
	})
}

// rate is the sandbox's cost in USD per hour.
func (sb *fakeSandbox) rate() float64 { return float64(sb.VCPUs) * SandboxPricePerVCPU }

// cost is what the sandbox has billed by now: per second, from its create
// to its end; nothing when it failed.
func (sb *fakeSandbox) cost(now time.Time) float64 {
	if sb.State == "FAILED" {
		return 0
	}
	end := now
	if !sb.TerminatedAt.IsZero() {
		end = sb.TerminatedAt
	}
	secs := math.Ceil(end.Sub(sb.CreatedAt).Seconds())
	return sb.rate() * max(secs, 0) / 3600
}

func (sb *fakeSandbox) log(now time.Time, source, line string) {
	sb.logs = appendLogLine(sb.logs, now, source, line)
	close(sb.changed)
	sb.changed = make(chan struct{})
}

// end terminates the sandbox at t with reason. s.sandboxes.mu is held.
func (sb *fakeSandbox) end(state string, t time.Time, reason string) {
	sb.State, sb.TerminatedAt, sb.TerminationReason = state, t, reason
	sb.log(t, "system", "Sandbox "+strings.ToLower(state)+": "+reason)
}

// live reports whether the sandbox holds compute: CREATING or RUNNING.
func (sb *fakeSandbox) live() bool { return sb.State == "CREATING" || sb.State == "RUNNING" }

// idleExpires is when the sandbox ends for inactivity.
func (sb *fakeSandbox) idleExpires() time.Time { return sb.lastActivity.Add(sb.IdleTimeout) }

// expires is when the sandbox ends for its lifetime.
func (sb *fakeSandbox) expires() time.Time { return sb.CreatedAt.Add(sb.MaxLifetime) }

// ready reports whether its container has started by now.
func (s *Server) sandboxReady(sb *fakeSandbox, now time.Time) bool {
	return sb.State == "RUNNING" && !now.Before(sb.runningAt.Add(s.sandboxes.warmup))
}

// advanceSandbox applies what the fake's clock has brought: the end of
// CREATING, the container's start, the timeouts. s.sandboxes.mu is held.
func (s *Server) advanceSandbox(sb *fakeSandbox) {
	now := s.now()
	if sb.State == "CREATING" {
		at := sb.CreatedAt.Add(s.sandboxes.creating)
		if now.Before(at) {
			return
		}
		if reason, ok := s.sandboxes.failImage[sb.ImageName]; ok {
			sb.end("FAILED", at, reason)
			return
		}
		sb.State, sb.runningAt = "RUNNING", at
		sb.log(at, "system", "Sandbox running")
	}
	if sb.State != "RUNNING" {
		return
	}
	if started := sb.runningAt.Add(s.sandboxes.warmup); !now.Before(started) && !sb.started() {
		sb.log(started, "system", "Container started")
	}
	idle, life := sb.idleExpires(), sb.expires()
	switch {
	case now.After(idle) && !idle.After(life):
		sb.end("TERMINATED", idle, SandboxReasonIdle)
	case now.After(life):
		sb.end("TERMINATED", life, SandboxReasonMaxLifetime)
	}
}

// started reports whether the container start is logged.
func (sb *fakeSandbox) started() bool {
	return slices.ContainsFunc(sb.logs, func(l logLine) bool { return l.line == "Container started" })
}

func (s *Server) sandboxJSON(sb *fakeSandbox) sandboxJSON {
	s.advanceSandbox(sb)
	v := sandboxJSON{
		ID: sb.ID, Name: sb.Name, State: sb.State, TemplateID: sb.template, ImageName: sb.image, CPUFlavorID: &sb.flavor,
		IdleTimeoutSeconds: int(sb.IdleTimeout / time.Second), MaxLifetimeSeconds: int(sb.MaxLifetime / time.Second),
		LastActivityAt: sb.lastActivity, IdleExpiresAt: sb.idleExpires(), ExpiresAt: sb.expires(),
		Labels: sb.Labels, CreatedAt: sb.CreatedAt, UpdatedAt: sb.CreatedAt,
	}
	if v.Labels == nil {
		v.Labels = map[string]string{}
	}
	if sb.State == "RUNNING" {
		v.Compute = &sandboxComputeJSON{VCPUCount: float64(sb.VCPUs), MemoryInGb: float64(sb.memory), ContainerDiskInGb: 10, CostPerHr: sb.rate()}
		v.UpdatedAt = sb.runningAt
	}
	if !sb.TerminatedAt.IsZero() {
		v.TerminatedAt, v.TerminationReason, v.UpdatedAt = ptr(sb.TerminatedAt), ptr(sb.TerminationReason), sb.TerminatedAt
	}
	if sb.lastActivity.After(v.UpdatedAt) {
		v.UpdatedAt = sb.lastActivity
	}
	return v
}

// clampSeconds applies the platform's default to a value left out and its
// maximum to one above it.
func clampSeconds(v *int, def, most int) time.Duration {
	n := def
	if v != nil {
		n = min(*v, most)
	}
	return time.Duration(n) * time.Second
}

func (s *Server) createSandbox(w http.ResponseWriter, r *http.Request) {
	var req createSandboxJSON
	if !decodeBody(w, r, &req) {
		return
	}
	if (req.ImageName == nil) == (req.TemplateID == nil) {
		badRequest(w, "imageName", "exactly one of templateId and imageName is required")
		return
	}
	image := req.ImageName
	if req.TemplateID != nil {
		img := locked(&s.templates.mu, func() *string {
			if t := s.templates.byID[*req.TemplateID]; t != nil {
				return &t.Image
			}
			return nil
		})
		if img == nil {
			Problem(w, http.StatusUnprocessableEntity, "unknown template "+strconv.Quote(*req.TemplateID))
			return
		}
		image = img
	}
	flavor := cmp.Or(deref(req.CPUFlavorID), "cpu3c")
	unknown := locked(&s.catalog.mu, func() string {
		if _, ok := s.catalog.cpus[flavor]; !ok {
			return "unknown CPU flavor " + strconv.Quote(flavor)
		}
		if dc := deref(req.DataCenterID); dc != "" {
			if _, ok := s.catalog.dcs[dc]; !ok {
				return "unknown data center " + strconv.Quote(dc)
			}
		}
		return ""
	})
	if unknown != "" {
		Problem(w, http.StatusUnprocessableEntity, unknown)
		return
	}
	for k := range req.Labels {
		if k == "" || strings.Contains(k, "=") {
			badRequest(w, "labels", "label key %q: want a key without '='", k)
			return
		}
	}
	vcpus := cmp.Or(deref(req.VCPUCount), 2)
	now := s.now().UTC()
	sb := &fakeSandbox{
		Sandbox: Sandbox{
			ID: randomID(10), Name: deref(req.Name), State: "CREATING", ImageName: deref(image), Template: deref(req.TemplateID),
			Labels: maps.Clone(req.Labels), Env: maps.Clone(req.Env), VCPUs: vcpus,
			IdleTimeout: clampSeconds(req.IdleTimeoutSeconds, sandboxIdleDefault, sandboxIdleMax),
			MaxLifetime: clampSeconds(req.MaxLifetimeSeconds, sandboxLifeDefault, sandboxLifeMax),
			CreatedAt:   now,
		},
		template: req.TemplateID, image: req.ImageName, flavor: flavor, memory: cmp.Or(deref(req.MemoryInGb), 2*vcpus),
		dataCenter: deref(req.DataCenterID), lastActivity: now, changed: make(chan struct{}),
	}
	if req.TemplateID != nil {
		sb.image = nil
	}
	if sb.Name == "" {
		sb.Name = "sandbox-" + sb.ID
	}
	u := &s.sandboxes
	u.mu.Lock()
	defer u.mu.Unlock()
	live, billed := 0, 0.0
	for _, o := range u.byID {
		s.advanceSandbox(o)
		if o.live() {
			live++
		}
		billed += o.cost(now)
	}
	if u.balance-billed < sb.rate() {
		Problem(w, http.StatusPaymentRequired, "Your account balance is too low to start the sandbox.")
		return
	}
	if u.capacity >= 0 && live >= u.capacity {
		Problem(w, http.StatusServiceUnavailable, "No capacity is available for the requested configuration. Retry later, or remove placement constraints such as dataCenterId.")
		return
	}
	u.byID[sb.ID] = sb
	sb.log(now, "system", "Pulling image "+sb.ImageName)
	writeCreated(w, s.sandboxJSON(sb))
}

// listSandboxes answers GET /v2/sandboxes: live sandboxes, or those in
// state=, carrying every labels=key=value.
func (s *Server) listSandboxes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	want := map[string]string{}
	for _, l := range q["labels"] {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			badRequest(w, "labels", "want key=value, got %q", l)
			return
		}
		want[k] = v
	}
	serveList(w, r, &s.sandboxes.mu, "sandboxes", s.sandboxes.byID, func(sb *fakeSandbox) (sandboxJSON, bool) {
		v := s.sandboxJSON(sb)
		if (state == "" && v.State == "TERMINATED") || (state != "" && v.State != state) {
			return v, false
		}
		for k, x := range want {
			if got, ok := sb.Labels[k]; !ok || got != x {
				return v, false
			}
		}
		return v, true
	})
}

func (s *Server) getSandbox(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.sandboxes.mu, s.sandboxes.byID, sandboxNotFound, func(sb *fakeSandbox) { WriteJSON(w, s.sandboxJSON(sb)) })
}

// terminateSandbox ends a sandbox; ending an ended one succeeds.
func (s *Server) terminateSandbox(w http.ResponseWriter, r *http.Request) {
	withResource(w, r, &s.sandboxes.mu, s.sandboxes.byID, sandboxNotFound, func(sb *fakeSandbox) {
		s.advanceSandbox(sb)
		if sb.live() {
			sb.end("TERMINATED", s.now().UTC(), SandboxReasonRequested)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// refuseNotReady answers 409 for a sandbox whose container has not
// started or that has ended, and reports whether it did. s.sandboxes.mu
// is held.
func (s *Server) refuseNotReady(w http.ResponseWriter, sb *fakeSandbox) bool {
	s.advanceSandbox(sb)
	switch {
	case !sb.live():
		Problem(w, http.StatusConflict, "sandbox "+sb.ID+" has been "+strings.ToLower(sb.State))
	case !s.sandboxReady(sb, s.now()):
		Problem(w, http.StatusConflict, "sandbox "+sb.ID+" is starting: its container cannot accept requests yet, retry shortly")
	default:
		return false
	}
	return true
}

func (s *Server) execSandbox(w http.ResponseWriter, r *http.Request) {
	var req execJSON
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Command) == 0 {
		badRequest(w, "command", "want at least one element")
		return
	}
	s.sandboxes.mu.Lock()
	sb, ok := lookup(w, r, s.sandboxes.byID, sandboxNotFound)
	if !ok || s.refuseNotReady(w, sb) {
		s.sandboxes.mu.Unlock()
		return
	}
	h, env := s.sandboxes.handler, maps.Clone(sb.Env)
	sb.lastActivity = s.now().UTC()
	sb.Commands = append(sb.Commands, slices.Clone(req.Command))
	s.sandboxes.mu.Unlock()
	if h == nil {
		h = builtinSandboxCommand
	}
	res := h(sb.ID, req.Command, env)
	out := execResultJSON{Output: res.Output}
	if res.Took > SandboxExecCap {
		res.Error = fmt.Sprintf("command ran past the execution cap (%s) and was killed", SandboxExecCap)
	}
	if res.Error != "" {
		out.Error = &res.Error
	}
	WriteJSON(w, out)
}

// builtinSandboxCommand is the fake's shell: echo, true, false, env,
// sleep N, exit N, and sh -c with those joined by && or ;.
func builtinSandboxCommand(_ string, argv []string, env map[string]string) SandboxResult {
	if len(argv) == 3 && (argv[0] == "sh" || argv[0] == "bash") && argv[1] == "-c" {
		var res SandboxResult
		for _, seq := range strings.Split(argv[2], ";") {
			for _, part := range strings.Split(seq, "&&") {
				one := builtinSandboxCommand("", strings.Fields(part), env)
				res.Output += one.Output
				res.Took += one.Took
				res.Error = one.Error
				if one.Error != "" {
					break
				}
			}
		}
		return res
	}
	if len(argv) == 0 {
		return SandboxResult{}
	}
	switch argv[0] {
	case "echo":
		return SandboxResult{Output: strings.Join(argv[1:], " ") + "\n"}
	case "true":
		return SandboxResult{}
	case "false":
		return SandboxResult{Error: "exit status 1"}
	case "env":
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(env)) {
			b.WriteString(k + "=" + env[k] + "\n")
		}
		return SandboxResult{Output: b.String()}
	case "sleep", "exit":
		n := 0
		if len(argv) > 1 {
			n, _ = strconv.Atoi(argv[1])
		}
		if argv[0] == "sleep" {
			return SandboxResult{Took: time.Duration(n) * time.Second}
		}
		if n != 0 {
			return SandboxResult{Error: "exit status " + strconv.Itoa(n)}
		}
		return SandboxResult{}
	}
	return SandboxResult{Output: "sh: " + argv[0] + ": not found\n", Error: "exit status 127"}
}

// serveSandboxLogs streams a sandbox's log as Server-Sent Events, as
// servePodLogs does, once its container has started; the stream ends
// when the sandbox does.
func (s *Server) serveSandboxLogs(w http.ResponseWriter, r *http.Request) {
	lr := parseLogRequest(r)
	s.sandboxes.mu.Lock()
	sb, ok := lookup(w, r, s.sandboxes.byID, sandboxNotFound)
	if !ok || s.refuseNotReady(w, sb) {
		s.sandboxes.mu.Unlock()
		return
	}
	next := lr.first(sb.logs)
	s.sandboxes.mu.Unlock()
	s.streamLog(w, r, lr, next, func(next int) ([]logLine, <-chan struct{}) {
		s.sandboxes.mu.Lock()
		defer s.sandboxes.mu.Unlock()
		s.advanceSandbox(sb)
		if !sb.live() {
			return slices.Clone(sb.logs[next:]), nil // the last lines, then the end
		}
		return slices.Clone(sb.logs[next:]), sb.changed
	}, func() <-chan time.Time {
		return time.After(50 * time.Millisecond) // deadlines that pass on the fake's clock
	})
}
