package volumes

import (
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// The checks below are the constraints the REST v2 document puts on the
// request bodies: required fields, names and data center ids that are not
// empty, sizes within the document's range, a known storage tier, and an
// update that changes something. A request that breaks one is refused
// before anything is sent, with a *errs.ValidationError naming the
// field. Whether a data center exists, which tiers it offers and whether a
// size is below the volume's current one are known only to the platform.

// Sizes a network volume may have, in GB, as the REST v2 document bounds
// them. A volume grows (Service.Update) but never shrinks.
const (
	MinSize = 10
	MaxSize = 4096
)

// Validate checks the request before anything is sent.
func (r *CreateNetworkVolumeRequest) Validate() error {
	const f = "CreateNetworkVolumeRequest"
	switch {
	case strings.TrimSpace(r.Name) == "":
		return fail.Invalid(f+".Name", "is required")
	case r.Size < MinSize || r.Size > MaxSize:
		return fail.Invalid(f+".Size", "must be %d to %d GB, got %d", MinSize, MaxSize, r.Size)
	case strings.TrimSpace(r.DataCenter) == "":
		return fail.Invalid(f+".DataCenter", "is required (a data center id such as %q)", "EU-RO-1")
	case r.Type != nil && !r.Type.Valid():
		return fail.Invalid(f+".Type", "want %s or %s, got %q", VolumeTypeStandard, VolumeTypeHighPerformance, *r.Type)
	}
	return nil
}

// Validate checks the request before anything is sent. It cannot tell a
// size below the volume's current one (the platform refuses that with
// status 400).
func (r *UpdateNetworkVolumeRequest) Validate() error {
	const f = "UpdateNetworkVolumeRequest"
	switch {
	case r.Name == nil && r.Size == nil:
		return fail.Invalid(f, "changes nothing: set Name or Size")
	case r.Name != nil && strings.TrimSpace(*r.Name) == "":
		return fail.Invalid(f+".Name", "must not be empty")
	case r.Size != nil && (*r.Size < MinSize || *r.Size > MaxSize):
		return fail.Invalid(f+".Size", "must be %d to %d GB, got %d", MinSize, MaxSize, *r.Size)
	}
	return nil
}
