package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// findFake is a fake with a catalog of its own: two European data centers
// and one American, and GPU types chosen so that each rule of FindGPUs
// decides about one of them.
func findFake(t *testing.T) (*runpodtest.Server, *catalog.Service) {
	t.Helper()
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithEmptyCatalog()))
	srv.AddDataCenter(runpodtest.DataCenter{ID: "EU-RO-1", Name: "EU Romania 1", Region: catalog.DataCenterRegionEurope, Country: "RO"})
	srv.AddDataCenter(runpodtest.DataCenter{ID: "EU-SE-1", Name: "EU Sweden 1", Region: catalog.DataCenterRegionEurope, Country: "SE"})
	srv.AddDataCenter(runpodtest.DataCenter{ID: "US-TX-3", Name: "US Texas 3", Region: catalog.DataCenterRegionNorthAmerica, Country: "US"})
	type stock = map[string]catalog.AvailabilityLevel
	const none, low, medium, high = catalog.AvailabilityLevelNone, catalog.AvailabilityLevelLow, catalog.AvailabilityLevelMedium, catalog.AvailabilityLevelHigh
	cuda := []string{"12.4", "12.8"}
	for _, g := range []runpodtest.GPUType{
		// Too little memory, cheapest of all.
		{ID: "small-24", MemoryGB: 24, SecurePrice: 0.20, CommunityPrice: 0.10, CUDAVersions: cuda, DataCenters: stock{"EU-RO-1": high}},
		// Enough memory: the cheap one on secure cloud, dear on community.
		{ID: "mid-48", MemoryGB: 48, SecurePrice: 0.50, CommunityPrice: 0.90, CUDAVersions: cuda, DataCenters: stock{"EU-SE-1": low, "EU-RO-1": high, "US-TX-3": medium}},
		// The same secure price: ties are broken by id.
		{ID: "alt-48", MemoryGB: 48, SecurePrice: 0.50, CUDAVersions: cuda, DataCenters: stock{"EU-SE-1": medium}},
		// Cheap on community, and secure only in America.
		{ID: "big-80", MemoryGB: 80, SecurePrice: 1.60, CommunityPrice: 0.40, MaxCommunity: 2, CUDAVersions: cuda, DataCenters: stock{"EU-RO-1": low, "US-TX-3": high}},
		// Offered in Europe, but none free now.
		{ID: "sold-out-96", MemoryGB: 96, SecurePrice: 0.30, CUDAVersions: cuda, DataCenters: stock{"EU-RO-1": none, "EU-SE-1": none}},
		// Secure only, dear, and without CUDA (AMD).
		{ID: "amd-192", Manufacturer: catalog.GPUManufacturerAMD, MemoryGB: 192, SecurePrice: 2.50, DataCenters: stock{"EU-SE-1": high}},
		// Old CUDA only.
		{ID: "old-48", MemoryGB: 48, SecurePrice: 0.45, CUDAVersions: []string{"11.8"}, DataCenters: stock{"EU-RO-1": high}},
	} {
		srv.AddGPUType(g)
	}
	return srv, rp.Catalog
}

func offerIDs(offers []catalog.GPUOffer) []string {
	out := []string{}
	for _, o := range offers {
		out = append(out, o.GPU.ID)
	}
	return out
}

func TestFindGPUs(t *testing.T) {
	srv, cat := findFake(t)
	ctx := t.Context()
	europe := []string{"EU-RO-1", "EU-SE-1"}

	offers, err := cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 48, DataCenters: europe})
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteGPUTypes, r.Route)
	assert.Equal(t, "include=AVAILABILITY&product=POD&cloud=SECURE", r.RawQuery, "stock for pods on secure cloud, asked of the platform")
	require.Equal(t, []string{"old-48", "alt-48", "mid-48", "big-80", "amd-192"}, offerIDs(offers),
		"cheapest first, ties by id; small-24 too small, sold-out-96 without stock")
	assert.InDelta(t, 0.45, offers[0].Price, 1e-9)
	mid := offers[2]
	assert.InDelta(t, 0.50, mid.Price, 1e-9, "the secure price")
	assert.Equal(t, []string{"EU-RO-1", "EU-SE-1"}, mid.DataCenterIDs(), "the asked data centers in stock, most available first; not US-TX-3")
	assert.Equal(t, catalog.AvailabilityLevelHigh, mid.DataCenters[0].Availability)
	assert.Equal(t, 48, mid.GPU.Memory)
	assert.Equal(t, []string{"EU-RO-1"}, offers[3].DataCenterIDs())

	// Community cloud: its prices, and only the types it offers.
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 48, DataCenters: europe, Cloud: catalog.GPUCloudFilterCommunity})
	require.NoError(t, err)
	assert.Equal(t, "include=AVAILABILITY&product=POD&cloud=COMMUNITY", last(srv).RawQuery)
	require.Equal(t, []string{"big-80", "mid-48"}, offerIDs(offers))
	assert.InDelta(t, 0.40, offers[0].Price, 1e-9)
	assert.InDelta(t, 0.90, offers[1].Price, 1e-9)

	// A price cap, per GPU and hour.
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 48, DataCenters: europe, MaxPrice: 0.50})
	require.NoError(t, err)
	assert.Equal(t, []string{"old-48", "alt-48", "mid-48"}, offerIDs(offers))

	// More GPUs than community machines of big-80 hold: the platform
	// counts no stock for it.
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 48, Cloud: catalog.GPUCloudFilterCommunity, Count: 4})
	require.NoError(t, err)
	assert.Equal(t, "include=AVAILABILITY&product=POD&count=4&cloud=COMMUNITY", last(srv).RawQuery)
	assert.Equal(t, []string{"mid-48"}, offerIDs(offers))

	// No data centers named: stock anywhere; countries and a CUDA floor
	// are the platform's filters.
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 80})
	require.NoError(t, err)
	assert.Equal(t, []string{"big-80", "amd-192"}, offerIDs(offers))
	assert.Equal(t, []string{"US-TX-3", "EU-RO-1"}, offers[0].DataCenterIDs(), "most available first")
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{CountryCodes: []string{"US"}, MinCUDAVersion: "12.8"})
	require.NoError(t, err)
	assert.Equal(t, "include=AVAILABILITY&product=POD&cloud=SECURE&countryCodes=US&minCudaVersion=12.8", last(srv).RawQuery)
	assert.Equal(t, []string{"mid-48", "big-80"}, offerIDs(offers))
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 48, MinCUDAVersion: "12"})
	require.NoError(t, err)
	assert.NotContains(t, offerIDs(offers), "old-48")
	assert.NotContains(t, offerIDs(offers), "amd-192", "no CUDA at all")

	// Nothing fits: an empty result, not an error; a data center the
	// catalog lacks matches nothing.
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 500})
	require.NoError(t, err)
	assert.Empty(t, offers)
	offers, err = cat.FindGPUs(ctx, catalog.GPUQuery{DataCenters: []string{"EU-XX-9"}})
	require.NoError(t, err)
	assert.Empty(t, offers)
}

// TestFindGPUsServerlessPrice: a serverless budget is compared with the
// pool's price, not a pod's (item 17: an L4 is $0.43 for a pod and $1.10
// for a serverless worker), and types in no pool are left out.
func TestFindGPUsServerlessPrice(t *testing.T) {
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithEmptyCatalog()))
	srv.AddDataCenter(runpodtest.DataCenter{ID: "EU-RO-1", Name: "EU Romania 1", Region: catalog.DataCenterRegionEurope, Country: "RO"})
	high := map[string]catalog.AvailabilityLevel{"EU-RO-1": catalog.AvailabilityLevelHigh}
	srv.AddGPUType(runpodtest.GPUType{ID: "NVIDIA L4", MemoryGB: 24, Pool: "ADA_24", SecurePrice: 0.43, ServerlessPrice: 1.10, CUDAVersions: []string{"12.8"}, DataCenters: high})
	srv.AddGPUType(runpodtest.GPUType{ID: "pod-only", MemoryGB: 24, SecurePrice: 0.20, CUDAVersions: []string{"12.8"}, DataCenters: high})
	ctx := t.Context()

	pod, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MaxPrice: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{"pod-only", "NVIDIA L4"}, offerIDs(pod))

	worker, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{Product: catalog.ProductServerless, MaxPrice: 0.5})
	require.NoError(t, err)
	assert.Empty(t, worker, "$1.10 is over a $0.50 budget")

	worker, err = rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{Product: catalog.ProductServerless, MaxPrice: 1.5})
	require.NoError(t, err)
	require.Equal(t, []string{"NVIDIA L4"}, offerIDs(worker), "a type in no pool has no serverless price")
	assert.Equal(t, 1.10, worker[0].Price)
	require.NotNil(t, worker[0].GPU.Pool)
	var pool catalog.GPUPool = *worker[0].GPU.Pool // typed, not a *string
	assert.Equal(t, catalog.GPUPool("ADA_24"), pool)

	for field, q := range map[string]catalog.GPUQuery{
		"GPUQuery.Product": {Product: catalog.ProductCluster},
		"GPUQuery.Cloud":   {Product: catalog.ProductServerless, Cloud: catalog.GPUCloudFilterCommunity},
	} {
		_, err := rp.Catalog.FindGPUs(ctx, q)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
	}
}
