package catalog

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// GPUQuery is what FindGPUs looks for: GPU types for a pod or a
// serverless worker, with enough memory, in stock in the given places,
// under a price. Its zero value finds every GPU type in stock for pods on
// secure cloud.
type GPUQuery struct {
	// Product is what the GPUs are for, and so the stock counted and the
	// price compared: ProductPod, which "" means, for a pod (the price of
	// Cloud), or ProductServerless for a serverless worker
	// (GPUType.Price.Serverless, the price of the type's pool; types in no
	// pool are left out). A serverless L4 costs more than a pod's.
	Product Product
	// MinMemoryGB is the least memory (VRAM) each GPU must have, in GB;
	// 0 accepts any.
	MinMemoryGB int
	// DataCenters lists the data centers, by id such as "EU-RO-1", of
	// which at least one must have the type in stock; empty accepts any
	// data center. An id the catalog does not have matches nothing.
	DataCenters []string
	// CountryCodes keeps the stock of data centers in these countries,
	// uppercase ISO 3166-1 codes such as "RO"; empty accepts any.
	CountryCodes []string
	// Cloud is the cloud the pod would run on, and so the stock counted
	// and the price compared: GPUType.Price.Secure for
	// GPUCloudFilterSecure, which "" means, as on the platform, and
	// GPUType.Price.Community for GPUCloudFilterCommunity. Types the cloud
	// does not offer are left out. Serverless workers have no choice of
	// cloud: with ProductServerless, Cloud must be empty.
	Cloud GPUCloudFilter
	// Count is the number of GPUs the pod would have; 0 means 1. The stock
	// is counted for machines that hold that many.
	Count int
	// MaxPrice is the most to pay for one GPU, in USD per hour, for
	// Product (on Cloud for a pod); 0 accepts any price.
	MaxPrice float64
	// MinCUDAVersion is the lowest CUDA version the machine may have,
	// "major" or "major.minor" such as "12.4"; empty accepts any.
	MinCUDAVersion string
}

// GPUOffer is a GPU type FindGPUs found, at the query's price and where it
// is in stock.
type GPUOffer struct {
	// GPU is the GPU type, as the catalog reports it with the availability
	// the query asked for.
	GPU GPUType
	// Price is the list price of one GPU of the type for the query's
	// product, in USD per hour: a pod's on the query's cloud
	// (GPU.Price.Secure or GPU.Price.Community), or a serverless worker's
	// (*GPU.Price.Serverless); multiply by the GPU count for the pod's or
	// the worker's rate.
	Price float64
	// DataCenters are the data centers that have the type in stock now and
	// that the query accepts, the most available first.
	DataCenters []DataCenterAvailability
}

// DataCenterIDs returns the ids of o.DataCenters, in their order, as a
// pod's DataCenterIDs takes them.
func (o GPUOffer) DataCenterIDs() []string {
	ids := make([]string, len(o.DataCenters))
	for i, d := range o.DataCenters {
		ids[i] = d.ID
	}
	return ids
}

// Validate checks the query before anything is sent.
func (q *GPUQuery) Validate() error {
	const f = "GPUQuery"
	switch {
	case q.Product != "" && q.Product != ProductPod && q.Product != ProductServerless:
		return fail.Invalid(f+".Product", "want POD, SERVERLESS or empty, got %q", q.Product)
	case q.Product == ProductServerless && q.Cloud != "":
		return fail.Invalid(f+".Cloud", "must be empty for SERVERLESS (workers have no choice of cloud), got %q", q.Cloud)
	case q.MinMemoryGB < 0:
		return fail.Invalid(f+".MinMemoryGB", "must not be negative, got %d", q.MinMemoryGB)
	case q.Cloud != "" && !q.Cloud.Valid():
		return fail.Invalid(f+".Cloud", "want SECURE, COMMUNITY or empty, got %q", q.Cloud)
	case q.Count < 0:
		return fail.Invalid(f+".Count", "must not be negative, got %d", q.Count)
	case q.MaxPrice < 0 || math.IsNaN(q.MaxPrice):
		return fail.Invalid(f+".MaxPrice", "must be a price in USD per hour, or 0 for any, got %v", q.MaxPrice)
	case q.MinCUDAVersion != "" && !cudaFloor.MatchString(q.MinCUDAVersion):
		return fail.Invalid(f+".MinCUDAVersion", "want major or major.minor such as 12 or 12.4, got %q", q.MinCUDAVersion)
	}
	for i, id := range q.DataCenters {
		if strings.TrimSpace(id) == "" {
			return fail.Invalid(fmt.Sprintf("%s.DataCenters[%d]", f, i), "is empty")
		}
	}
	for i, c := range q.CountryCodes {
		if !countryCode.MatchString(c) {
			return fail.Invalid(fmt.Sprintf("%s.CountryCodes[%d]", f, i), "want an uppercase two-letter country code such as RO, got %q", c)
		}
	}
	return nil
}

// FindGPUs returns the GPU types that fit q and are in stock now for
// q.Product (pods unless it says serverless), cheapest first (by Price,
// then by id). It reads every page of the catalog once, asking for the
// stock of q.Product, q.Cloud, q.Count, q.CountryCodes and
// q.MinCUDAVersion, and keeps the types with at least q.MinMemoryGB of
// memory, offered for the product (on q.Cloud for pods, in a pool for
// serverless) at no more than q.MaxPrice, and in stock in one of
// q.DataCenters (anywhere, when it names none).
func (s *Service) FindGPUs(ctx context.Context, q GPUQuery, opts ...option.RequestOption) ([]GPUOffer, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	cloud := cmp.Or(q.Cloud, GPUCloudFilterSecure)
	product := cmp.Or(q.Product, ProductPod)
	p := ListGPUTypesParams{
		Include:      []CatalogInclude{CatalogIncludeAvailability},
		Product:      []Product{product},
		CountryCodes: q.CountryCodes,
	}
	if product == ProductPod {
		p.Cloud = &cloud
	}
	if q.Count > 0 {
		p.Count = &q.Count
	}
	if q.MinCUDAVersion != "" {
		p.MinCUDAVersion = &q.MinCUDAVersion
	}
	types, err := rest.List(ctx, s.t, gpusAt(p), opts, gpuPage)
	if err != nil {
		return nil, err
	}
	var offers []GPUOffer
	for _, g := range types.GPUs {
		price, offered := g.Price.Secure, g.Secure
		switch {
		case product == ProductServerless:
			offered = g.Pool != nil && g.Price.Serverless != nil
			if offered {
				price = *g.Price.Serverless
			}
		case cloud == GPUCloudFilterCommunity:
			price, offered = g.Price.Community, g.Community
		}
		if !offered || g.Memory < q.MinMemoryGB || q.MaxPrice > 0 && price > q.MaxPrice {
			continue
		}
		var where []DataCenterAvailability
		for _, d := range g.DataCenters {
			if rank(d.Availability) > 0 && (len(q.DataCenters) == 0 || slices.Contains(q.DataCenters, d.ID)) {
				where = append(where, d)
			}
		}
		if len(where) == 0 {
			continue
		}
		slices.SortStableFunc(where, func(a, b DataCenterAvailability) int { return rank(b.Availability) - rank(a.Availability) })
		offers = append(offers, GPUOffer{GPU: g, Price: price, DataCenters: where})
	}
	slices.SortFunc(offers, func(a, b GPUOffer) int {
		return cmp.Or(cmp.Compare(a.Price, b.Price), strings.Compare(a.GPU.ID, b.GPU.ID))
	})
	return offers, nil
}

// rank orders availability levels: 0 for none (or unknown), up to 3 for
// high.
func rank(a AvailabilityLevel) int {
	switch a {
	case AvailabilityLevelLow:
		return 1
	case AvailabilityLevelMedium:
		return 2
	case AvailabilityLevelHigh:
		return 3
	}
	return 0
}
