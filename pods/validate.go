package pods

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/check"
)

// The checks below are the constraints the REST v2 document puts on the
// request bodies (required fields, minimum values, enums, patterns, the
// "image unless templateId" rule) and the rules it says the platform
// enforces when it handles them (one of gpu or cpu; persistent mounts
// neither on CPU pods nor beside a network volume; a CUDA floor or a CUDA
// list, not both). A request that breaks one is refused before anything is
// sent, with a *runpod.ValidationError naming the field.

// cudaVersion is the document's pattern for CUDA versions: major.minor.
var cudaVersion = regexp.MustCompile(`^\d+\.\d+$`)

// Validate checks the request before anything is sent.
func (r *CreatePodRequest) Validate() error {
	const f = "CreatePodRequest"
	switch {
	case strings.TrimSpace(r.Name) == "":
		return errs.Invalid(f+".Name", "is required")
	case r.TemplateID != nil && *r.TemplateID == "":
		return errs.Invalid(f+".TemplateID", "must not be empty when set")
	case r.TemplateID == nil && (r.Image == nil || strings.TrimSpace(*r.Image) == ""):
		return errs.Invalid(f+".Image", "is required unless TemplateID is given")
	case r.GPU == nil && r.CPU == nil:
		return errs.Invalid(f+".GPU", "a pod needs GPUs (GPU) or a CPU flavor (CPU)")
	case r.GPU != nil && r.CPU != nil:
		return errs.Invalid(f+".CPU", "a pod has GPUs or a CPU flavor, not both")
	case r.Disk != nil && *r.Disk < 1:
		return errs.Invalid(f+".Disk", "must be at least 1 GB, got %d", *r.Disk)
	case r.Cloud != nil && !r.Cloud.Valid():
		return errs.Invalid(f+".Cloud", "want SECURE or COMMUNITY, got %q", *r.Cloud)
	}
	if r.GPU != nil {
		if err := r.GPU.validate(f + ".GPU"); err != nil {
			return err
		}
	}
	if c := r.CPU; c != nil {
		switch {
		case c.ID == "":
			return errs.Invalid(f+".CPU.ID", "is required (a CPU flavor such as cpu3c)")
		case c.VcpuCount < 2:
			return errs.Invalid(f+".CPU.VcpuCount", "must be at least 2, got %d", c.VcpuCount)
		}
		if r.Mounts != nil && r.Mounts.Persistent != nil {
			return errs.Invalid(f+".Mounts.Persistent", "CPU pods take a network volume, not a persistent mount")
		}
	}
	if err := CheckPorts(f+".Ports", r.Ports); err != nil {
		return err
	}
	if err := check.EnvNames(f+".Env", r.Env); err != nil {
		return err
	}
	return CheckMounts(f+".Mounts", r.Mounts)
}

func (g *CreateGPUConfig) validate(field string) error {
	switch {
	case strings.TrimSpace(g.ID) == "":
		return errs.Invalid(field+".ID", "is required (a GPU type id such as %q)", "NVIDIA GeForce RTX 4090")
	case g.Count != nil && *g.Count < 1:
		return errs.Invalid(field+".Count", "must be at least 1, got %d", *g.Count)
	case g.MinCUDAVersion != nil && !cudaVersion.MatchString(*g.MinCUDAVersion):
		return errs.Invalid(field+".MinCUDAVersion", "want major.minor such as 12.4, got %q", *g.MinCUDAVersion)
	case g.MinCUDAVersion != nil && len(g.AllowedCUDAVersions) > 0:
		return errs.Invalid(field+".AllowedCUDAVersions", "give MinCUDAVersion or AllowedCUDAVersions, not both")
	}
	for i, v := range g.AllowedCUDAVersions {
		if !cudaVersion.MatchString(v) {
			return errs.Invalid(fmt.Sprintf("%s.AllowedCUDAVersions[%d]", field, i), "want major.minor such as 12.4, got %q", v)
		}
	}
	return nil
}

// Validate checks the request before anything is sent.
func (r *UpdatePodRequest) Validate() error {
	const f = "UpdatePodRequest"
	switch {
	case r.Name != nil && strings.TrimSpace(*r.Name) == "":
		return errs.Invalid(f+".Name", "must not be empty")
	case r.Disk != nil && *r.Disk < 1:
		return errs.Invalid(f+".Disk", "must be at least 1 GB, got %d", *r.Disk)
	}
	if err := CheckPorts(f+".Ports", r.Ports); err != nil {
		return err
	}
	if err := check.EnvNames(f+".Env", r.Env); err != nil {
		return err
	}
	return CheckMounts(f+".Mounts", r.Mounts)
}

// CheckMounts checks a pod's storage as the platform reads it (a
// cluster's pods' too): a persistent mount of at least 10 GB or one
// network volume, not both, each at an absolute path. field names the
// mounts in the *runpod.ValidationError ("CreatePodRequest.Mounts").
func CheckMounts(field string, m *Mounts) error {
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

// SymmetricPortBase is the first port number that requests symmetric TCP
// mapping. A port spec such as "70000/tcp" is not a port the container
// listens on: it asks the platform to pick a port N, tell the container
// (RUNPOD_TCP_PORT_70000=N in its environment) and map public port N to
// internal port N. See Pod.TCPAddress for how to read the mapping.
const SymmetricPortBase = check.SymmetricPortBase

// CheckPorts checks port specs as the platform reads them for every pod
// (a cluster's too): "<port>/http" or "<port>/tcp" with a port from 1 to
// 65535, or "<port>/tcp" from SymmetricPortBase up. field names the list
// in the *runpod.ValidationError ("CreatePodRequest.Ports", and the
// entry's index is added).
func CheckPorts(field string, ports []string) error { return check.Ports(field, ports) }
