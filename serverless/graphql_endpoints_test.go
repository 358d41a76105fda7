package serverless_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
)

func fake(t *testing.T, opts ...runpod.Option) (*runpodtest.Server, *runpod.Client, *testkit.Lines) {
	t.Helper()
	srv := runpodtest.NewServer(runpodtest.WithWorkerDrain(50 * time.Millisecond))
	t.Cleanup(srv.Close)
	srv.AddTemplate("tmpl-1", "tmpl-2")
	log, lines := testkit.Logger()
	rp, err := srv.NewClient(append([]runpod.Option{runpod.WithLogger(log), runpod.WithBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp, lines
}

func fullSpec() serverless.GraphQLEndpointParams {
	return serverless.GraphQLEndpointParams{
		Name:             "my-endpoint",
		TemplateID:       "tmpl-1",
		GPUs:             []serverless.GPUPool{serverless.Ada24, serverless.Ampere24},
		Locations:        []serverless.Location{serverless.US, serverless.CZ},
		IdleTimeout:      runpod.Ptr(77),
		FlashBoot:        serverless.FlashBootOn,
		ScalerType:       serverless.RequestCount,
		ScalerValue:      runpod.Ptr(7),
		WorkersMin:       runpod.Ptr(0),
		WorkersMax:       runpod.Ptr(4),
		NetworkVolumeID:  "vol-1",
		NetworkVolumeIDs: []string{"vol-2"},
		GPUCount:         runpod.Ptr(2),
		ExecutionTimeout: runpod.Ptr(90 * time.Second),
		MinCUDAVersion:   "12.4",
		ModelReferences:  []string{"org/model"},
	}
}

type wireBody struct {
	Query         string          `json:"query"`
	Variables     json.RawMessage `json:"variables"`
	OperationName string          `json:"operationName"`
}

// graphqlBodies returns the GraphQL requests the fake received, in order.
func graphqlBodies(t *testing.T, srv *runpodtest.Server) ([]wireBody, []runpodtest.Request) {
	var bodies []wireBody
	var reqs []runpodtest.Request
	for _, r := range srv.Requests() {
		if r.Route != runpodtest.RouteGraphQL {
			continue
		}
		var b wireBody
		require.NoError(t, json.Unmarshal(r.Body, &b))
		bodies = append(bodies, b)
		reqs = append(reqs, r)
	}
	return bodies, reqs
}

// saveDocument is the document SaveEndpoint sends: fields inline, as the
// platform's own clients write them, with no fragment naming the
// platform's return type.
const saveDocument = `
mutation SaveEndpoint ($input: EndpointInput!) {
	saveEndpoint(input: $input) {
		id
		name
		templateId
		gpuIds
		type
		idleTimeout
		locations
		flashBootType
		scalerType
		scalerValue
		workersMin
		workersMax
		networkVolumeId
		networkVolumeIds {
			networkVolumeId
			dataCenterId
		}
		gpuCount
		instanceIds
		executionTimeoutMs
		minCudaVersion
		modelReferences
		pods {
			desiredStatus
		}
	}
}
`

// TestCreateOnTheWire: the exact document and variables, the api_key in
// the query string, JSON content; zeros that were set reach the server,
// unset fields do not.
func TestCreateOnTheWire(t *testing.T) {
	srv, rp, lines := fake(t)
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err)
	assert.NotEmpty(t, ep.ID)

	bodies, reqs := graphqlBodies(t, srv)
	require.Len(t, bodies, 1)
	assert.Equal(t, "SaveEndpoint", bodies[0].OperationName)
	assert.Equal(t, saveDocument, bodies[0].Query)
	assert.JSONEq(t, `{"input":{"name":"my-endpoint","templateId":"tmpl-1","gpuIds":"ADA_24,AMPERE_24","idleTimeout":77,
		"locations":"US,CZ","flashBootType":"FLASHBOOT","scalerType":"REQUEST_COUNT","scalerValue":7,"workersMin":0,"workersMax":4,
		"networkVolumeId":"vol-1","networkVolumeIds":[{"networkVolumeId":"vol-2"}],"gpuCount":2,"executionTimeoutMs":90000,
		"minCudaVersion":"12.4","modelReferences":["org/model"]}}`, string(bodies[0].Variables))
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "/graphql", reqs[0].Path)
	assert.Equal(t, "api_key=[REDACTED]", reqs[0].RawQuery)
	assert.Equal(t, "api_key", reqs[0].Auth)
	assert.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
	assert.Empty(t, reqs[0].Header.Get("Authorization"))
	assert.Contains(t, lines.String(), "path=/graphql")
	assert.NotContains(t, lines.String(), "api_key")

	// A minimal spec sends only the required fields.
	_, err = rp.Serverless.Endpoints.Create(t.Context(), serverless.GraphQLEndpointParams{Name: "min", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.Ampere16}})
	require.NoError(t, err)
	bodies, _ = graphqlBodies(t, srv)
	assert.JSONEq(t, `{"input":{"name":"min","templateId":"tmpl-1","gpuIds":"AMPERE_16"}}`, string(bodies[1].Variables))

	got := srv.Endpoints()
	require.Len(t, got, 2)
	assert.Equal(t, 0, got[0].WorkersMin)
	assert.Equal(t, 90*time.Second, got[0].ExecutionTimeout)
	assert.Equal(t, serverless.FlashBootOn, got[0].FlashBoot)
}

func TestGraphQLBearerOption(t *testing.T) {
	srv, rp, _ := fake(t, runpod.WithGraphQLBearer())
	_, err := rp.Serverless.Endpoints.List(t.Context())
	require.NoError(t, err)
	_, reqs := graphqlBodies(t, srv)
	assert.Equal(t, "bearer", reqs[0].Auth)
	assert.Empty(t, reqs[0].RawQuery)
}

func TestListGetAndDiscount(t *testing.T) {
	srv, rp, _ := fake(t)
	list, err := rp.Serverless.Endpoints.List(t.Context())
	require.NoError(t, err)
	assert.Empty(t, list.Endpoints)
	assert.Nil(t, list.Discount)

	created, err := rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err)
	srv.SetDiscount(&runpodtest.Discount{Factor: 0.85, Type: "VOLUME", ExpirationDate: "2027-01-01"})
	list, err = rp.Serverless.Endpoints.List(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Endpoints, 1)
	assert.Equal(t, &serverless.Discount{Factor: 0.85, Type: "VOLUME", ExpirationDate: "2027-01-01"}, list.Discount)
	bodies, _ := graphqlBodies(t, srv)
	assert.Equal(t, "ListEndpoints", bodies[len(bodies)-1].OperationName)
	assert.Empty(t, bodies[len(bodies)-1].Variables, "ListEndpoints has no variables")

	got, err := rp.Serverless.Endpoints.Get(t.Context(), created.ID)
	require.NoError(t, err)
	assert.Equal(t, created.GraphQLEndpointParams, got.GraphQLEndpointParams)
	want := fullSpec()
	want.Type = serverless.GraphQLQueueBased
	assert.Equal(t, want, got.GraphQLEndpointParams, "everything sent is read back")

	_, err = rp.Serverless.Endpoints.Get(t.Context(), "nope")
	require.ErrorIs(t, err, runpod.ErrNotFound)
	_, err = rp.Serverless.Endpoints.Get(t.Context(), " ")
	require.ErrorIs(t, err, runpod.ErrValidation)
}

// TestUpdateKeepsEverythingElse: the platform's save is a full replace;
// Update must send back every setting it did not change.
func TestUpdateKeepsEverythingElse(t *testing.T) {
	srv, rp, _ := fake(t)
	created, err := rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err)

	updated, err := rp.Serverless.Endpoints.Update(t.Context(), created.ID, func(s *serverless.GraphQLEndpointParams) {
		s.WorkersMax = runpod.Ptr(9)
	})
	require.NoError(t, err)
	want := created.GraphQLEndpointParams
	want.WorkersMax = runpod.Ptr(9)
	assert.Equal(t, want, updated.GraphQLEndpointParams)
	stored := srv.Endpoints()[0]
	assert.Equal(t, 9, stored.WorkersMax)
	assert.Equal(t, 77, stored.IdleTimeout)
	assert.Equal(t, []serverless.Location{serverless.US, serverless.CZ}, stored.Locations)
	assert.Equal(t, "vol-1", stored.NetworkVolumeID)
	assert.Equal(t, []string{"vol-2"}, stored.NetworkVolumeIDs)
	assert.Equal(t, serverless.FlashBootOn, stored.FlashBoot)

	bodies, _ := graphqlBodies(t, srv)
	require.Len(t, bodies, 3, "create, read, save")
	assert.Equal(t, "ListEndpoints", bodies[1].OperationName)
	var vars struct{ Input map[string]any }
	require.NoError(t, json.Unmarshal(bodies[2].Variables, &vars))
	assert.Equal(t, created.ID, vars.Input["id"])
	assert.EqualValues(t, 77, vars.Input["idleTimeout"], "unchanged settings are sent back")
	assert.Equal(t, "US,CZ", vars.Input["locations"])
	assert.EqualValues(t, 9, vars.Input["workersMax"])
	assert.Equal(t, 2, srv.Mutations("saveEndpoint"))

	// The fake is a faithful full replace: a save that leaves fields out
	// resets them. This is what Update protects against.
	var out struct {
		Data struct{ SaveEndpoint struct{ ID string } }
	}
	err = rp.Do(t.Context(), "POST", "/graphql", map[string]any{
		"query":     `mutation($i: EndpointInput!) { saveEndpoint(input: $i) { id } }`,
		"variables": map[string]any{"i": map[string]any{"id": created.ID, "name": "my-endpoint", "templateId": "tmpl-1", "gpuIds": "ADA_24"}},
	}, &out)
	require.NoError(t, err)
	assert.Equal(t, created.ID, out.Data.SaveEndpoint.ID)
	stored = srv.Endpoints()[0]
	assert.Equal(t, 5, stored.IdleTimeout, "reset to the default")
	assert.Empty(t, stored.Locations, "reset")
	assert.Empty(t, stored.NetworkVolumeID, "reset")
	assert.Equal(t, 3, stored.WorkersMax, "reset")
}

func TestUpdateChangeCannotAliasEndpoint(t *testing.T) {
	_, rp, _ := fake(t)
	created, err := rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.Update(t.Context(), created.ID, func(s *serverless.GraphQLEndpointParams) {
		s.GPUs[0] = serverless.Ampere80
		*s.IdleTimeout = 10
	})
	require.NoError(t, err)
	got, err := rp.Serverless.Endpoints.Get(t.Context(), created.ID)
	require.NoError(t, err)
	assert.Equal(t, []serverless.GPUPool{serverless.Ampere80, serverless.Ampere24}, got.GPUs)
	assert.Equal(t, 10, *got.IdleTimeout)
}

// TestValidation: every rule, before anything is sent.
func TestValidation(t *testing.T) {
	srv, rp, _ := fake(t)
	cases := []struct {
		field string
		edit  func(*serverless.GraphQLEndpointParams)
	}{
		{"GraphQLEndpointParams.Name", func(s *serverless.GraphQLEndpointParams) { s.Name = "" }},
		{"GraphQLEndpointParams.Name", func(s *serverless.GraphQLEndpointParams) { s.Name = "ab" }},
		{"GraphQLEndpointParams.TemplateID", func(s *serverless.GraphQLEndpointParams) { s.TemplateID = " " }},
		{"GraphQLEndpointParams.GPUs", func(s *serverless.GraphQLEndpointParams) { s.GPUs = nil }},
		{"GraphQLEndpointParams.GPUs[1]", func(s *serverless.GraphQLEndpointParams) { s.GPUs = []serverless.GPUPool{serverless.Ada24, "A,B"} }},
		{"GraphQLEndpointParams.Locations[0]", func(s *serverless.GraphQLEndpointParams) { s.Locations = []serverless.Location{""} }},
		{"GraphQLEndpointParams.ScalerValue", func(s *serverless.GraphQLEndpointParams) { s.ScalerValue = runpod.Ptr(0) }},
		{"GraphQLEndpointParams.IdleTimeout", func(s *serverless.GraphQLEndpointParams) { s.IdleTimeout = runpod.Ptr(0) }},
		{"GraphQLEndpointParams.IdleTimeout", func(s *serverless.GraphQLEndpointParams) { s.IdleTimeout = runpod.Ptr(3601) }},
		{"GraphQLEndpointParams.WorkersMin", func(s *serverless.GraphQLEndpointParams) { s.WorkersMin = runpod.Ptr(-1) }},
		{"GraphQLEndpointParams.WorkersMax", func(s *serverless.GraphQLEndpointParams) { s.WorkersMin, s.WorkersMax = runpod.Ptr(3), runpod.Ptr(2) }},
		{"GraphQLEndpointParams.WorkersMax", func(s *serverless.GraphQLEndpointParams) { s.WorkersMin, s.WorkersMax = nil, runpod.Ptr(-1) }},
		{"GraphQLEndpointParams.Type", func(s *serverless.GraphQLEndpointParams) { s.Type = "QUEUE" }},
		{"GraphQLEndpointParams.ScalerType", func(s *serverless.GraphQLEndpointParams) { s.ScalerType = "CPU" }},
		{"GraphQLEndpointParams.ScalerType", func(s *serverless.GraphQLEndpointParams) {
			s.Type, s.ScalerType = serverless.GraphQLLoadBalancing, serverless.QueueDelay
		}},
		{"GraphQLEndpointParams.FlashBoot", func(s *serverless.GraphQLEndpointParams) { s.FlashBoot = "ON" }},
		{"GraphQLEndpointParams.GPUCount", func(s *serverless.GraphQLEndpointParams) { s.GPUCount = runpod.Ptr(0) }},
		{"GraphQLEndpointParams.ExecutionTimeout", func(s *serverless.GraphQLEndpointParams) { s.ExecutionTimeout = runpod.Ptr(1500 * time.Microsecond) }},
	}
	for _, c := range cases {
		spec := fullSpec()
		c.edit(&spec)
		_, err := rp.Serverless.Endpoints.Create(t.Context(), spec)
		var ve *runpod.ValidationError
		require.ErrorAs(t, err, &ve, c.field)
		assert.Equal(t, c.field, ve.Field)
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")

	created, err := rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.Update(t.Context(), created.ID, func(s *serverless.GraphQLEndpointParams) { s.ScalerValue = runpod.Ptr(0) })
	require.ErrorIs(t, err, runpod.ErrValidation)
	_, err = rp.Serverless.Endpoints.Update(t.Context(), created.ID, nil)
	require.ErrorIs(t, err, runpod.ErrValidation)
	assert.Equal(t, 1, srv.Mutations("saveEndpoint"), "an invalid update is not saved")
}

// TestPlatformErrors: the fake's own checks come back as GraphQLErrors
// with every message, path and code.
func TestPlatformErrors(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.TemplateID = "tmpl-unknown"
	_, err := rp.Serverless.Endpoints.Create(t.Context(), spec)
	var ge *runpod.GraphQLError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "SaveEndpoint", ge.Operation)
	require.Len(t, ge.Errors, 1)
	assert.Equal(t, "template not found", ge.Errors[0].Message)
	assert.Equal(t, []any{"saveEndpoint"}, ge.Errors[0].Path)
	assert.ErrorIs(t, err, runpod.ErrNotFound)
	assert.Equal(t, `runpod: graphql SaveEndpoint: template not found (at saveEndpoint) [NOT_FOUND]`, err.Error())
	assert.Zero(t, srv.Mutations("saveEndpoint"))

	// Delete of an unknown id, straight through the mutation.
	ro := srv.NewKey(runpodtest.ServerlessRead)
	rpRead, err := srv.NewClient(runpod.WithAPIKey(ro))
	require.NoError(t, err)
	_, err = rpRead.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.ErrorIs(t, err, runpod.ErrForbidden, "a read-only key cannot save")
	testkit.NoSecret(t, err)
}

func TestAuthErrors(t *testing.T) {
	srv, _, _ := fake(t)
	t.Run("myself null", func(t *testing.T) {
		rp, err := srv.NewClient(runpod.WithAPIKey(srv.NewKey(runpodtest.BillingRead)))
		require.NoError(t, err)
		_, err = rp.Serverless.Endpoints.List(t.Context())
		require.ErrorIs(t, err, runpod.ErrUnauthorized)
		testkit.NoSecret(t, err)
	})
	t.Run("401", func(t *testing.T) {
		rp, err := srv.NewClient(runpod.WithAPIKey("rpa_00000000000000000000000000000000"))
		require.NoError(t, err)
		_, err = rp.Serverless.Endpoints.List(t.Context())
		require.ErrorIs(t, err, runpod.ErrUnauthorized)
		var apiErr *runpod.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 401, apiErr.StatusCode)
		assert.Equal(t, "/graphql", apiErr.Path)
		testkit.NoSecret(t, err, apiErr)
	})
	t.Run("429", func(t *testing.T) {
		// A fixed clock 30 s into a minute: both calls fall in one window,
		// whenever the test runs.
		at := time.Date(2026, 6, 1, 12, 0, 30, 0, time.UTC)
		srv := runpodtest.NewServer(runpodtest.WithClock(func() time.Time { return at }))
		t.Cleanup(srv.Close)
		key := srv.NewKey(runpodtest.ServerlessRead)
		srv.SetQuota(key, runpodtest.Quota{Minute: 1, Hour: 10, Day: 10})
		rp, err := srv.NewClient(runpod.WithAPIKey(key), runpod.WithMaxWait(time.Second))
		require.NoError(t, err)
		_, err = rp.Serverless.Endpoints.List(t.Context())
		require.NoError(t, err)
		_, err = rp.Serverless.Endpoints.List(t.Context())
		require.ErrorIs(t, err, runpod.ErrRateLimited)
		var apiErr *runpod.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 30*time.Second, apiErr.RetryAfter)
		testkit.NoSecret(t, err)
	})
}

// TestMutationsNeverTwice: under injected faults a save is applied at
// most once, and the caller learns the outcome is unknown; queries are
// retried through the same faults.
func TestMutationsNeverTwice(t *testing.T) {
	srv, rp, lines := fake(t)
	for _, f := range []runpodtest.Fault{{Drop: runpodtest.DropAfter}, {Drop: runpodtest.DropBefore}, {Status: 502}, {Status: 503}} {
		before := srv.Mutations("saveEndpoint")
		requests := srv.Count(runpodtest.RouteGraphQL)
		srv.FailNext(runpodtest.RouteGraphQL, 1, f)
		_, err := rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
		require.ErrorIs(t, err, runpod.ErrOutcomeUnknown, "%+v", f)
		assert.Equal(t, requests+1, srv.Count(runpodtest.RouteGraphQL), "sent once: %+v", f)
		applied := srv.Mutations("saveEndpoint") - before
		if f.Drop == runpodtest.DropAfter {
			assert.Equal(t, 1, applied, "the platform acted; the client never heard")
		} else {
			assert.Zero(t, applied)
		}
		testkit.NoSecret(t, err)
	}
	assert.Len(t, srv.Endpoints(), 1)

	srv.FailNext(runpodtest.RouteGraphQL, 2, runpodtest.Fault{Status: 503})
	list, err := rp.Serverless.Endpoints.List(t.Context())
	require.NoError(t, err, "a query is retried")
	assert.Len(t, list.Endpoints, 1)

	srv.FailNext(runpodtest.RouteGraphQL, 1, runpodtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"0"}}})
	_, err = rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err, "429 means not processed: the mutation is retried")
	assert.Len(t, srv.Endpoints(), 2)
	assert.NotContains(t, lines.String(), "api_key=")
}

func TestDeleteLifecycle(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.WorkersMin = runpod.Ptr(2)
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), spec)
	require.NoError(t, err)
	assert.Len(t, ep.Workers, 2)

	err = rp.Serverless.Endpoints.Delete(t.Context(), ep.ID)
	require.ErrorIs(t, err, serverless.ErrNotScaledDown)
	assert.Contains(t, err.Error(), "workersMin 2, workersMax 4")
	assert.Zero(t, srv.Mutations("deleteEndpoint"))
	bodies, _ := graphqlBodies(t, srv)
	for _, b := range bodies {
		assert.NotEqual(t, "DeleteEndpoint", b.OperationName, "refused before sending")
	}

	scaled, err := rp.Serverless.Endpoints.ScaleToZero(t.Context(), ep.ID)
	require.NoError(t, err)
	assert.Equal(t, 0, *scaled.WorkersMin)
	assert.Equal(t, 0, *scaled.WorkersMax)
	assert.Equal(t, 77, *scaled.IdleTimeout, "scaling keeps the rest")
	require.NoError(t, rp.Serverless.Endpoints.Delete(t.Context(), ep.ID))
	assert.Equal(t, 1, srv.Mutations("deleteEndpoint"))
	bodies, _ = graphqlBodies(t, srv)
	last := bodies[len(bodies)-1]
	assert.Equal(t, "\nmutation DeleteEndpoint ($id: String!) {\n\tdeleteEndpoint(id: $id)\n}\n", last.Query)
	assert.JSONEq(t, `{"id":"`+ep.ID+`"}`, string(last.Variables))
	assert.Empty(t, srv.Endpoints())

	err = rp.Serverless.Endpoints.Delete(t.Context(), ep.ID)
	require.ErrorIs(t, err, runpod.ErrNotFound)
}

func TestScaleDownAndDelete(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.WorkersMin = runpod.Ptr(2)
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), spec)
	require.NoError(t, err)
	var seen []int
	err = rp.Serverless.Endpoints.ScaleDownAndDelete(t.Context(), ep.ID, runpod.Poll[int]{
		Interval: 10 * time.Millisecond,
		OnCheck:  func(n int) { seen = append(seen, n) },
	})
	require.NoError(t, err)
	require.NotEmpty(t, seen)
	assert.Equal(t, 2, seen[0], "the drained workers linger at first")
	assert.Equal(t, 0, seen[len(seen)-1])
	assert.Empty(t, srv.Endpoints())
	assert.Equal(t, 1, srv.Mutations("deleteEndpoint"))
}

// TestFlashBootIsAnEnum: the schema types flashBootType as an enum, so the
// engine (like the platform) refuses a value outside it.
func TestFlashBootIsAnEnum(t *testing.T) {
	_, rp, _ := fake(t)
	var out struct {
		Errors []struct{ Message string }
	}
	err := rp.Do(t.Context(), "POST", "/graphql", map[string]any{
		"query":     `mutation($i: EndpointInput!) { saveEndpoint(input: $i) { id } }`,
		"variables": map[string]any{"i": map[string]any{"name": "abc", "templateId": "tmpl-1", "gpuIds": "ADA_24", "flashBootType": "TURBO"}},
	}, &out)
	require.NoError(t, err)
	require.NotEmpty(t, out.Errors)
	assert.Contains(t, out.Errors[0].Message, "TURBO")
}

// TestNoFragmentsOnPlatformTypes: no operation names a platform type in a
// fragment (its name is not published; a wrong guess fails every call).
func TestNoFragmentsOnPlatformTypes(t *testing.T) {
	srv, rp, _ := fake(t)
	_, err := rp.Serverless.Endpoints.List(t.Context())
	require.NoError(t, err)
	_, err = rp.Serverless.Endpoints.Create(t.Context(), fullSpec())
	require.NoError(t, err)
	bodies, _ := graphqlBodies(t, srv)
	require.Len(t, bodies, 2)
	for _, b := range bodies {
		assert.NotContains(t, b.Query, "fragment", b.OperationName)
		assert.NotContains(t, b.Query, "...", b.OperationName)
	}
}

// TestCPUEndpoints: a CPU endpoint has CPU flavours in InstanceIDs and no
// GPU pools; it is created, read and updated (the platform reports it with
// empty gpuIds).
func TestCPUEndpoints(t *testing.T) {
	srv, rp, _ := fake(t)
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), serverless.GraphQLEndpointParams{Name: "cpu-endpoint", TemplateID: "tmpl-1", InstanceIDs: []string{"cpu3c-2-4", "cpu3g-4-16"}})
	require.NoError(t, err)
	assert.Empty(t, ep.GPUs)
	assert.Equal(t, []string{"cpu3c-2-4", "cpu3g-4-16"}, ep.InstanceIDs)
	bodies, _ := graphqlBodies(t, srv)
	assert.JSONEq(t, `{"input":{"name":"cpu-endpoint","templateId":"tmpl-1","instanceIds":["cpu3c-2-4","cpu3g-4-16"]}}`, string(bodies[0].Variables))

	updated, err := rp.Serverless.Endpoints.Update(t.Context(), ep.ID, func(s *serverless.GraphQLEndpointParams) { s.WorkersMax = runpod.Ptr(3) })
	require.NoError(t, err, "an endpoint the platform reports with empty gpuIds can be updated")
	assert.Equal(t, 3, *updated.WorkersMax)
	assert.Equal(t, []string{"cpu3c-2-4", "cpu3g-4-16"}, updated.InstanceIDs)

	_, err = rp.Serverless.Endpoints.Create(t.Context(), serverless.GraphQLEndpointParams{Name: "both", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.Ada24}, InstanceIDs: []string{"cpu3c-2-4"}})
	var ve *runpod.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "GraphQLEndpointParams.InstanceIDs", ve.Field)
	_, err = rp.Serverless.Endpoints.Create(t.Context(), serverless.GraphQLEndpointParams{Name: "neither", TemplateID: "tmpl-1"})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "GraphQLEndpointParams.GPUs", ve.Field)
}

// TestPriorityFlashBoot: PRIORITY_FLASHBOOT, the platform's third FlashBoot
// value, is accepted on create and survives an update.
func TestPriorityFlashBoot(t *testing.T) {
	_, rp, _ := fake(t)
	spec := fullSpec()
	spec.FlashBoot = serverless.FlashBootPriority
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), spec)
	require.NoError(t, err)
	assert.Equal(t, serverless.FlashBootPriority, ep.FlashBoot)
	updated, err := rp.Serverless.Endpoints.Update(t.Context(), ep.ID, func(s *serverless.GraphQLEndpointParams) { s.Name = "renamed" })
	require.NoError(t, err)
	assert.Equal(t, serverless.FlashBootPriority, updated.FlashBoot)
}
