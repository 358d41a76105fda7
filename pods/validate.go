package pods

import (
	"fmt"
	"strings"

	"github.com/runpodkit/runpod-go/internal/check"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// The checks below are the constraints the REST v2 document puts on the
// request bodies (required fields, minimum values, enums, patterns, the
// "image unless templateId" rule) and the rules it says the platform
// enforces when it handles them (one of gpu or cpu; persistent mounts
// neither on CPU pods nor beside a network volume; a CUDA floor or a CUDA
// list, not both). A request that breaks one is refused before anything is
// sent, with a *errs.ValidationError naming the field.

// Validate checks the request before anything is sent.
func (r *CreatePodRequest) Validate() error {
	const f = "CreatePodRequest"
	switch {
	case strings.TrimSpace(r.Name) == "":
		return fail.Invalid(f+".Name", "is required")
	case r.TemplateID != nil && *r.TemplateID == "":
		return fail.Invalid(f+".TemplateID", "must not be empty when set")
	case r.TemplateID == nil && (r.Image == nil || strings.TrimSpace(*r.Image) == ""):
		return fail.Invalid(f+".Image", "is required unless TemplateID is given")
	case r.GPU == nil && r.CPU == nil:
		return fail.Invalid(f+".GPU", "a pod needs GPUs (GPU) or a CPU flavor (CPU)")
	case r.GPU != nil && r.CPU != nil:
		return fail.Invalid(f+".CPU", "a pod has GPUs or a CPU flavor, not both")
	case r.Cloud != nil && !r.Cloud.Valid():
		return fail.Invalid(f+".Cloud", "want SECURE or COMMUNITY, got %q", *r.Cloud)
	}
	if r.GPU != nil {
		if err := r.GPU.validate(f + ".GPU"); err != nil {
			return err
		}
	}
	if c := r.CPU; c != nil {
		switch {
		case c.ID == "":
			return fail.Invalid(f+".CPU.ID", "is required (a CPU flavor such as cpu3c)")
		case c.VcpuCount < 2:
			return fail.Invalid(f+".CPU.VcpuCount", "must be at least 2, got %d", c.VcpuCount)
		}
		if r.Mounts != nil && r.Mounts.Persistent != nil {
			return fail.Invalid(f+".Mounts.Persistent", "CPU pods take a network volume, not a persistent mount")
		}
	}
	if err := check.Container(f, r.Disk, r.Ports, r.Env); err != nil {
		return err
	}
	return CheckMounts(f+".Mounts", r.Mounts)
}

func (g *CreateGPUConfig) validate(field string) error {
	switch {
	case strings.TrimSpace(g.ID) == "":
		return fail.Invalid(field+".ID", "is required (a GPU type id such as %q)", "NVIDIA GeForce RTX 4090")
	case g.Count != nil && *g.Count < 0:
		return fail.Invalid(field+".Count", "must be at least 1 (0 or nil for 1), got %d", *g.Count)
	case g.MinRAMPerGPU != nil && *g.MinRAMPerGPU < 1:
		return fail.Invalid(field+".MinRAMPerGPU", "must be at least 1 (GB), got %d", *g.MinRAMPerGPU)
	case g.MinVCPUCountPerGPU != nil && *g.MinVCPUCountPerGPU < 1:
		return fail.Invalid(field+".MinVCPUCountPerGPU", "must be at least 1, got %d", *g.MinVCPUCountPerGPU)
	}
	if g.MinCUDAVersion != nil {
		if err := check.CUDAVersion(field+".MinCUDAVersion", *g.MinCUDAVersion); err != nil {
			return err
		}
		if len(g.AllowedCUDAVersions) > 0 {
			return fail.Invalid(field+".AllowedCUDAVersions", "give MinCUDAVersion or AllowedCUDAVersions, not both")
		}
	}
	return check.CUDAVersions(field+".AllowedCUDAVersions", g.AllowedCUDAVersions)
}

// Validate checks the request before anything is sent.
func (r *UpdatePodRequest) Validate() error {
	const f = "UpdatePodRequest"
	if r.Name != nil && strings.TrimSpace(*r.Name) == "" {
		return fail.Invalid(f+".Name", "must not be empty")
	}
	if err := check.Container(f, r.Disk, r.Ports, r.Env); err != nil {
		return err
	}
	return CheckMounts(f+".Mounts", r.Mounts)
}

// CheckMounts checks a pod's storage as the platform reads it (a
// cluster's pods' too): a persistent mount of at least 10 GB or one
// network volume, not both, each at an absolute path. field names the
// mounts in the *errs.ValidationError ("CreatePodRequest.Mounts").
func CheckMounts(field string, m *Mounts) error {
	if m == nil {
		return nil
	}
	if m.Persistent != nil && len(m.Network) > 0 {
		return fail.Invalid(field, "a persistent mount or a network volume, not both")
	}
	if p := m.Persistent; p != nil {
		if err := check.PersistentMount(field+".Persistent", p.Size, p.Path); err != nil {
			return err
		}
	}
	if len(m.Network) > 1 {
		return fail.Invalid(field+".Network", "at most one network volume, got %d", len(m.Network))
	}
	for i, n := range m.Network {
		switch {
		case n.VolumeID == "":
			return fail.Invalid(fmt.Sprintf("%s.Network[%d].VolumeID", field, i), "is required")
		case !strings.HasPrefix(n.Path, "/"):
			return fail.Invalid(fmt.Sprintf("%s.Network[%d].Path", field, i), "want an absolute path inside the container, got %q", n.Path)
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
// in the *errs.ValidationError ("CreatePodRequest.Ports", and the
// entry's index is added).
func CheckPorts(field string, ports []string) error { return check.Ports(field, ports) }
