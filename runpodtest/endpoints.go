package runpodtest

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/serverless"
)

// The REST v2 endpoint operations (createEndpoint, listEndpoints,
// getEndpoint, updateEndpoint, deleteEndpoint) serve the same endpoints as
// the GraphQL API and the job API: one record (Endpoint) under the GraphQL
// unit's lock, which the two APIs spell each in its own way. The wire
// format is written from the platform's published document with structs of
// the fake's own.
//
// The document's schema checks run before a handler (with contract.Check) and are
// answered 422 "Request validation failed." naming the field, as the
// document's UnprocessableEntityError is: name, type and scaling required
// on create, image required without templateId, a load-balancing endpoint
// scaling by REQUEST_COUNT on create, the bounds (workers, idle timeout,
// queue delay, request count, disk, GPU count, vCPUs, CUDA versions), no
// unknown property anywhere (unevaluatedProperties: false; the validator
// enforces it), no type in an update, excludedTypes only with pools. The
// handlers apply the rules the document states in prose or the platform is
// seen to apply, answered 400 with the field named:
//
//   - templateId or image, not both; gpu or cpu, one of them on create and
//     not both ever;
//   - a load-balancing endpoint scales by REQUEST_COUNT, on update too
//     (the update schema cannot say it: it does not carry the type);
//   - the template exists and is a serverless template (as saveEndpoint
//     checks);
//   - workers.max at least workers.min, after the update;
//   - the network volumes exist, each in one of dataCenterIds when the
//     endpoint has them (checkVolumeRefs gives the sources).
//
// A delete is never refused for the endpoint's workers: the document's
// delete terminates them, cancels the endpoint's queued and in-progress
// jobs and deletes its bound template (deleteEndpoint).
//
// Defaults on create are the document's: flashboot OFF, timeout 300000
// ms, workers min 0, max 3, idleTimeout 10, gpu.count 1. An update (PATCH)
// changes only the fields sent: a list is replaced whole and an empty
// list clears it, "registry": null removes the registry credentials,
// gpu.minCudaVersion "" removes the floor, the workers fields not sent
// stay. A create with image gets a template the fake makes for that image
// (as the platform makes one), which GraphQL's templateId reports.

// Routes of the REST v2 endpoint operations.
const (
	RouteEndpoints      = "GET /v2/serverless"
	RouteCreateEndpoint = "POST /v2/serverless"
	RouteEndpoint       = "GET /v2/serverless/{id}"
	RouteUpdateEndpoint = "PATCH /v2/serverless/{id}"
	RouteDeleteEndpoint = "DELETE /v2/serverless/{id}"
)

// Defaults of an endpoint created over REST, as the document gives them.
const (
	restDefaultTimeout     = 300000 // ms
	restDefaultIdleTimeout = 10
	restDefaultWorkersMax  = 3
)

// Wire formats, as the REST v2 document describes them.
type (
	endpointJSON struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Type     string            `json:"type"`
		Image    string            `json:"image,omitempty"`
		Args     string            `json:"args"`
		Disk     int               `json:"disk,omitempty"`
		Env      map[string]string `json:"env"`
		Ports    []string          `json:"ports"`
		Registry *string           `json:"registry"`
		endpointScalingJSON
		DataCenterIDs  []string         `json:"dataCenterIds"`
		NetworkVolumes []string         `json:"networkVolumes"`
		GlobalVolumes  []string         `json:"globalVolumes"`
		Timeout        int64            `json:"timeout"`
		FlashBoot      string           `json:"flashboot"`
		CreatedAt      time.Time        `json:"createdAt"`
		GPU            *endpointGPUJSON `json:"gpu"`
		CPU            []cpuJSON        `json:"cpu,omitempty"`
		RequestURLs    any              `json:"requestUrls"`
	}
	// endpointScalingJSON is how an endpoint's workers scale: their
	// bounds, and the scaler between them.
	endpointScalingJSON struct {
		Workers endpointWorkersJSON `json:"workers"`
		Scaling scalingJSON         `json:"scaling"`
	}
	endpointWorkersJSON struct {
		Min         int `json:"min"`
		Max         int `json:"max"`
		IdleTimeout int `json:"idleTimeout"`
	}
	scalingJSON struct {
		Type         string   `json:"type"`
		QueueDelay   *float64 `json:"queueDelay,omitempty"`
		RequestCount *int     `json:"requestCount,omitempty"`
	}
	endpointGPUJSON struct {
		Pools               []string `json:"pools"`
		Count               int      `json:"count"`
		ExcludedTypes       []string `json:"excludedTypes"`
		AllowedCUDAVersions []string `json:"allowedCudaVersions"`
		MinCUDAVersion      *string  `json:"minCudaVersion"`
	}
	queueURLsJSON struct {
		Run        string `json:"run"`
		RunSync    string `json:"runSync"`
		Status     string `json:"status"`
		Stream     string `json:"stream"`
		Cancel     string `json:"cancel"`
		Retry      string `json:"retry"`
		PurgeQueue string `json:"purgeQueue"`
		Health     string `json:"health"`
	}
	loadBalancerURLsJSON struct {
		Base   string `json:"base"`
		Health string `json:"health"`
	}

	createEndpointJSON struct {
		containerInJSON
		Name           string           `json:"name"`
		Type           string           `json:"type"`
		TemplateID     *string          `json:"templateId"`
		Registry       *string          `json:"registry"`
		Scaling        scalingInJSON    `json:"scaling"`
		Workers        *workersInJSON   `json:"workers"`
		Timeout        *int             `json:"timeout"`
		FlashBoot      *string          `json:"flashboot"`
		GPU            *endpointGPUJSON `json:"gpu"` // a count of 0 takes the default
		CPU            []createCPUJSON  `json:"cpu"`
		DataCenterIDs  []string         `json:"dataCenterIds"`
		NetworkVolumes []string         `json:"networkVolumes"`
		GlobalVolumes  []string         `json:"globalVolumes"`
	}
	// updateEndpointJSON tells a field that is present from one that is
	// not: a present one replaces the endpoint's, even when empty.
	updateEndpointJSON struct {
		containerPatchJSON
		Name           *string          `json:"name"`
		TemplateID     *string          `json:"templateId"`
		CPU            *[]createCPUJSON `json:"cpu"`
		GPU            *updateGPUJSON   `json:"gpu"`
		DataCenterIDs  *[]string        `json:"dataCenterIds"`
		NetworkVolumes *[]string        `json:"networkVolumes"`
		GlobalVolumes  *[]string        `json:"globalVolumes"`
		Scaling        *scalingInJSON   `json:"scaling"`
		Timeout        *int             `json:"timeout"`
		FlashBoot      *string          `json:"flashboot"`
		Workers        *workersInJSON   `json:"workers"`
	}
	updateGPUJSON struct {
		Pools               *[]string `json:"pools"`
		Count               *int      `json:"count"`
		ExcludedTypes       *[]string `json:"excludedTypes"`
		AllowedCUDAVersions *[]string `json:"allowedCudaVersions"`
		MinCUDAVersion      *string   `json:"minCudaVersion"`
	}
	scalingInJSON struct {
		Type         string  `json:"type"`
		QueueDelay   float64 `json:"queueDelay"`
		RequestCount int     `json:"requestCount"`
	}
	workersInJSON struct {
		Min         *int `json:"min"`
		Max         *int `json:"max"`
		IdleTimeout *int `json:"idleTimeout"`
	}
)

// deleteEndpoint deletes an endpoint, whatever its workers, as the
// document's deleteEndpoint describes it (204, and no 400 among its
// answers): "Permanently deletes a serverless endpoint and its bound
// template. This is irreversible: all workers are terminated and any
// queued or in-progress jobs are cancelled." The endpoint and its workers
// go, its template goes as deleteLocked says, and its jobs end CANCELLED
// (endJobs) before the 204 is answered. The workersMin and workersMax 0
// rule is GraphQL's deleteEndpoint's, not this route's.
func (s *Server) deleteEndpoint(w http.ResponseWriter, r *http.Request) {
	found := locked(&s.graphql.mu, func() bool {
		e, ok := lookup(w, r, s.graphql.endpoints, endpointNotFound)
		if ok {
			s.graphql.deleteLocked(s, e.ID)
		}
		return ok
	})
	if found {
		s.endJobs(r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	}
}

// endpointNotFound is the REST API's answer about an endpoint the fake
// does not have.
const endpointNotFound = "endpoint not found"

// endpointJSONLocked is e as the REST API reports it. s.graphql.mu is
// held.
func (s *Server) endpointJSONLocked(e *Endpoint) endpointJSON {
	c := s.containerLocked(e)
	v := endpointJSON{
		ID: e.ID, Name: e.Name, Type: string(e.Type),
		Image: c.Image, Args: c.Args, Disk: c.Disk, Env: maps.Clone(c.Env), Ports: cloneOrEmpty(c.Ports),
		endpointScalingJSON: endpointScalingJSON{
			Workers: endpointWorkersJSON{Min: e.WorkersMin, Max: e.WorkersMax, IdleTimeout: e.IdleTimeout},
			Scaling: scalingJSON{Type: string(e.ScalerType)},
		},
		DataCenterIDs: cloneOrEmpty(e.DataCenterIDs), NetworkVolumes: e.volumes(), GlobalVolumes: cloneOrEmpty(e.GlobalVolumeIDs),
		Timeout: e.ExecutionTimeout.Milliseconds(), FlashBoot: string(e.FlashBoot), CreatedAt: e.CreatedAt.UTC(),
	}
	if v.Env == nil {
		v.Env = map[string]string{}
	}
	if c.Registry != "" {
		v.Registry = ptr(c.Registry)
	}
	if e.ScalerType == serverless.ScalerTypeQueueDelay {
		v.Scaling.QueueDelay = ptr(e.QueueDelay)
	} else {
		v.Scaling.RequestCount = ptr(e.ScalerValue)
	}
	for _, id := range e.InstanceIDs {
		flavour, vcpus, memory := parseInstanceID(id)
		v.CPU = append(v.CPU, cpuJSON{ID: flavour, VcpuCount: vcpus, Memory: memory})
	}
	if len(e.InstanceIDs) == 0 && len(e.GPUs) > 0 {
		g := &endpointGPUJSON{Count: cmp.Or(e.GPUCount, 1), ExcludedTypes: cloneOrEmpty(e.ExcludedGPUTypes),
			AllowedCUDAVersions: cloneOrEmpty(e.AllowedCUDAVersions)}
		for _, p := range e.GPUs {
			g.Pools = append(g.Pools, string(p))
		}
		if e.MinCUDAVersion != "" {
			g.MinCUDAVersion = ptr(e.MinCUDAVersion)
		}
		v.GPU = g
	}
	if e.Type == serverless.EndpointTypeLoadBalancer {
		base := strings.Replace(s.InferenceURL, "://", "://"+e.ID+".", 1)
		v.RequestURLs = loadBalancerURLsJSON{Base: base, Health: base + "/ping"}
	} else {
		base := s.InferenceURL + "/v2/" + e.ID
		v.RequestURLs = queueURLsJSON{Run: base + "/run", RunSync: base + "/runsync", Status: base + "/status", Stream: base + "/stream",
			Cancel: base + "/cancel", Retry: base + "/retry", PurgeQueue: base + "/purge-queue", Health: base + "/health"}
	}
	return v
}

// nonEmpty returns a copy of list, or nil for an empty one: the record
// holds a cleared list as nil.
func nonEmpty[T any](list []T) []T {
	if len(list) == 0 {
		return nil
	}
	return slices.Clone(list)
}

// endpointError is a refusal of a REST endpoint request: 400 naming the
// field, or, with status, another answer.
type endpointError struct {
	status int
	field  string
	msg    string
}

func (e *endpointError) Error() string { return e.field + ": " + e.msg }

// write answers the refusal.
func (e *endpointError) write(w http.ResponseWriter) {
	if e.status != 0 {
		Problem(w, e.status, e.msg)
		return
	}
	badRequest(w, e.field, "%s", e.msg)
}

func refuse(field, format string, args ...any) *endpointError {
	return &endpointError{field: field, msg: fmt.Sprintf(format, args...)}
}

// useTemplateLocked checks that templateID is a serverless template and
// records that endpoint id uses it in place of previous. s.graphql.mu is
// held.
func (s *Server) useTemplateLocked(templateID, id, previous string) *endpointError {
	switch err := s.templates.useForEndpoint(templateID, id, previous, false); {
	case errors.Is(err, errTemplateNotFound):
		return refuse("templateId", "%s: %s", templateNotFound, templateID)
	case err != nil:
		return refuse("templateId", "template %s is not a serverless template", templateID)
	}
	return nil
}

func (s *Server) createEndpoint(w http.ResponseWriter, r *http.Request) {
	var req createEndpointJSON
	if !decodeBody(w, r, &req) {
		return
	}
	e := &Endpoint{
		Name: req.Name, Type: serverless.EndpointType(req.Type),
		FlashBoot:        serverless.FlashBoot(cmp.Or(deref(req.FlashBoot), string(serverless.FlashBootOff))),
		ExecutionTimeout: restDefaultTimeout * time.Millisecond,
		IdleTimeout:      restDefaultIdleTimeout, WorkersMax: restDefaultWorkersMax,
		DataCenterIDs: nonEmpty(req.DataCenterIDs),
	}
	if req.Timeout != nil {
		e.ExecutionTimeout = time.Duration(*req.Timeout) * time.Millisecond
	}
	e.setVolumes(req.NetworkVolumes)
	e.GlobalVolumeIDs = nonEmpty(req.GlobalVolumes)
	setScaling(e, req.Scaling)
	if wk := req.Workers; wk != nil {
		set(&e.WorkersMin, wk.Min)
		set(&e.WorkersMax, wk.Max)
		set(&e.IdleTimeout, wk.IdleTimeout)
	}
	if g := req.GPU; g != nil {
		for _, p := range g.Pools {
			e.GPUs = append(e.GPUs, serverless.GPUPool(p))
		}
		e.GPUCount = cmp.Or(g.Count, defaultGPUCount)
		e.ExcludedGPUTypes = nonEmpty(g.ExcludedTypes)
		e.AllowedCUDAVersions = nonEmpty(g.AllowedCUDAVersions)
		e.MinCUDAVersion = deref(g.MinCUDAVersion)
	}
	for _, c := range req.CPU {
		e.InstanceIDs = append(e.InstanceIDs, instanceID(c))
	}
	own := container{Image: deref(req.Image), Args: deref(req.Args), Disk: deref(req.Disk), Env: maps.Clone(req.Env),
		Ports: slices.Clone(req.Ports), Registry: deref(req.Registry)}
	var problem *endpointError
	switch field, msg := checkCPU(req.CPU); {
	case req.TemplateID != nil && req.Image != nil:
		problem = refuse("image", "the workers run a template (templateId) or an image (image), not both")
	case req.GPU == nil && req.CPU == nil:
		problem = refuse("gpu", "an endpoint runs on GPUs (gpu) or on CPUs (cpu): give one")
	case req.GPU != nil && req.CPU != nil:
		problem = refuse("cpu", "an endpoint runs on GPUs (gpu) or on CPUs (cpu), not both")
	case field != "":
		problem = refuse(field, "%s", msg)
	case e.Type == serverless.EndpointTypeLoadBalancer && e.ScalerType != serverless.ScalerTypeRequestCount:
		problem = refuse("scaling.type", "a load-balancing endpoint scales by REQUEST_COUNT, got %s", e.ScalerType)
	case e.WorkersMax < e.WorkersMin:
		problem = refuse("workers.max", "must be at least workers.min (%d), got %d", e.WorkersMin, e.WorkersMax)
	}
	if problem != nil {
		problem.write(w)
		return
	}

	var serve func() // set under the lock, run once it is released
	defer runIfSet(&serve)
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	now := s.now()
	id := s.graphql.peekEndpointIDLocked()
	if vp := s.checkVolumeRefs(e.volumes(), e.DataCenterIDs, true); vp != nil {
		refuse(fmt.Sprintf("networkVolumes[%d]", vp.index), "%s", vp.msg).write(w)
		return
	}
	if problem := s.checkGlobalVolumes(e.GlobalVolumeIDs, e.volumes(), req.CPU != nil); problem != nil {
		problem.write(w)
		return
	}
	if req.TemplateID != nil {
		if problem := s.useTemplateLocked(*req.TemplateID, id, ""); problem != nil {
			problem.write(w)
			return
		}
		e.TemplateID = *req.TemplateID
		e.setContainer(own) // overrides of the template's settings, where set
	} else {
		own.Disk = cmp.Or(own.Disk, defaultServerlessDisk)
		e.setContainer(own)
		e.TemplateID = s.templates.makeInline(id, "", own)
	}
	e.ID = s.graphql.newEndpointIDLocked()
	e.CreatedAt = now.UTC()
	e.version = 1
	e.workers = s.graphql.scaleWorkers(nil, e.WorkersMin, e.version, now)
	s.graphql.endpoints[e.ID] = e
	serve = s.serveLocked(e)
	writeCreated(w, s.endpointJSONLocked(e))
}

// setScaling sets the endpoint's scaling from the REST form.
func setScaling(e *Endpoint, sc scalingInJSON) {
	e.ScalerType = serverless.ScalerType(sc.Type)
	if e.ScalerType == serverless.ScalerTypeQueueDelay {
		e.QueueDelay = sc.QueueDelay
		e.ScalerValue = int(math.Ceil(sc.QueueDelay))
	} else {
		e.QueueDelay, e.ScalerValue = 0, sc.RequestCount
	}
}

func (s *Server) updateEndpoint(w http.ResponseWriter, r *http.Request) {
	var req updateEndpointJSON
	if !decodeBody(w, r, &req) {
		return
	}
	var serve func() // set under the lock, run once it is released
	defer runIfSet(&serve)
	s.graphql.mu.Lock()
	defer s.graphql.mu.Unlock()
	old, ok := lookup(w, r, s.graphql.endpoints, endpointNotFound)
	if !ok {
		return
	}
	e, problem := s.patchLocked(old, &req)
	if problem != nil {
		problem.write(w)
		return
	}
	now := s.now()
	s.graphql.release(e, now, serverless.ReleaseSourceManual, nil, settingsDiff(old, e))
	e.workers = s.graphql.scaleWorkers(e.workers, e.WorkersMin, e.version, now)
	s.graphql.endpoints[e.ID] = e
	if e.TemplateID != old.TemplateID || e.Image != old.Image {
		serve = s.serveLocked(e)
	}
	WriteJSON(w, s.endpointJSONLocked(e))
}

// patchLocked returns old with the change req applies, after checking it;
// the templates unit records a change of template (nothing changes when
// the change is refused). s.graphql.mu is held.
func (s *Server) patchLocked(old *Endpoint, req *updateEndpointJSON) (*Endpoint, *endpointError) {
	e := old.snapshot()
	e.workers, e.version, e.releases = old.workers, old.version, old.releases
	cpu := len(old.InstanceIDs) > 0
	var cpus []createCPUJSON
	if req.CPU != nil {
		cpus = *req.CPU
	}
	switch field, msg := checkCPU(cpus); {
	case req.TemplateID != nil && req.Image != nil:
		return nil, refuse("image", "the workers run a template (templateId) or an image (image), not both")
	case req.GPU != nil && req.CPU != nil:
		return nil, refuse("cpu", "an endpoint runs on GPUs (gpu) or on CPUs (cpu), not both")
	case field != "":
		return nil, refuse(field, "%s", msg)
	case req.GPU != nil && cpu && req.GPU.Pools == nil:
		return nil, refuse("gpu.pools", "endpoint %s runs on CPUs: moving it to GPUs needs pools", old.ID)
	case req.Scaling != nil && old.Type == serverless.EndpointTypeLoadBalancer && req.Scaling.Type != string(serverless.ScalerTypeRequestCount):
		return nil, refuse("scaling.type", "endpoint %s is a load balancer, which scales by REQUEST_COUNT, got %s", old.ID, req.Scaling.Type)
	}

	set(&e.Name, req.Name)
	set(&e.FlashBoot, (*serverless.FlashBoot)(req.FlashBoot))
	if req.Timeout != nil {
		e.ExecutionTimeout = time.Duration(*req.Timeout) * time.Millisecond
	}
	if req.Scaling != nil {
		setScaling(&e, *req.Scaling)
	}
	if wk := req.Workers; wk != nil {
		set(&e.WorkersMin, wk.Min)
		set(&e.WorkersMax, wk.Max)
		set(&e.IdleTimeout, wk.IdleTimeout)
		if e.WorkersMax < e.WorkersMin {
			field := "workers.max"
			if wk.Max == nil {
				field = "workers.min"
			}
			return nil, refuse(field, "workers.max (%d) must be at least workers.min (%d)", e.WorkersMax, e.WorkersMin)
		}
	}
	if req.DataCenterIDs != nil {
		e.DataCenterIDs = nonEmpty(*req.DataCenterIDs)
	}
	if req.NetworkVolumes != nil {
		e.setVolumes(*req.NetworkVolumes)
	}
	// The volumes sent must exist; a change of data centers must keep
	// the endpoint's volumes in them (checkVolumeRefs).
	if req.NetworkVolumes != nil || req.DataCenterIDs != nil {
		if vp := s.checkVolumeRefs(e.volumes(), e.DataCenterIDs, req.NetworkVolumes != nil); vp != nil {
			field := fmt.Sprintf("networkVolumes[%d]", vp.index)
			if req.NetworkVolumes == nil {
				field = "dataCenterIds"
			}
			return nil, refuse(field, "%s", vp.msg)
		}
	}
	if req.CPU != nil {
		e.InstanceIDs = nil
		for _, c := range *req.CPU {
			e.InstanceIDs = append(e.InstanceIDs, instanceID(c))
		}
		e.GPUs, e.ExcludedGPUTypes, e.AllowedCUDAVersions, e.MinCUDAVersion, e.GPUCount = nil, nil, nil, "", 0
	}
	if g := req.GPU; g != nil {
		if cpu {
			e.InstanceIDs, e.GPUCount = nil, defaultGPUCount
		}
		if g.Pools != nil {
			e.GPUs = nil
			for _, p := range *g.Pools {
				e.GPUs = append(e.GPUs, serverless.GPUPool(p))
			}
		}
		set(&e.GPUCount, g.Count)
		if g.ExcludedTypes != nil {
			e.ExcludedGPUTypes = nonEmpty(*g.ExcludedTypes)
		}
		if g.AllowedCUDAVersions != nil {
			e.AllowedCUDAVersions = nonEmpty(*g.AllowedCUDAVersions)
		}
		set(&e.MinCUDAVersion, g.MinCUDAVersion)
	}
	if req.GlobalVolumes != nil {
		e.GlobalVolumeIDs = nonEmpty(*req.GlobalVolumes)
	}
	if req.GlobalVolumes != nil || req.NetworkVolumes != nil || req.CPU != nil {
		if problem := s.checkGlobalVolumes(e.GlobalVolumeIDs, e.volumes(), len(e.InstanceIDs) > 0); problem != nil {
			return nil, problem
		}
	}

	// The container: the settings sent change the endpoint's own; a change
	// of template or image is recorded in the templates unit last, once
	// nothing else can be refused.
	apply := func(c container) container {
		set(&c.Args, req.Args)
		set(&c.Disk, req.Disk)
		if req.Env != nil {
			c.Env = maps.Clone(*req.Env)
			if c.Env == nil {
				c.Env = map[string]string{}
			}
		}
		if req.Ports != nil {
			c.Ports = cloneOrEmpty(*req.Ports)
		}
		if id, sent := registryPatch(req.Registry); sent {
			c.Registry = deref(id)
		}
		return c
	}
	inline := s.templates.isInline(old.TemplateID, old.ID)
	var c container
	switch {
	case req.TemplateID != nil && *req.TemplateID != old.TemplateID:
		// The inline image's settings go with its template; what this
		// change sends overrides the new template's.
		own := e.ownContainer()
		if inline {
			own = container{}
		}
		c = apply(own)
		if problem := s.useTemplateLocked(*req.TemplateID, old.ID, old.TemplateID); problem != nil {
			return nil, problem
		}
		e.TemplateID = *req.TemplateID
	case req.Image != nil && !inline:
		// From a template to an inline image: the fake makes the image's
		// template from the container the workers ran, with this change.
		base, _ := s.templates.containerOf(old.TemplateID)
		c = apply(e.ownContainer()).over(base)
		c.Image = *req.Image
		c.Disk = cmp.Or(c.Disk, defaultServerlessDisk)
		e.TemplateID = s.templates.makeInline(old.ID, old.TemplateID, c)
	default:
		c = apply(e.ownContainer())
		set(&c.Image, req.Image)
	}
	e.setContainer(c)
	if s.templates.isInline(e.TemplateID, e.ID) {
		s.templates.updateInline(e.TemplateID, c)
	}
	return &e, nil
}
