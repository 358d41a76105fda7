package runpod_test

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/serverless"
)

// operations maps every operation of the platform's REST v2 document to
// the SDK method that calls it, as a path from runpod.Client: a field,
// then fields of the service, then the method. Every one of them goes
// over REST v2 (TestEndpointOperationsGoOverREST checks the endpoint
// operations, which the seed served over GraphQL).
var operations = map[string]string{
	"getSshKeys":    "Account.SSHKeys",
	"updateSshKeys": "Account.SetSSHKeys",

	"listBilling":              "Billing.Summary",
	"listClusterBilling":       "Billing.Clusters",
	"listEndpointBilling":      "Billing.Endpoints",
	"listNetworkVolumeBilling": "Billing.NetworkVolumes",
	"listPodBilling":           "Billing.Pods",
	"listServerlessBilling":    "Billing.Serverless",

	"listCpuTypes":        "Catalog.CPUTypes",
	"getCpuType":          "Catalog.CPUType",
	"listDataCenters":     "Catalog.DataCenters",
	"getDataCenter":       "Catalog.DataCenter",
	"listGpuTypes":        "Catalog.GPUTypes",
	"getGpuType":          "Catalog.GPUType",
	"listPublicTemplates": "Catalog.PublicTemplates",

	"listClusters":    "Clusters.List",
	"createCluster":   "Clusters.Create",
	"deleteCluster":   "Clusters.Delete",
	"getCluster":      "Clusters.Get",
	"updateCluster":   "Clusters.Update",
	"listClusterPods": "Clusters.Pods",

	"listGlobalVolumes":  "GlobalVolumes.List",
	"createGlobalVolume": "GlobalVolumes.Create",
	"deleteGlobalVolume": "GlobalVolumes.Delete",
	"getGlobalVolume":    "GlobalVolumes.Get",
	"updateGlobalVolume": "GlobalVolumes.Rename",

	"listSecrets":  "Secrets.List", // and Find, with the name filter
	"createSecret": "Secrets.Create",
	"deleteSecret": "Secrets.Delete",
	"getSecret":    "Secrets.Get",
	"updateSecret": "Secrets.Rotate", // and SetDescription

	"listNetworkVolumes":  "Volumes.List",
	"createNetworkVolume": "Volumes.Create",
	"deleteNetworkVolume": "Volumes.Delete",
	"getNetworkVolume":    "Volumes.Get",
	"updateNetworkVolume": "Volumes.Update",

	"listPods":   "Pods.List",
	"createPod":  "Pods.Create",
	"deletePod":  "Pods.Delete",
	"getPod":     "Pods.Get",
	"updatePod":  "Pods.Update",
	"podAction":  "Pods.Start", // and Stop, Restart; Terminate is deletePod's
	"getPodLogs": "Pods.Logs",

	"listRegistries":   "Registries.List",
	"createRegistry":   "Registries.Create",
	"listDelegations":  "Registries.ListDelegations",
	"createDelegation": "Registries.CreateDelegation",
	"revokeDelegation": "Registries.RevokeDelegation",
	"deleteRegistry":   "Registries.Delete",
	"getRegistry":      "Registries.Get",

	"listEndpoints":        "Serverless.Endpoints.List",
	"createEndpoint":       "Serverless.Endpoints.Create",
	"deleteEndpoint":       "Serverless.Endpoints.Delete", // and DeleteNow, without Delete's check
	"getEndpoint":          "Serverless.Endpoints.Get",
	"updateEndpoint":       "Serverless.Endpoints.Update",
	"listEndpointReleases": "Serverless.Endpoints.Releases",
	"listEndpointWorkers":  "Serverless.Endpoints.Workers",
	"getWorkerLogs":        "Serverless.Endpoints.WorkerLogs",
	"listEndpointBuilds":   "Serverless.Endpoints.Builds",
	"getEndpointBuild":     "Serverless.Endpoints.Build",

	"listSandboxes":    "Sandboxes.List",
	"createSandbox":    "Sandboxes.Create",
	"getSandbox":       "Sandboxes.Get",
	"terminateSandbox": "Sandboxes.Terminate",
	"execSandbox":      "Sandboxes.Exec",
	"getSandboxLogs":   "Sandboxes.Logs",

	"listTemplates":  "Templates.List",
	"createTemplate": "Templates.Create",
	"deleteTemplate": "Templates.Delete",
	"getTemplate":    "Templates.Get",
	"updateTemplate": "Templates.Update",
}

// TestEveryOperationHasAMethod reads the operations from the REST v2
// document the SDK is generated from, and fails on any that has no SDK
// method, or whose method does not exist.
func TestEveryOperationHasAMethod(t *testing.T) {
	raw, err := os.ReadFile("internal/apispec/rest-v2.json")
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	var ids []string
	for _, item := range doc.Paths {
		for method, body := range item {
			if !slices.Contains([]string{"get", "post", "put", "patch", "delete"}, method) {
				continue // parameters, servers, …
			}
			var op struct {
				OperationID string `json:"operationId"`
			}
			require.NoError(t, json.Unmarshal(body, &op))
			ids = append(ids, op.OperationID)
		}
	}
	require.GreaterOrEqual(t, len(ids), 50, "the document's operations were read")
	client := reflect.TypeFor[runpod.Client]()
	for _, id := range ids {
		path, ok := operations[id]
		if !assert.True(t, ok, "operation %s has no SDK method", id) {
			continue
		}
		assert.True(t, hasMethod(client, strings.Split(path, ".")), "operation %s: no method %s", id, path)
	}
	for id := range operations {
		assert.Contains(t, ids, id, "the table names an operation the document does not have")
	}
}

// TestEndpointOperationsGoOverREST sends each of the five endpoint
// operations through the fake, with its GraphQL API retired (410) and the
// document's contract checked on every request and response: each one is
// answered by its REST v2 route.
func TestEndpointOperationsGoOverREST(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")
	rp, err := srv.NewClient()
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	ctx := t.Context()
	eps := rp.Serverless.Endpoints

	ep, err := eps.Create(ctx, serverless.CreateEndpointRequest{Name: "ops", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr("tmpl-1"),
		GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}}, Scaling: serverless.ScaleByQueueDelay(4)})
	require.NoError(t, err)
	_, err = eps.List(ctx)
	require.NoError(t, err)
	_, err = eps.Get(ctx, ep.ID)
	require.NoError(t, err)
	_, err = eps.Update(ctx, ep.ID, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(0)}})
	require.NoError(t, err)
	require.NoError(t, eps.Delete(ctx, ep.ID))

	routes := map[string]int{}
	for _, r := range srv.Requests() {
		routes[r.Route]++
		assert.Less(t, r.Status, 300, "%s %s answered %d", r.Method, r.Path, r.Status)
	}
	for _, route := range []string{"POST /v2/serverless", "GET /v2/serverless", "GET /v2/serverless/{id}", "PATCH /v2/serverless/{id}", "DELETE /v2/serverless/{id}"} {
		assert.Positive(t, routes[route], route)
	}
	assert.Zero(t, routes[fakegraphql.Route])
}

// hasMethod follows fields of struct types (through pointers) and reports
// whether the last name is a method of the type reached.
func hasMethod(t reflect.Type, path []string) bool {
	for len(path) > 1 {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f, ok := t.FieldByName(path[0])
		if !ok {
			return false
		}
		t, path = f.Type, path[1:]
	}
	if t.Kind() != reflect.Pointer {
		t = reflect.PointerTo(t)
	}
	_, ok := t.MethodByName(path[0])
	return ok
}

// pagedOperations maps every operation the REST v2 document pages (a
// cursor query parameter) to the iterator that walks it one page at a
// time; the List method of the operations table reads every page. Each is
// read across pages in TestListsFollowPages, TestEveryListFollowsPages or
// serverless's TestWorkersAndReleasesReadEveryPage.
var pagedOperations = map[string]string{
	"listGlobalVolumes":    "GlobalVolumes.All",
	"listPods":             "Pods.All",
	"listClusters":         "Clusters.All",
	"listClusterPods":      "Clusters.AllPods",
	"listNetworkVolumes":   "Volumes.All",
	"listRegistries":       "Registries.All",
	"listDelegations":      "Registries.AllDelegations",
	"listEndpoints":        "Serverless.Endpoints.All",
	"listEndpointReleases": "Serverless.Endpoints.AllReleases",
	"listEndpointWorkers":  "Serverless.Endpoints.AllWorkers",
	"listTemplates":        "Templates.All",
	"listSandboxes":        "Sandboxes.All",
	"listGpuTypes":         "Catalog.AllGPUTypes",
	"listCpuTypes":         "Catalog.AllCPUTypes",
	"listDataCenters":      "Catalog.AllDataCenters",
}

// TestEveryPagedOperationHasAnIterator reads the operations the document
// pages and fails on one without an iterator in pagedOperations (a list
// the document started paging since), or on an entry the document does
// not page.
func TestEveryPagedOperationHasAnIterator(t *testing.T) {
	raw, err := os.ReadFile("internal/apispec/rest-v2.json")
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	var paged []string
	for _, item := range doc.Paths {
		for method, body := range item {
			if method != "get" {
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
				Parameters  []struct {
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			}
			require.NoError(t, json.Unmarshal(body, &op))
			if slices.ContainsFunc(op.Parameters, func(p struct {
				Name string `json:"name"`
				In   string `json:"in"`
			}) bool {
				return p.In == "query" && p.Name == "cursor"
			}) {
				paged = append(paged, op.OperationID)
			}
		}
	}
	want := slices.Sorted(maps.Keys(pagedOperations))
	slices.Sort(paged)
	require.Equal(t, want, paged, "the operations the document pages")
	client := reflect.TypeFor[runpod.Client]()
	for id, path := range pagedOperations {
		assert.True(t, hasMethod(client, strings.Split(path, ".")), "operation %s: no iterator %s", id, path)
	}
}
