// Package volumes manages network volumes over the REST v2 API: storage in
// one data center that pods and serverless workers there mount, and that
// outlives them. The files on a volume are package
// [github.com/runpodkit/runpod-go/volumes/files]'s: it lists, uploads,
// downloads and syncs them through the platform's S3-compatible API,
// without a pod (Service.Files, below).
//
//	vol, err := rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{
//		Name:       "datasets",
//		Size:       50, // GB
//		DataCenter: "EU-RO-1",
//		Type:       runpod.Ptr(volumes.VolumeTypeStandard),
//	})
//	vol, err = rp.Volumes.Update(ctx, vol.ID, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(100)})
//	err = rp.Volumes.Delete(ctx, vol.ID)
//
// Service (runpod.Client.Volumes) lists, reads, creates, updates and
// deletes the account's network volumes. The request and volume types are
// generated from the platform's REST v2 document and keep its names:
// CreateNetworkVolumeRequest, UpdateNetworkVolumeRequest, NetworkVolume,
// VolumeType. A volume is billed for its size until it is deleted.
//
// Requests are validated before anything is sent, against the document's
// constraints: a name that is not empty, a size from MinSize to MaxSize GB,
// a data center id that is not empty, a known storage tier, and at least
// one field in an update. A *errs.ValidationError names the field, such
// as "CreateNetworkVolumeRequest.Size", and nothing is sent.
//
// What only the platform knows is checked there. A data center it does not
// know, or a tier the data center does not offer, is refused with a
// *errs.APIError. A volume's size can only grow: Update with a size below
// the current one is refused with status 400, the problem naming size
// (the SDK cannot tell without reading the volume first; Get it when in
// doubt). The data center and the tier are fixed at creation.
//
// Create is never repeated after it may have reached the platform: after an
// ambiguous failure the error matches errs.ErrOutcomeUnknown, and List
// tells whether the volume exists. List, Get, Update (a PATCH of fixed
// values: a grow applied twice gives the same size) and Delete are
// retried, and a retried Delete that finds the volume already gone
// succeeds.
//
// The files a volume holds are reached without a pod through package
// volumes/files, built from the same Config: it lists, uploads, downloads,
// deletes and syncs them through the platform's S3-compatible API, with
// the client's S3 API key (option.WithS3Credentials). Only some data
// centers have that API; a volume elsewhere is refused with a
// *files.DataCenterError. This package does not link the S3 client.
//
//	fv, err := files.NewFromConfig(rp.Config()).Volume(ctx, vol.ID)
//	_, err = fv.Download(ctx, "./llama.gguf", "models/llama.gguf") // local path first
package volumes

import (
	"context"
	"iter"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// Routes of the REST v2 document.
const (
	volumesRoute = "/v2/network-volumes"
	volumeRoute  = "/v2/network-volumes/{networkVolumeId}"
)

// volumeID is the rule of volume ids: letters, digits, '-' and '_', so
// that an id names one volume and nothing else.
var volumeID = rest.ID{Field: "volumeID", Extra: "-_"}

// volumeAt is the Path of one volume.
func volumeAt(id string) rest.Path { return rest.At(volumeRoute, volumeID.Of(id)) }

// List returns the account's network volumes, every page of them (All
// reads them a page at a time).
func (s *Service) List(ctx context.Context, opts ...option.RequestOption) ([]NetworkVolume, error) {
	r, err := rest.List(ctx, s.t, rest.At(volumesRoute), opts, volumePage)
	return r.NetworkVolumes, err
}

// All returns the network volumes List returns, one at a time,
// holding one page of them: the first page is asked for when the loop
// starts, a failure ends the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, opts ...option.RequestOption) iter.Seq2[NetworkVolume, error] {
	return rest.All(ctx, s.t, rest.At(volumesRoute), opts, volumePage)
}

// volumePage tells where a page of the volume listing keeps its volumes.
func volumePage(r *listNetworkVolumesResponse) (*[]NetworkVolume, *rest.Pagination) {
	return &r.NetworkVolumes, (*rest.Pagination)(r.Pagination)
}

// Get returns one network volume; an unknown id is an error matching
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*NetworkVolume, error) {
	return rest.Call[NetworkVolume](ctx, s.t, http.MethodGet, volumeAt(id), nil, opts)
}

// Create creates a network volume, billed for its size until it is
// deleted. The request is validated first (nothing is sent when it is
// invalid) and never repeated after it may have reached the platform:
// after an ambiguous failure the error matches errs.ErrOutcomeUnknown,
// and List tells whether the volume exists.
func (s *Service) Create(ctx context.Context, req CreateNetworkVolumeRequest, opts ...option.RequestOption) (*NetworkVolume, error) {
	return rest.Call[NetworkVolume](ctx, s.t, http.MethodPost, rest.At(volumesRoute), &req, opts)
}

// Update renames a volume or grows it: it changes the fields req sets and
// leaves the others. A size below the volume's current size is refused by
// the platform with status 400 (a *errs.APIError whose problem names
// size); the SDK checks only the document's range. The same change applied
// twice gives the same volume, so it is retried like a read.
func (s *Service) Update(ctx context.Context, id string, req UpdateNetworkVolumeRequest, opts ...option.RequestOption) (*NetworkVolume, error) {
	return rest.Call[NetworkVolume](ctx, s.t, http.MethodPatch, volumeAt(id), &req, opts)
}

// Delete deletes a network volume and what it holds, irreversibly. An
// unknown id is an error matching errs.ErrNotFound, but a retried delete
// that finds the volume already gone (an earlier attempt deleted it)
// succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, volumeAt(id), opts)
}
