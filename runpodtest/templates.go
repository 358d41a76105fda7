package runpodtest

import (
	"cmp"
	"errors"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/runpodkit/runpod-go/templates"
)

// templatesUnit is the account's templates, pod and serverless alike: the
// one store that REST /v2/templates serves, that AddTemplate and
// HandleTemplate register serverless templates in, and that GraphQL
// saveEndpoint checks an endpoint's template against. It also records
// which endpoints use each template, so that deleting one in use is
// refused.
//
// Lock order: the graphql unit calls into this one while holding its own
// lock; this unit never takes the graphql lock, and never holds its own
// while taking another unit's (deleteTemplate asks the pods unit first).
type templatesUnit struct {
	mu   sync.Mutex
	byID map[string]*fakeTemplate
}

func newTemplatesUnit() templatesUnit {
	return templatesUnit{byID: map[string]*fakeTemplate{}}
}

// fakeTemplate is a template's state. Fields are guarded by
// templatesUnit.mu.
type fakeTemplate struct {
	Template
	endpoints map[string]bool // ids of the endpoints that use it
	inlineFor string          // the endpoint whose inline image it was made for; "" for the account's own
}

// snapshot returns a copy of the template for a test to keep.
func (t *fakeTemplate) snapshot() Template {
	c := t.Template
	c.Ports, c.Env, c.AllowedCUDAVersions = slices.Clone(c.Ports), maps.Clone(c.Env), slices.Clone(c.AllowedCUDAVersions)
	return c
}

// The templates fake speaks the REST v2 wire format with structs of its
// own, written from the platform's published document. The document's
// schema checks run before a handler (required name and image, the
// category enum, minimum disk and volume sizes, the CUDA version pattern,
// no unknown property); the handlers apply what the document says the
// platform does itself: the create defaults, PATCH semantics (a field
// present is replaced, an absent one stays), and the refusal (400) to
// delete a template a pod or a serverless endpoint uses.

// Routes of the REST v2 template operations.
const (
	RouteTemplates      = "GET /v2/templates"
	RouteCreateTemplate = "POST /v2/templates"
	RouteTemplate       = "GET /v2/templates/{id}"
	RouteUpdateTemplate = "PATCH /v2/templates/{id}"
	RouteDeleteTemplate = "DELETE /v2/templates/{id}"
)

// Defaults of a stored template: the container disk and the console
// category, and the image and disk of a serverless template AddTemplate
// registers by id.
const (
	defaultTemplateDisk     = 20
	defaultTemplateCategory = templates.TemplateCategoryNVIDIA
	defaultServerlessImage  = "runpod/worker-basic:latest"
	defaultServerlessDisk   = 10
)

// What the fake answers about templates.
const (
	templateNotFound        = "template not found"
	templateInUseByEndpoint = "template is in use by a serverless endpoint and cannot be deleted"
	templateInUseByPod      = "template is in use by a pod and cannot be deleted"
)

// Template is a fake template as a test stores one (StoreTemplate) or
// reads it back (Templates).
type Template struct {
	// ID is the template's id; StoreTemplate makes one when it is empty.
	ID string
	// Name is the template's name (the ID when empty).
	Name string
	// Image is the container image.
	Image string
	// Args is the entrypoint's arguments, as one string.
	Args string
	// Disk is the container disk in GB (20 when 0).
	Disk int
	// Ports are the exposed ports, such as "8888/http" and "22/tcp".
	Ports []string
	// Env is the containers' environment.
	Env map[string]string
	// Registry is the id of the registry credential for a private image;
	// empty for none.
	Registry string
	// Category is where the console lists the template
	// (templates.TemplateCategoryNVIDIA when empty).
	Category templates.TemplateCategory
	// PersistentSize is the size in GB of the template's persistent
	// volume, and PersistentPath where it is mounted; 0 for none.
	PersistentSize int
	// PersistentPath is the mount path of the persistent volume.
	PersistentPath string
	// Serverless marks a template of serverless workers, which endpoints
	// take; the others are pod templates.
	Serverless bool
	// Public shares the template with every user.
	Public bool
	// StartSSH puts the account's SSH keys in containers' PUBLIC_KEY.
	StartSSH bool
	// StartJupyter gives containers a JUPYTER_PASSWORD.
	StartJupyter bool
	// AllowedCUDAVersions lists the CUDA versions a GPU host must have;
	// empty accepts any.
	AllowedCUDAVersions []string
}

// withDefaults fills what t leaves zero.
func (t Template) withDefaults() Template {
	t.Disk = cmp.Or(t.Disk, defaultTemplateDisk)
	t.Category = cmp.Or(t.Category, defaultTemplateCategory)
	t.Name = cmp.Or(t.Name, t.ID)
	t.Ports = cloneOrEmpty(t.Ports)
	t.AllowedCUDAVersions = cloneOrEmpty(t.AllowedCUDAVersions)
	if t.Env == nil {
		t.Env = map[string]string{}
	} else {
		t.Env = maps.Clone(t.Env)
	}
	return t
}

func cloneOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// StoreTemplate stores t as one of the account's templates, with the
// fake's defaults for what it leaves zero (an empty ID gets a new one),
// and returns its id: state for a test to start from without going
// through POST /v2/templates. A template stored with Serverless set is
// one saveEndpoint (Endpoints.Create) accepts. A template stored under an
// existing id replaces it.
func (s *Server) StoreTemplate(t Template) string {
	return locked(&s.templates.mu, func() string { return s.templates.storeLocked(t).ID })
}

// storeLocked stores t, with the defaults for what it leaves zero, under
// its id (a new one when empty), keeping the endpoints that use the
// template it replaces. u.mu is held.
func (u *templatesUnit) storeLocked(t Template) *fakeTemplate {
	if t.ID == "" {
		t.ID = u.newIDLocked()
	}
	ft := &fakeTemplate{Template: t.withDefaults(), endpoints: map[string]bool{}}
	if old := u.byID[t.ID]; old != nil {
		ft.endpoints = old.endpoints
	}
	u.byID[t.ID] = ft
	return ft
}

// Templates returns a snapshot of the account's templates, pod and
// serverless, ordered by id.
func (s *Server) Templates() []Template {
	s.templates.mu.Lock()
	defer s.templates.mu.Unlock()
	return listOf(s.templates.byID, every((*fakeTemplate).snapshot))
}

// newIDLocked returns an id no template has, shaped like the platform's
// (eight lower-case letters and digits). templatesUnit.mu is held.
func (u *templatesUnit) newIDLocked() string {
	for {
		if id := randomID(8); u.byID[id] == nil {
			return id
		}
	}
}

// registerServerless makes id a serverless template: a new one with the
// fake's defaults, or the template of that id marked serverless. It is
// what AddTemplate and HandleTemplate do.
func (u *templatesUnit) registerServerless(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.registerServerlessLocked(id)
}

// registerServerlessLocked is registerServerless with u.mu held.
func (u *templatesUnit) registerServerlessLocked(id string) *fakeTemplate {
	if t := u.byID[id]; t != nil {
		t.Serverless = true
		return t
	}
	t := &fakeTemplate{
		Template:  Template{ID: id, Image: defaultServerlessImage, Disk: defaultServerlessDisk, Serverless: true}.withDefaults(),
		endpoints: map[string]bool{},
	}
	u.byID[id] = t
	return t
}

var (
	errTemplateNotFound      = errors.New(templateNotFound)
	errTemplateNotServerless = errors.New("not a serverless template")
)

// useForEndpoint checks that templateID is a serverless template (with
// register, AddEndpoint's, it makes it one first) and, when endpointID is
// not empty, records that the endpoint uses it, and no longer the
// template previous it used before (empty for a new endpoint), in one
// step. Nothing changes when the check fails.
func (u *templatesUnit) useForEndpoint(templateID, endpointID, previous string, register bool) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	t := u.byID[templateID]
	if register {
		t = u.registerServerlessLocked(templateID)
	}
	switch {
	case t == nil:
		return errTemplateNotFound
	case !t.Serverless:
		return errTemplateNotServerless
	case endpointID == "":
		return nil
	}
	if previous != templateID {
		u.releaseLocked(previous, endpointID)
	}
	t.endpoints[endpointID] = true
	return nil
}

// releaseEndpoint records that an endpoint no longer uses its template (it
// was deleted); a template made for the endpoint's inline image goes with
// it.
func (u *templatesUnit) releaseEndpoint(templateID, endpointID string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.releaseLocked(templateID, endpointID)
}

// releaseLocked is releaseEndpoint with u.mu held.
func (u *templatesUnit) releaseLocked(templateID, endpointID string) {
	t := u.byID[templateID]
	if t == nil {
		return
	}
	delete(t.endpoints, endpointID)
	if t.inlineFor == endpointID && endpointID != "" {
		delete(u.byID, templateID)
	}
}

// nameOf returns the name of the account's template id, "" when there is
// none or it is the template the fake made for an endpoint's inline image.
func (u *templatesUnit) nameOf(id string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t := u.byID[id]; t != nil && t.inlineFor == "" {
		return t.Name
	}
	return ""
}

// container is the container an endpoint's workers run: an inline
// image's settings, or a template's.
type container struct {
	Image, Args, Registry string
	Disk                  int
	Env                   map[string]string
	Ports                 []string
}

// containerOf returns the container settings of a template, and false
// when there is no such template.
func (u *templatesUnit) containerOf(templateID string) (container, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	t := u.byID[templateID]
	if t == nil {
		return container{}, false
	}
	return container{Image: t.Image, Args: t.Args, Disk: t.Disk, Env: maps.Clone(t.Env), Ports: slices.Clone(t.Ports), Registry: t.Registry}, true
}

// isInline reports whether templateID is the template the fake made for
// the inline image of endpoint endpointID.
func (u *templatesUnit) isInline(templateID, endpointID string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	t := u.byID[templateID]
	return t != nil && endpointID != "" && t.inlineFor == endpointID
}

// makeInline makes the serverless template of an endpoint's inline image,
// as the platform makes one, records that the endpoint uses it (and no
// longer previous, which goes when it was the endpoint's own inline
// template too), and returns its id. It is listed by GET /v2/templates
// like any template, and goes when the endpoint is deleted or moves to
// another template.
func (u *templatesUnit) makeInline(endpointID, previous string, c container) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	id := u.newIDLocked()
	t := Template{ID: id, Name: "endpoint " + endpointID + " image", Serverless: true}.withDefaults()
	u.byID[id] = &fakeTemplate{Template: t, endpoints: map[string]bool{endpointID: true}, inlineFor: endpointID}
	u.setContainerLocked(id, c)
	u.releaseLocked(previous, endpointID)
	return id
}

// updateInline writes c into the template of an endpoint's inline image.
func (u *templatesUnit) updateInline(templateID string, c container) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.setContainerLocked(templateID, c)
}

// setContainerLocked writes c into template id, with the template
// defaults for what c leaves empty. u.mu is held.
func (u *templatesUnit) setContainerLocked(id string, c container) {
	t := u.byID[id]
	if t == nil {
		return
	}
	t.Image, t.Args, t.Registry = c.Image, c.Args, c.Registry
	t.Disk = cmp.Or(c.Disk, defaultServerlessDisk)
	t.Env = maps.Clone(c.Env)
	if t.Env == nil {
		t.Env = map[string]string{}
	}
	t.Ports = cloneOrEmpty(c.Ports)
}

// Wire formats, as the REST v2 document describes them.
type (
	templateJSON struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		containerJSON
		Serverless          bool     `json:"serverless"`
		Public              bool     `json:"public"`
		Category            string   `json:"category"`
		StartSSH            bool     `json:"startSsh"`
		StartJupyter        bool     `json:"startJupyter"`
		AllowedCUDAVersions []string `json:"allowedCudaVersions"`
	}
	templateMountsJSON struct {
		Persistent *persistentJSON `json:"persistent,omitempty"`
	}
	// templateInJSON is a template as a create or an update sends it: a
	// field left out takes the default on create and stays as it is on
	// update; one sent replaces the template's, even when empty.
	templateInJSON struct {
		containerPatchJSON
		Name                *string             `json:"name"`
		Category            *string             `json:"category"`
		Serverless          *bool               `json:"serverless"`
		Public              *bool               `json:"public"`
		AllowedCUDAVersions *[]string           `json:"allowedCudaVersions"`
		StartSSH            *bool               `json:"startSsh"`
		StartJupyter        *bool               `json:"startJupyter"`
		Mounts              *templateMountsJSON `json:"mounts"`
	}
)

// json returns the template as the API shows it.
func (t *Template) json() templateJSON {
	v := templateJSON{
		ID: t.ID, Name: t.Name,
		containerJSON: containerJSON{Image: t.Image, Args: t.Args, Disk: t.Disk, Ports: cloneOrEmpty(t.Ports), Env: maps.Clone(t.Env)},
		Serverless:    t.Serverless, Public: t.Public, Category: string(t.Category), StartSSH: t.StartSSH, StartJupyter: t.StartJupyter,
		AllowedCUDAVersions: cloneOrEmpty(t.AllowedCUDAVersions),
	}
	if v.Env == nil {
		v.Env = map[string]string{}
	}
	if t.Registry != "" {
		v.Registry = ptr(t.Registry)
	}
	if t.PersistentSize > 0 {
		v.Mounts.Persistent = &persistentJSON{Size: t.PersistentSize, Path: t.PersistentPath}
	}
	return v
}

// decodeTemplate reads a create's or an update's template into req, or
// answers 400 and reports false.
func decodeTemplate(w http.ResponseWriter, r *http.Request, req *templateInJSON) bool {
	return decodeBody(w, r, req) && (req.Ports == nil || !refusePorts(w, *req.Ports))
}

// apply sets on t what req sends.
func (t *Template) apply(req *templateInJSON) {
	set(&t.Name, req.Name)
	set(&t.Image, req.Image)
	set(&t.Args, req.Args)
	set(&t.Disk, req.Disk)
	set(&t.Ports, req.Ports)
	set(&t.Env, req.Env)
	if id, sent := registryPatch(req.Registry); sent {
		t.Registry = deref(id)
	}
	set(&t.Serverless, req.Serverless)
	set(&t.Public, req.Public)
	set(&t.StartSSH, req.StartSSH)
	set(&t.StartJupyter, req.StartJupyter)
	set(&t.AllowedCUDAVersions, req.AllowedCUDAVersions)
	if req.Category != nil {
		t.Category = templates.TemplateCategory(*req.Category)
	}
	// Omitted mounts, or {}, leave the persistent volume as it is.
	if m := req.Mounts; m != nil && m.Persistent != nil {
		t.PersistentSize, t.PersistentPath = m.Persistent.Size, m.Persistent.Path
	}
}

// createTemplate stores a new template: what the request sends over the
// document's defaults (start-up switches on), then the fake's.
func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) {
	var req templateInJSON
	if !decodeTemplate(w, r, &req) {
		return
	}
	t := Template{StartSSH: true, StartJupyter: true}
	t.apply(&req)
	writeCreated(w, locked(&s.templates.mu, func() templateJSON { return s.templates.storeLocked(t).json() }))
}

// updateTemplate applies a PATCH: a field present is replaced, an absent
// one stays.
func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) {
	var req templateInJSON
	if !decodeTemplate(w, r, &req) {
		return
	}
	withResource(w, r, &s.templates.mu, s.templates.byID, templateNotFound, func(t *fakeTemplate) {
		t.apply(&req)
		WriteJSON(w, t.json())
	})
}

// set replaces *dst with *v when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// deleteTemplate deletes a template no pod and no endpoint uses. Whether a
// pod uses it is asked of the pods unit first, with the templates lock not
// held, so the two units' locks are never nested.
func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	usedByPod := s.podUsing(func(p *fakePod) bool { return p.template != nil && *p.template == id }) != ""
	s.templates.mu.Lock()
	defer s.templates.mu.Unlock()
	t := s.templates.byID[id]
	switch {
	case t == nil:
		Problem(w, http.StatusNotFound, templateNotFound)
	case len(t.endpoints) > 0:
		Problem(w, http.StatusBadRequest, templateInUseByEndpoint)
	case usedByPod:
		Problem(w, http.StatusBadRequest, templateInUseByPod)
	default:
		delete(s.templates.byID, id)
		w.WriteHeader(http.StatusNoContent)
	}
}
