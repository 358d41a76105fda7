package catalog_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

func fake(t *testing.T, opts ...runpodtest.Option) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(append([]runpodtest.Option{contract.Check()}, opts...)...)
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

// availability asks for the stock of pods.
func availability() ([]catalog.CatalogInclude, []catalog.Product) {
	return []catalog.CatalogInclude{catalog.CatalogIncludeAvailability}, []catalog.Product{catalog.ProductPod}
}

func ids[T any](list []T, id func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = id(v)
	}
	return out
}

func gpuID(g catalog.GPUType) string                  { return g.ID }
func dcID(d catalog.DataCenter) string                { return d.ID }
func stockID(d catalog.DataCenterAvailability) string { return d.ID }

// TestWireFormats: each method's route, path and query string, lists
// joined by commas (form style, not exploded).
func TestWireFormats(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	inc, prod := availability()

	_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{})
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteGPUTypes, r.Route)
	assert.Empty(t, r.RawQuery)

	_, err = rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{
		Include: inc, Product: []catalog.Product{catalog.ProductPod, catalog.ProductServerless},
		Count: runpod.Ptr(2), Cloud: runpod.Ptr(catalog.GPUCloudFilterCommunity),
		CountryCodes: []string{"RO", "SE"}, MinCUDAVersion: runpod.Ptr("12.4"),
	})
	require.NoError(t, err)
	assert.Equal(t, "include=AVAILABILITY&product=POD,SERVERLESS&count=2&cloud=COMMUNITY&countryCodes=RO,SE&minCudaVersion=12.4", last(srv).RawQuery)

	g, err := rp.Catalog.GPUType(ctx, "NVIDIA GeForce RTX 4090", catalog.GetGPUTypeParams{Include: inc, Product: prod, CUDAVersions: []string{"12.4", "12.8"}})
	require.NoError(t, err)
	r = last(srv)
	assert.Equal(t, runpodtest.RouteGPUType, r.Route)
	assert.Equal(t, "/v2/catalog/gpus/NVIDIA GeForce RTX 4090", r.Path, "the id's spaces are escaped once")
	assert.Equal(t, "include=AVAILABILITY&product=POD&cudaVersions=12.4,12.8", r.RawQuery)
	assert.Equal(t, "RTX 4090", g.Name)

	_, err = rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Include: inc, Product: []catalog.CPUProduct{catalog.CPUProductServerless}, VCPUCount: runpod.Ptr(4)})
	require.NoError(t, err)
	assert.Equal(t, "include=AVAILABILITY&product=SERVERLESS&vcpuCount=4", last(srv).RawQuery)
	_, err = rp.Catalog.CPUType(ctx, "cpu3c", catalog.GetCPUTypeParams{})
	require.NoError(t, err)
	assert.Equal(t, "/v2/catalog/cpus/cpu3c", last(srv).Path)

	_, err = rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{
		Include:            []catalog.DataCenterInclude{catalog.DataCenterIncludeGPUAvailability, catalog.DataCenterIncludeCPUAvailability},
		Regions:            []catalog.DataCenterRegion{catalog.DataCenterRegionEurope, catalog.DataCenterRegionAsia},
		NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard},
		Compliance:         []catalog.Compliance{catalog.ComplianceGDPR},
		GlobalNetwork:      runpod.Ptr(false),
	})
	require.NoError(t, err)
	assert.Equal(t, "include=GPU_AVAILABILITY,CPU_AVAILABILITY&regions=EUROPE,ASIA&networkVolumeTypes=STANDARD&compliance=GDPR&globalNetwork=false", last(srv).RawQuery)
	_, err = rp.Catalog.DataCenter(ctx, "EU-RO-1", catalog.GetDataCenterParams{Include: []catalog.DataCenterInclude{catalog.DataCenterIncludeGPUAvailability}})
	require.NoError(t, err)
	r = last(srv)
	assert.Equal(t, runpodtest.RouteDataCenter, r.Route)
	assert.Equal(t, "/v2/catalog/datacenters/EU-RO-1", r.Path)
	assert.Equal(t, "include=GPU_AVAILABILITY", r.RawQuery)

	_, err = rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{Source: runpod.Ptr(catalog.ListPublicTemplatesParamsSourceVerified)})
	require.NoError(t, err)
	r = last(srv)
	assert.Equal(t, runpodtest.RoutePublicTemplates, r.Route)
	assert.Equal(t, "source=verified", r.RawQuery)
	for _, req := range srv.Requests() {
		assert.Equal(t, http.MethodGet, req.Method)
		assert.Equal(t, http.StatusOK, req.Status, "%s %s", req.Route, req.RawQuery)
	}
}

// TestGPUTypes: prices always, stock only when asked for, and each filter
// as the document describes it.
func TestGPUTypes(t *testing.T) {
	_, rp := fake(t)
	ctx := t.Context()
	inc, prod := availability()

	all, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{})
	require.NoError(t, err)
	require.Len(t, all, 7, "the fake's default catalog")
	for _, g := range all {
		assert.Nil(t, g.Availability, "%s: no stock unless asked for", g.ID)
		assert.Empty(t, g.DataCenters, g.ID)
		assert.Empty(t, g.CUDAVersions, g.ID)
	}
	g, err := rp.Catalog.GPUType(ctx, "NVIDIA GeForce RTX 4090", catalog.GetGPUTypeParams{})
	require.NoError(t, err)
	assert.Equal(t, catalog.GPUManufacturerNVIDIA, g.Manufacturer)
	assert.Equal(t, 24, g.Memory)
	assert.Equal(t, catalog.GPUPool("ADA_24"), *g.Pool)
	assert.True(t, g.Secure)
	assert.True(t, g.Community)
	assert.InDelta(t, 0.69, g.Price.Secure, 1e-9)
	assert.InDelta(t, 0.34, g.Price.Community, 1e-9)
	assert.InDelta(t, 1.10, *g.Price.Serverless, 1e-9)
	assert.Equal(t, 8, g.MaxCount.Secure)
	assert.Equal(t, 4, g.MaxCount.Community)

	g, err = rp.Catalog.GPUType(ctx, "NVIDIA GeForce RTX 4090", catalog.GetGPUTypeParams{Include: inc, Product: prod})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelHigh, *g.Availability)
	assert.Equal(t, []catalog.DataCenterAvailability{
		{ID: "CA-MTL-1", Name: "CA Montreal 1", Availability: catalog.AvailabilityLevelLow},
		{ID: "EU-RO-1", Name: "EU Romania 1", Availability: catalog.AvailabilityLevelHigh},
		{ID: "EU-SE-1", Name: "EU Sweden 1", Availability: catalog.AvailabilityLevelNone},
		{ID: "US-TX-3", Name: "US Texas 3", Availability: catalog.AvailabilityLevelMedium},
	}, g.DataCenters)
	assert.Equal(t, []catalog.CUDAVersionAvailability{{Version: "12.4", Available: true}, {Version: "12.6", Available: true}, {Version: "12.8", Available: true}}, g.CUDAVersions)

	// Countries scope the stock: a listing drops the types with no data
	// center there; a single read keeps the type, with none.
	jp, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, CountryCodes: []string{"JP"}})
	require.NoError(t, err)
	require.Equal(t, []string{"NVIDIA A100 80GB PCIe"}, ids(jp, gpuID))
	assert.Equal(t, []string{"AP-JP-1"}, ids(jp[0].DataCenters, stockID))
	g, err = rp.Catalog.GPUType(ctx, "NVIDIA L4", catalog.GetGPUTypeParams{Include: inc, Product: prod, CountryCodes: []string{"JP"}})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelNone, *g.Availability)
	assert.Empty(t, g.DataCenters)

	// Community cloud: the L4 and the MI300X are secure only; the H100's
	// community machines hold at most 2 GPUs.
	comm, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, Cloud: runpod.Ptr(catalog.GPUCloudFilterCommunity), Count: runpod.Ptr(4)})
	require.NoError(t, err)
	none := map[string]bool{}
	for _, g := range comm {
		none[g.ID] = *g.Availability == catalog.AvailabilityLevelNone
	}
	assert.Equal(t, map[string]bool{
		"NVIDIA GeForce RTX 4090": false, "NVIDIA L4": true, "NVIDIA RTX A6000": false, "NVIDIA L40S": false,
		"NVIDIA A100 80GB PCIe": false, "NVIDIA H100 80GB HBM3": true, "AMD Instinct MI300X OAM": true,
	}, none)

	// CUDA: a floor compared as numbers, an exact list; AMD machines report
	// none, so a CUDA filter leaves the MI300X without stock.
	g, err = rp.Catalog.GPUType(ctx, "NVIDIA H100 80GB HBM3", catalog.GetGPUTypeParams{Include: inc, Product: prod, MinCUDAVersion: runpod.Ptr("12.7")})
	require.NoError(t, err)
	assert.Equal(t, []string{"12.8", "12.9"}, []string{g.CUDAVersions[0].Version, g.CUDAVersions[1].Version})
	g, err = rp.Catalog.GPUType(ctx, "NVIDIA L4", catalog.GetGPUTypeParams{Include: inc, Product: prod, CUDAVersions: []string{"12.8"}})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelNone, *g.Availability, "the L4's machines have no 12.8")
	g, err = rp.Catalog.GPUType(ctx, "AMD Instinct MI300X OAM", catalog.GetGPUTypeParams{Include: inc, Product: prod, MinCUDAVersion: runpod.Ptr("12")})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelNone, *g.Availability)
	assert.Empty(t, g.CUDAVersions)
	assert.Nil(t, g.Pool)
	assert.Nil(t, g.Price.Serverless)

	// Serverless stock needs a pool.
	g, err = rp.Catalog.GPUType(ctx, "AMD Instinct MI300X OAM", catalog.GetGPUTypeParams{Include: inc, Product: []catalog.Product{catalog.ProductServerless}})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelNone, *g.Availability)
}

func TestCPUTypes(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	inc := []catalog.CatalogInclude{catalog.CatalogIncludeAvailability}

	list, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{})
	require.NoError(t, err)
	require.Len(t, list, 4)
	c := list[0]
	assert.Equal(t, "cpu3c", c.ID)
	assert.Equal(t, "Compute-Optimized", c.Name)
	assert.Equal(t, "Gen 3", c.Group)
	assert.Equal(t, 2, c.VCPU.Min)
	assert.Equal(t, 32, c.VCPU.Max)
	assert.InDelta(t, 2, c.RAMGBPerVCPU, 1e-9)
	assert.InDelta(t, 0.05, c.Price.SecurePerVCPU, 1e-9)
	assert.Nil(t, c.Availability)

	srv.AddCPUType(runpodtest.CPUType{ID: "cpu9x", Group: "Gen 9", MaxVCPUs: 8, SecurePricePerVCPU: 0.1,
		DataCenters: map[string]catalog.AvailabilityLevel{"EU-RO-1": catalog.AvailabilityLevelMedium}})
	got, err := rp.Catalog.CPUType(ctx, "cpu9x", catalog.GetCPUTypeParams{Include: inc, Product: []catalog.CPUProduct{catalog.CPUProductPod}, VCPUCount: runpod.Ptr(8)})
	require.NoError(t, err)
	assert.Equal(t, "cpu9x", got.Name, "the name defaults to the id")
	assert.Equal(t, catalog.AvailabilityLevelMedium, *got.Availability)
	assert.Equal(t, []catalog.DataCenterAvailability{{ID: "EU-RO-1", Name: "EU Romania 1", Availability: catalog.AvailabilityLevelMedium}}, got.DataCenters)

	got, err = rp.Catalog.CPUType(ctx, "cpu9x", catalog.GetCPUTypeParams{Include: inc, Product: []catalog.CPUProduct{catalog.CPUProductPod}, VCPUCount: runpod.Ptr(16)})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelNone, *got.Availability, "beyond the flavor's 8 vCPUs")
	assert.Empty(t, got.DataCenters)
	got, err = rp.Catalog.CPUType(ctx, "cpu9x", catalog.GetCPUTypeParams{Include: inc, Product: []catalog.CPUProduct{catalog.CPUProductServerless}})
	require.NoError(t, err)
	assert.Equal(t, catalog.AvailabilityLevelNone, *got.Availability, "no serverless price: not offered to serverless")
}

func TestDataCenters(t *testing.T) {
	_, rp := fake(t)
	ctx := t.Context()

	all, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{})
	require.NoError(t, err)
	assert.Equal(t, []string{"AP-JP-1", "CA-MTL-1", "EU-RO-1", "EU-SE-1", "US-KS-2", "US-TX-3"}, ids(all, dcID))
	for _, d := range all {
		assert.Empty(t, d.GPUAvailability, d.ID)
		assert.Empty(t, d.CPUAvailability, d.ID)
	}

	for _, c := range []struct {
		name string
		p    catalog.ListDataCentersParams
		want []string
	}{
		{"regions are OR", catalog.ListDataCentersParams{Regions: []catalog.DataCenterRegion{catalog.DataCenterRegionEurope, catalog.DataCenterRegionAsia}},
			[]string{"AP-JP-1", "EU-RO-1", "EU-SE-1"}},
		{"volume types are AND", catalog.ListDataCentersParams{NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeStandard, catalog.VolumeTypeHighPerformance}},
			[]string{"EU-RO-1", "US-KS-2", "US-TX-3"}},
		{"compliance is AND", catalog.ListDataCentersParams{Compliance: []catalog.Compliance{catalog.ComplianceGDPR, catalog.ComplianceRenewable}},
			[]string{"EU-SE-1"}},
		{"global network false", catalog.ListDataCentersParams{GlobalNetwork: runpod.Ptr(false)},
			[]string{"AP-JP-1", "CA-MTL-1", "EU-SE-1"}},
		{"families are AND", catalog.ListDataCentersParams{Regions: []catalog.DataCenterRegion{catalog.DataCenterRegionEurope}, GlobalNetwork: runpod.Ptr(true)},
			[]string{"EU-RO-1"}},
		{"nothing matches", catalog.ListDataCentersParams{Regions: []catalog.DataCenterRegion{catalog.DataCenterRegionAntarctica}},
			[]string{}},
	} {
		got, err := rp.Catalog.DataCenters(ctx, c.p)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, ids(got, dcID), c.name)
	}

	d, err := rp.Catalog.DataCenter(ctx, "AP-JP-1", catalog.GetDataCenterParams{
		Include: []catalog.DataCenterInclude{catalog.DataCenterIncludeGPUAvailability, catalog.DataCenterIncludeCPUAvailability},
	})
	require.NoError(t, err)
	assert.Equal(t, "AP Japan 1", d.Name)
	assert.Equal(t, catalog.DataCenterRegionAsia, d.Region)
	assert.Equal(t, []catalog.VolumeType{catalog.VolumeTypeStandard}, d.NetworkVolumeTypes)
	assert.Equal(t, []catalog.CatalogResourceAvailability{{ID: "NVIDIA A100 80GB PCIe", Name: "A100 PCIe", Availability: catalog.AvailabilityLevelLow}}, d.GPUAvailability)
	assert.Empty(t, d.CPUAvailability, "no CPU flavor there: omitted")
}

func TestPublicTemplates(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()

	official, err := rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{})
	require.NoError(t, err)
	assert.Equal(t, []string{"runpod-torch-v240", "runpod-ubuntu", "runpod-vllm-worker"}, ids(official, func(t catalog.Template) string { return t.ID }))
	torch := official[0]
	assert.Equal(t, "RunPod PyTorch 2.4.0", torch.Name)
	assert.True(t, torch.Public)
	assert.False(t, torch.Serverless)
	assert.Nil(t, torch.Registry)
	assert.Equal(t, &catalog.PersistentMount{Size: 20, Path: "/workspace"}, torch.Mounts.Persistent)
	assert.True(t, official[2].Serverless)

	id := srv.AddPublicTemplate(runpodtest.PublicTemplate{Name: "mine", Source: catalog.ListPublicTemplatesParamsSourceCommunity, Image: "me/app:1", VolumeGB: 5})
	community, err := rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{Source: runpod.Ptr(catalog.ListPublicTemplatesParamsSourceCommunity)})
	require.NoError(t, err)
	require.Len(t, community, 2)
	var mine catalog.Template
	for _, tp := range community {
		if tp.ID == id {
			mine = tp
		}
	}
	assert.Equal(t, "me/app:1", mine.Image)
	assert.Equal(t, 20, mine.Disk, "default container disk")
	assert.Equal(t, &catalog.PersistentMount{Size: 10, Path: "/workspace"}, mine.Mounts.Persistent, "a volume is at least 10 GB")
	assert.Equal(t, catalog.TemplateCategoryNVIDIA, mine.Category)
	assert.NotNil(t, mine.Env)
	assert.NotNil(t, mine.AllowedCUDAVersions)

	for range 120 {
		srv.AddPublicTemplate(runpodtest.PublicTemplate{Name: "bulk", Source: catalog.ListPublicTemplatesParamsSourceVerified, Image: "x"})
	}
	verified, err := rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{Source: runpod.Ptr(catalog.ListPublicTemplatesParamsSourceVerified)})
	require.NoError(t, err)
	assert.Len(t, verified, 100, "at most 100, without pages")
}

// TestValidation: parameters the document (or the rules it states) refuse
// are refused before anything is sent, naming the field.
func TestValidation(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	inc, prod := availability()
	two := []catalog.CatalogInclude{catalog.CatalogIncludeAvailability, catalog.CatalogIncludeAvailability}
	cpuInc, cpuProd := inc, []catalog.CPUProduct{catalog.CPUProductPod}

	cases := []struct {
		field string
		call  func() error
	}{
		{"ListGPUTypesParams.Include", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: two, Product: prod})
			return err
		}},
		{"ListGPUTypesParams.Include[0]", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: []catalog.CatalogInclude{"EVERYTHING"}, Product: prod})
			return err
		}},
		{"ListGPUTypesParams.Product", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Product: prod})
			return err
		}},
		{"ListGPUTypesParams.Product[1]", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: []catalog.Product{catalog.ProductPod, "pod"}})
			return err
		}},
		{"ListGPUTypesParams.Count", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, Count: runpod.Ptr(0)})
			return err
		}},
		{"ListGPUTypesParams.Count", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Count: runpod.Ptr(2)})
			return err
		}},
		{"ListGPUTypesParams.Cloud", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, Cloud: runpod.Ptr(catalog.GPUCloudFilter("secure"))})
			return err
		}},
		{"ListGPUTypesParams.CountryCodes", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{CountryCodes: []string{"FR"}})
			return err
		}},
		{"ListGPUTypesParams.CountryCodes[1]", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, CountryCodes: []string{"FR", "de"}})
			return err
		}},
		{"ListGPUTypesParams.CUDAVersions[0]", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, CUDAVersions: []string{"12"}})
			return err
		}},
		{"ListGPUTypesParams.CUDAVersions", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, CUDAVersions: []string{"12.4"}, MinCUDAVersion: runpod.Ptr("12")})
			return err
		}},
		{"ListGPUTypesParams.MinCUDAVersion", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: prod, MinCUDAVersion: runpod.Ptr("12.x")})
			return err
		}},
		{"ListGPUTypesParams.MinCUDAVersion", func() error {
			_, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{MinCUDAVersion: runpod.Ptr("12.4")})
			return err
		}},
		{"GetGPUTypeParams.Product", func() error {
			_, err := rp.Catalog.GPUType(ctx, "NVIDIA L4", catalog.GetGPUTypeParams{Product: []catalog.Product{catalog.ProductServerless}})
			return err
		}},
		{"gpuTypeID", func() error {
			_, err := rp.Catalog.GPUType(ctx, " ", catalog.GetGPUTypeParams{})
			return err
		}},
		{"gpuTypeID", func() error {
			_, err := rp.Catalog.GPUType(ctx, "..", catalog.GetGPUTypeParams{})
			return err
		}},
		{"gpuTypeID", func() error {
			_, err := rp.Catalog.GPUType(ctx, "NVIDIA/L4", catalog.GetGPUTypeParams{})
			return err
		}},
		{"ListCPUTypesParams.Product", func() error {
			_, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Product: []catalog.CPUProduct{catalog.CPUProductServerless}})
			return err
		}},
		{"ListCPUTypesParams.Product[0]", func() error {
			_, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Include: cpuInc, Product: []catalog.CPUProduct{"CLUSTER"}})
			return err
		}},
		{"ListCPUTypesParams.VCPUCount", func() error {
			_, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Include: cpuInc, Product: cpuProd, VCPUCount: runpod.Ptr(6)})
			return err
		}},
		{"ListCPUTypesParams.VCPUCount", func() error {
			_, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Include: cpuInc, Product: cpuProd, VCPUCount: runpod.Ptr(1)})
			return err
		}},
		{"ListCPUTypesParams.VCPUCount", func() error {
			_, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{VCPUCount: runpod.Ptr(4)})
			return err
		}},
		{"GetCPUTypeParams.Include", func() error {
			_, err := rp.Catalog.CPUType(ctx, "cpu3c", catalog.GetCPUTypeParams{Include: two, Product: cpuProd})
			return err
		}},
		{"cpuTypeID", func() error {
			_, err := rp.Catalog.CPUType(ctx, "", catalog.GetCPUTypeParams{})
			return err
		}},
		{"ListDataCentersParams.Regions[0]", func() error {
			_, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{Regions: []catalog.DataCenterRegion{"EU"}})
			return err
		}},
		{"ListDataCentersParams.Include[0]", func() error {
			_, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{Include: []catalog.DataCenterInclude{"AVAILABILITY"}})
			return err
		}},
		{"ListDataCentersParams.NetworkVolumeTypes[0]", func() error {
			_, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{NetworkVolumeTypes: []catalog.VolumeType{"FAST"}})
			return err
		}},
		{"ListDataCentersParams.Compliance[1]", func() error {
			_, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{Compliance: []catalog.Compliance{catalog.ComplianceGDPR, "SOC2"}})
			return err
		}},
		{"GetDataCenterParams.Include[0]", func() error {
			_, err := rp.Catalog.DataCenter(ctx, "EU-RO-1", catalog.GetDataCenterParams{Include: []catalog.DataCenterInclude{"gpu"}})
			return err
		}},
		{"dataCenterID", func() error {
			_, err := rp.Catalog.DataCenter(ctx, "EU-RO-1\n", catalog.GetDataCenterParams{})
			return err
		}},
		{"ListPublicTemplatesParams.Source", func() error {
			_, err := rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{Source: runpod.Ptr(catalog.ListPublicTemplatesParamsSource("mine"))})
			return err
		}},
		{"GPUQuery.MinMemoryGB", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: -1})
			return err
		}},
		{"GPUQuery.Cloud", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{Cloud: "ALL"})
			return err
		}},
		{"GPUQuery.Count", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{Count: -2})
			return err
		}},
		{"GPUQuery.MaxPrice", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MaxPrice: -0.5})
			return err
		}},
		{"GPUQuery.MinCUDAVersion", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MinCUDAVersion: "v12"})
			return err
		}},
		{"GPUQuery.DataCenters[1]", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{DataCenters: []string{"EU-RO-1", ""}})
			return err
		}},
		{"GPUQuery.CountryCodes[0]", func() error {
			_, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{CountryCodes: []string{"ROU"}})
			return err
		}},
	}
	for _, c := range cases {
		err := c.call()
		var ve *errs.ValidationError
		if assert.ErrorAs(t, err, &ve, c.field) {
			assert.Equal(t, c.field, ve.Field)
			assert.ErrorIs(t, err, errs.ErrValidation)
		}
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}

// TestNotFound: an unknown id is a 404 problem, errs.ErrNotFound.
func TestNotFound(t *testing.T) {
	_, rp := fake(t)
	ctx := t.Context()
	calls := map[string]func() error{
		"GPUType": func() error {
			_, err := rp.Catalog.GPUType(ctx, "NVIDIA GeForce RTX 9090", catalog.GetGPUTypeParams{})
			return err
		},
		"CPUType": func() error {
			_, err := rp.Catalog.CPUType(ctx, "cpu99", catalog.GetCPUTypeParams{})
			return err
		},
		"DataCenter": func() error {
			_, err := rp.Catalog.DataCenter(ctx, "MARS-1", catalog.GetDataCenterParams{})
			return err
		},
	}
	for name, call := range calls {
		err := call()
		require.ErrorIs(t, err, errs.ErrNotFound, name)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr, name)
		assert.Equal(t, http.StatusNotFound, apiErr.StatusCode, name)
		assert.Contains(t, apiErr.Detail, "not found", name)
	}
}

// TestPermission: every route needs catalog:read.
func TestPermission(t *testing.T) {
	srv, _ := fake(t)
	rp, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionPodsRead)))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	_, err = rp.Catalog.GPUTypes(t.Context(), catalog.ListGPUTypesParams{})
	require.ErrorIs(t, err, errs.ErrForbidden)
	_, err = rp.Catalog.PublicTemplates(t.Context(), catalog.ListPublicTemplatesParams{})
	require.ErrorIs(t, err, errs.ErrForbidden)
}

// TestRetries: every call only reads, so a request whose answer was lost
// is sent again and the call succeeds.
func TestRetries(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	calls := []struct {
		route string
		call  func() error
	}{
		{runpodtest.RouteGPUTypes, func() error { _, err := rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{}); return err }},
		{runpodtest.RouteGPUType, func() error {
			_, err := rp.Catalog.GPUType(ctx, "NVIDIA L4", catalog.GetGPUTypeParams{})
			return err
		}},
		{runpodtest.RouteCPUTypes, func() error { _, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{}); return err }},
		{runpodtest.RouteCPUType, func() error { _, err := rp.Catalog.CPUType(ctx, "cpu3c", catalog.GetCPUTypeParams{}); return err }},
		{runpodtest.RouteDataCenters, func() error {
			_, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{})
			return err
		}},
		{runpodtest.RouteDataCenter, func() error {
			_, err := rp.Catalog.DataCenter(ctx, "US-TX-3", catalog.GetDataCenterParams{})
			return err
		}},
		{runpodtest.RoutePublicTemplates, func() error {
			_, err := rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{})
			return err
		}},
		{runpodtest.RouteGPUTypes, func() error { _, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{}); return err }},
	}
	for _, c := range calls {
		before := srv.Count(c.route)
		srv.FailNext(c.route, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
		require.NoError(t, c.call(), c.route)
		assert.Equal(t, 2, srv.Count(c.route)-before, "%s: sent again", c.route)

		srv.FailNext(c.route, 1, runpodtest.Fault{Status: http.StatusServiceUnavailable})
		require.NoError(t, c.call(), c.route)
	}
}

// TestEveryOperationKeepsTheDocument sends every catalog operation, with
// every parameter, through the fake, which checks each request and each
// response against the REST v2 document: none may be refused, and none
// may be a 500 (a response of the fake that breaks the document).
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	inc := []catalog.CatalogInclude{catalog.CatalogIncludeAvailability}
	for _, cloud := range []catalog.GPUCloudFilter{catalog.GPUCloudFilterSecure, catalog.GPUCloudFilterCommunity} {
		p := catalog.ListGPUTypesParams{Include: inc, Product: []catalog.Product{catalog.ProductPod, catalog.ProductCluster, catalog.ProductServerless},
			Count: runpod.Ptr(2), Cloud: runpod.Ptr(cloud), CountryCodes: []string{"US", "RO"}, CUDAVersions: []string{"12.8"}}
		_, err := rp.Catalog.GPUTypes(ctx, p)
		require.NoError(t, err)
		_, err = rp.Catalog.GPUType(ctx, "AMD Instinct MI300X OAM", catalog.GetGPUTypeParams(p))
		require.NoError(t, err)
	}
	_, err := rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Include: inc, Product: []catalog.CPUProduct{catalog.CPUProductPod, catalog.CPUProductServerless}, VCPUCount: runpod.Ptr(64)})
	require.NoError(t, err)
	_, err = rp.Catalog.CPUType(ctx, "cpu3m", catalog.GetCPUTypeParams{Include: inc, Product: []catalog.CPUProduct{catalog.CPUProductServerless}, VCPUCount: runpod.Ptr(2)})
	require.NoError(t, err)
	both := []catalog.DataCenterInclude{catalog.DataCenterIncludeGPUAvailability, catalog.DataCenterIncludeCPUAvailability}
	_, err = rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{Include: both})
	require.NoError(t, err)
	_, err = rp.Catalog.DataCenter(ctx, "CA-MTL-1", catalog.GetDataCenterParams{Include: both})
	require.NoError(t, err)
	for _, src := range []catalog.ListPublicTemplatesParamsSource{catalog.ListPublicTemplatesParamsSourceOfficial, catalog.ListPublicTemplatesParamsSourceVerified, catalog.ListPublicTemplatesParamsSourceCommunity} {
		_, err = rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{Source: runpod.Ptr(src)})
		require.NoError(t, err)
	}
	for _, r := range srv.Requests() {
		assert.Equal(t, http.StatusOK, r.Status, "%s %s", r.Route, r.RawQuery)
	}
	assert.False(t, errors.Is(err, errs.ErrValidation))
}
