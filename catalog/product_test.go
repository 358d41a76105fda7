package catalog_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
)

// TestAvailabilityGetsTheDefaultProduct: a read that asks for
// availability and names no product goes out with the default product
// (POD), which the platform requires; the caller's parameters are not
// changed, and a product the caller names goes out as it is.
func TestAvailabilityGetsTheDefaultProduct(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx := t.Context()
	inc := []catalog.CatalogInclude{catalog.CatalogIncludeAvailability}
	sent := func() string {
		t.Helper()
		r := last(srv)
		require.Less(t, r.Status, 300, "%s %s", r.Path, r.RawQuery)
		return r.Query.Get("product")
	}

	p := catalog.ListGPUTypesParams{Include: inc}
	gpus, err := rp.Catalog.GPUTypes(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "POD", sent())
	assert.Nil(t, p.Product, "the caller's parameters are not changed")
	require.NotEmpty(t, gpus)
	assert.NotNil(t, gpus[0].Availability, "the stock is there")

	_, err = rp.Catalog.GPUType(ctx, "NVIDIA L4", catalog.GetGPUTypeParams{Include: inc})
	require.NoError(t, err)
	assert.Equal(t, "POD", sent())

	_, err = rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{Include: inc, Product: []catalog.Product{catalog.ProductServerless}})
	require.NoError(t, err)
	assert.Equal(t, "SERVERLESS", sent())

	_, err = rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{Include: inc})
	require.NoError(t, err)
	assert.Equal(t, "POD", sent())
	_, err = rp.Catalog.CPUType(ctx, "cpu3c", catalog.GetCPUTypeParams{Include: inc})
	require.NoError(t, err)
	assert.Equal(t, "POD", sent())

	_, err = rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{})
	require.NoError(t, err)
	assert.NotContains(t, last(srv).Query, "product", "no availability, no product")

	assert.Equal(t, catalog.ProductPod, catalog.DefaultProduct)
	assert.Equal(t, catalog.CPUProductPod, catalog.DefaultCPUProduct)
}

// TestFakeRefusesProductMistakes: sent raw, availability without a
// product and a product without availability are refused by the fake with
// a 400 naming the product, as the platform's document says (400 either
// way).
func TestFakeRefusesProductMistakes(t *testing.T) {
	_, rp, _ := fixture.New(t)
	for path, want := range map[string]string{
		"/v2/catalog/gpus?include=AVAILABILITY":         "query.product: required with include=AVAILABILITY",
		"/v2/catalog/gpus/NVIDIA%20L4?product=POD":      "query.product: valid only with include=AVAILABILITY",
		"/v2/catalog/cpus?include=AVAILABILITY":         "query.product: required with include=AVAILABILITY",
		"/v2/catalog/cpus/cpu3c?product=POD,SERVERLESS": "query.product: valid only with include=AVAILABILITY",
	} {
		err := rp.Do(t.Context(), http.MethodGet, path, nil, nil)
		var ae *errs.APIError
		require.ErrorAs(t, err, &ae, path)
		assert.Equal(t, http.StatusBadRequest, ae.StatusCode, path)
		require.Len(t, ae.Errors, 1, path)
		assert.Contains(t, ae.Errors[0], want, path)
	}
}
