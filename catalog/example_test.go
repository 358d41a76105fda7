package catalog_test

import (
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Find the GPU types with at least 48 GB that are in stock in two European
// data centers, cheapest first, on the fake platform's default catalog.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	offers, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{
		MinMemoryGB: 48,
		DataCenters: []string{"EU-RO-1", "EU-SE-1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range offers {
		fmt.Printf("%-9s %3d GB  $%.2f/h  %v\n", o.GPU.Name, o.GPU.Memory, o.Price, o.DataCenterIDs())
	}
	// The cheapest one's id and data centers are what a pod is created with.
	best := offers[0]
	fmt.Printf("pods.CreateGPUConfig{ID: %q}, DataCenterIDs: %q\n", best.GPU.ID, best.DataCenterIDs())
	// Output:
	// RTX A6000  48 GB  $0.49/h  [EU-RO-1]
	// L40S       48 GB  $0.86/h  [EU-SE-1 EU-RO-1]
	// A100 PCIe  80 GB  $1.64/h  [EU-RO-1]
	// H100 SXM   80 GB  $2.99/h  [EU-SE-1]
	// pods.CreateGPUConfig{ID: "NVIDIA RTX A6000"}, DataCenterIDs: ["EU-RO-1"]
}

// Read the stock of one GPU type for pods on community cloud, in France
// or Romania.
func ExampleService_GPUType() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()

	g, err := rp.Catalog.GPUType(context.Background(), "NVIDIA GeForce RTX 4090", catalog.GetGPUTypeParams{
		Include:      []catalog.CatalogInclude{catalog.CatalogIncludeAvailability},
		Product:      []catalog.Product{catalog.ProductPod},
		Cloud:        runpod.Ptr(catalog.GPUCloudFilterCommunity),
		CountryCodes: []string{"FR", "RO"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: $%.2f/h on community cloud, %s\n", g.Name, g.Price.Community, *g.Availability)
	for _, d := range g.DataCenters {
		fmt.Println(d.ID, d.Availability)
	}
	// Output:
	// RTX 4090: $0.34/h on community cloud, HIGH
	// EU-RO-1 HIGH
}

// List the data centers in Europe that hold a GDPR certification and offer
// high-performance network volumes.
func ExampleService_DataCenters() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()

	dcs, err := rp.Catalog.DataCenters(context.Background(), catalog.ListDataCentersParams{
		Regions:            []catalog.DataCenterRegion{catalog.DataCenterRegionEurope},
		Compliance:         []catalog.Compliance{catalog.ComplianceGDPR},
		NetworkVolumeTypes: []catalog.VolumeType{catalog.VolumeTypeHighPerformance},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range dcs {
		fmt.Println(d.ID, d.Name, d.GlobalNetwork)
	}
	// Output:
	// EU-RO-1 EU Romania 1 true
}

// List the platform's own public templates, pod and serverless.
func ExampleService_PublicTemplates() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()

	templates, err := rp.Catalog.PublicTemplates(context.Background(), catalog.ListPublicTemplatesParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range templates {
		fmt.Println(t.ID, t.Serverless)
	}
	// Output:
	// runpod-torch-v240 false
	// runpod-ubuntu false
	// runpod-vllm-worker true
}
