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
// between pods, clusters and serverless workers; pods, DefaultProduct,
// when Product is empty, since the platform requires one), adds
// Availability and the DataCenters that have the type; Product and the
// GPU filters (Count, Cloud,
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
	"iter"
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
	r, err := rest.List(ctx, s.t, gpusAt(p), opts, gpuPage)
	return r.GPUs, err
}

// AllGPUTypes returns the GPU types GPUTypes returns, one at a time,
// holding one page of them: the first page is asked for when the loop
// starts, a failure ends the loop, and breaking out asks for no more.
func (s *Service) AllGPUTypes(ctx context.Context, p ListGPUTypesParams, opts ...option.RequestOption) iter.Seq2[GPUType, error] {
	return rest.All(ctx, s.t, gpusAt(p), opts, gpuPage)
}

// gpusAt is the Path of the GPU types p asks for (GPUTypes, FindGPUs).
func gpusAt(p ListGPUTypesParams) rest.Path {
	return rest.At(gpusRoute).Query(p.encode()).Check(p.Validate())
}

// gpuPage tells where a page of the GPU types keeps them.
func gpuPage(r *listGPUTypesResponse) (*[]GPUType, *rest.Pagination) {
	return &r.GPUs, (*rest.Pagination)(r.Pagination)
}

// GPUType returns one GPU type, by id such as "NVIDIA GeForce RTX 4090";
// an unknown id is an error matching errs.ErrNotFound.
func (s *Service) GPUType(ctx context.Context, id string, p GetGPUTypeParams, opts ...option.RequestOption) (*GPUType, error) {
	at := rest.At(gpuRoute, gpuTypeID.Of(id)).Query(ListGPUTypesParams(p).encode()).Check(p.Validate())
	return rest.Call[GPUType](ctx, s.t, http.MethodGet, at, nil, opts)
}

// CPUTypes lists the CPU flavors with their list prices, and their stock
// when p asks for it.
func (s *Service) CPUTypes(ctx context.Context, p ListCPUTypesParams, opts ...option.RequestOption) ([]CPUType, error) {
	r, err := rest.List(ctx, s.t, cpusAt(p), opts, cpuPage)
	return r.CPUs, err
}

// AllCPUTypes returns the CPU flavors CPUTypes returns, one at a time, as
// AllGPUTypes does.
func (s *Service) AllCPUTypes(ctx context.Context, p ListCPUTypesParams, opts ...option.RequestOption) iter.Seq2[CPUType, error] {
	return rest.All(ctx, s.t, cpusAt(p), opts, cpuPage)
}

// cpusAt is the Path of the CPU flavors p asks for.
func cpusAt(p ListCPUTypesParams) rest.Path {
	return rest.At(cpusRoute).Query(p.encode()).Check(p.Validate())
}

// cpuPage tells where a page of the CPU flavors keeps them.
func cpuPage(r *listCPUTypesResponse) (*[]CPUType, *rest.Pagination) {
	return &r.CPUs, (*rest.Pagination)(r.Pagination)
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
	r, err := rest.List(ctx, s.t, dataCentersAt(p), opts, dataCenterPage)
	return r.DataCenters, err
}

// AllDataCenters returns the data centers DataCenters returns, one at a
// time, as AllGPUTypes does.
func (s *Service) AllDataCenters(ctx context.Context, p ListDataCentersParams, opts ...option.RequestOption) iter.Seq2[DataCenter, error] {
	return rest.All(ctx, s.t, dataCentersAt(p), opts, dataCenterPage)
}

// dataCentersAt is the Path of the data centers p asks for.
func dataCentersAt(p ListDataCentersParams) rest.Path {
	return rest.At(dataCentersRoute).Query(p.encode()).Check(p.Validate())
}

// dataCenterPage tells where a page of the data centers keeps them.
func dataCenterPage(r *listDataCentersResponse) (*[]DataCenter, *rest.Pagination) {
	return &r.DataCenters, (*rest.Pagination)(r.Pagination)
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
// returns at most 100 in one answer: this listing takes no cursor or page
// size, unlike the others. Read one by id, or the account's own templates,
// with the templates package.
func (s *Service) PublicTemplates(ctx context.Context, p ListPublicTemplatesParams, opts ...option.RequestOption) ([]Template, error) {
	var q query
	if p.Source != nil {
		q.add("source", string(*p.Source))
	}
	at := rest.At(templatesRoute).Query(q.String()).Check(p.Validate())
	r, err := rest.Call[listTemplatesResponse](ctx, s.t, http.MethodGet, at, nil, opts)
	if err != nil {
		return nil, err
	}
	if r.Templates == nil {
		return []Template{}, nil
	}
	return r.Templates, nil
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

// DefaultProduct is the product whose stock a GPU type read asks for
// when it asks for availability (Include) and names no Product:
// ProductPod. The platform has no default, and answers 400 when
// availability comes without a product (its document: "There is no
// default: the same GPU type can be scarce for pods and plentiful for
// serverless"); ProductPod is the default of the platform's own client
// (@runpod/mcp-server 3.3.0 and later, list-gpu-types and get-gpu-type).
// Ask for ProductServerless or ProductCluster when that is where the GPUs
// will run.
const DefaultProduct = ProductPod

// DefaultCPUProduct is the product whose stock a CPU flavor read asks
// for when it asks for availability and names no Product, as
// DefaultProduct is for GPU types: CPUProductPod.
const DefaultCPUProduct = CPUProductPod

// products returns the products a read sends: those given, or def when
// it asks for availability and gives none; none without availability.
func products[P ~string](include []CatalogInclude, given []P, def P) []P {
	if len(include) > 0 && len(given) == 0 {
		return []P{def}
	}
	return given
}

func (p ListGPUTypesParams) encode() string {
	var q query
	q.add("include", strs(p.Include)...)
	q.add("product", strs(products(p.Include, p.Product, DefaultProduct))...)
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
	q.add("product", strs(products(p.Include, p.Product, DefaultCPUProduct))...)
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
