package runpodtest_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestCatalogRefusals: the rules the document says the platform applies
// to the catalog's queries, beyond its schema, answered as 400 problems
// naming the parameter; nothing else is refused.
func TestCatalogRefusals(t *testing.T) {
	srv := newServer(t)
	auth := []string{"Authorization", "Bearer " + srv.APIKey}
	const avail = "include=AVAILABILITY&product=POD"
	for _, c := range []struct{ query, param string }{
		{"/v2/catalog/gpus?include=AVAILABILITY", "product"},
		{"/v2/catalog/gpus?product=POD", "product"},
		{"/v2/catalog/gpus?count=2", "count"},
		{"/v2/catalog/gpus?cloud=COMMUNITY", "cloud"},
		{"/v2/catalog/gpus?countryCodes=FR", "countryCodes"},
		{"/v2/catalog/gpus?cudaVersions=12.4", "cudaVersions"},
		{"/v2/catalog/gpus/NVIDIA%20L4?minCudaVersion=12", "minCudaVersion"},
		{"/v2/catalog/gpus?" + avail + "&cudaVersions=12.4&minCudaVersion=12", "cudaVersions"},
		{"/v2/catalog/gpus?" + avail + "&countryCodes=fr", "countryCodes"},
		{"/v2/catalog/gpus?include=AVAILABILITY,AVAILABILITY&product=POD", "include"},
		{"/v2/catalog/cpus?include=AVAILABILITY", "product"},
		{"/v2/catalog/cpus/cpu3c?vcpuCount=4", "vcpuCount"},
		{"/v2/catalog/cpus?" + avail + "&vcpuCount=6", "vcpuCount"},
		{"/v2/catalog/cpus?" + avail + "&vcpuCount=1", "vcpuCount"},
		{"/v2/catalog/datacenters?regions=EU", "regions"},
		{"/v2/catalog/templates?source=mine", "source"},
	} {
		resp, body := get(t, srv.URL+c.query, auth...)
		require.Equal(t, 400, resp.StatusCode, "%s: %s", c.query, body)
		assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
		var p struct{ Errors []string }
		require.NoError(t, json.Unmarshal([]byte(body), &p))
		require.NotEmpty(t, p.Errors, c.query)
		assert.Contains(t, p.Errors[0], "query."+c.param, c.query)
	}
	for _, path := range []string{"/v2/catalog/gpus/NVIDIA%20RTX%209090", "/v2/catalog/cpus/cpu99", "/v2/catalog/datacenters/MARS-1"} {
		resp, body := get(t, srv.URL+path, auth...)
		assert.Equal(t, 404, resp.StatusCode, path)
		assert.Contains(t, body, "not found", path)
	}
	resp, _ := get(t, srv.URL+"/v2/catalog/gpus/NVIDIA%20L4?"+avail+"&count=2&cloud=SECURE&countryCodes=US&minCudaVersion=12", auth...)
	assert.Equal(t, 200, resp.StatusCode)
}

// TestCatalogFixtures: what AddGPUType and its siblings fill in, replace
// and report.
func TestCatalogFixtures(t *testing.T) {
	srv := newServer(t, runpodtest.WithEmptyCatalog())
	auth := []string{"Authorization", "Bearer " + srv.APIKey}
	for _, path := range []string{"/v2/catalog/gpus", "/v2/catalog/cpus", "/v2/catalog/datacenters"} {
		_, body := get(t, srv.URL+path, auth...)
		assert.Regexp(t, `^\{"[a-zA-Z]+":\[\],"pagination":\{"nextCursor":null,"hasNextPage":false\}\}\n$`, body, path)
	}
	_, body := get(t, srv.URL+"/v2/catalog/templates", auth...)
	assert.Equal(t, "{\"templates\":[]}\n", body, "a list that is not paged carries no pagination")

	id := srv.AddGPUType(runpodtest.GPUType{MemoryGB: 40, SecurePrice: 1,
		DataCenters: map[string]catalog.AvailabilityLevel{"XX-NEW-1": catalog.AvailabilityLevelLow}})
	assert.NotEmpty(t, id)
	_, body = get(t, srv.URL+"/v2/catalog/gpus?include=AVAILABILITY&product=POD", auth...)
	assert.JSONEq(t, `{"gpus":[{"id":"`+id+`","name":"`+id+`","pool":null,"manufacturer":"NVIDIA","memory":40,"secure":true,"community":false,
		"price":{"secure":1,"community":0},"maxCount":{"secure":8,"community":0},"availability":"LOW",
		"dataCenters":[{"id":"XX-NEW-1","name":"XX-NEW-1","availability":"LOW"}]}],"pagination":{"nextCursor":null,"hasNextPage":false}}`, body, "defaults, and a data center the catalog lacks named by its id")

	assert.Equal(t, id, srv.AddGPUType(runpodtest.GPUType{ID: id, Name: "Renamed", MemoryGB: 40, CommunityPrice: 0.5, MaxCommunity: 2}))
	_, body = get(t, srv.URL+"/v2/catalog/gpus", auth...)
	assert.JSONEq(t, `{"gpus":[{"id":"`+id+`","name":"Renamed","pool":null,"manufacturer":"NVIDIA","memory":40,"secure":false,"community":true,
		"price":{"secure":0,"community":0.5},"maxCount":{"secure":0,"community":2}}],"pagination":{"nextCursor":null,"hasNextPage":false}}`, body, "replaced by id")

	dc := srv.AddDataCenter(runpodtest.DataCenter{Name: "Somewhere"})
	_, body = get(t, srv.URL+"/v2/catalog/datacenters/"+dc, auth...)
	assert.JSONEq(t, `{"id":"`+dc+`","name":"Somewhere","region":"UNKNOWN","globalNetwork":false,"networkVolumeTypes":[],"compliance":[]}`, body)

	cpu := srv.AddCPUType(runpodtest.CPUType{SecurePricePerVCPU: 0.1})
	_, body = get(t, srv.URL+"/v2/catalog/cpus/"+cpu, auth...)
	assert.JSONEq(t, `{"id":"`+cpu+`","name":"`+cpu+`","group":"","vcpu":{"min":2,"max":32},"ramGbPerVcpu":2,
		"price":{"securePerVcpu":0.1,"serverlessPerVcpu":0}}`, body)

	tpl := srv.AddPublicTemplate(runpodtest.PublicTemplate{Name: "t", Image: "img"})
	_, body = get(t, srv.URL+"/v2/catalog/templates", auth...)
	assert.JSONEq(t, `{"templates":[{"id":"`+tpl+`","name":"t","image":"img","args":"","disk":20,"mounts":{},"ports":[],"env":{},
		"registry":null,"serverless":false,"public":true,"category":"NVIDIA","startSsh":false,"startJupyter":false,"allowedCudaVersions":[]}]}`, body)
	for _, r := range srv.Requests() {
		assert.Equal(t, 200, r.Status, r.Path)
	}
}
