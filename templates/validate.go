package templates

import (
	"strings"

	"github.com/runpodkit/runpod-go/internal/check"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// The checks below are the constraints the REST v2 document puts on the
// template request bodies (required fields, minimum values, the category
// enum, the CUDA version pattern, a persistent mount's size and path) and
// the port format the platform reads for every container. A request that
// breaks one is refused before anything is sent, with a
// *errs.ValidationError naming the field. No check quotes an Env value.

// Validate checks the request before anything is sent.
func (r *CreateTemplateRequest) Validate() error {
	const f = "CreateTemplateRequest"
	switch {
	case r.Name == "":
		return fail.Invalid(f+".Name", "is required")
	case strings.TrimSpace(r.Image) == "":
		return fail.Invalid(f+".Image", "is required")
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
		return fail.Invalid(f+".Name", "must not be empty")
	case r.Image != nil && strings.TrimSpace(*r.Image) == "":
		return fail.Invalid(f+".Image", "must not be empty")
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
	if c.category != nil && !c.category.Valid() {
		return fail.Invalid(f+".Category", "want CPU, NVIDIA or AMD, got %q", *c.category)
	}
	// Env: names only. A name that is empty, or holds '=', white space or
	// a control character, is refused; the message quotes the name, never
	// a value.
	if err := check.Container(f, c.disk, c.ports, c.env); err != nil {
		return err
	}
	if err := check.CUDAVersions(f+".AllowedCUDAVersions", c.cuda); err != nil {
		return err
	}
	if c.mounts != nil && c.mounts.Persistent != nil {
		return check.PersistentMount(f+".Mounts.Persistent", c.mounts.Persistent.Size, c.mounts.Persistent.Path)
	}
	return nil
}
