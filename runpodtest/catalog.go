package runpodtest

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/templates"
)

// The catalog fake speaks the REST v2 wire format with structs of its own,
// written from the platform's published document; the catalog package's
// enum types are used only to type the fixtures. The document's schema
// checks (enums, patterns, minimums, at most one include) run before a
// handler; the handlers apply the rules the document says the platform
// enforces itself: availability needs a product and a product needs
// availability, the GPU filters and the vCPU count go only with
// availability, a CUDA list or a CUDA floor but not both, a vCPU count is a
// power of two (400 for each), and the documented semantics of every
// filter.

// Routes of the REST v2 catalog operations.
const (
	RouteGPUTypes        = "GET /v2/catalog/gpus"
	RouteGPUType         = "GET /v2/catalog/gpus/{id}"
	RouteCPUTypes        = "GET /v2/catalog/cpus"
	RouteCPUType         = "GET /v2/catalog/cpus/{id}"
	RouteDataCenters     = "GET /v2/catalog/datacenters"
	RouteDataCenter      = "GET /v2/catalog/datacenters/{id}"
	RoutePublicTemplates = "GET /v2/catalog/templates"
)

// GPUType is a GPU type of the fake's catalog, as a test adds it
// (AddGPUType). Its stock is the same for pods and clusters, and for
// serverless workers when it has a Pool; Cloud, Count, CountryCodes and the
// CUDA filters narrow it as the platform's document says.
type GPUType struct {
	// ID is the type's id, such as "NVIDIA GeForce RTX 4090"; AddGPUType
	// makes one when it is empty.
	ID string
	// Name is the short name, such as "RTX 4090" (ID when empty).
	Name string
	// Pool is the serverless GPU pool the type is in, such as "ADA_24";
	// empty for none.
	Pool string
	// Manufacturer is the GPU's maker (NVIDIA when empty).
	Manufacturer catalog.GPUManufacturer
	// MemoryGB is each GPU's memory, in GB.
	MemoryGB int
	// SecurePrice is the price of one GPU on secure cloud, in USD per
	// hour; 0 means the type is not offered on secure cloud.
	SecurePrice float64
	// CommunityPrice is the price of one GPU on community cloud; 0 means
	// the type is not offered on community cloud.
	CommunityPrice float64
	// ServerlessPrice is the price of one GPU of the type's pool; 0 for
	// none.
	ServerlessPrice float64
	// MaxSecure is the most GPUs of the type a secure-cloud pod can have
	// (8 when 0 and the type is offered there).
	MaxSecure int
	// MaxCommunity is the most GPUs of the type a community-cloud pod can
	// have (8 when 0 and the type is offered there).
	MaxCommunity int
	// CUDAVersions are the CUDA versions of the type's machines,
	// "major.minor"; empty for machines that report none (AMD).
	CUDAVersions []string
	// DataCenters maps the id of each data center that offers the type to
	// its stock there (AvailabilityLevelNone: offered, but none free now).
	// A data center the catalog lacks is reported by its id.
	DataCenters map[string]catalog.AvailabilityLevel
}

// CPUType is a CPU flavor of the fake's catalog, as a test adds it
// (AddCPUType). Its stock is the same for pods and, when it has a
// serverless price, serverless workers; a vCPU count outside its range has
// none.
type CPUType struct {
	// ID is the flavor's id, such as "cpu3c"; AddCPUType makes one when it
	// is empty.
	ID string
	// Name is the flavor's name, such as "Compute-Optimized" (ID when
	// empty).
	Name string
	// Group is the CPU generation, such as "Gen 3".
	Group string
	// MinVCPUs is the fewest vCPUs of an instance (2 when 0).
	MinVCPUs int
	// MaxVCPUs is the most vCPUs of an instance (32 when 0).
	MaxVCPUs int
	// RAMGBPerVCPU is the memory per vCPU, in GB (2 when 0).
	RAMGBPerVCPU float64
	// SecurePricePerVCPU is the price of one vCPU of a pod, in USD per hour.
	SecurePricePerVCPU float64
	// ServerlessPricePerVCPU is the price of one vCPU of a serverless
	// worker; 0 means the flavor is not offered to serverless.
	ServerlessPricePerVCPU float64
	// DataCenters maps the id of each data center that offers the flavor
	// to its stock there.
	DataCenters map[string]catalog.AvailabilityLevel
}

// DataCenter is a data center of the fake's catalog, as a test adds it
// (AddDataCenter).
type DataCenter struct {
	// ID is the data center's id, such as "EU-RO-1"; AddDataCenter makes
	// one when it is empty.
	ID string
	// Name is its name, such as "EU Romania 1" (ID when empty).
	Name string
	// Region is its continent (DataCenterRegionUnknown when empty).
	Region catalog.DataCenterRegion
	// Country is its country, an uppercase ISO 3166-1 code such as "RO",
	// which the GPU types' CountryCodes filter reads; empty matches no
	// country.
	Country string
	// GlobalNetwork tells whether it supports global networking.
	GlobalNetwork bool
	// NetworkVolumeTypes are the kinds of network volume it offers.
	NetworkVolumeTypes []catalog.VolumeType
	// Compliance are the certifications it holds.
	Compliance []catalog.Compliance
}

// PublicTemplate is a public template of the fake's catalog, as a test
// adds it (AddPublicTemplate).
type PublicTemplate struct {
	// ID is the template's id; AddPublicTemplate makes one when it is empty.
	ID string
	// Name is the template's name.
	Name string
	// Source is the slice of the catalog it is listed in
	// (ListPublicTemplatesParamsSourceOfficial when empty).
	Source catalog.ListPublicTemplatesParamsSource
	// Serverless marks a serverless worker template; false for a pod
	// template.
	Serverless bool
	// Category is the hardware it is meant for (NVIDIA when empty).
	Category catalog.TemplateCategory
	// Image is the container image.
	Image string
	// Args is the arguments to the image's entrypoint.
	Args string
	// Disk is the container disk in GB (20 when 0).
	Disk int
	// VolumeGB is the size of its persistent volume in GB, at least 10; 0
	// for none.
	VolumeGB int
	// VolumePath is where the volume is mounted ("/workspace" when empty).
	VolumePath string
	// Ports are the exposed ports, such as "8888/http".
	Ports []string
	// Env is the container's environment.
	Env map[string]string
	// StartSSH and StartJupyter are the template's start-up switches.
	StartSSH, StartJupyter bool
	// AllowedCUDAVersions are the CUDA versions its GPU containers may run
	// on; empty for any.
	AllowedCUDAVersions []string
}

// catalogUnit is the platform's catalog under its own lock.
type catalogUnit struct {
	mu sync.Mutex
	catalogData
}

// catalogData is the catalog: GPU types, CPU flavors, data centers and
// public templates, by id.
type catalogData struct {
	gpus      map[string]GPUType
	cpus      map[string]CPUType
	dcs       map[string]DataCenter
	templates map[string]PublicTemplate
	seq       int
}

// newCatalogUnit returns the default catalog.
func newCatalogUnit() catalogUnit {
	d := catalogData{gpus: map[string]GPUType{}, cpus: map[string]CPUType{}, dcs: map[string]DataCenter{}, templates: map[string]PublicTemplate{}}
	for _, dc := range defaultDataCenters {
		d.addDataCenter(dc)
	}
	for _, g := range defaultGPUTypes {
		d.addGPUType(g)
	}
	for _, c := range defaultCPUTypes {
		d.addCPUType(c)
	}
	for _, t := range defaultPublicTemplates {
		d.addPublicTemplate(t)
	}
	return catalogUnit{catalogData: d}
}

// WithEmptyCatalog starts the fake with no GPU types, CPU flavors, data
// centers or public templates, instead of its default catalog, for a test
// that adds exactly the catalog it needs.
func WithEmptyCatalog() Option {
	return func(s *Server) {
		s.catalog.mu.Lock()
		defer s.catalog.mu.Unlock()
		clear(s.catalog.gpus)
		clear(s.catalog.cpus)
		clear(s.catalog.dcs)
		clear(s.catalog.templates)
	}
}

// AddGPUType adds a GPU type to the catalog, or replaces the one with its
// id, and returns its id. The default catalog has the RTX 4090, L4, RTX
// A6000, L40S, A100 80GB PCIe, H100 80GB HBM3 and MI300X (see the package
// doc).
func (s *Server) AddGPUType(g GPUType) string {
	return locked(&s.catalog.mu, func() string { return s.catalog.addGPUType(g) })
}

// AddCPUType adds a CPU flavor to the catalog, or replaces the one with its
// id, and returns its id. The default catalog has cpu3c, cpu3g, cpu3m and
// cpu5c.
func (s *Server) AddCPUType(c CPUType) string {
	return locked(&s.catalog.mu, func() string { return s.catalog.addCPUType(c) })
}

// AddDataCenter adds a data center to the catalog, or replaces the one with
// its id, and returns its id. The default catalog has EU-RO-1, EU-SE-1,
// US-TX-3, US-KS-2, CA-MTL-1 and AP-JP-1. Give a GPU type or CPU flavor
// stock there through its DataCenters.
func (s *Server) AddDataCenter(d DataCenter) string {
	return locked(&s.catalog.mu, func() string { return s.catalog.addDataCenter(d) })
}

// AddPublicTemplate adds a public template to the catalog, or replaces the
// one with its id, and returns its id. The default catalog has two
// official pod templates (runpod-torch-v240, runpod-ubuntu), an official
// serverless one (runpod-vllm-worker), a verified one (comfyui-flux) and a
// community one (ollama-webui).
func (s *Server) AddPublicTemplate(t PublicTemplate) string {
	return locked(&s.catalog.mu, func() string { return s.catalog.addPublicTemplate(t) })
}

func (u *catalogData) newID(prefix string) string {
	u.seq++
	return prefix + strconv.Itoa(u.seq)
}

// addGPUType fills g's defaults and stores it, replacing the type with its
// id, and returns its id.
func (u *catalogData) addGPUType(g GPUType) string {
	g.ID = cmp.Or(g.ID, u.newID("gpu-type-"))
	g.Name = cmp.Or(g.Name, g.ID)
	g.Manufacturer = cmp.Or(g.Manufacturer, catalog.GPUManufacturerNVIDIA)
	g.MaxSecure = offeredMax(g.SecurePrice, g.MaxSecure)
	g.MaxCommunity = offeredMax(g.CommunityPrice, g.MaxCommunity)
	g.CUDAVersions = slices.Clone(g.CUDAVersions)
	g.DataCenters = maps.Clone(g.DataCenters)
	u.gpus[g.ID] = g
	return g.ID
}

// gpuOffer is what the catalog offers of a GPU type on one cloud.
type gpuOffer struct {
	price    float64 // USD per GPU per hour
	maxCount int     // GPUs per pod; 0 where the cloud does not offer the type
}

// gpuOffer returns the catalog's offer of GPU type id on cloud (SECURE or
// COMMUNITY), and false for a type the catalog does not have. It takes
// the catalog's lock, which no caller holds with it: a caller takes it
// before any other lock.
func (s *Server) gpuOffer(id, cloud string) (gpuOffer, bool) {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	g, ok := s.catalog.gpus[id]
	if !ok {
		return gpuOffer{}, false
	}
	if cloud == "COMMUNITY" {
		return gpuOffer{price: g.CommunityPrice, maxCount: g.MaxCommunity}, true
	}
	return gpuOffer{price: g.SecurePrice, maxCount: g.MaxSecure}, true
}

// cpuPrice returns the catalog's price of one vCPU of CPU flavor id on a
// pod, and false for a flavor the catalog does not have.
func (s *Server) cpuPrice(id string) (float64, bool) {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	c, ok := s.catalog.cpus[id]
	return c.SecurePricePerVCPU, ok
}

// addCPUType fills c's defaults and stores it, replacing the flavor with
// its id, and returns its id.
func (u *catalogData) addCPUType(c CPUType) string {
	c.ID = cmp.Or(c.ID, u.newID("cpu-"))
	c.Name = cmp.Or(c.Name, c.ID)
	c.MinVCPUs = cmp.Or(c.MinVCPUs, 2)
	c.MaxVCPUs = max(cmp.Or(c.MaxVCPUs, 32), c.MinVCPUs)
	c.RAMGBPerVCPU = cmp.Or(c.RAMGBPerVCPU, 2)
	c.DataCenters = maps.Clone(c.DataCenters)
	u.cpus[c.ID] = c
	return c.ID
}

// checkGPU applies the catalog's rules to a pod's (or every cluster pod's)
// GPUs, as the platform does: the type is one GET /v2/catalog/gpus lists
// (GpuType.id, "use for pod creation"; ClusterCompute.gpuTypeId, "as
// returned by GET /v2/catalog/gpus"), offered on the cloud, and count is
// at most its maxCount there ("the largest number of GPUs you can request
// on a single pod of this type", GpuType.maxCount; "the upstream rejects
// values beyond it", ClusterCompute.gpuCountPerPod), all in
// ../shared/reference/platform-openapi-v2.json, whose createPod answers
// such a request 400. It returns the offer, or the field at fault
// (idField or countField) and the problem.
func (s *Server) checkGPU(id string, count int, cloud, idField, countField string) (gpuOffer, string, string) {
	o, ok := s.gpuOffer(id, cloud)
	switch {
	case !ok:
		return o, idField, fmt.Sprintf("unknown GPU type %q: GET /v2/catalog/gpus lists the GPU types", id)
	case o.maxCount == 0:
		return o, idField, fmt.Sprintf("GPU type %s is not offered on %s cloud", id, cloud)
	case count > o.maxCount:
		return o, countField, fmt.Sprintf("at most %d GPUs of type %s fit one pod on %s cloud, got %d", o.maxCount, id, cloud, count)
	}
	return o, "", ""
}

// offeredMax is the most GPUs per pod on a cloud: 0 where the type is not
// offered (no price), and 8 unless set where it is.
func offeredMax(price float64, n int) int {
	if price <= 0 {
		return 0
	}
	return cmp.Or(n, 8)
}

// Wire formats, as the REST v2 document describes them.
type (
	catalogGPUJSON struct {
		ID           string  `json:"id"`
		Name         string  `json:"name"`
		Pool         *string `json:"pool"`
		Manufacturer string  `json:"manufacturer"`
		Memory       int     `json:"memory"`
		Secure       bool    `json:"secure"`
		Community    bool    `json:"community"`
		Price        struct {
			Secure     float64  `json:"secure"`
			Community  float64  `json:"community"`
			Serverless *float64 `json:"serverless,omitempty"`
		} `json:"price"`
		MaxCount struct {
			Secure    int `json:"secure"`
			Community int `json:"community"`
		} `json:"maxCount"`
		Availability string               `json:"availability,omitempty"`
		DataCenters  []catalogDCStockJSON `json:"dataCenters,omitempty"`
		CUDAVersions []catalogCUDAJSON    `json:"cudaVersions,omitempty"`
	}
	catalogCPUJSON struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Group string `json:"group"`
		VCPU  struct {
			Min int `json:"min"`
			Max int `json:"max"`
		} `json:"vcpu"`
		RAMGBPerVCPU float64 `json:"ramGbPerVcpu"`
		Price        struct {
			SecurePerVCPU     float64 `json:"securePerVcpu"`
			ServerlessPerVCPU float64 `json:"serverlessPerVcpu"`
		} `json:"price"`
		Availability string               `json:"availability,omitempty"`
		DataCenters  []catalogDCStockJSON `json:"dataCenters,omitempty"`
	}
	// catalogDCStockJSON is a data center's stock of a type
	// (DataCenterAvailability), and a type's stock in a data center
	// (CatalogResourceAvailability): the same three fields.
	catalogDCStockJSON struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		Availability string `json:"availability"`
	}
	catalogCUDAJSON struct {
		Version   string `json:"version"`
		Available bool   `json:"available"`
	}
	catalogDataCenterJSON struct {
		ID                 string               `json:"id"`
		Name               string               `json:"name"`
		Region             string               `json:"region"`
		GlobalNetwork      bool                 `json:"globalNetwork"`
		NetworkVolumeTypes []string             `json:"networkVolumeTypes"`
		Compliance         []string             `json:"compliance"`
		GPUAvailability    []catalogDCStockJSON `json:"gpuAvailability,omitempty"`
		CPUAvailability    []catalogDCStockJSON `json:"cpuAvailability,omitempty"`
	}
)

func (s *Server) registerCatalog() {
	// Every catalog route reads the catalog, under its lock.
	route := s.routes(PermissionCatalogRead)
	read := func(pattern string, h func(w http.ResponseWriter, r *http.Request, u *catalogData)) {
		route(pattern, func(w http.ResponseWriter, r *http.Request) {
			s.catalog.mu.Lock()
			defer s.catalog.mu.Unlock()
			h(w, r, &s.catalog.catalogData)
		})
	}
	read(RouteGPUTypes, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		if f, ok := gpuFilterOf(w, r); ok {
			inScope := func(g GPUType) (catalogGPUJSON, bool) { return u.gpuJSON(g, f) }
			WriteJSON(w, map[string]any{"gpus": listOf(u.gpus, inScope)})
		}
	})
	read(RouteGPUType, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		if f, ok := gpuFilterOf(w, r); ok {
			writeOne(w, r, u.gpus, "GPU type not found", func(g GPUType) catalogGPUJSON {
				out, _ := u.gpuJSON(g, f) // out of the countries' scope, it still answers
				return out
			})
		}
	})
	read(RouteCPUTypes, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		if f, ok := cpuFilterOf(w, r); ok {
			render := func(c CPUType) catalogCPUJSON { return u.cpuJSON(c, f) }
			WriteJSON(w, map[string]any{"cpus": listOf(u.cpus, every(render))})
		}
	})
	read(RouteCPUType, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		if f, ok := cpuFilterOf(w, r); ok {
			writeOne(w, r, u.cpus, "CPU type not found", func(c CPUType) catalogCPUJSON { return u.cpuJSON(c, f) })
		}
	})
	read(RouteDataCenters, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		q := r.URL.Query()
		include := catalogQueryList(q, "include")
		regions, volumes, compliance := catalogQueryList(q, "regions"), catalogQueryList(q, "networkVolumeTypes"), catalogQueryList(q, "compliance")
		global := q.Get("globalNetwork")
		WriteJSON(w, map[string]any{"dataCenters": listOf(u.dcs, func(d DataCenter) (catalogDataCenterJSON, bool) {
			switch {
			case len(regions) > 0 && !slices.Contains(regions, string(d.Region)): // any of them
			case !catalogContainsAll(catalogStrs(d.NetworkVolumeTypes), volumes): // all of them
			case !catalogContainsAll(catalogStrs(d.Compliance), compliance): // all of them
			case global != "" && strconv.FormatBool(d.GlobalNetwork) != global:
			default:
				return u.dataCenterJSON(d, include), true
			}
			return catalogDataCenterJSON{}, false
		})})
	})
	read(RouteDataCenter, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		include := catalogQueryList(r.URL.Query(), "include")
		writeOne(w, r, u.dcs, "data center not found", func(d DataCenter) catalogDataCenterJSON { return u.dataCenterJSON(d, include) })
	})
	read(RoutePublicTemplates, func(w http.ResponseWriter, r *http.Request, u *catalogData) {
		source := cmp.Or(r.URL.Query().Get("source"), string(catalog.ListPublicTemplatesParamsSourceOfficial))
		inSource := func(t PublicTemplate) (templateJSON, bool) { return publicTemplateJSON(t), string(t.Source) == source }
		list := listOf(u.templates, inSource)
		WriteJSON(w, map[string]any{"templates": list[:min(len(list), 100)]}) // no pages: the first 100
	})
}

// catalogQueryList reads a list parameter of the document's form style without
// explode (a=x,y); repeated parameters add up.
func catalogQueryList(q map[string][]string, name string) []string {
	var out []string
	for _, v := range q[name] {
		for part := range strings.SplitSeq(v, ",") {
			if part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func catalogContainsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func catalogStrs[T ~string](v []T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = string(x)
	}
	return out
}

// catalogRefusal answers a query the document's schema allows but the
// platform refuses when it reads it, naming the parameter.
func catalogRefusal(w http.ResponseWriter, param, format string, args ...any) {
	Problem(w, http.StatusBadRequest, "Request validation failed.", "query."+param+": "+fmt.Sprintf(format, args...))
}

// stockFilter is what a GPU type or CPU flavor read asks about stock.
type stockFilter struct {
	avail     bool     // include=AVAILABILITY
	products  []string // POD, CLUSTER, SERVERLESS
	count     int      // GPUs, or vCPUs (0: any)
	cloud     string   // SECURE or COMMUNITY
	countries []string
	cudaExact []string
	cudaMin   string
}

// catalogAvailabilityRule checks the rules both kinds of type share: include and
// product go together.
func catalogAvailabilityRule(w http.ResponseWriter, f stockFilter) bool {
	switch {
	case f.avail && len(f.products) == 0:
		catalogRefusal(w, "product", "required with include=AVAILABILITY: availability differs by product")
	case !f.avail && len(f.products) > 0:
		catalogRefusal(w, "product", "valid only with include=AVAILABILITY")
	default:
		return true
	}
	return false
}

func gpuFilterOf(w http.ResponseWriter, r *http.Request) (stockFilter, bool) {
	q := r.URL.Query()
	f := stockFilter{
		avail: len(catalogQueryList(q, "include")) > 0, products: catalogQueryList(q, "product"),
		count: 1, cloud: cmp.Or(q.Get("cloud"), "SECURE"),
		countries: catalogQueryList(q, "countryCodes"), cudaExact: catalogQueryList(q, "cudaVersions"), cudaMin: q.Get("minCudaVersion"),
	}
	if c := q.Get("count"); c != "" {
		f.count, _ = strconv.Atoi(c) // the document's schema checked it
	}
	if !catalogAvailabilityRule(w, f) {
		return f, false
	}
	if !f.avail {
		for _, name := range []string{"count", "cloud", "countryCodes", "cudaVersions", "minCudaVersion"} {
			if q.Has(name) {
				catalogRefusal(w, name, "valid only with include=AVAILABILITY")
				return f, false
			}
		}
	}
	if len(f.cudaExact) > 0 && f.cudaMin != "" {
		catalogRefusal(w, "cudaVersions", "cudaVersions and minCudaVersion are mutually exclusive")
		return f, false
	}
	return f, true
}

func cpuFilterOf(w http.ResponseWriter, r *http.Request) (stockFilter, bool) {
	q := r.URL.Query()
	f := stockFilter{avail: len(catalogQueryList(q, "include")) > 0, products: catalogQueryList(q, "product")}
	if !catalogAvailabilityRule(w, f) {
		return f, false
	}
	if v := q.Get("vcpuCount"); v != "" {
		n, _ := strconv.Atoi(v) // the document's schema checked it
		switch {
		case !f.avail:
			catalogRefusal(w, "vcpuCount", "valid only with include=AVAILABILITY")
			return f, false
		case n&(n-1) != 0:
			catalogRefusal(w, "vcpuCount", "must be a power of two, got %d", n)
			return f, false
		}
		f.count = n
	}
	return f, true
}

// gpuJSON renders a GPU type for f, and reports whether it is in the
// scope of f's countries (always, without them).
func (u *catalogData) gpuJSON(g GPUType, f stockFilter) (catalogGPUJSON, bool) {
	out := catalogGPUJSON{
		ID: g.ID, Name: g.Name, Manufacturer: string(g.Manufacturer), Memory: g.MemoryGB,
		Secure: g.SecurePrice > 0, Community: g.CommunityPrice > 0,
	}
	if g.Pool != "" {
		out.Pool = &g.Pool
	}
	out.Price.Secure, out.Price.Community = g.SecurePrice, g.CommunityPrice
	if g.Pool != "" && g.ServerlessPrice > 0 {
		out.Price.Serverless = &g.ServerlessPrice
	}
	out.MaxCount.Secure, out.MaxCount.Community = g.MaxSecure, g.MaxCommunity
	if !f.avail {
		return out, true
	}

	// The configuration asked for: the cloud offers the type with that many
	// GPUs on one machine, one of the products has it, and its machines
	// have a CUDA version the filter accepts.
	maxCount := g.MaxSecure
	if f.cloud == "COMMUNITY" {
		maxCount = g.MaxCommunity
	}
	product := slices.ContainsFunc(f.products, func(p string) bool { return p != "SERVERLESS" || g.Pool != "" })
	var cudas []string
	for _, v := range g.CUDAVersions {
		if (len(f.cudaExact) == 0 || slices.Contains(f.cudaExact, v)) && (f.cudaMin == "" || cudaAtLeast(v, f.cudaMin)) {
			cudas = append(cudas, v)
		}
	}
	cudaOK := len(cudas) > 0 || len(f.cudaExact) == 0 && f.cudaMin == ""
	offered := maxCount > 0 && f.count <= maxCount && product && cudaOK
	var inScope bool
	out.Availability, out.DataCenters, inScope = u.stock(g.DataCenters, offered, f.countries)
	for _, v := range cudas {
		out.CUDAVersions = append(out.CUDAVersions, catalogCUDAJSON{Version: v, Available: out.Availability != string(catalog.AvailabilityLevelNone)})
	}
	return out, len(f.countries) == 0 || inScope
}

func (u *catalogData) cpuJSON(c CPUType, f stockFilter) catalogCPUJSON {
	out := catalogCPUJSON{ID: c.ID, Name: c.Name, Group: c.Group, RAMGBPerVCPU: c.RAMGBPerVCPU}
	out.VCPU.Min, out.VCPU.Max = c.MinVCPUs, c.MaxVCPUs
	out.Price.SecurePerVCPU, out.Price.ServerlessPerVCPU = c.SecurePricePerVCPU, c.ServerlessPricePerVCPU
	if !f.avail {
		return out
	}
	product := slices.ContainsFunc(f.products, func(p string) bool { return p != "SERVERLESS" || c.ServerlessPricePerVCPU > 0 })
	offered := product && (f.count == 0 || f.count >= c.MinVCPUs && f.count <= c.MaxVCPUs)
	out.Availability, out.DataCenters, _ = u.stock(c.DataCenters, offered, nil)
	return out
}

// stock reports a type's stock in the data centers of levels, ordered by
// id: each one's level where the configuration asked for is offered,
// NONE otherwise. A data center outside countries (when there are any) is
// out of scope: left out, not reported as NONE. It returns the best level,
// the data centers to show (none when the best is NONE), and whether any
// data center is in scope.
func (u *catalogData) stock(levels map[string]catalog.AvailabilityLevel, offered bool, countries []string) (string, []catalogDCStockJSON, bool) {
	best := catalog.AvailabilityLevelNone
	var where []catalogDCStockJSON
	for _, id := range slices.Sorted(maps.Keys(levels)) {
		d := u.dataCenterOrID(id)
		if len(countries) > 0 && !slices.Contains(countries, d.Country) {
			continue
		}
		level := catalog.AvailabilityLevelNone
		if offered {
			level = levels[id]
		}
		best = maxAvailability(best, level)
		where = append(where, catalogDCStockJSON{ID: d.ID, Name: d.Name, Availability: string(level)})
	}
	if best == catalog.AvailabilityLevelNone {
		return string(best), nil, len(where) > 0
	}
	return string(best), where, true
}

func (u *catalogData) dataCenterJSON(d DataCenter, include []string) catalogDataCenterJSON {
	out := catalogDataCenterJSON{
		ID: d.ID, Name: d.Name, Region: string(d.Region), GlobalNetwork: d.GlobalNetwork,
		NetworkVolumeTypes: append([]string{}, catalogStrs(d.NetworkVolumeTypes)...), Compliance: append([]string{}, catalogStrs(d.Compliance)...),
	}
	if slices.Contains(include, "GPU_AVAILABILITY") {
		for _, id := range slices.Sorted(maps.Keys(u.gpus)) {
			if level, ok := u.gpus[id].DataCenters[d.ID]; ok {
				out.GPUAvailability = append(out.GPUAvailability, catalogDCStockJSON{ID: id, Name: u.gpus[id].Name, Availability: string(level)})
			}
		}
	}
	if slices.Contains(include, "CPU_AVAILABILITY") {
		for _, id := range slices.Sorted(maps.Keys(u.cpus)) {
			if level, ok := u.cpus[id].DataCenters[d.ID]; ok {
				out.CPUAvailability = append(out.CPUAvailability, catalogDCStockJSON{ID: id, Name: u.cpus[id].Name, Availability: string(level)})
			}
		}
	}
	return out
}

// addPublicTemplate fills t's defaults and stores it, replacing the
// template with its id, and returns its id.
func (u *catalogData) addPublicTemplate(t PublicTemplate) string {
	t.ID = cmp.Or(t.ID, u.newID("tpl"))
	t.Source = cmp.Or(t.Source, catalog.ListPublicTemplatesParamsSourceOfficial)
	t.Category = cmp.Or(t.Category, catalog.TemplateCategoryNVIDIA)
	t.Disk = cmp.Or(t.Disk, 20)
	if t.VolumeGB > 0 {
		t.VolumeGB = max(t.VolumeGB, 10)
		t.VolumePath = cmp.Or(t.VolumePath, "/workspace")
	}
	t.Ports = slices.Clone(t.Ports)
	t.Env = maps.Clone(t.Env)
	t.AllowedCUDAVersions = slices.Clone(t.AllowedCUDAVersions)
	u.templates[t.ID] = t
	return t.ID
}

// publicTemplateJSON returns a public template as the API shows a
// template.
func publicTemplateJSON(t PublicTemplate) templateJSON {
	v := Template{
		ID: t.ID, Name: t.Name, Image: t.Image, Args: t.Args, Disk: t.Disk, Ports: t.Ports, Env: t.Env,
		Category: templates.TemplateCategory(t.Category), PersistentSize: t.VolumeGB, PersistentPath: t.VolumePath,
		Serverless: t.Serverless, Public: true, StartSSH: t.StartSSH, StartJupyter: t.StartJupyter, AllowedCUDAVersions: t.AllowedCUDAVersions,
	}
	return v.json()
}

// dataCenterOrID returns the data center id names; one the catalog lacks
// is named by its id.
func (u *catalogData) dataCenterOrID(id string) DataCenter {
	if d, ok := u.dcs[id]; ok {
		return d
	}
	return DataCenter{ID: id, Name: id}
}

// addDataCenter fills d's defaults and stores it, replacing the data
// center with its id, and returns its id.
func (u *catalogData) addDataCenter(d DataCenter) string {
	d.ID = cmp.Or(d.ID, u.newID("XX-TEST-"))
	d.Name = cmp.Or(d.Name, d.ID)
	d.Region = cmp.Or(d.Region, catalog.DataCenterRegionUnknown)
	d.NetworkVolumeTypes = slices.Clone(d.NetworkVolumeTypes)
	d.Compliance = slices.Clone(d.Compliance)
	u.dcs[d.ID] = d
	return d.ID
}

// maxAvailability returns the more available of a and b; an unknown level counts
// as none.
func maxAvailability(a, b catalog.AvailabilityLevel) catalog.AvailabilityLevel {
	if stockRank(b) > stockRank(a) {
		return b
	}
	return a
}

// cudaAtLeast reports whether version ("major.minor") is at least floor
// ("major", any release of it, or "major.minor"), compared as numbers:
// 12.10 is above 12.9. A malformed value compares as false.
func cudaAtLeast(version, floor string) bool {
	vMaj, vMin, ok := cudaParts(version)
	if !ok {
		return false
	}
	fMaj, fMin, ok := cudaParts(floor)
	if !ok {
		return false
	}
	return vMaj > fMaj || vMaj == fMaj && vMin >= fMin
}

// cudaParts splits "major" or "major.minor" into numbers (minor 0 when
// absent).
func cudaParts(s string) (major, minor int, ok bool) {
	a, b, dotted := strings.Cut(s, ".")
	major, err := strconv.Atoi(a)
	if err != nil || major < 0 || strings.HasPrefix(a, "+") {
		return 0, 0, false
	}
	if dotted {
		minor, err = strconv.Atoi(b)
		if err != nil || minor < 0 || strings.HasPrefix(b, "+") {
			return 0, 0, false
		}
	}
	return major, minor, true
}

// The default catalog: a small, plausible slice of the platform's, in
// every region a test is likely to name. The package doc lists it.
var (
	defaultDataCenters = []DataCenter{
		{ID: "EU-RO-1", Name: "EU Romania 1", Region: catalog.DataCenterRegionEurope, Country: "RO", GlobalNetwork: true,
			NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard, catalog.VolumeTypeHighPerformance},
			Compliance:         []catalog.Compliance{catalog.ComplianceGDPR, catalog.ComplianceISOIEC27001, catalog.ComplianceSOC2Type2}},
		{ID: "EU-SE-1", Name: "EU Sweden 1", Region: catalog.DataCenterRegionEurope, Country: "SE",
			NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard},
			Compliance:         []catalog.Compliance{catalog.ComplianceGDPR, catalog.ComplianceISOIEC27001, catalog.ComplianceRenewable}},
		{ID: "US-TX-3", Name: "US Texas 3", Region: catalog.DataCenterRegionNorthAmerica, Country: "US", GlobalNetwork: true,
			NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard, catalog.VolumeTypeHighPerformance},
			Compliance:         []catalog.Compliance{catalog.ComplianceISOIEC27001, catalog.ComplianceSOC2Type2, catalog.ComplianceHIPAA}},
		{ID: "US-KS-2", Name: "US Kansas 2", Region: catalog.DataCenterRegionNorthAmerica, Country: "US", GlobalNetwork: true,
			NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard, catalog.VolumeTypeHighPerformance},
			Compliance:         []catalog.Compliance{catalog.ComplianceISOIEC27001, catalog.ComplianceSOC2Type2}},
		{ID: "CA-MTL-1", Name: "CA Montreal 1", Region: catalog.DataCenterRegionNorthAmerica, Country: "CA",
			NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard},
			Compliance:         []catalog.Compliance{catalog.ComplianceSOC2Type2, catalog.ComplianceRenewable}},
		{ID: "AP-JP-1", Name: "AP Japan 1", Region: catalog.DataCenterRegionAsia, Country: "JP",
			NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard},
			Compliance:         []catalog.Compliance{catalog.ComplianceISOIEC27001}},
	}

	cudaRecent = []string{"12.4", "12.6", "12.8"}

	defaultGPUTypes = []GPUType{
		{ID: "NVIDIA GeForce RTX 4090", Name: "RTX 4090", Pool: "ADA_24", MemoryGB: 24,
			SecurePrice: 0.69, CommunityPrice: 0.34, ServerlessPrice: 1.10, MaxCommunity: 4, CUDAVersions: cudaRecent,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "HIGH", "US-TX-3": "MEDIUM", "CA-MTL-1": "LOW", "EU-SE-1": "NONE"}},
		{ID: "NVIDIA L4", Name: "L4", Pool: "ADA_24", MemoryGB: 24,
			SecurePrice: 0.43, ServerlessPrice: 1.10, CUDAVersions: []string{"12.4", "12.6"},
			DataCenters: map[string]catalog.AvailabilityLevel{"US-TX-3": "HIGH", "EU-RO-1": "LOW"}},
		{ID: "NVIDIA RTX A6000", Name: "RTX A6000", Pool: "AMPERE_48", MemoryGB: 48,
			SecurePrice: 0.49, CommunityPrice: 0.33, ServerlessPrice: 1.22, CUDAVersions: cudaRecent,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "MEDIUM", "US-KS-2": "HIGH", "CA-MTL-1": "LOW"}},
		{ID: "NVIDIA L40S", Name: "L40S", Pool: "ADA_48_PRO", MemoryGB: 48,
			SecurePrice: 0.86, CommunityPrice: 0.79, ServerlessPrice: 1.90, MaxCommunity: 4, CUDAVersions: cudaRecent,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "LOW", "US-TX-3": "HIGH", "EU-SE-1": "MEDIUM"}},
		{ID: "NVIDIA A100 80GB PCIe", Name: "A100 PCIe", Pool: "AMPERE_80", MemoryGB: 80,
			SecurePrice: 1.64, CommunityPrice: 1.19, ServerlessPrice: 2.72, CUDAVersions: cudaRecent,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "MEDIUM", "US-KS-2": "LOW", "AP-JP-1": "LOW"}},
		{ID: "NVIDIA H100 80GB HBM3", Name: "H100 SXM", Pool: "ADA_80_PRO", MemoryGB: 80,
			SecurePrice: 2.99, CommunityPrice: 2.69, ServerlessPrice: 4.18, MaxCommunity: 2, CUDAVersions: []string{"12.4", "12.6", "12.8", "12.9"},
			DataCenters: map[string]catalog.AvailabilityLevel{"US-TX-3": "MEDIUM", "EU-SE-1": "LOW"}},
		{ID: "AMD Instinct MI300X OAM", Name: "MI300X", Manufacturer: catalog.GPUManufacturerAMD, MemoryGB: 192,
			SecurePrice: 2.49,
			DataCenters: map[string]catalog.AvailabilityLevel{"US-TX-3": "LOW"}},
	}

	defaultCPUTypes = []CPUType{
		{ID: "cpu3c", Name: "Compute-Optimized", Group: "Gen 3", MaxVCPUs: 32, RAMGBPerVCPU: 2,
			SecurePricePerVCPU: 0.05, ServerlessPricePerVCPU: 0.04,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "HIGH", "US-TX-3": "MEDIUM", "US-KS-2": "HIGH"}},
		{ID: "cpu3g", Name: "General Purpose", Group: "Gen 3", MaxVCPUs: 32, RAMGBPerVCPU: 4,
			SecurePricePerVCPU: 0.06, ServerlessPricePerVCPU: 0.05,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "MEDIUM", "US-KS-2": "HIGH", "CA-MTL-1": "LOW"}},
		{ID: "cpu3m", Name: "Memory-Optimized", Group: "Gen 3", MaxVCPUs: 16, RAMGBPerVCPU: 8,
			SecurePricePerVCPU: 0.08,
			DataCenters:        map[string]catalog.AvailabilityLevel{"US-KS-2": "LOW"}},
		{ID: "cpu5c", Name: "Compute-Optimized", Group: "Gen 5", MaxVCPUs: 64, RAMGBPerVCPU: 2,
			SecurePricePerVCPU: 0.07, ServerlessPricePerVCPU: 0.06,
			DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": "LOW", "US-TX-3": "HIGH"}},
	}

	defaultPublicTemplates = []PublicTemplate{
		{ID: "runpod-torch-v240", Name: "RunPod PyTorch 2.4.0", Image: "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04",
			Disk: 50, VolumeGB: 20, Ports: []string{"8888/http", "22/tcp"}, StartSSH: true, StartJupyter: true},
		{ID: "runpod-ubuntu", Name: "RunPod Ubuntu", Image: "runpod/base:0.6.2-ubuntu2204", Category: catalog.TemplateCategoryCPU,
			Disk: 20, Ports: []string{"22/tcp"}, StartSSH: true},
		{ID: "runpod-vllm-worker", Name: "vLLM Worker", Image: "runpod/worker-v1-vllm:v2.7.0stable-cuda12.1.0", Serverless: true,
			Disk: 20, Env: map[string]string{"MODEL_NAME": "Qwen/Qwen3-8B", "MAX_MODEL_LEN": "8192"}},
		{ID: "comfyui-flux", Name: "ComfyUI with FLUX.1", Source: catalog.ListPublicTemplatesParamsSourceVerified,
			Image: "runpod/comfyui:flux-cuda12.4", Disk: 40, VolumeGB: 50, Ports: []string{"8188/http", "22/tcp"},
			StartSSH: true, AllowedCUDAVersions: []string{"12.4", "12.6", "12.8"}},
		{ID: "ollama-webui", Name: "Ollama with Open WebUI", Source: catalog.ListPublicTemplatesParamsSourceCommunity,
			Image: "ollama/ollama:0.6.8", Disk: 30, VolumeGB: 40, VolumePath: "/root/.ollama", Ports: []string{"11434/http", "8080/http"}},
	}
)
