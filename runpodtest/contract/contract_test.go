package contract

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContractRefusesWhatTheDocumentRefuses: requests the published REST
// v2 document does not allow are answered as the platform answers them,
// naming the field: a CPU pod with memory (CreateCpuConfig has only id and
// vcpuCount), a body field of the wrong type, an unknown bucket size.
func TestContractRefusesWhatTheDocumentRefuses(t *testing.T) {
	createPod := contractRoute("POST /v2/pods")
	require.NotNil(t, createPod)
	billing := contractRoute("GET /v2/billing/serverless")
	require.NotNil(t, billing)
	assert.Nil(t, contractRoute("POST /graphql"), "GraphQL is not in the REST document")

	for _, tc := range []struct {
		name   string
		route  string
		method string
		target string
		body   string
		status int
		field  string
	}{
		{"cpu.memory on create", "POST /v2/pods", "POST", "/v2/pods", `{"name":"p","image":"x","computeType":"CPU","cpu":{"id":"cpu3c","vcpuCount":2,"memory":4}}`, 422, "$.cpu.memory"},
		{"wrong type", "POST /v2/pods", "POST", "/v2/pods", `{"name":5,"image":"x"}`, 422, "$.name"},
		{"unknown bucket", "GET /v2/billing/serverless", "GET", "/v2/billing/serverless?bucketSize=century", "", 400, "query.bucketSize"},
		{"lastN below 1", "GET /v2/billing/serverless", "GET", "/v2/billing/serverless?lastN=0", "", 400, "query.lastN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.target, bytes.NewReader([]byte(tc.body)))
			if tc.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			status, errs := checkRequest(r, contractRoute(tc.route), []byte(tc.body))
			assert.Equal(t, tc.status, status)
			require.NotEmpty(t, errs)
			assert.Contains(t, errs[0], tc.field)
		})
	}

	r := httptest.NewRequest("POST", "/v2/pods", bytes.NewReader([]byte(`{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2}}`)))
	r.Header.Set("Content-Type", "application/json")
	status, errs := checkRequest(r, createPod, []byte(`{"name":"p","image":"x","cpu":{"id":"cpu3c","vcpuCount":2}}`))
	assert.Zero(t, status, "a request the document allows passes")
	assert.Empty(t, errs)
}

// TestContractCatchesTheFakesMistakes: a response that breaks the
// document is named by the rule it breaks; one that keeps it passes.
func TestContractCatchesTheFakesMistakes(t *testing.T) {
	route := contractRoute("GET /v2/billing/serverless")
	r := httptest.NewRequest("GET", "/v2/billing/serverless", nil)
	header := http.Header{"Content-Type": {"application/json"}}
	assert.NotEmpty(t, checkResponse(r, route, nil, http.StatusOK, header, []byte(`{"records":"not a list"}`)))
}

// TestContractEmptySchemaAllowsAnyValue: an empty schema ({}) allows every
// value, null included, as OpenAPI 3.1 says (a release diff's "old" is
// null when the setting was added); what has a schema is still checked.
func TestContractEmptySchemaAllowsAnyValue(t *testing.T) {
	route := contractRoute("GET /v2/serverless/{id}/releases")
	require.NotNil(t, route)
	r := httptest.NewRequest("GET", "/v2/serverless/ep1/releases", nil)
	r.SetPathValue("id", "ep1")
	const body = `{"endpointVersion":2,"rollout":{"inProgress":false,"workersOnLatest":0,"workersTotal":0,"percentOnLatest":0},` +
		`"releases":[{"id":"r1","version":2,"source":"MANUAL","buildId":null,"createdByUserId":null,"workerCount":0,` +
		`"createdAt":"2026-06-01T12:00:00Z","diff":[{"field":"a","old":null,"new":1},{"field":"b","old":"x","new":null},` +
		`{"field":"c","old":[1],"new":{"k":true}}]}]}`
	header := http.Header{"Content-Type": {"application/json"}}
	assert.Empty(t, checkResponse(r, route, nil, http.StatusOK, header, []byte(body)))
	assert.NotEmpty(t, checkResponse(r, route, nil, http.StatusOK, header, []byte(strings.Replace(body, `"field":"a"`, `"field":5`, 1))))
}
