package catalog

import (
	"fmt"
	"regexp"

	"github.com/runpodkit/runpod-go/internal/check"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// The checks below are the constraints the REST v2 document puts on the
// catalog's query parameters (enums, minimums, patterns, at most one
// include) and the rules it says the platform enforces when it reads them:
// a product needs availability (availability needs a product too, which
// the reads fill in: DefaultProduct, DefaultCPUProduct); the GPU
// filters and the vCPU count go only with availability; a CUDA list or a
// CUDA floor, not both; a vCPU count is a power of two. Parameters that
// break one are refused before anything is sent, with a
// *errs.ValidationError naming the field.

var (
	// countryCode is an ISO 3166-1 alpha-2 code, uppercase.
	countryCode = regexp.MustCompile(`^[A-Z]{2}$`)
	// cudaFloor is a CUDA floor: major, or major.minor.
	cudaFloor = regexp.MustCompile(`^\d+(\.\d+)?$`)
)

// Validate checks the parameters before anything is sent.
func (p *ListGPUTypesParams) Validate() error { return p.validate("ListGPUTypesParams") }

// Validate checks the parameters before anything is sent, as
// ListGPUTypesParams.Validate does.
func (p *GetGPUTypeParams) Validate() error {
	return (*ListGPUTypesParams)(p).validate("GetGPUTypeParams")
}

func (p *ListGPUTypesParams) validate(f string) error {
	avail := len(p.Include) > 0
	switch err := validInclude(f, p.Include, p.Product); {
	case err != nil:
		return err
	case p.Count != nil && *p.Count < 1:
		return fail.Invalid(f+".Count", "must be at least 1, got %d", *p.Count)
	case p.Count != nil && !avail:
		return onlyWithAvailability(f + ".Count")
	case p.Cloud != nil && !p.Cloud.Valid():
		return fail.Invalid(f+".Cloud", "want SECURE or COMMUNITY, got %q", *p.Cloud)
	case p.Cloud != nil && !avail:
		return onlyWithAvailability(f + ".Cloud")
	case len(p.CountryCodes) > 0 && !avail:
		return onlyWithAvailability(f + ".CountryCodes")
	case len(p.CUDAVersions) > 0 && !avail:
		return onlyWithAvailability(f + ".CUDAVersions")
	case p.MinCUDAVersion != nil && !avail:
		return onlyWithAvailability(f + ".MinCUDAVersion")
	case p.MinCUDAVersion != nil && len(p.CUDAVersions) > 0:
		return fail.Invalid(f+".CUDAVersions", "give CUDAVersions or MinCUDAVersion, not both")
	case p.MinCUDAVersion != nil && !cudaFloor.MatchString(*p.MinCUDAVersion):
		return fail.Invalid(f+".MinCUDAVersion", "want major or major.minor such as 12 or 12.4, got %q", *p.MinCUDAVersion)
	}
	for i, c := range p.CountryCodes {
		if !countryCode.MatchString(c) {
			return fail.Invalid(fmt.Sprintf("%s.CountryCodes[%d]", f, i), "want an uppercase two-letter country code such as FR, got %q", c)
		}
	}
	return check.CUDAVersions(f+".CUDAVersions", p.CUDAVersions)
}

// Validate checks the parameters before anything is sent.
func (p *ListCPUTypesParams) Validate() error { return p.validate("ListCPUTypesParams") }

// Validate checks the parameters before anything is sent, as
// ListCPUTypesParams.Validate does.
func (p *GetCPUTypeParams) Validate() error {
	return (*ListCPUTypesParams)(p).validate("GetCPUTypeParams")
}

func (p *ListCPUTypesParams) validate(f string) error {
	n := p.VCPUCount
	switch err := validInclude(f, p.Include, p.Product); {
	case err != nil || n == nil:
		return err
	case *n < 2 || *n&(*n-1) != 0:
		return fail.Invalid(f+".VCPUCount", "want a power of two from 2, got %d", *n)
	case len(p.Include) == 0:
		return onlyWithAvailability(f + ".VCPUCount")
	}
	return nil
}

// Validate checks the parameters before anything is sent.
func (p *ListDataCentersParams) Validate() error {
	const f = "ListDataCentersParams"
	if err := validEnums(f+".Include", p.Include); err != nil {
		return err
	}
	if err := validEnums(f+".Regions", p.Regions); err != nil {
		return err
	}
	if err := validEnums(f+".NetworkVolumeTypes", p.NetworkVolumeTypes); err != nil {
		return err
	}
	return validEnums(f+".Compliance", p.Compliance)
}

// Validate checks the parameters before anything is sent.
func (p *GetDataCenterParams) Validate() error {
	return validEnums("GetDataCenterParams.Include", p.Include)
}

// Validate checks the parameters before anything is sent.
func (p *ListPublicTemplatesParams) Validate() error {
	if p.Source != nil && !p.Source.Valid() {
		return fail.Invalid("ListPublicTemplatesParams.Source", "want official, verified or community, got %q", *p.Source)
	}
	return nil
}

// validInclude checks the include and the products of a GPU or CPU type
// read: at most one known include, and known products only with it. A
// product without availability is refused rather than dropped: the caller
// meant to ask about that product's stock. Availability without a product
// is not an error: the read sends the default product.
func validInclude[P enum](f string, include []CatalogInclude, product []P) error {
	switch {
	case len(include) > 1:
		return fail.Invalid(f+".Include", "takes at most one value, got %d", len(include))
	case len(include) == 1 && !include[0].Valid():
		return fail.Invalid(f+".Include[0]", "want %s, got %q", CatalogIncludeAvailability, include[0])
	case len(include) == 0 && len(product) > 0:
		return onlyWithAvailability(f + ".Product")
	}
	return validEnums(f+".Product", product)
}

func onlyWithAvailability(field string) error {
	return fail.Invalid(field, "goes only with Include: []CatalogInclude{CatalogIncludeAvailability}")
}

// enum is a generated enum type.
type enum interface {
	~string
	Valid() bool
}

// validEnums checks that every value of a list is a known one.
func validEnums[T enum](field string, vals []T) error {
	for i, v := range vals {
		if !v.Valid() {
			return fail.Invalid(fmt.Sprintf("%s[%d]", field, i), "unknown value %q", v)
		}
	}
	return nil
}
