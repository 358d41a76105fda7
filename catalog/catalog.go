// Package catalog tells what the platform offers: GPU types, CPU flavors,
// data centers and public templates, with their list prices and, when asked
// for, how much of each is free now and where. It is served by the REST v2
// API; its types are generated from the platform's published REST v2
// document and keep its names.
//
//	offers, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{
//		MinMemoryGB: 48,
//		DataCenters: []string{"EU-RO-1", "EU-SE-1"},
//	})
//	for _, o := range offers { // cheapest first
//		fmt.Printf("%s %d GB $%.2f/h %v\n", o.GPU.Name, o.GPU.Memory, o.Price, o.DataCenterIDs())
//	}
//
// Service (runpod.Client.Catalog) reads the catalog, one method per
// operation: GPUTypes and GPUType, CPUTypes and CPUType, DataCenters and
// DataCenter, PublicTemplates. Each takes the operation's generated
// parameters (ListGPUTypesParams, GetGPUTypeParams, …), whose zero value
// asks for the plain catalog. Availability is an extra: Include set to
// CatalogIncludeAvailability, with the Product it is for (stock differs
// between pods, clusters and serverless workers), adds Availability and the
// DataCenters that have the type; the GPU filters (Count, Cloud,
// CountryCodes, CUDAVersions, MinCUDAVersion) narrow what is counted and go
// only with it. The parameters are checked before anything is sent (see
// their Validate methods): a *errs.ValidationError names the field, such
// as "ListGPUTypesParams.Product". An unknown id is an error matching
// errs.ErrNotFound.
//
// FindGPUs answers the common question in one call: the GPU types with at
// least so much memory that are in stock for pods in the given data
// centers, on secure or community cloud, under a price, cheapest first. It
// asks the platform for the availability of the query's cloud, GPU count,
// countries and CUDA floor, and filters memory, data centers and price
// itself.
//
// Every call only reads, so every call is retried, like any read, after a
// failure that may be passing (a dropped connection, a 500, 502, 503 or
// 504, a 429 after the wait it asks for).
package catalog

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// Routes of the REST v2 document.
const (
	gpusRoute        = "/v2/catalog/gpus"
	gpuRoute         = "/v2/catalog/gpus/{gpuTypeId}"
	cpusRoute        = "/v2/catalog/cpus"
	cpuRoute         = "/v2/catalog/cpus/{cpuTypeId}"
	dataCentersRoute = "/v2/catalog/datacenters"
	dataCenterRoute  = "/v2/catalog/datacenters/{dataCenterId}"
	templatesRoute   = "/v2/catalog/templates"
)

// The rules of the catalog's ids: anything that is one path segment
// (neither a path separator, a dot segment nor a control character in
// it), so that the request names the thing asked for and nothing else;
// other characters (a GPU type id has spaces) are escaped.
var (
	gpuTypeID    = rest.ID{Field: "gpuTypeID", Loose: true}
	cpuTypeID    = rest.ID{Field: "cpuTypeID", Loose: true}
	dataCenterID = rest.ID{Field: "dataCenterID", Loose: true}
)

// Every call only reads: GET, retried. The parameters are checked (their
// Validate) after the id, before anything is sent.

// GPUTypes lists the GPU types with their list prices, and their stock
// when p asks for it. With p.CountryCodes, a type that no data center in
// those countries offers is left out.
func (s *Service) GPUTypes(ctx context.Context, p ListGPUTypesParams, opts ...option.RequestOption) ([]GPUType, error) {
	return rest.List(ctx, s.t, gpusAt(p), opts, gpuTypes)
}

// gpusAt is the Path of the GPU types p asks for (GPUTypes, FindGPUs).
func gpusAt(p ListGPUTypesParams) rest.Path {
	return rest.At(gpusRoute).Query(p.encode()).Check(p.Validate())
}

func gpuTypes(r *listGPUTypesResponse) []GPUType { return r.GPUs }

// GPUType returns one GPU type, by id such as "NVIDIA GeForce RTX 4090";
// an unknown id is an error matching errs.ErrNotFound.
func (s *Service) GPUType(ctx context.Context, id string, p GetGPUTypeParams, opts ...option.RequestOption) (*GPUType, error) {
	at := rest.At(gpuRoute, gpuTypeID.Of(id)).Query(ListGPUTypesParams(p).encode()).Check(p.Validate())
	return rest.Call[GPUType](ctx, s.t, http.MethodGet, at, nil, opts)
}

// CPUTypes lists the CPU flavors with their list prices, and their stock
// when p asks for it.
func (s *Service) CPUTypes(ctx context.Context, p ListCPUTypesParams, opts ...option.RequestOption) ([]CPUType, error) {
	return rest.List(ctx, s.t, rest.At(cpusRoute).Query(p.encode()).Check(p.Validate()), opts, func(r *listCPUTypesResponse) []CPUType { return r.CPUs })
}

// CPUType returns one CPU flavor, by id such as "cpu3c"; an unknown id is
// an error matching errs.ErrNotFound.
func (s *Service) CPUType(ctx context.Context, id string, p GetCPUTypeParams, opts ...option.RequestOption) (*CPUType, error) {
	at := rest.At(cpuRoute, cpuTypeID.Of(id)).Query(ListCPUTypesParams(p).encode()).Check(p.Validate())
	return rest.Call[CPUType](ctx, s.t, http.MethodGet, at, nil, opts)
}

// DataCenters lists the data centers that pass every filter p sets, with
// the stock of their GPU types or CPU flavors when p.Include asks for it.
func (s *Service) DataCenters(ctx context.Context, p ListDataCentersParams, opts ...option.RequestOption) ([]DataCenter, error) {
	return rest.List(ctx, s.t, rest.At(dataCentersRoute).Query(p.encode()).Check(p.Validate()), opts, func(r *listDataCentersResponse) []DataCenter { return r.DataCenters })
}

// DataCenter returns one data center, by id such as "EU-RO-1"; an unknown
// id is an error matching errs.ErrNotFound.
func (s *Service) DataCenter(ctx context.Context, id string, p GetDataCenterParams, opts ...option.RequestOption) (*DataCenter, error) {
	var q query
	q.add("include", strs(p.Include)...)
	at := rest.At(dataCenterRoute, dataCenterID.Of(id)).Query(q.String()).Check(p.Validate())
	return rest.Call[DataCenter](ctx, s.t, http.MethodGet, at, nil, opts)
}

// PublicTemplates lists the templates shared with every account, from the
// source p.Source names (the platform's own when nil): pod and serverless
// templates alike (Template.Serverless tells them apart). The platform
// returns at most 100, and pages no further. Read one by id, or the
// account's own templates, with the templates package.
func (s *Service) PublicTemplates(ctx context.Context, p ListPublicTemplatesParams, opts ...option.RequestOption) ([]Template, error) {
	var q query
	if p.Source != nil {
		q.add("source", string(*p.Source))
	}
	at := rest.At(templatesRoute).Query(q.String()).Check(p.Validate())
	return rest.List(ctx, s.t, at, opts, func(r *listTemplatesResponse) []Template { return r.Templates })
}

// query builds a query string in the document's form style without
// explode: a list is one parameter, its values joined by commas. The
// values are enum constants and checked patterns, so none holds a comma.
type query []string

// add appends name=v1,v2,…; nothing when vals is empty.
func (q *query) add(name string, vals ...string) {
	if len(vals) == 0 {
		return
	}
	esc := make([]string, len(vals))
	for i, v := range vals {
		esc[i] = url.QueryEscape(v)
	}
	*q = append(*q, url.QueryEscape(name)+"="+strings.Join(esc, ","))
}

func (q *query) addInt(name string, v *int) {
	if v != nil {
		q.add(name, strconv.Itoa(*v))
	}
}

func (q query) String() string { return strings.Join(q, "&") }

// strs converts a list of enum values to strings.
func strs[T ~string](v []T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = string(x)
	}
	return out
}

func (p ListGPUTypesParams) encode() string {
	var q query
	q.add("include", strs(p.Include)...)
	q.add("product", strs(p.Product)...)
	q.addInt("count", p.Count)
	if p.Cloud != nil {
		q.add("cloud", string(*p.Cloud))
	}
	q.add("countryCodes", p.CountryCodes...)
	q.add("cudaVersions", p.CUDAVersions...)
	if p.MinCUDAVersion != nil {
		q.add("minCudaVersion", *p.MinCUDAVersion)
	}
	return q.String()
}

func (p ListCPUTypesParams) encode() string {
	var q query
	q.add("include", strs(p.Include)...)
	q.add("product", strs(p.Product)...)
	q.addInt("vcpuCount", p.VCPUCount)
	return q.String()
}

func (p ListDataCentersParams) encode() string {
	var q query
	q.add("include", strs(p.Include)...)
	q.add("regions", strs(p.Regions)...)
	q.add("networkVolumeTypes", strs(p.NetworkVolumeTypes)...)
	q.add("compliance", strs(p.Compliance)...)
	if p.GlobalNetwork != nil {
		q.add("globalNetwork", strconv.FormatBool(*p.GlobalNetwork))
	}
	return q.String()
}
