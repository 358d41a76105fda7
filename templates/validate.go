package templates

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/check"
)

// The checks below are the constraints the REST v2 document puts on the
// template request bodies (required fields, minimum values, the category
// enum, the CUDA version pattern, a persistent mount's size and path) and
// the port format the platform reads for every container. A request that
// breaks one is refused before anything is sent, with a
// *runpod.ValidationError naming the field. No check quotes an Env value.

// cudaVersion is the document's pattern for CUDA versions: major.minor.
var cudaVersion = regexp.MustCompile(`^\d+\.\d+$`)

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
		disk: r.Disk, ports: r.Ports, env: r.Env, category: r.Category, mounts: r.Mounts, cuda: r.AllowedCUDAVersions,
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
		disk: r.Disk, ports: r.Ports, env: r.Env, category: r.Category, mounts: r.Mounts, cuda: r.AllowedCUDAVersions,
	})
}

// container is what the two requests share and validContainer checks.
type container struct {
	disk     *int
	ports    []string
	env      map[string]string
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
	if err := check.Ports(f+".Ports", c.ports); err != nil {
		return err
	}
	// Names only: a name that is empty, or holds '=', white space or a
	// control character, is refused; the message quotes the name, never a
	// value.
	if err := check.EnvNames(f+".Env", c.env); err != nil {
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
