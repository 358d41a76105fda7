// Package graphqlendpoints manages serverless endpoints over the
// platform's GraphQL API, which the platform retires in early 2027: every
// call then fails with an error matching errs.ErrGraphQLRetired that
// names the REST v2 call to use instead. Use package serverless
// (rp.Serverless.Endpoints, REST v2) unless you need what only GraphQL
// has, such as the account's serverless discount (EndpointList.Discount).
//
//	gq := graphqlendpoints.NewFromConfig(rp.Config())
//	list, err := gq.List(ctx)
//	ep, err := gq.Create(ctx, graphqlendpoints.EndpointParams{
//		Name:       "my-endpoint",
//		TemplateID: "tmpl123",
//		GPUs:       []serverless.GPUPool{serverless.GPUPoolAda24},
//	})
//
// The GraphQL shapes differ from REST v2's (a full-replace save against
// a PATCH, "QB" against "QUEUE"), so the package has its own Endpoint and
// EndpointParams; GPU pools, locations, FlashBoot and scaler types are
// package serverless's. The package is separate from serverless so that
// a program that uses REST v2 alone does not link a GraphQL client
// (genqlient) or parser.
package graphqlendpoints

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints/internal/gql"
)

// EndpointType says how an endpoint takes requests; it is fixed when the
// endpoint is created.
type EndpointType string

const (
	// EndpointTypeQueueBased endpoints take jobs through a queue (/run, /runsync); the
	// platform's default.
	EndpointTypeQueueBased EndpointType = "QB"
	// EndpointTypeLoadBalancing endpoints route HTTP requests straight to workers.
	EndpointTypeLoadBalancing EndpointType = "LB"
)

// EndpointParams is an endpoint's configuration: what Create sends and what
// Update edits. Pointer fields are optional: nil leaves the platform's
// default, while a set value, 0 included, is sent.
type EndpointParams struct {
	// Name is required (at least 3 characters).
	Name string
	// TemplateID is the serverless template the workers run; required to
	// create an endpoint. SetTemplate changes it alone.
	TemplateID string
	// GPUs lists the GPU pools to take workers from, in order of
	// preference. An endpoint runs on GPU pools or, for a CPU endpoint, on
	// the CPU flavours of InstanceIDs: one of the two is required.
	GPUs []serverless.GPUPool
	// Type is EndpointTypeQueueBased (the default when empty) or EndpointTypeLoadBalancing.
	Type EndpointType
	// Locations restricts workers to regions; empty means any.
	Locations []serverless.Location
	// IdleTimeout is how long, in seconds (1 to 3600), an idle worker
	// stays up.
	IdleTimeout *int
	// FlashBoot turns fast cold starts on or off; empty leaves the
	// default. Over GraphQL it is FlashBootOff or FlashBootOn, the values
	// the platform's GraphQL clients document: FlashBootPriority is
	// refused before sending (set it with rp.Serverless.Endpoints, REST
	// v2), except that Update sends back whatever value the platform
	// reported for the endpoint.
	FlashBoot serverless.FlashBoot
	// ScalerType is what drives autoscaling: QueueDelay or RequestCount
	// (required for load-balancing endpoints); empty leaves the
	// platform's default.
	ScalerType serverless.ScalerType
	// ScalerValue is the ScalerType's threshold, at least 1: seconds of
	// queue delay for QueueDelay, requests per worker for RequestCount.
	// nil leaves the platform's default.
	ScalerValue *int
	// WorkersMin is the number of workers kept running even when idle
	// (0 scales to zero). nil leaves the platform's default.
	WorkersMin *int
	// WorkersMax caps the workers running at once, and is at least
	// WorkersMin. Delete needs it and WorkersMin at 0 (ScaleToZero).
	WorkersMax *int
	// NetworkVolumeID is the id of a network volume mounted into every
	// worker; empty for none.
	NetworkVolumeID string
	// NetworkVolumeIDs lists the ids of further network volumes to
	// attach; empty for none.
	NetworkVolumeIDs []string
	// GPUCount is the number of GPUs per worker, at least 1 (a CPU
	// endpoint, with InstanceIDs, may have 0).
	GPUCount *int
	// InstanceIDs selects the CPU flavours of a CPU endpoint, such as
	// "cpu3c-2-4" (generation, class, vCPUs, GiB of memory); a CPU
	// endpoint has no GPUs.
	InstanceIDs []string
	// ExecutionTimeout limits each job (whole milliseconds on the wire);
	// 0 means no limit.
	ExecutionTimeout *time.Duration
	// MinCUDAVersion is the lowest CUDA version a worker's host may have.
	MinCUDAVersion string
	// AllowedCUDAVersions lists the CUDA versions a worker's host may
	// have, such as "12.4"; empty allows any. It travels comma-joined, as
	// runpod-python sends it.
	AllowedCUDAVersions []string
	// ModelReferences lists models cached for the workers.
	ModelReferences []string
}

// Worker is one worker (pod) of an endpoint.
type Worker struct {
	// DesiredStatus is the worker's desired status as the platform reports
	// it (for example RUNNING or EXITED).
	DesiredStatus string
}

// Endpoint is a serverless endpoint as the platform reports it.
//
// Each call reads only the fields the platform's own clients select on the
// same path, so which settings are set depends on the call:
//
//   - List and Get (myself.endpoints): ID, Name, TemplateID, GPUs, Type,
//     Locations, IdleTimeout, ScalerType, ScalerValue, WorkersMin,
//     WorkersMax, NetworkVolumeID, GPUCount and Workers. FlashBoot,
//     AllowedCUDAVersions, InstanceIDs, NetworkVolumeIDs,
//     ExecutionTimeout, MinCUDAVersion and ModelReferences stay zero: the
//     platform's clients read those only from saveEndpoint's answer
//     (rp.Serverless.Endpoints.Get reads them all over REST v2).
//   - Create, Update and ScaleToZero (saveEndpoint): every setting but
//     Type, which is the one sent (empty: the platform's default, queue
//     based); Workers is empty.
type Endpoint struct {
	// ID is the endpoint's id, the one Queue, LoadBalancer and
	// openai.Service.Route take; the platform assigns it on Create.
	ID string
	// EndpointParams is the endpoint's configuration, as far as
	// the call that returned it reads it (see above).
	EndpointParams
	// Workers lists the endpoint's current workers (List and Get only).
	Workers []Worker
}

// Discount is the account's serverless discount.
type Discount struct {
	// Factor is the discount factor, for example 0.85.
	Factor float64
	// Type is the kind of discount, as the platform names it.
	Type string
	// ExpirationDate is when it ends, as the platform writes it.
	ExpirationDate string
}

// EndpointList is the account's endpoints and its serverless discount.
type EndpointList struct {
	// Endpoints lists every endpoint of the account, in the platform's
	// order.
	Endpoints []Endpoint
	// Discount is nil when the account has none.
	Discount *Discount
}

// ErrSettingsUnread matches the *SettingsUnreadError with
// which Service.Update (and ScaleToZero) refuse to save.
var ErrSettingsUnread = errors.New("runpod: graphql update refused: the endpoint's settings could not be read, and saveEndpoint would reset them")

// SettingsUnreadError is Service.Update refusing to save:
// the platform's saveEndpoint replaces the whole configuration (a setting
// left out is reset), and the query that reads the settings the endpoint
// list cannot carry failed (for example the platform answered a GraphQL
// validation error for one of those fields). Nothing was saved. It
// matches ErrSettingsUnread, and errors.Is and errors.As also see
// the cause (a *errs.GraphQLError, *errs.APIError, …). Change the
// endpoint with rp.Serverless.Endpoints.Update instead: the REST v2 PATCH
// /v2/serverless/{id} changes only the fields it is given.
type SettingsUnreadError struct {
	// EndpointID is the endpoint Update was asked to change.
	EndpointID string
	// Settings names the EndpointParams fields that could not be
	// read, such as "FlashBoot".
	Settings []string
	// Err is why the read failed.
	Err error
}

// Error names the endpoint, the settings it could not read, and the call
// to use instead.
func (e *SettingsUnreadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "runpod: graphql Update of endpoint %s refused, nothing was saved: could not read its settings ", e.EndpointID)
	for i, name := range e.Settings {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		if wire := settingWire[name]; wire != "" {
			b.WriteString(" (" + wire + ")")
		}
	}
	b.WriteString(", which saveEndpoint, a full replace, would reset; change the endpoint with rp.Serverless.Endpoints.Update (REST v2 PATCH /v2/serverless/{id}), which changes only the fields it is given")
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is reports whether target is ErrSettingsUnread.
func (e *SettingsUnreadError) Is(target error) bool { return target == ErrSettingsUnread }

// Unwrap returns the cause.
func (e *SettingsUnreadError) Unwrap() error { return e.Err }

// settingsRead are the settings EndpointSettings reads (the list query
// cannot carry them), as EndpointParams names them; settingWire
// gives their GraphQL names.
var (
	settingsRead = []string{"FlashBoot", "AllowedCUDAVersions", "InstanceIDs", "NetworkVolumeIDs", "ExecutionTimeout", "MinCUDAVersion", "ModelReferences"}
	settingWire  = map[string]string{
		"FlashBoot":           "flashBootType",
		"AllowedCUDAVersions": "allowedCudaVersions",
		"InstanceIDs":         "instanceIds",
		"NetworkVolumeIDs":    "networkVolumeIds",
		"ExecutionTimeout":    "executionTimeoutMs",
		"MinCUDAVersion":      "minCudaVersion",
		"ModelReferences":     "modelReferences",
	}
)

// The REST v2 calls named when the platform answers 410 Gone to a
// method that runs several operations.
const (
	insteadUpdate             = "rp.Serverless.Endpoints.Update"
	insteadScaleToZero        = "rp.Serverless.Endpoints.ScaleToZero"
	insteadDelete             = "rp.Serverless.Endpoints.Delete"
	insteadScaleDownAndDelete = "rp.Serverless.Endpoints.ScaleDownAndDelete"
)

// Service manages serverless endpoints over the platform's
// GraphQL API, which the platform retires in early 2027: every call then
// fails with an error matching errs.ErrGraphQLRetired that names the
// REST v2 call to use instead (rp.Serverless.Endpoints). Build it with
// NewFromConfig; it is safe for concurrent use.
type Service struct {
	c gql.Client
}

// NewFromConfig returns the GraphQL endpoint API built from cfg
// (option.NewConfig, or runpod.Client.Config, whose key, hosts,
// middleware, attempt hooks and retries it shares):
//
//	gq := graphqlendpoints.NewFromConfig(rp.Config())
//
// A cfg that does not validate gives a service whose every call fails
// with the validation error, before anything is sent.
func NewFromConfig(cfg option.Config) *Service {
	return &Service{c: gql.Client{T: transport.New(cfg)}}
}

// Create creates an endpoint and returns it with its new id. p is
// validated first; nothing is sent when it is invalid. Create is not
// retried once the request may have reached the platform: after an
// ambiguous failure the error matches errs.ErrOutcomeUnknown, and List
// tells whether the endpoint exists.
func (e *Service) Create(ctx context.Context, p EndpointParams, opts ...option.RequestOption) (*Endpoint, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return e.save(ctx, p.input(""), opts)
}

// Get returns the endpoint with the given id, with the fields List reads;
// an unknown id gives an error matching errs.ErrNotFound.
func (e *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Endpoint, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	list, err := e.List(ctx, opts...)
	if err != nil {
		return nil, err
	}
	for i := range list.Endpoints {
		if list.Endpoints[i].ID == id {
			return &list.Endpoints[i], nil
		}
	}
	return nil, fmt.Errorf("%w: no serverless endpoint %q", errs.ErrNotFound, id)
}

// List returns the account's endpoints (with the fields Endpoint
// lists for List) and its serverless discount. A key the platform does not
// accept (it answers myself: null) gives an error matching
// errs.ErrUnauthorized.
func (e *Service) List(ctx context.Context, opts ...option.RequestOption) (*EndpointList, error) {
	resp, err := gql.ListEndpoints(gql.WithCallOptions(ctx, opts), e.c)
	if err != nil {
		return nil, err
	}
	if resp.Myself == nil {
		return nil, fmt.Errorf("runpod: graphql ListEndpoints: myself is null, the platform did not accept the API key: %w", errs.ErrUnauthorized)
	}
	out := &EndpointList{Endpoints: make([]Endpoint, 0, len(resp.Myself.Endpoints))}
	for _, ep := range resp.Myself.Endpoints {
		out.Endpoints = append(out.Endpoints, fromListed(ep))
	}
	if d := resp.Myself.ServerlessDiscount; d != nil {
		out.Discount = &Discount{Factor: deref(d.DiscountFactor), Type: deref(d.Type), ExpirationDate: deref(d.ExpirationDate)}
	}
	return out, nil
}

// Update changes an endpoint without resetting what the change does not
// mention. The platform's save is a full replace (fields left out are
// reset to defaults), so Update reads the endpoint (List's query, then a
// second query for the settings that list cannot carry: FlashBoot,
// AllowedCUDAVersions, InstanceIDs, NetworkVolumeIDs, ExecutionTimeout,
// MinCUDAVersion, ModelReferences), lets change edit its complete
// configuration, validates the result and sends all of it back.
//
//	ep, err := gq.Update(ctx, id, func(s *graphqlendpoints.EndpointParams) {
//		s.WorkersMax = runpod.Ptr(5)
//	})
//
// When the settings cannot be read, Update saves nothing and returns a
// *SettingsUnreadError (matching ErrSettingsUnread); the
// REST v2 rp.Serverless.Endpoints.Update changes an endpoint without
// that risk. Settings outside EndpointParams are not read and so
// not sent; workersStandby, which the platform sets, is never sent. Two
// concurrent Updates of one endpoint race: the last save wins.
func (e *Service) Update(ctx context.Context, id string, change func(*EndpointParams), opts ...option.RequestOption) (*Endpoint, error) {
	ep, err := e.update(ctx, id, change, opts)
	return ep, gql.InsteadOf(err, insteadUpdate)
}

// ScaleToZero sets workersMin and workersMax to 0, keeping every other
// setting: it is an Update, and refuses as Update does. Running workers
// then drain.
func (e *Service) ScaleToZero(ctx context.Context, id string, opts ...option.RequestOption) (*Endpoint, error) {
	ep, err := e.update(ctx, id, scaleToZero, opts)
	return ep, gql.InsteadOf(err, insteadScaleToZero)
}

func scaleToZero(s *EndpointParams) { s.WorkersMin, s.WorkersMax = new(int), new(int) }

func (e *Service) update(ctx context.Context, id string, change func(*EndpointParams), opts []option.RequestOption) (*Endpoint, error) {
	if change == nil {
		return nil, fail.Invalid("change", "is nil")
	}
	cur, err := e.Get(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	if err := e.readSettings(ctx, &cur.EndpointParams, id, opts); err != nil {
		return nil, err
	}
	spec := cur.EndpointParams.clone()
	change(&spec)
	// What the platform reported may stay as it is: an endpoint made
	// without a template (from a hub release), or with a FlashBoot value
	// that GraphQL clients do not document, can still be changed.
	if err := spec.validate(cur.TemplateID != "", cur.FlashBoot); err != nil {
		return nil, err
	}
	return e.save(ctx, spec.input(id), opts)
}

// readSettings reads into s the settings of endpoint id that the list
// query does not carry. A failed read is a *SettingsUnreadError.
func (e *Service) readSettings(ctx context.Context, s *EndpointParams, id string, opts []option.RequestOption) error {
	resp, err := gql.EndpointSettings(gql.WithCallOptions(ctx, opts), e.c)
	if err == nil && resp.Myself == nil {
		err = fmt.Errorf("runpod: graphql EndpointSettings: myself is null, the platform did not accept the API key: %w", errs.ErrUnauthorized)
	}
	if err != nil {
		return &SettingsUnreadError{EndpointID: id, Settings: slices.Clone(settingsRead), Err: gql.InsteadOf(err, insteadUpdate)}
	}
	for _, f := range resp.Myself.Endpoints {
		if f.Id == id {
			applySettings(s, f)
			return nil
		}
	}
	// Listed a moment ago, gone now.
	return fmt.Errorf("%w: no serverless endpoint %q", errs.ErrNotFound, id)
}

// Delete deletes an endpoint. The platform deletes only endpoints whose
// workersMin and workersMax are both 0: Delete reads the endpoint first and
// refuses, sending nothing, with an error matching ErrNotScaledDown
// otherwise.
func (e *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return gql.InsteadOf(e.delete(ctx, id, opts), insteadDelete)
}

func (e *Service) delete(ctx context.Context, id string, opts []option.RequestOption) error {
	cur, err := e.Get(ctx, id, opts...)
	if err != nil {
		return err
	}
	if lo, hi := deref(cur.WorkersMin), deref(cur.WorkersMax); lo != 0 || hi != 0 {
		return fmt.Errorf("%w (endpoint %s has workersMin %d, workersMax %d)", serverless.ErrNotScaledDown, id, lo, hi)
	}
	_, err = gql.DeleteEndpoint(gql.WithCallOptions(ctx, opts), e.c, id)
	return err
}

// ScaleDownAndDelete scales the endpoint to zero (ScaleToZero), waits
// until no worker remains (reading the endpoint every o.Interval, for as
// long as ctx allows; o.OnCheck gets the number of workers still present
// after each read), then deletes it.
func (e *Service) ScaleDownAndDelete(ctx context.Context, id string, o option.Poll[int], opts ...option.RequestOption) error {
	return gql.InsteadOf(e.scaleDownAndDelete(ctx, id, o, opts), insteadScaleDownAndDelete)
}

func (e *Service) scaleDownAndDelete(ctx context.Context, id string, o option.Poll[int], opts []option.RequestOption) error {
	interval := e.c.T.PollInterval(o.Interval)
	if _, err := e.update(ctx, id, scaleToZero, opts); err != nil {
		return err
	}
	for {
		ep, err := e.Get(ctx, id, opts...)
		if err != nil {
			return err
		}
		left := len(ep.Workers)
		wait.Saw(o, left)
		if left == 0 {
			break
		}
		if err := wait.Sleep(ctx, interval); err != nil {
			return fmt.Errorf("runpod: waiting for the workers of endpoint %s to stop (%d left): %w", id, left, err)
		}
	}
	return e.delete(ctx, id, opts)
}

// SetTemplate points the endpoint at another template and changes nothing
// else, with the platform's updateEndpointTemplate mutation (the one
// runpod-python and runpodctl use). Both ids are checked first. It is
// not retried once the request may have reached the platform: after an
// ambiguous failure the error matches errs.ErrOutcomeUnknown, and Get
// tells which template the endpoint has.
func (e *Service) SetTemplate(ctx context.Context, endpointID, templateID string, opts ...option.RequestOption) error {
	if err := validID(endpointID); err != nil {
		return err
	}
	if strings.TrimSpace(templateID) == "" {
		return fail.Invalid("templateID", "is empty")
	}
	resp, err := gql.UpdateEndpointTemplate(gql.WithCallOptions(ctx, opts), e.c, gql.UpdateEndpointTemplateInput{EndpointId: endpointID, TemplateId: templateID})
	if err != nil {
		return err
	}
	if resp.UpdateEndpointTemplate == nil {
		return &errs.ResponseError{Method: http.MethodPost, Path: "/graphql", StatusCode: http.StatusOK,
			Err: errors.New("graphql UpdateEndpointTemplate: the platform returned no endpoint"), OutcomeUnknown: true}
	}
	return nil
}

func (e *Service) save(ctx context.Context, in gql.EndpointInput, opts []option.RequestOption) (*Endpoint, error) {
	resp, err := gql.SaveEndpoint(gql.WithCallOptions(ctx, opts), e.c, in)
	if err != nil {
		return nil, err
	}
	if resp.SaveEndpoint == nil {
		// The mutation was answered with success but no endpoint: it may
		// have been saved, so it is not repeated.
		return nil, &errs.ResponseError{Method: http.MethodPost, Path: "/graphql", StatusCode: http.StatusOK,
			Err: errors.New("graphql SaveEndpoint: the platform returned no endpoint"), OutcomeUnknown: true}
	}
	ep := fromSaved(*resp.SaveEndpoint, EndpointType(deref(in.Type)))
	return &ep, nil
}

func validID(id string) error {
	if strings.TrimSpace(id) == "" {
		return fail.Invalid("id", "is empty")
	}
	return nil
}

// Validate checks the rules the platform enforces, so that a bad spec
// fails with a *errs.ValidationError naming the field, before anything
// is sent.
func (s *EndpointParams) Validate() error { return s.validate(true, "") }

// validate checks the spec; requireTemplate asks for a TemplateID, and
// reported is a FlashBoot value the platform itself reported, sent back
// as it is even when GraphQL clients do not document it.
func (s *EndpointParams) validate(requireTemplate bool, reported serverless.FlashBoot) error {
	switch {
	case len(strings.TrimSpace(s.Name)) < 3:
		return fail.Invalid("EndpointParams.Name", "is required and must have at least 3 characters, got %q", s.Name)
	case requireTemplate && strings.TrimSpace(s.TemplateID) == "":
		return fail.Invalid("EndpointParams.TemplateID", "is required")
	case len(s.GPUs) == 0 && len(s.InstanceIDs) == 0:
		return fail.Invalid("EndpointParams.GPUs", "at least one GPU pool (such as serverless.GPUPoolAda24), or CPU flavours in InstanceIDs, is required")
	case len(s.GPUs) > 0 && len(s.InstanceIDs) > 0:
		return fail.Invalid("EndpointParams.InstanceIDs", "a CPU endpoint has no GPU pools: give GPUs or InstanceIDs, not both")
	case s.Type != "" && s.Type != EndpointTypeQueueBased && s.Type != EndpointTypeLoadBalancing:
		return fail.Invalid("EndpointParams.Type", "want QB or LB, got %q", s.Type)
	case s.ScalerType != "" && s.ScalerType != serverless.ScalerTypeQueueDelay && s.ScalerType != serverless.ScalerTypeRequestCount:
		return fail.Invalid("EndpointParams.ScalerType", "want QUEUE_DELAY or REQUEST_COUNT, got %q", s.ScalerType)
	case s.Type == EndpointTypeLoadBalancing && s.ScalerType == serverless.ScalerTypeQueueDelay:
		return fail.Invalid("EndpointParams.ScalerType", "load-balancing endpoints scale by REQUEST_COUNT")
	case s.FlashBoot == serverless.FlashBootPriority && reported != serverless.FlashBootPriority:
		return fail.Invalid("EndpointParams.FlashBoot", "PRIORITY_FLASHBOOT is not a value the platform's GraphQL clients document; set it over REST v2 with rp.Serverless.Endpoints.Create or Update (FlashBoot)")
	case s.FlashBoot != "" && s.FlashBoot != reported && s.FlashBoot != serverless.FlashBootOff && s.FlashBoot != serverless.FlashBootOn:
		return fail.Invalid("EndpointParams.FlashBoot", "want OFF or FLASHBOOT over GraphQL, got %q", s.FlashBoot)
	case s.ScalerValue != nil && *s.ScalerValue < 1:
		return fail.Invalid("EndpointParams.ScalerValue", "must be at least 1, got %d", *s.ScalerValue)
	case s.IdleTimeout != nil && (*s.IdleTimeout < 1 || *s.IdleTimeout > 3600):
		return fail.Invalid("EndpointParams.IdleTimeout", "must be 1 to 3600 seconds, got %d", *s.IdleTimeout)
	case s.WorkersMin != nil && *s.WorkersMin < 0:
		return fail.Invalid("EndpointParams.WorkersMin", "must not be negative, got %d", *s.WorkersMin)
	case s.WorkersMax != nil && *s.WorkersMax < max(deref(s.WorkersMin), 0):
		return fail.Invalid("EndpointParams.WorkersMax", "must be at least WorkersMin (%d), got %d", deref(s.WorkersMin), *s.WorkersMax)
	case s.GPUCount != nil && *s.GPUCount < 1 && (*s.GPUCount < 0 || len(s.InstanceIDs) == 0):
		// A CPU endpoint has no GPUs: the platform may report 0.
		return fail.Invalid("EndpointParams.GPUCount", "must be at least 1, got %d", *s.GPUCount)
	case s.ExecutionTimeout != nil && (*s.ExecutionTimeout < 0 || *s.ExecutionTimeout%time.Millisecond != 0):
		return fail.Invalid("EndpointParams.ExecutionTimeout", "must be a non-negative whole number of milliseconds, got %s", *s.ExecutionTimeout)
	}
	if err := validList("EndpointParams.GPUs", s.GPUs); err != nil {
		return err
	}
	if err := validList("EndpointParams.Locations", s.Locations); err != nil {
		return err
	}
	if err := validList("EndpointParams.AllowedCUDAVersions", s.AllowedCUDAVersions); err != nil {
		return err
	}
	return validList("EndpointParams.InstanceIDs", s.InstanceIDs)
}

// validList checks entries of a field that travels comma-joined.
func validList[T ~string](field string, ids []T) error {
	for i, id := range ids {
		if strings.TrimSpace(string(id)) == "" || strings.Contains(string(id), ",") {
			return fail.Invalid(fmt.Sprintf("%s[%d]", field, i), "want a non-empty id without commas, got %q", id)
		}
	}
	return nil
}

// input is the wire form of the spec; id is empty to create.
func (s *EndpointParams) input(id string) gql.EndpointInput {
	in := gql.EndpointInput{
		Name:            s.Name,
		TemplateId:      s.TemplateID,
		GpuIds:          optional(joinIDs(s.GPUs)),
		IdleTimeout:     s.IdleTimeout,
		ScalerValue:     s.ScalerValue,
		WorkersMin:      s.WorkersMin,
		WorkersMax:      s.WorkersMax,
		GpuCount:        s.GPUCount,
		InstanceIds:     s.InstanceIDs,
		ModelReferences: s.ModelReferences,
		Id:              optional(id),
		Type:            optional(string(s.Type)),
		ScalerType:      optional(string(s.ScalerType)),
		NetworkVolumeId: optional(s.NetworkVolumeID),
		MinCudaVersion:  optional(s.MinCUDAVersion),
	}
	if len(s.Locations) > 0 {
		in.Locations = optional(joinIDs(s.Locations))
	}
	if len(s.AllowedCUDAVersions) > 0 {
		in.AllowedCudaVersions = optional(joinIDs(s.AllowedCUDAVersions))
	}
	if s.FlashBoot != "" {
		fb := gql.FlashBootType(s.FlashBoot)
		in.FlashBootType = &fb
	}
	if s.ExecutionTimeout != nil {
		ms := int(*s.ExecutionTimeout / time.Millisecond)
		in.ExecutionTimeoutMs = &ms
	}
	for _, v := range s.NetworkVolumeIDs {
		in.NetworkVolumeIds = append(in.NetworkVolumeIds, gql.NetworkVolumeIdInput{NetworkVolumeId: v})
	}
	return in
}

// fromListed reads an endpoint from the list query.
func fromListed(f gql.ListedEndpoint) Endpoint {
	ep := fromFields(&f, EndpointType(deref(f.Type)))
	for _, p := range f.Pods {
		ep.Workers = append(ep.Workers, Worker{DesiredStatus: deref(p.DesiredStatus)})
	}
	return ep
}

// endpointFields is what the listed and the saved GraphQL endpoint both
// carry.
type endpointFields interface {
	GetId() string
	GetName() string
	GetTemplateId() *string
	GetGpuIds() *string
	GetIdleTimeout() *int
	GetLocations() *string
	GetScalerType() *string
	GetScalerValue() *int
	GetWorkersMin() *int
	GetWorkersMax() *int
	GetNetworkVolumeId() *string
	GetGpuCount() *int
}

// fromFields reads the fields every GraphQL endpoint answer carries; typ
// is the endpoint's type.
func fromFields(f endpointFields, typ EndpointType) Endpoint {
	return Endpoint{
		ID: f.GetId(),
		EndpointParams: EndpointParams{
			Name:            f.GetName(),
			TemplateID:      deref(f.GetTemplateId()),
			GPUs:            splitIDs[serverless.GPUPool](f.GetGpuIds()),
			Type:            typ,
			Locations:       splitIDs[serverless.Location](f.GetLocations()),
			IdleTimeout:     f.GetIdleTimeout(),
			ScalerType:      serverless.ScalerType(deref(f.GetScalerType())),
			ScalerValue:     f.GetScalerValue(),
			WorkersMin:      f.GetWorkersMin(),
			WorkersMax:      f.GetWorkersMax(),
			NetworkVolumeID: deref(f.GetNetworkVolumeId()),
			GPUCount:        f.GetGpuCount(),
		},
	}
}

// fromSaved reads an endpoint from saveEndpoint's answer, which does not
// carry its type: typ is the one sent.
func fromSaved(f gql.SavedEndpoint, typ EndpointType) Endpoint {
	ep := fromFields(&f, typ)
	ep.InstanceIDs = nilIfEmpty(f.InstanceIds)
	ep.MinCUDAVersion = deref(f.MinCudaVersion)
	ep.AllowedCUDAVersions = splitIDs[string](f.AllowedCudaVersions)
	ep.ModelReferences = nilIfEmpty(f.ModelReferences)
	if f.FlashBootType != nil {
		ep.FlashBoot = serverless.FlashBoot(*f.FlashBootType)
	}
	if f.ExecutionTimeoutMs != nil {
		d := time.Duration(*f.ExecutionTimeoutMs) * time.Millisecond
		ep.ExecutionTimeout = &d
	}
	for _, v := range f.NetworkVolumeIds {
		ep.NetworkVolumeIDs = append(ep.NetworkVolumeIDs, v.NetworkVolumeId)
	}
	return ep
}

// applySettings sets in s the settings EndpointSettings read.
func applySettings(s *EndpointParams, f gql.EndpointSettingsFields) {
	s.FlashBoot = ""
	if f.FlashBootType != nil {
		s.FlashBoot = serverless.FlashBoot(*f.FlashBootType)
	}
	s.AllowedCUDAVersions = splitIDs[string](f.AllowedCudaVersions)
	s.InstanceIDs = nilIfEmpty(f.InstanceIds)
	s.NetworkVolumeIDs = nil
	for _, v := range f.NetworkVolumeIds {
		s.NetworkVolumeIDs = append(s.NetworkVolumeIDs, v.NetworkVolumeId)
	}
	s.ExecutionTimeout = nil
	if f.ExecutionTimeoutMs != nil {
		d := time.Duration(*f.ExecutionTimeoutMs) * time.Millisecond
		s.ExecutionTimeout = &d
	}
	s.MinCUDAVersion = deref(f.MinCudaVersion)
	s.ModelReferences = nilIfEmpty(f.ModelReferences)
}

// clone copies the spec deeply, so a change function cannot alias the
// endpoint it came from.
func (s EndpointParams) clone() EndpointParams {
	c := s
	c.GPUs = append([]serverless.GPUPool(nil), s.GPUs...)
	c.Locations = append([]serverless.Location(nil), s.Locations...)
	c.NetworkVolumeIDs = append([]string(nil), s.NetworkVolumeIDs...)
	c.InstanceIDs = append([]string(nil), s.InstanceIDs...)
	c.AllowedCUDAVersions = append([]string(nil), s.AllowedCUDAVersions...)
	c.ModelReferences = append([]string(nil), s.ModelReferences...)
	c.IdleTimeout, c.ScalerValue, c.WorkersMin, c.WorkersMax, c.GPUCount = copyPtr(s.IdleTimeout), copyPtr(s.ScalerValue), copyPtr(s.WorkersMin), copyPtr(s.WorkersMax), copyPtr(s.GPUCount)
	c.ExecutionTimeout = copyPtr(s.ExecutionTimeout)
	return c
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// nilIfEmpty reads an empty list as unset, so that what was never set
// compares equal to what comes back.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// joinIDs joins ids with commas, as the platform's string fields hold them.
func joinIDs[T ~string](ids []T) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = string(id)
	}
	return strings.Join(parts, ",")
}

// splitIDs splits a comma-joined field, dropping empty entries.
func splitIDs[T ~string](s *string) []T {
	if s == nil {
		return nil
	}
	var out []T
	for part := range strings.SplitSeq(*s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, T(part))
		}
	}
	return out
}
