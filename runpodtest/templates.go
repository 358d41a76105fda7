package runpodtest

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
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
	s.templates.mu.Lock()
	defer s.templates.mu.Unlock()
	if t.ID == "" {
		t.ID = s.templates.newIDLocked()
	}
	t = t.withDefaults()
	ft := &fakeTemplate{Template: t, endpoints: map[string]bool{}}
	if old := s.templates.byID[t.ID]; old != nil {
		ft.endpoints = old.endpoints
	}
	s.templates.byID[t.ID] = ft
	return t.ID
}

// Templates returns a snapshot of the account's templates, pod and
// serverless, ordered by id.
func (s *Server) Templates() []Template {
	s.templates.mu.Lock()
	defer s.templates.mu.Unlock()
	out := []Template{}
	for _, t := range s.templates.byID {
		c := t.Template
		c.Ports, c.Env, c.AllowedCUDAVersions = slices.Clone(c.Ports), maps.Clone(c.Env), slices.Clone(c.AllowedCUDAVersions)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Template) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// newIDLocked returns an id no template has, shaped like the platform's
// (eight lower-case letters and digits). templatesUnit.mu is held.
func (u *templatesUnit) newIDLocked() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	for {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		for i := range b {
			b[i] = letters[int(b[i])%len(letters)]
		}
		if id := string(b); u.byID[id] == nil {
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
	Image    string
	Args     string
	Disk     int
	Env      map[string]string
	Ports    []string
	Registry string
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
		ID                  string             `json:"id"`
		Name                string             `json:"name"`
		Image               string             `json:"image"`
		Args                string             `json:"args"`
		Disk                int                `json:"disk"`
		Ports               []string           `json:"ports"`
		Env                 map[string]string  `json:"env"`
		Registry            *string            `json:"registry"`
		Mounts              templateMountsJSON `json:"mounts"`
		Serverless          bool               `json:"serverless"`
		Public              bool               `json:"public"`
		Category            string             `json:"category"`
		StartSSH            bool               `json:"startSsh"`
		StartJupyter        bool               `json:"startJupyter"`
		AllowedCUDAVersions []string           `json:"allowedCudaVersions"`
	}
	templateMountsJSON struct {
		Persistent *persistentJSON `json:"persistent,omitempty"`
	}
	createTemplateJSON struct {
		Name                string              `json:"name"`
		Image               string              `json:"image"`
		Args                *string             `json:"args"`
		Disk                *int                `json:"disk"`
		Ports               []string            `json:"ports"`
		Env                 map[string]string   `json:"env"`
		Registry            *string             `json:"registry"`
		Mounts              *templateMountsJSON `json:"mounts"`
		Serverless          *bool               `json:"serverless"`
		Public              *bool               `json:"public"`
		Category            *string             `json:"category"`
		StartSSH            *bool               `json:"startSsh"`
		StartJupyter        *bool               `json:"startJupyter"`
		AllowedCUDAVersions []string            `json:"allowedCudaVersions"`
	}
	// updateTemplateJSON tells a field that is present from one that is
	// not: a present one replaces the template's, even when empty.
	updateTemplateJSON struct {
		Name                *string             `json:"name"`
		Image               *string             `json:"image"`
		Args                *string             `json:"args"`
		Disk                *int                `json:"disk"`
		Ports               *[]string           `json:"ports"`
		Env                 *map[string]string  `json:"env"`
		Registry            json.RawMessage     `json:"registry"` // absent, null or an id
		Mounts              *templateMountsJSON `json:"mounts"`
		Serverless          *bool               `json:"serverless"`
		Public              *bool               `json:"public"`
		Category            *string             `json:"category"`
		StartSSH            *bool               `json:"startSsh"`
		StartJupyter        *bool               `json:"startJupyter"`
		AllowedCUDAVersions *[]string           `json:"allowedCudaVersions"`
	}
)

// json returns the template as the API shows it.
func (t *fakeTemplate) json() templateJSON {
	v := templateJSON{
		ID: t.ID, Name: t.Name, Image: t.Image, Args: t.Args, Disk: t.Disk,
		Ports: cloneOrEmpty(t.Ports), Env: maps.Clone(t.Env), Serverless: t.Serverless, Public: t.Public,
		Category: string(t.Category), StartSSH: t.StartSSH, StartJupyter: t.StartJupyter,
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

func (s *Server) registerTemplates() {
	read := s.routes(TemplatesRead)
	write := s.routes(TemplatesWrite)
	read(RouteTemplates, func(w http.ResponseWriter, r *http.Request) {
		s.templates.mu.Lock()
		list := []templateJSON{}
		for _, t := range s.templates.byID {
			list = append(list, t.json())
		}
		s.templates.mu.Unlock()
		slices.SortFunc(list, func(a, b templateJSON) int { return strings.Compare(a.ID, b.ID) })
		WriteJSON(w, map[string]any{"templates": list})
	})
	read(RouteTemplate, func(w http.ResponseWriter, r *http.Request) {
		s.templates.mu.Lock()
		defer s.templates.mu.Unlock()
		t := s.templates.byID[r.PathValue("id")]
		if t == nil {
			Problem(w, http.StatusNotFound, templateNotFound)
			return
		}
		WriteJSON(w, t.json())
	})
	write(RouteCreateTemplate, s.createTemplate)
	write(RouteUpdateTemplate, s.updateTemplate)
	write(RouteDeleteTemplate, s.deleteTemplate)
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) {
	var req createTemplateJSON
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Problem(w, http.StatusBadRequest, "request could not be processed", "$: "+err.Error())
		return
	}
	if i, problem := checkPorts(req.Ports); problem != "" {
		badRequest(w, fmt.Sprintf("ports[%d]", i), "%s", problem)
		return
	}
	t := Template{
		Name: req.Name, Image: req.Image, Args: deref(req.Args), Disk: deref(req.Disk), Ports: req.Ports, Env: req.Env,
		Registry: deref(req.Registry), Category: templates.TemplateCategory(deref(req.Category)),
		Serverless: deref(req.Serverless), Public: deref(req.Public),
		StartSSH: req.StartSSH == nil || *req.StartSSH, StartJupyter: req.StartJupyter == nil || *req.StartJupyter,
		AllowedCUDAVersions: req.AllowedCUDAVersions,
	}
	if m := req.Mounts; m != nil && m.Persistent != nil {
		t.PersistentSize, t.PersistentPath = m.Persistent.Size, m.Persistent.Path
	}
	s.templates.mu.Lock()
	t.ID = s.templates.newIDLocked()
	ft := &fakeTemplate{Template: t.withDefaults(), endpoints: map[string]bool{}}
	s.templates.byID[t.ID] = ft
	v := ft.json()
	s.templates.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) {
	var req updateTemplateJSON
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Problem(w, http.StatusBadRequest, "request could not be processed", "$: "+err.Error())
		return
	}
	if req.Ports != nil {
		if i, problem := checkPorts(*req.Ports); problem != "" {
			badRequest(w, fmt.Sprintf("ports[%d]", i), "%s", problem)
			return
		}
	}
	var registry *string // the new registry id, "" to remove it
	if len(req.Registry) > 0 {
		registry = new(string)
		if string(req.Registry) != "null" {
			_ = json.Unmarshal(req.Registry, registry) // the document checked it is a string
		}
	}
	s.templates.mu.Lock()
	defer s.templates.mu.Unlock()
	t := s.templates.byID[r.PathValue("id")]
	if t == nil {
		Problem(w, http.StatusNotFound, templateNotFound)
		return
	}
	set(&t.Name, req.Name)
	set(&t.Image, req.Image)
	set(&t.Args, req.Args)
	set(&t.Disk, req.Disk)
	set(&t.Ports, req.Ports)
	set(&t.Env, req.Env)
	set(&t.Registry, registry)
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
	WriteJSON(w, t.json())
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
	usedByPod := false
	s.pods.mu.Lock()
	for _, p := range s.pods.byID {
		if p.template != nil && *p.template == id {
			usedByPod = true
			break
		}
	}
	s.pods.mu.Unlock()

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
