package templates

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
)

// The checks below are the constraints the REST v2 document puts on the
// template request bodies (required fields, minimum values, the category
// enum, the CUDA version pattern, a persistent mount's size and path) and
// the port format the platform reads for every container. A request that
// breaks one is refused before anything is sent, with a
// *runpod.ValidationError naming the field. No check quotes an Env value.

// cudaVersion is the document's pattern for CUDA versions: major.minor.
var cudaVersion = regexp.MustCompile(`^\d+\.\d+$`)

// symmetricPortBase is the first port number that requests symmetric TCP
// mapping: "70000/tcp" asks the platform for a port that is the same
// inside and outside the container.
const symmetricPortBase = 70000

// Validate checks the request before anything is sent.
func (r *CreateTemplateRequest) Validate() error {
	const f = "CreateTemplateRequest"
	switch {
	case r.Name == "":
		return errs.Invalid(f+".Name", "is required")
	case strings.TrimSpace(r.Image) == "":
		return errs.Invalid(f+".Image", "is required")
	}
	return validContainer(f, container{
		disk: r.Disk, ports: r.Ports, category: r.Category, mounts: r.Mounts, cuda: r.AllowedCUDAVersions,
	})
}

// Validate checks the request before anything is sent.
func (r *UpdateTemplateRequest) Validate() error {
	const f = "UpdateTemplateRequest"
	switch {
	case r.Name != nil && *r.Name == "":
		return errs.Invalid(f+".Name", "must not be empty")
	case r.Image != nil && strings.TrimSpace(*r.Image) == "":
		return errs.Invalid(f+".Image", "must not be empty")
	}
	return validContainer(f, container{
		disk: r.Disk, ports: r.Ports, category: r.Category, mounts: r.Mounts, cuda: r.AllowedCUDAVersions,
	})
}

// container is what the two requests share and validContainer checks.
type container struct {
	disk     *int
	ports    []string
	category *TemplateCategory
	mounts   *TemplateMounts
	cuda     []string
}

func validContainer(f string, c container) error {
	switch {
	case c.disk != nil && *c.disk < 1:
		return errs.Invalid(f+".Disk", "must be at least 1 GB, got %d", *c.disk)
	case c.category != nil && !c.category.Valid():
		return errs.Invalid(f+".Category", "want CPU, NVIDIA or AMD, got %q", *c.category)
	}
	if err := validPorts(f+".Ports", c.ports); err != nil {
		return err
	}
	for i, v := range c.cuda {
		if !cudaVersion.MatchString(v) {
			return errs.Invalid(fmt.Sprintf("%s.AllowedCUDAVersions[%d]", f, i), "want major.minor such as 12.4, got %q", v)
		}
	}
	if c.mounts != nil && c.mounts.Persistent != nil {
		p := c.mounts.Persistent
		switch {
		case p.Size < 10:
			return errs.Invalid(f+".Mounts.Persistent.Size", "must be at least 10 GB, got %d", p.Size)
		case !strings.HasPrefix(p.Path, "/"):
			return errs.Invalid(f+".Mounts.Persistent.Path", "want an absolute path inside the container, got %q", p.Path)
		}
	}
	return nil
}

// validPorts checks port specs: "<port>/http" or "<port>/tcp" with a port
// from 1 to 65535, or "<port>/tcp" from symmetricPortBase up.
func validPorts(field string, ports []string) error {
	for i, spec := range ports {
		n, proto, ok := strings.Cut(spec, "/")
		v, err := strconv.Atoi(n)
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !ok || err != nil || strings.Trim(n, "0123456789") != "" || (proto != "http" && proto != "tcp"):
			return errs.Invalid(at, `want "<port>/http" or "<port>/tcp", got %q`, spec)
		case v >= symmetricPortBase && proto != "tcp":
			return errs.Invalid(at, `ports from %d request symmetric TCP mapping: want "%d/tcp", got %q`, symmetricPortBase, v, spec)
		case v < 1 || (v > 65535 && v < symmetricPortBase):
			return errs.Invalid(at, "want a port from 1 to 65535, or from %d for symmetric TCP mapping, got %q", symmetricPortBase, spec)
		}
	}
	return nil
}
