// Package globalvolumes manages global volumes over the REST v2 API:
// storage that is not tied to a data center (object-backed, beta), which
// GPU serverless endpoints mount at /runpod-volume wherever their workers
// run.
//
//	v, err := rp.GlobalVolumes.Create(ctx, globalvolumes.CreateGlobalVolumeRequest{Name: "weights"})
//	// An endpoint's workers mount it (at most one; not with network volumes):
//	// serverless.CreateEndpointRequest{…, GlobalVolumes: []string{v.ID}}
//	for v, err := range rp.GlobalVolumes.All(ctx) { … }
//	err = rp.GlobalVolumes.Delete(ctx, v.ID)
//
// Service (runpod.Client.GlobalVolumes) lists, reads, creates, renames
// and deletes global volumes (List, All, Get, Create, Rename, Delete).
// A global volume has a name (names need not be unique) and no size: it
// grows with its data.
//
// # Where a global volume mounts
//
// The platform's storage guide gives the rules, which
// serverless.CreateEndpointRequest.Validate and UpdateEndpointRequest
// check before anything is sent: an endpoint mounts at most one global
// volume, on GPU workers only, and not together with network volumes. A
// pod takes a global volume in the console only: the REST v2 pod create
// has no field for it (the console lets a pod have one global and one
// network volume at a time).
//
// Global volumes are object storage, not a POSIX file system: no file
// locks, no atomic rename, no hard links or permission bits; the last of
// two concurrent writes to a file wins, and a change made after a worker
// started may not be visible to it. Read-mostly data (model weights)
// suits them; frequent writes suit a network volume (package volumes).
//
// # Retries
//
// Create is never repeated after it may have reached the platform (a
// global volume is billed storage): after an ambiguous failure the error
// matches errs.ErrOutcomeUnknown, and List tells whether the volume
// exists. Reads, Rename and Delete are retried; a retried Delete whose
// earlier attempt already removed the volume succeeds.
package globalvolumes

import (
	"context"
	"iter"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// Routes of the REST v2 document.
const (
	volumesRoute = "/v2/global-volumes"
	volumeRoute  = "/v2/global-volumes/{globalVolumeId}"
)

// MaxNameLen is the longest name of a global volume, in characters.
const MaxNameLen = 191

// volumeID is the rule of global volume ids (such as "gsb_abc"):
// letters, digits, '-' and '_'.
var volumeID = rest.ID{Field: "globalVolumeID", Extra: "-_"}

func volumeAt(id string) rest.Path { return rest.At(volumeRoute, volumeID.Of(id)) }

// List returns the account's global volumes, every page of them (All
// reads them a page at a time).
func (s *Service) List(ctx context.Context, opts ...option.RequestOption) ([]GlobalVolume, error) {
	r, err := rest.List(ctx, s.t, rest.At(volumesRoute), opts, volumePage)
	if err != nil {
		return nil, err
	}
	return r.GlobalVolumes, nil
}

// All returns the global volumes List returns, one at a time, holding one
// page of them: the first page is asked for when the loop starts, a
// failure ends the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, opts ...option.RequestOption) iter.Seq2[GlobalVolume, error] {
	return rest.All(ctx, s.t, rest.At(volumesRoute), opts, volumePage)
}

// volumePage tells where a page of the listing keeps its volumes.
func volumePage(r *listGlobalVolumesResponse) (*[]GlobalVolume, *rest.Pagination) {
	return &r.GlobalVolumes, (*rest.Pagination)(&r.Pagination)
}

// Get returns one global volume; an unknown id is an error matching
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*GlobalVolume, error) {
	return rest.Call[GlobalVolume](ctx, s.t, http.MethodGet, volumeAt(id), nil, opts)
}

// Validate checks the request before anything is sent: a name of 1 to
// MaxNameLen characters, not all white space.
func (r CreateGlobalVolumeRequest) Validate() error {
	return checkName("CreateGlobalVolumeRequest.Name", r.Name)
}

func checkName(field, name string) error {
	switch n := utf8.RuneCountInString(name); {
	case strings.TrimFunc(name, unicode.IsSpace) == "":
		return fail.Invalid(field, "must hold a character that is not white space")
	case n > MaxNameLen:
		return fail.Invalid(field, "must be at most %d characters, got %d", MaxNameLen, n)
	case !utf8.ValidString(name):
		return fail.Invalid(field, "must be UTF-8 text")
	}
	return nil
}

// Create creates a global volume and returns it. The request is
// validated first (nothing is sent when it is invalid) and never repeated
// after it may have reached the platform: after an ambiguous failure the
// error matches errs.ErrOutcomeUnknown, and List tells whether the volume
// exists.
func (s *Service) Create(ctx context.Context, req CreateGlobalVolumeRequest, opts ...option.RequestOption) (*GlobalVolume, error) {
	return rest.Call[GlobalVolume](ctx, s.t, http.MethodPost, rest.At(volumesRoute), req, opts)
}

// renameBody is Rename's body, checked as the name it carries.
type renameBody struct{ updateGlobalVolumeRequest }

func (b renameBody) Validate() error { return checkName("name", *b.Name) }

// Rename gives the global volume a new name (1 to MaxNameLen characters,
// not all white space) and returns it.
func (s *Service) Rename(ctx context.Context, id, name string, opts ...option.RequestOption) (*GlobalVolume, error) {
	body := renameBody{updateGlobalVolumeRequest{Name: &name}}
	return rest.Call[GlobalVolume](ctx, s.t, http.MethodPatch, volumeAt(id), body, opts)
}

// Delete deletes the global volume and its data, irreversibly. A retried
// delete that finds the volume already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, volumeAt(id), opts)
}
