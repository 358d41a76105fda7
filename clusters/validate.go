package clusters

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/pods"
)

// The checks below are the constraints the REST v2 document puts on the
// request bodies (required fields, minimum lengths, the GPU and pod counts,
// the cluster types, "at least one field" on an update) and the rules it
// says the platform applies to the container settings and mounts every
// pod shares (port specs; a persistent mount or one network volume, not
// both). A request that breaks one is refused before anything is sent,
// with a *runpod.ValidationError naming the field.

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
		return errs.Invalid(f+".Name", "is required")
	case r.Type == "":
		return errs.Invalid(f+".Type", "is required (ClusterTypeTraining, ClusterTypeSlurm, ClusterTypeRay or ClusterTypeApplication)")
	case !r.Type.Valid():
		return errs.Invalid(f+".Type", "want APPLICATION, TRAINING, SLURM or RAY, got %q", r.Type)
	case c.GPUTypeID == "":
		return errs.Invalid(f+".Compute.GPUTypeID", "is required (a GPU type id such as %q)", "NVIDIA H100 80GB HBM3")
	case c.GPUCountPerPod < 1:
		return errs.Invalid(f+".Compute.GPUCountPerPod", "must be at least 1, got %d", c.GPUCountPerPod)
	case c.PodCount < MinPods || c.PodCount > MaxPods:
		return errs.Invalid(f+".Compute.PodCount", "must be from %d to %d, got %d", MinPods, MaxPods, c.PodCount)
	case r.Disk != nil && *r.Disk < 1:
		return errs.Invalid(f+".Disk", "must be at least 1 GB, got %d", *r.Disk)
	}
	if err := validPorts(f+".Ports", r.Ports); err != nil {
		return err
	}
	return validMounts(f+".Mounts", r.Mounts)
}

// Validate checks the request before anything is sent: the name is the
// one field, so it is required.
func (r *UpdateClusterRequest) Validate() error {
	switch {
	case r.Name == nil:
		return errs.Invalid("UpdateClusterRequest.Name", "is required: renaming is the only change a cluster takes")
	case *r.Name == "":
		return errs.Invalid("UpdateClusterRequest.Name", "must not be empty")
	}
	return nil
}

func validMounts(field string, m *pods.Mounts) error {
	if m == nil {
		return nil
	}
	if m.Persistent != nil && len(m.Network) > 0 {
		return errs.Invalid(field, "a persistent mount or a network volume, not both")
	}
	if p := m.Persistent; p != nil {
		switch {
		case p.Size < 10:
			return errs.Invalid(field+".Persistent.Size", "must be at least 10 GB, got %d", p.Size)
		case !strings.HasPrefix(p.Path, "/"):
			return errs.Invalid(field+".Persistent.Path", "want an absolute path inside the container, got %q", p.Path)
		}
	}
	if len(m.Network) > 1 {
		return errs.Invalid(field+".Network", "at most one network volume, got %d", len(m.Network))
	}
	for i, n := range m.Network {
		switch {
		case n.VolumeID == "":
			return errs.Invalid(fmt.Sprintf("%s.Network[%d].VolumeID", field, i), "is required")
		case !strings.HasPrefix(n.Path, "/"):
			return errs.Invalid(fmt.Sprintf("%s.Network[%d].Path", field, i), "want an absolute path inside the container, got %q", n.Path)
		}
	}
	return nil
}

// validPorts checks port specs as the platform reads them for every pod:
// "<port>/http" or "<port>/tcp" with a port from 1 to 65535, or
// "<port>/tcp" from pods.SymmetricPortBase up.
func validPorts(field string, ports []string) error {
	for i, spec := range ports {
		n, proto, ok := strings.Cut(spec, "/")
		v, err := strconv.Atoi(n)
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !ok || err != nil || strings.Trim(n, "0123456789") != "" || (proto != "http" && proto != "tcp"):
			return errs.Invalid(at, `want "<port>/http" or "<port>/tcp", got %q`, spec)
		case v >= pods.SymmetricPortBase && proto != "tcp":
			return errs.Invalid(at, `ports from %d request symmetric TCP mapping: want "%d/tcp", got %q`, pods.SymmetricPortBase, v, spec)
		case v < 1 || (v > 65535 && v < pods.SymmetricPortBase):
			return errs.Invalid(at, "want a port from 1 to 65535, or from %d for symmetric TCP mapping, got %q", pods.SymmetricPortBase, spec)
		}
	}
	return nil
}
