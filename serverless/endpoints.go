package serverless

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/oapi-codegen/nullable"

	"github.com/runpodkit/runpod-go/internal/check"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// ErrNotScaledDown is returned, before the delete is sent, for an
// endpoint whose workers min or max is not 0: by Endpoints.Delete, which
// refuses to delete an endpoint that may be serving (the platform's
// delete would cancel its jobs; see Delete), and by
// graphqlendpoints.Service.Delete, whose API deletes only endpoints scaled to
// zero. ScaleDownAndDelete drains the endpoint first; Endpoints.DeleteNow
// deletes it at once.
var ErrNotScaledDown = errors.New("runpod: endpoint is not scaled down: workers min and max must both be 0 before it can be deleted")

// ErrDuplicateName is matched (errors.Is) by the *DuplicateNameError
// Apply returns when more than one endpoint has the spec's name.
var ErrDuplicateName = errors.New("runpod: more than one endpoint has this name")

// Endpoints manages serverless endpoints over the REST v2 API (Create,
// Get, List, Update, Delete, ScaleToZero, ScaleDownAndDelete, DeleteNow,
// Apply) and looks into them (Workers, Releases, Builds, Build,
// WorkerLogs). Get it as runpod.Client.Serverless.Endpoints.
type Endpoints struct {
	t *transport.Transport
}

// The REST v2 route templates of endpoints, for middleware, attempt hooks
// and logs.
const (
	routeEndpoints  = "/v2/serverless"
	routeEndpoint   = "/v2/serverless/{endpointId}"
	routeWorkers    = "/v2/serverless/{endpointId}/workers"
	routeReleases   = "/v2/serverless/{endpointId}/releases"
	routeWorkerLogs = "/v2/serverless/{endpointId}/workers/{workerId}/logs"
)

// Create creates an endpoint and returns it with its new id. req is
// validated first; nothing is sent when it is invalid. Create is never
// repeated after the request may have reached the platform: after an
// ambiguous failure the error matches errs.ErrOutcomeUnknown, and List
// (or Apply, which looks the endpoint up by name) tells whether it exists.
func (e *Endpoints) Create(ctx context.Context, req CreateEndpointRequest, opts ...option.RequestOption) (*Endpoint, error) {
	return rest.Call[Endpoint](ctx, e.t, http.MethodPost, rest.At(routeEndpoints), &req, opts)
}

// Get returns one endpoint; an unknown id is an error matching
// errs.ErrNotFound.
func (e *Endpoints) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Endpoint, error) {
	return rest.Call[Endpoint](ctx, e.t, http.MethodGet, rest.At(routeEndpoint, endpointIDRule.Of(id)), nil, opts)
}

// List returns the account's endpoints, every page of them (an empty
// slice when there are none; All reads them a page at a time).
func (e *Endpoints) List(ctx context.Context, opts ...option.RequestOption) ([]Endpoint, error) {
	r, err := rest.List(ctx, e.t, rest.At(routeEndpoints), opts, endpointPage)
	return r.Endpoints, err
}

// All returns the endpoints List returns, one at a time, holding one page
// of them: the first page is asked for when the loop starts, a failure
// ends the loop, and breaking out asks for no more.
func (e *Endpoints) All(ctx context.Context, opts ...option.RequestOption) iter.Seq2[Endpoint, error] {
	return rest.All(ctx, e.t, rest.At(routeEndpoints), opts, endpointPage)
}

// endpointPage tells where a page of the endpoint listing keeps them.
func endpointPage(r *listEndpointsResponse) (*[]Endpoint, *rest.Pagination) {
	return &r.Endpoints, (*rest.Pagination)(r.Pagination)
}

// Update changes the settings req sets and leaves every other one as it
// is (PATCH): nothing needs to be read first, and nothing the caller did
// not name is reset. A list is replaced whole; a pointer to an empty list
// clears it:
//
//	ep, err := rp.Serverless.Endpoints.Update(ctx, id, serverless.UpdateEndpointRequest{
//		Workers:        &serverless.EndpointWorkers{Max: runpod.Ptr(5)},
//		NetworkVolumes: &[]string{}, // detach every network volume
//	})
//
// req is validated first. The same change applied twice gives the same
// endpoint, so Update is retried like a read.
func (e *Endpoints) Update(ctx context.Context, id string, req UpdateEndpointRequest, opts ...option.RequestOption) (*Endpoint, error) {
	return rest.Call[Endpoint](ctx, e.t, http.MethodPatch, rest.At(routeEndpoint, endpointIDRule.Of(id)), &req, opts)
}

// ScaleToZero sets workers.min and workers.max to 0, changing nothing
// else. Running workers then drain.
func (e *Endpoints) ScaleToZero(ctx context.Context, id string, opts ...option.RequestOption) (*Endpoint, error) {
	zero := 0
	return e.Update(ctx, id, UpdateEndpointRequest{Workers: &EndpointWorkers{Min: &zero, Max: &zero}}, opts...)
}

// Delete deletes an endpoint that is scaled down. The platform's delete
// is irreversible and takes everything with it: it terminates the
// workers, cancels every queued and in-progress job (work that is paid
// for) and deletes the template bound to the endpoint (see DeleteNow for
// which one that is). So Delete reads the endpoint first
// and, when its workers.min or workers.max is not 0 (it may be serving),
// returns an error matching ErrNotScaledDown without sending the delete.
// This check is the SDK's, not the platform's: to let running jobs end,
// use ScaleDownAndDelete; to delete a serving endpoint at once, use
// DeleteNow. An endpoint scaled to zero can still hold jobs: queued ones,
// which no worker takes, and one a draining worker still runs; Delete
// cancels them too. A retried delete that finds the endpoint already gone
// succeeds.
func (e *Endpoints) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	cur, err := e.Get(ctx, id, opts...)
	if err != nil {
		return err
	}
	if lo, hi := deref(cur.Workers.Min), deref(cur.Workers.Max); lo != 0 || hi != 0 {
		return fmt.Errorf("%w (endpoint %s has workers min %d, max %d; ScaleDownAndDelete drains it, DeleteNow deletes it at once)",
			ErrNotScaledDown, id, lo, hi)
	}
	return rest.Delete(ctx, e.t, rest.At(routeEndpoint, endpointIDRule.Of(id)), opts)
}

// DeleteNow deletes an endpoint at once, whatever it is doing, with
// nothing read first. The platform terminates its workers, cancels every
// queued and in-progress job (they end CANCELLED: the work they did is
// paid for and lost, and their callers get no output) and deletes the
// template bound to the endpoint. For an endpoint created here, that is
// the endpoint's own container settings: a template named by
// CreateEndpointRequest.TemplateID was resolved into them at create and
// is not the one deleted. An endpoint created over GraphQL
// (graphqlendpoints.Service.Create) is bound to the account template it names,
// which other endpoints may share, and the platform does not document
// whether this delete takes that template: delete such an endpoint with
// graphqlendpoints.Service.Delete.
//
// Use DeleteNow for an endpoint you mean to stop now; Delete refuses one
// that is not scaled down, and ScaleDownAndDelete lets running jobs end
// first. The id is checked before anything is sent. A retried delete that
// finds the endpoint already gone succeeds.
func (e *Endpoints) DeleteNow(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, e.t, rest.At(routeEndpoint, endpointIDRule.Of(id)), opts)
}

// ScaleDownAndDelete scales the endpoint to zero, waits until it has no
// worker left (Workers, checked every o.Interval for as long as ctx
// allows; o.OnCheck gets the number of workers still present after each
// check), then deletes it. A worker still running a job is counted, so
// the delete waits for the job to end.
func (e *Endpoints) ScaleDownAndDelete(ctx context.Context, id string, o option.Poll[int], opts ...option.RequestOption) error {
	interval := e.t.PollInterval(o.Interval)
	if _, err := e.ScaleToZero(ctx, id, opts...); err != nil {
		return err
	}
	for {
		ws, err := e.Workers(ctx, id, opts...)
		if err != nil {
			return err
		}
		left := max(ws.Summary.Total, len(ws.Workers))
		wait.Saw(o, left)
		if left == 0 {
			break
		}
		if err := wait.Sleep(ctx, interval); err != nil {
			return fmt.Errorf("runpod: waiting for the workers of endpoint %s to stop (%d left): %w", id, left, err)
		}
	}
	return e.Delete(ctx, id, opts...)
}

// The rules of the ids that go into a REST v2 path: not empty, and
// letters, digits, '-' and '_' only, as the platform makes its ids, so
// that each names one resource and nothing else.
var (
	endpointIDRule = rest.ID{Field: "endpointID", Extra: "-_"}
	workerIDRule   = rest.ID{Field: "workerID", Extra: "-_"}
)

// cudaVersion is the document's pattern for CUDA versions: major.minor.
var cudaVersion = regexp.MustCompile(`^\d+\.\d+$`)

// Validate checks the request as the REST v2 document constrains it, so
// that a bad one fails with a *errs.ValidationError naming the field
// before anything is sent: Name, Type and Scaling are required; the
// workers run a template or an inline image (one of TemplateID and
// Image), on GPUs or on CPUs (one of GPU and CPU); a load-balancing
// endpoint scales by request count; and every bound the document gives
// (disk, vCPUs, GPU count, idle timeout, queue delay, CUDA versions).
func (r *CreateEndpointRequest) Validate() error {
	const f = "CreateEndpointRequest"
	switch {
	case strings.TrimSpace(r.Name) == "":
		return fail.Invalid(f+".Name", "is required")
	case r.Type == "":
		return fail.Invalid(f+".Type", "is required: EndpointTypeQueue or EndpointTypeLoadBalancer")
	case !r.Type.Valid():
		return fail.Invalid(f+".Type", "want QUEUE or LOAD_BALANCER, got %q", r.Type)
	case r.TemplateID != nil && strings.TrimSpace(*r.TemplateID) == "":
		return fail.Invalid(f+".TemplateID", "must not be empty when set")
	case r.TemplateID == nil && (r.Image == nil || strings.TrimSpace(*r.Image) == ""):
		return fail.Invalid(f+".Image", "is required unless TemplateID is given")
	case r.TemplateID != nil && r.Image != nil:
		return fail.Invalid(f+".Image", "the workers run a template (TemplateID) or an inline image (Image), not both")
	case r.GPU == nil && len(r.CPU) == 0:
		return fail.Invalid(f+".GPU", "an endpoint runs on GPUs (GPU) or on CPUs (CPU): give one")
	case r.GPU != nil && r.CPU != nil:
		return fail.Invalid(f+".CPU", "an endpoint runs on GPUs or on CPUs, not both")
	}
	if err := r.Scaling.validate(f+".Scaling", r.Type == EndpointTypeLoadBalancer); err != nil {
		return err
	}
	if err := checkGlobalVolumes(f, r.GlobalVolumes, r.NetworkVolumes, r.CPU != nil); err != nil {
		return err
	}
	if g := r.GPU; g != nil {
		if len(g.Pools) == 0 {
			return fail.Invalid(f+".GPU.Pools", "at least one GPU pool (such as serverless.GPUPoolAda24) is required")
		}
		if err := checkGPU(f+".GPU", g.Pools, g.Count, g.ExcludedTypes, g.AllowedCUDAVersions, g.MinCUDAVersion, false); err != nil {
			return err
		}
	}
	return checkCommon(f, commonFields{
		cpu: r.CPU, disk: r.Disk, env: r.Env, ports: r.Ports, registry: r.Registry,
		timeout: r.Timeout, workers: r.Workers, volumes: r.NetworkVolumes, dataCenters: r.DataCenterIDs, flashboot: r.FlashBoot,
	})
}

// Validate checks the change as the REST v2 document constrains it, so
// that a bad one fails with a *errs.ValidationError naming the field
// before anything is sent. What depends on the endpoint itself (that a
// load-balancing endpoint keeps request-count scaling) is the platform's
// to refuse.
func (r *UpdateEndpointRequest) Validate() error {
	const f = "UpdateEndpointRequest"
	switch {
	case r.Name != nil && strings.TrimSpace(*r.Name) == "":
		return fail.Invalid(f+".Name", "must not be empty when set")
	case r.TemplateID != nil && strings.TrimSpace(*r.TemplateID) == "":
		return fail.Invalid(f+".TemplateID", "must not be empty when set")
	case r.Image != nil && strings.TrimSpace(*r.Image) == "":
		return fail.Invalid(f+".Image", "must not be empty when set")
	case r.GPU != nil && r.CPU != nil:
		return fail.Invalid(f+".CPU", "an endpoint runs on GPUs or on CPUs, not both")
	case r.CPU != nil && len(r.CPU) == 0:
		return fail.Invalid(f+".CPU", "must list at least one CPU flavour when set")
	}
	if r.Scaling != nil {
		if err := r.Scaling.validate(f+".Scaling", false); err != nil {
			return err
		}
	}
	if r.GlobalVolumes != nil {
		var network []string
		if r.NetworkVolumes != nil {
			network = *r.NetworkVolumes
		}
		if err := checkGlobalVolumes(f, *r.GlobalVolumes, network, r.CPU != nil); err != nil {
			return err
		}
	}
	if g := r.GPU; g != nil {
		if len(g.ExcludedTypes) > 0 && len(g.Pools) == 0 {
			return fail.Invalid(f+".GPU.ExcludedTypes", "needs Pools in the same change")
		}
		if err := checkGPU(f+".GPU", g.Pools, g.Count, g.ExcludedTypes, deref(g.AllowedCUDAVersions), g.MinCUDAVersion, true); err != nil {
			return err
		}
	}
	c := commonFields{cpu: r.CPU, disk: r.Disk, registry: r.Registry, timeout: r.Timeout,
		workers: r.Workers, flashboot: r.FlashBoot}
	if r.Env != nil {
		c.env = *r.Env
	}
	if r.Ports != nil {
		c.ports = *r.Ports
	}
	if r.NetworkVolumes != nil {
		c.volumes = *r.NetworkVolumes
	}
	if r.DataCenterIDs != nil {
		c.dataCenters = *r.DataCenterIDs
	}
	return checkCommon(f, c)
}

// commonFields are the fields a create and an update check alike.
type commonFields struct {
	cpu         []CreateCPUConfig
	disk        *int
	env         map[string]string
	ports       []string
	registry    nullable.Nullable[string]
	timeout     *int
	workers     *EndpointWorkers
	volumes     []string
	dataCenters []string
	flashboot   *FlashBoot
}

func checkCommon(f string, c commonFields) error {
	for i, cpu := range c.cpu {
		at := fmt.Sprintf("%s.CPU[%d]", f, i)
		switch {
		case strings.TrimSpace(cpu.ID) == "":
			return fail.Invalid(at+".ID", "is required (a CPU flavour such as cpu3c)")
		case cpu.VCPUCount < 2:
			return fail.Invalid(at+".VCPUCount", "must be at least 2, got %d", cpu.VCPUCount)
		case slices.Contains(c.cpu[:i], cpu):
			return fail.Invalid(at, "repeats an earlier entry (%s, %d vCPUs)", cpu.ID, cpu.VCPUCount)
		}
	}
	if v, err := c.registry.Get(); err == nil && strings.TrimSpace(v) == "" {
		return fail.Invalid(f+".Registry", "must name registry credentials when set (null removes them)")
	}
	switch {
	case c.disk != nil && *c.disk < 1:
		return fail.Invalid(f+".Disk", "must be at least 1 GB, got %d", *c.disk)
	case c.timeout != nil && *c.timeout < 1:
		return fail.Invalid(f+".Timeout", "must be at least 1 millisecond, got %d", *c.timeout)
	case c.flashboot != nil && !c.flashboot.Valid():
		return fail.Invalid(f+".FlashBoot", "want OFF, FLASHBOOT or PRIORITY_FLASHBOOT, got %q", *c.flashboot)
	}
	if w := c.workers; w != nil {
		switch {
		case w.Min != nil && *w.Min < 0:
			return fail.Invalid(f+".Workers.Min", "must not be negative, got %d", *w.Min)
		case w.Max != nil && *w.Max < 0:
			return fail.Invalid(f+".Workers.Max", "must not be negative, got %d", *w.Max)
		case w.Min != nil && w.Max != nil && *w.Max < *w.Min:
			return fail.Invalid(f+".Workers.Max", "must be at least Workers.Min (%d), got %d", *w.Min, *w.Max)
		case w.IdleTimeout != nil && (*w.IdleTimeout < 1 || *w.IdleTimeout > 3600):
			return fail.Invalid(f+".Workers.IdleTimeout", "must be 1 to 3600 seconds, got %d", *w.IdleTimeout)
		}
	}
	if err := check.Ports(f+".Ports", c.ports); err != nil {
		return err
	}
	if err := check.EnvNames(f+".Env", c.env); err != nil {
		return err
	}
	if err := validIDs(f+".NetworkVolumes", c.volumes); err != nil {
		return err
	}
	return validIDs(f+".DataCenterIDs", c.dataCenters)
}

// checkGlobalVolumes checks the global volumes an endpoint mounts, as the
// platform's storage guide states the rules (global volumes are in beta):
// at most one, on a GPU endpoint, and not beside network volumes. cpu
// says the request runs the workers on CPUs.
func checkGlobalVolumes(f string, global, network []string, cpu bool) error {
	switch {
	case len(global) == 0:
		return nil
	case len(global) > 1:
		return fail.Invalid(f+".GlobalVolumes", "an endpoint mounts at most one global volume, got %d", len(global))
	case len(network) > 0:
		return fail.Invalid(f+".GlobalVolumes", "an endpoint mounts a global volume or network volumes (NetworkVolumes), not both")
	case cpu:
		return fail.Invalid(f+".GlobalVolumes", "global volumes mount on GPU endpoints only")
	}
	return validIDs(f+".GlobalVolumes", global)
}

// checkGPU checks a GPU configuration's lists and bounds; emptyMin says
// an empty MinCUDAVersion is allowed (it clears the floor on update).
func checkGPU(f string, pools []GPUPool, count *int, excluded, cuda []string, minCUDA *string, emptyMin bool) error {
	if count != nil && *count < 1 {
		return fail.Invalid(f+".Count", "must be at least 1, got %d", *count)
	}
	if err := validIDs(f+".Pools", pools); err != nil {
		return err
	}
	for i, t := range excluded {
		at := fmt.Sprintf("%s.ExcludedTypes[%d]", f, i)
		switch {
		case strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "-"):
			return fail.Invalid(at, "want a GPU type id such as \"NVIDIA GeForce RTX 3090\", got %q", t)
		case slices.Contains(excluded[:i], t):
			return fail.Invalid(at, "repeats %q", t)
		}
	}
	for i, v := range cuda {
		if !cudaVersion.MatchString(v) {
			return fail.Invalid(fmt.Sprintf("%s.AllowedCUDAVersions[%d]", f, i), "want a version such as \"12.4\", got %q", v)
		}
	}
	if minCUDA != nil && !cudaVersion.MatchString(*minCUDA) && !(emptyMin && *minCUDA == "") {
		return fail.Invalid(f+".MinCUDAVersion", "want a version such as \"12.1\", got %q", *minCUDA)
	}
	return nil
}

// validIDs checks a list of ids: none empty or padded with white space.
func validIDs[T ~string](field string, ids []T) error {
	for i, id := range ids {
		if s := string(id); s == "" || strings.TrimSpace(s) != s {
			return fail.Invalid(fmt.Sprintf("%s[%d]", field, i), "want an id, got %q", s)
		}
	}
	return nil
}
