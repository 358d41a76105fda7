package serverless

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/oapi-codegen/nullable"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/option"
)

// ApplyResult is what Endpoints.Apply did.
type ApplyResult struct {
	// Endpoint is the endpoint as it is after Apply.
	Endpoint *Endpoint
	// Created is true when Apply created the endpoint.
	Created bool
	// Changes lists the settings Apply changed on an existing endpoint,
	// in the order of the spec's fields; empty when it already matched
	// (and when it was created).
	Changes []Change
}

// Change is one setting Endpoints.Apply changed.
type Change struct {
	// Field names the setting as the REST v2 API writes it, such as
	// "workers.max", "gpu.pools" or "env.HF_TOKEN".
	Field string
	// Old and New are its values before and after. The values of
	// environment variables are never shown: they read "[REDACTED]" (nil
	// when the variable was added or removed).
	Old, New any
}

// String reads as "workers.max: 3 -> 5".
func (c Change) String() string { return fmt.Sprintf("%s: %v -> %v", c.Field, c.Old, c.New) }

// DuplicateNameError is returned by Apply when more than one endpoint has
// the spec's name: Apply changes one endpoint and will not guess which.
// It matches ErrDuplicateName.
type DuplicateNameError struct {
	// Name is the name the endpoints share.
	Name string
	// IDs are their ids.
	IDs []string
}

// Error names the endpoints.
func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("runpod: %d endpoints are named %q (%s); Apply changes one endpoint, so rename or delete the others",
		len(e.IDs), e.Name, strings.Join(e.IDs, ", "))
}

// Is matches ErrDuplicateName.
func (e *DuplicateNameError) Is(target error) bool { return target == ErrDuplicateName }

const redactedValue = "[REDACTED]"

// Apply makes the endpoint named spec.Name match spec, and says what it
// did: it creates the endpoint when no endpoint has that name, and
// otherwise changes, with one PATCH, only the settings spec sets that
// differ (nothing is sent when none does). A field spec leaves nil is not
// managed: whatever the endpoint has stays.
//
//	res, err := rp.Serverless.Endpoints.Apply(ctx, spec)
//	for _, c := range res.Changes {
//		fmt.Println(c) // workers.max: 3 -> 5
//	}
//
// Apply is safe to repeat and safe under faults. When a create's outcome
// is unknown (errs.ErrOutcomeUnknown: the request may have reached the
// platform), Apply looks the endpoint up by name instead of creating a
// second one: found, it goes on with it; not found, it returns the error
// (apply again to retry). Two endpoints with the spec's name are a
// *DuplicateNameError, not a guess. An endpoint's type cannot change: a
// spec of another type is a *errs.ValidationError naming Type.
//
// The REST v2 API does not report which template an endpoint runs, so
// TemplateID is used to create the endpoint and never compared; to move
// an endpoint to another template, use Update.
func (e *Endpoints) Apply(ctx context.Context, spec CreateEndpointRequest, opts ...option.RequestOption) (*ApplyResult, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cur, err := e.byName(ctx, spec.Name, opts)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		ep, err := e.Create(ctx, spec, opts...)
		if err == nil {
			return &ApplyResult{Endpoint: ep, Created: true}, nil
		}
		if !errors.Is(err, errs.ErrOutcomeUnknown) {
			return nil, err
		}
		// The create may have been applied: look before doing anything
		// else.
		found, lookErr := e.byName(ctx, spec.Name, opts)
		switch {
		case lookErr != nil:
			return nil, fmt.Errorf("%w; looking the endpoint up by name after it failed: %w", err, lookErr)
		case found == nil:
			return nil, fmt.Errorf("%w; no endpoint named %q exists, so nothing was created: apply again", err, spec.Name)
		}
		res, err := e.converge(ctx, found, spec, opts)
		if res != nil {
			res.Created = true
		}
		return res, err
	}
	return e.converge(ctx, cur, spec, opts)
}

// converge patches cur with what spec sets and cur lacks.
func (e *Endpoints) converge(ctx context.Context, cur *Endpoint, spec CreateEndpointRequest, opts []option.RequestOption) (*ApplyResult, error) {
	if cur.Type != nil && *cur.Type != spec.Type {
		return nil, fail.Invalid("CreateEndpointRequest.Type", "endpoint %s is %s, and an endpoint's type is fixed when it is created; got %s", cur.ID, *cur.Type, spec.Type)
	}
	patch, changes := diffEndpoint(cur, &spec)
	if len(changes) == 0 {
		return &ApplyResult{Endpoint: cur}, nil
	}
	ep, err := e.Update(ctx, cur.ID, patch, opts...)
	if err != nil {
		return nil, err
	}
	return &ApplyResult{Endpoint: ep, Changes: changes}, nil
}

// byName returns the one endpoint named name, nil when there is none. It
// reads every page of the endpoint listing, keeping only the endpoints
// named name.
func (e *Endpoints) byName(ctx context.Context, name string, opts []option.RequestOption) (*Endpoint, error) {
	var found []Endpoint
	for ep, err := range e.All(ctx, opts...) {
		if err != nil {
			return nil, err
		}
		if ep.Name == name {
			found = append(found, ep)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return &found[0], nil
	}
	ids := make([]string, len(found))
	for i, ep := range found {
		ids[i] = ep.ID
	}
	return nil, &DuplicateNameError{Name: name, IDs: ids}
}

// diffEndpoint is the PATCH that makes cur match what spec sets, and the
// changes it makes, field by field.
func diffEndpoint(cur *Endpoint, spec *CreateEndpointRequest) (UpdateEndpointRequest, []Change) {
	var p UpdateEndpointRequest
	var out []Change
	changed := func(field string, old, new any) bool {
		if reflect.DeepEqual(old, new) {
			return false
		}
		out = append(out, Change{Field: field, Old: old, New: new})
		return true
	}
	if spec.Image != nil && changed("image", deref(cur.Image), *spec.Image) {
		p.Image = spec.Image
	}
	if spec.Args != nil && changed("args", deref(cur.Args), *spec.Args) {
		p.Args = spec.Args
	}
	if spec.Disk != nil && changed("disk", deref(cur.Disk), *spec.Disk) {
		p.Disk = spec.Disk
	}
	if spec.Ports != nil && changed("ports", orEmpty(cur.Ports), spec.Ports) {
		p.Ports = &spec.Ports
	}
	if spec.Env != nil && envChanges(&out, cur.Env.Reveal(), spec.Env) {
		env := maps.Clone(spec.Env)
		p.Env = &env
	}
	if v, err := spec.Registry.Get(); err == nil {
		old, _ := cur.Registry.Get()
		if changed("registry", old, v) {
			p.Registry = nullable.NewNullableWithValue(v)
		}
	}
	if spec.GPU != nil {
		p.GPU = diffGPU(changed, cur.GPU, spec.GPU)
	}
	if spec.CPU != nil {
		have := make([]CreateCPUConfig, len(cur.CPU))
		for i, c := range cur.CPU {
			have[i] = CreateCPUConfig{ID: c.ID, VCPUCount: c.VCPUCount}
		}
		if changed("cpu", have, spec.CPU) {
			p.CPU = spec.CPU
		}
	}
	if spec.DataCenterIDs != nil && changed("dataCenterIds", sortedSet(cur.DataCenterIDs), sortedSet(spec.DataCenterIDs)) {
		p.DataCenterIDs = &spec.DataCenterIDs
	}
	if spec.NetworkVolumes != nil && changed("networkVolumes", sortedSet(cur.NetworkVolumes), sortedSet(spec.NetworkVolumes)) {
		p.NetworkVolumes = &spec.NetworkVolumes
	}
	if spec.FlashBoot != nil && changed("flashboot", cur.FlashBoot, *spec.FlashBoot) {
		p.FlashBoot = spec.FlashBoot
	}
	if changed("scaling", cur.Scaling, spec.Scaling) {
		p.Scaling = &spec.Scaling
	}
	if spec.Timeout != nil && changed("timeout", cur.Timeout, *spec.Timeout) {
		p.Timeout = spec.Timeout
	}
	if w := spec.Workers; w != nil {
		var pw EndpointWorkers
		if w.Min != nil && changed("workers.min", deref(cur.Workers.Min), *w.Min) {
			pw.Min = w.Min
		}
		if w.Max != nil && changed("workers.max", deref(cur.Workers.Max), *w.Max) {
			pw.Max = w.Max
		}
		if w.IdleTimeout != nil && changed("workers.idleTimeout", deref(cur.Workers.IdleTimeout), *w.IdleTimeout) {
			pw.IdleTimeout = w.IdleTimeout
		}
		if pw != (EndpointWorkers{}) {
			p.Workers = &pw
		}
	}
	return p, out
}

// diffGPU is the GPU part of the PATCH, nil when nothing differs.
func diffGPU(changed func(string, any, any) bool, cur *EndpointGPUConfig, spec *CreateEndpointGPUConfig) *UpdateEndpointGPUConfig {
	if cur == nil {
		cur = &EndpointGPUConfig{}
	}
	var g UpdateEndpointGPUConfig
	set := false
	if changed("gpu.pools", orEmpty(cur.Pools), spec.Pools) {
		g.Pools, set = spec.Pools, true
	}
	if spec.Count != nil && changed("gpu.count", max(deref(cur.Count), 1), *spec.Count) {
		g.Count, set = spec.Count, true
	}
	if spec.ExcludedTypes != nil && changed("gpu.excludedTypes", sortedSet(cur.ExcludedTypes), sortedSet(spec.ExcludedTypes)) {
		// The platform takes excluded types only beside the pools they
		// narrow.
		g.ExcludedTypes, g.Pools, set = spec.ExcludedTypes, spec.Pools, true
	}
	if spec.AllowedCUDAVersions != nil && changed("gpu.allowedCudaVersions", sortedSet(cur.AllowedCUDAVersions), sortedSet(spec.AllowedCUDAVersions)) {
		v := slices.Clone(spec.AllowedCUDAVersions)
		g.AllowedCUDAVersions, set = &v, true
	}
	if spec.MinCUDAVersion != nil && changed("gpu.minCudaVersion", deref(cur.MinCUDAVersion), *spec.MinCUDAVersion) {
		g.MinCUDAVersion, set = spec.MinCUDAVersion, true
	}
	if !set {
		return nil
	}
	return &g
}

// envChanges records the variables whose values differ, without their
// values, and reports whether any does.
func envChanges(out *[]Change, cur, want map[string]string) bool {
	names := slices.Sorted(maps.Keys(want))
	for name := range cur {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	n := len(*out)
	for _, name := range names {
		old, had := cur[name]
		v, has := want[name]
		if had == has && old == v {
			continue
		}
		c := Change{Field: "env." + name}
		if had {
			c.Old = redactedValue
		}
		if has {
			c.New = redactedValue
		}
		*out = append(*out, c)
	}
	return len(*out) > n
}

// sortedSet is a list compared without regard to order; nil and empty
// are the same.
func sortedSet[T ~string](s []T) []T {
	if len(s) == 0 {
		return []T{}
	}
	return slices.Sorted(slices.Values(s))
}

// orEmpty reads a nil list as empty, so that it compares equal to one.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
