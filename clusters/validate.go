package clusters

import (
	"github.com/runpodkit/runpod-go/internal/check"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/pods"
)

// The checks below are the constraints the REST v2 document puts on the
// request bodies (required fields, minimum lengths, the GPU and pod counts,
// the cluster types, "at least one field" on an update) and the rules it
// says the platform applies to the container settings and mounts every
// pod shares (port specs; a persistent mount or one network volume, not
// both). A request that breaks one is refused before anything is sent,
// with a *errs.ValidationError naming the field.

// Limits of a cluster's shape, from the REST v2 document.
const (
	// MinPods is the fewest pods a cluster has.
	MinPods = 2
	// MaxPods is the most pods a cluster has.
	MaxPods = 250
)

// Validate checks the request before anything is sent.
func (r *CreateClusterRequest) Validate() error {
	const f = "CreateClusterRequest"
	c := r.Compute
	switch {
	case r.Name == "":
		return fail.Invalid(f+".Name", "is required")
	case r.Type == "":
		return fail.Invalid(f+".Type", "is required (ClusterTypeTraining, ClusterTypeSlurm, ClusterTypeRay or ClusterTypeApplication)")
	case !r.Type.Valid():
		return fail.Invalid(f+".Type", "want APPLICATION, TRAINING, SLURM or RAY, got %q", r.Type)
	case c.GPUTypeID == "":
		return fail.Invalid(f+".Compute.GPUTypeID", "is required (a GPU type id such as %q)", "NVIDIA H100 80GB HBM3")
	case c.GPUCountPerPod < 1:
		return fail.Invalid(f+".Compute.GPUCountPerPod", "must be at least 1, got %d", c.GPUCountPerPod)
	case c.PodCount < MinPods || c.PodCount > MaxPods:
		return fail.Invalid(f+".Compute.PodCount", "must be from %d to %d, got %d", MinPods, MaxPods, c.PodCount)
	}
	if err := check.Container(f, r.Disk, r.Ports, r.Env); err != nil {
		return err
	}
	return pods.CheckMounts(f+".Mounts", r.Mounts)
}

// Validate checks the request before anything is sent: the name is the
// one field, so it is required.
func (r *UpdateClusterRequest) Validate() error {
	switch {
	case r.Name == nil:
		return fail.Invalid("UpdateClusterRequest.Name", "is required: renaming is the only change a cluster takes")
	case *r.Name == "":
		return fail.Invalid("UpdateClusterRequest.Name", "must not be empty")
	}
	return nil
}
