package graphqlendpoints_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
)

func fake(t *testing.T, opts ...option.RequestOption) (*runpodtest.Server, *runpod.Client, *testkit.Lines) {
	t.Helper()
	srv, rp, lines := fixture.New(t, fixture.Server(runpodtest.WithWorkerDrain(50*time.Millisecond), fakegraphql.Serve()), fixture.Client(opts...))
	srv.AddTemplate("tmpl-1", "tmpl-2")
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-1"})
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-2"})
	return srv, rp, lines
}

// gq is the GraphQL endpoint API of rp's platform.
func gq(rp *runpod.Client) *graphqlendpoints.Service {
	return graphqlendpoints.NewFromConfig(rp.Config())
}

func fullSpec() graphqlendpoints.EndpointParams {
	return graphqlendpoints.EndpointParams{
		Name:                "my-endpoint",
		TemplateID:          "tmpl-1",
		GPUs:                []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere24},
		Locations:           []serverless.Location{serverless.LocationUS, serverless.LocationCZ},
		IdleTimeout:         runpod.Ptr(77),
		FlashBoot:           serverless.FlashBootOn,
		ScalerType:          serverless.ScalerTypeRequestCount,
		ScalerValue:         runpod.Ptr(7),
		WorkersMin:          runpod.Ptr(0),
		WorkersMax:          runpod.Ptr(4),
		NetworkVolumeID:     "vol-1",
		NetworkVolumeIDs:    []string{"vol-2"},
		GPUCount:            runpod.Ptr(2),
		ExecutionTimeout:    runpod.Ptr(90 * time.Second),
		MinCUDAVersion:      "12.4",
		AllowedCUDAVersions: []string{"12.4", "12.6"},
		ModelReferences:     []string{"org/model"},
	}
}

// listed is what List and Get read of fullSpec: the settings the list
// query carries.
func listed(s graphqlendpoints.EndpointParams) graphqlendpoints.EndpointParams {
	return graphqlendpoints.EndpointParams{
		Name: s.Name, TemplateID: s.TemplateID, GPUs: s.GPUs, Type: s.Type, Locations: s.Locations,
		IdleTimeout: s.IdleTimeout, ScalerType: s.ScalerType, ScalerValue: s.ScalerValue,
		WorkersMin: s.WorkersMin, WorkersMax: s.WorkersMax, NetworkVolumeID: s.NetworkVolumeID, GPUCount: s.GPUCount,
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
		if r.Route != fakegraphql.Route {
			continue
		}
		var b wireBody
		require.NoError(t, json.Unmarshal(r.Body, &b))
		bodies = append(bodies, b)
		reqs = append(reqs, r)
	}
	return bodies, reqs
}

func opNames(bodies []wireBody) []string {
	out := make([]string, len(bodies))
	for i, b := range bodies {
		out[i] = b.OperationName
	}
	return out
}

// saveInputs returns the input of every SaveEndpoint the fake received.
func saveInputs(t *testing.T, srv *runpodtest.Server) []map[string]any {
	bodies, _ := graphqlBodies(t, srv)
	var out []map[string]any
	for _, b := range bodies {
		if b.OperationName != "SaveEndpoint" {
			continue
		}
		var vars struct{ Input map[string]any }
		require.NoError(t, json.Unmarshal(b.Variables, &vars))
		out = append(out, vars.Input)
	}
	return out
}

// saveDocument is the document SaveEndpoint sends: fields inline, as the
// platform's own clients write them, with no fragment naming the
// platform's return type; only fields clients select on saveEndpoint.
const saveDocument = `
mutation SaveEndpoint ($input: EndpointInput!) {
	saveEndpoint(input: $input) {
		id
		name
		templateId
		gpuIds
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
		}
		gpuCount
		instanceIds
		executionTimeoutMs
		minCudaVersion
		allowedCudaVersions
		modelReferences
	}
}
`

// TestCreateOnTheWire: the exact document and variables, the key in the
// Authorization header, JSON content; zeros that were set reach the
// server, unset fields do not.
func TestCreateOnTheWire(t *testing.T) {
	srv, rp, lines := fake(t)
	ep, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	assert.NotEmpty(t, ep.ID)
	assert.Equal(t, fullSpec(), ep.EndpointParams, "saveEndpoint reports every setting; Type is the one sent")
	assert.Empty(t, ep.Workers, "saveEndpoint's answer carries no workers")

	bodies, reqs := graphqlBodies(t, srv)
	require.Len(t, bodies, 1)
	assert.Equal(t, "SaveEndpoint", bodies[0].OperationName)
	assert.Equal(t, saveDocument, bodies[0].Query)
	assert.JSONEq(t, `{"input":{"name":"my-endpoint","templateId":"tmpl-1","gpuIds":"ADA_24,AMPERE_24","idleTimeout":77,
		"locations":"US,CZ","flashBootType":"FLASHBOOT","scalerType":"REQUEST_COUNT","scalerValue":7,"workersMin":0,"workersMax":4,
		"networkVolumeId":"vol-1","networkVolumeIds":[{"networkVolumeId":"vol-2"}],"gpuCount":2,"executionTimeoutMs":90000,
		"minCudaVersion":"12.4","allowedCudaVersions":"12.4,12.6","modelReferences":["org/model"]}}`, string(bodies[0].Variables))
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "/graphql", reqs[0].Path)
	assert.Empty(t, reqs[0].RawQuery, "the key is in no URL")
	assert.Equal(t, "bearer", reqs[0].Auth)
	assert.NotEmpty(t, reqs[0].Header.Get("Authorization"))
	assert.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
	assert.Contains(t, lines.String(), "path=/graphql")
	assert.NotContains(t, lines.String(), "api_key")

	// A minimal spec sends only the required fields.
	_, err = gq(rp).Create(t.Context(), graphqlendpoints.EndpointParams{Name: "min", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAmpere16}})
	require.NoError(t, err)
	bodies, _ = graphqlBodies(t, srv)
	assert.JSONEq(t, `{"input":{"name":"min","templateId":"tmpl-1","gpuIds":"AMPERE_16"}}`, string(bodies[1].Variables))

	got := srv.Endpoints()
	require.Len(t, got, 2)
	assert.Equal(t, 0, got[0].WorkersMin)
	assert.Equal(t, 90*time.Second, got[0].ExecutionTimeout)
	assert.Equal(t, serverless.FlashBootOn, got[0].FlashBoot)
	assert.Equal(t, []string{"12.4", "12.6"}, got[0].AllowedCUDAVersions)
}

// TestBearerByDefaultNoKeyInAnyURL: every GraphQL operation of every call
// carries the key in the Authorization header, and no request URL holds
// it, nor any log line.
func TestBearerByDefaultNoKeyInAnyURL(t *testing.T) {
	for name, opts := range map[string][]option.RequestOption{
		"default": nil,
	} {
		t.Run(name, func(t *testing.T) {
			srv, rp, lines := fake(t, opts...)
			ctx := t.Context()
			ep, err := gq(rp).Create(ctx, fullSpec())
			require.NoError(t, err)
			_, err = gq(rp).List(ctx)
			require.NoError(t, err)
			_, err = gq(rp).Update(ctx, ep.ID, func(s *graphqlendpoints.EndpointParams) { s.Name = "renamed" })
			require.NoError(t, err)
			require.NoError(t, gq(rp).SetTemplate(ctx, ep.ID, "tmpl-2"))
			_, err = gq(rp).ScaleToZero(ctx, ep.ID)
			require.NoError(t, err)
			require.NoError(t, gq(rp).Delete(ctx, ep.ID))

			bodies, reqs := graphqlBodies(t, srv)
			assert.Equal(t, []string{"SaveEndpoint", "ListEndpoints", "ListEndpoints", "EndpointSettings", "SaveEndpoint",
				"UpdateEndpointTemplate", "ListEndpoints", "EndpointSettings", "SaveEndpoint", "ListEndpoints", "DeleteEndpoint"}, opNames(bodies))
			for _, r := range reqs {
				assert.Equal(t, "bearer", r.Auth, r.Path)
				assert.Empty(t, r.RawQuery)
				assert.False(t, r.Query.Has("api_key"))
			}
			assert.NotContains(t, lines.String(), "api_key")
		})
	}
}

// TestGraphQLQueryKeyOption: WithGraphQLQueryKey is the seed's form, the
// key as the api_key query parameter (the fake redacts it in its log),
// with no Authorization header; it never reaches a log line.
func TestGraphQLQueryKeyOption(t *testing.T) {
	srv, rp, lines := fake(t, option.WithGraphQLQueryKey())
	_, err := gq(rp).List(t.Context())
	require.NoError(t, err)
	_, err = gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, reqs := graphqlBodies(t, srv)
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		assert.Equal(t, "api_key", r.Auth)
		assert.Equal(t, "api_key=[REDACTED]", r.RawQuery)
		assert.Empty(t, r.Header.Get("Authorization"))
	}
	assert.Contains(t, lines.String(), "path=/graphql")
	assert.NotContains(t, lines.String(), "api_key")

	// Only GraphQL: REST v2 calls keep the header.
	_, err = rp.Serverless.Endpoints.List(t.Context())
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		if r.Route != fakegraphql.Route {
			assert.Equal(t, "bearer", r.Auth, r.Path)
			assert.Empty(t, r.RawQuery, r.Path)
		}
	}
}

func TestListGetAndDiscount(t *testing.T) {
	srv, rp, _ := fake(t)
	list, err := gq(rp).List(t.Context())
	require.NoError(t, err)
	assert.Empty(t, list.Endpoints)
	assert.Nil(t, list.Discount)

	created, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	srv.SetDiscount(&runpodtest.Discount{Factor: 0.85, Type: "VOLUME", ExpirationDate: "2027-01-01"})
	list, err = gq(rp).List(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Endpoints, 1)
	assert.Equal(t, &graphqlendpoints.Discount{Factor: 0.85, Type: "VOLUME", ExpirationDate: "2027-01-01"}, list.Discount)
	bodies, _ := graphqlBodies(t, srv)
	assert.Equal(t, "ListEndpoints", bodies[len(bodies)-1].OperationName)
	assert.Empty(t, bodies[len(bodies)-1].Variables, "ListEndpoints has no variables")

	got, err := gq(rp).Get(t.Context(), created.ID)
	require.NoError(t, err)
	want := fullSpec()
	want.Type = graphqlendpoints.EndpointTypeQueueBased
	assert.Equal(t, listed(want), got.EndpointParams, "the settings the list carries; the rest stay zero")
	created.Type = graphqlendpoints.EndpointTypeQueueBased // sent empty: the platform's default
	assert.Equal(t, listed(created.EndpointParams), got.EndpointParams)

	_, err = gq(rp).Get(t.Context(), "nope")
	require.ErrorIs(t, err, errs.ErrNotFound)
	_, err = gq(rp).Get(t.Context(), " ")
	require.ErrorIs(t, err, errs.ErrValidation)
	bodies, _ = graphqlBodies(t, srv)
	assert.NotContains(t, opNames(bodies), "EndpointSettings", "only Update reads the settings")
}

// TestUpdateKeepsEverythingElse: the platform's save is a full replace;
// Update reads the list and the settings the list cannot carry, and sends
// back every setting it did not change. The fake's stored record is the
// same before and after, but for the change.
func TestUpdateKeepsEverythingElse(t *testing.T) {
	srv, rp, _ := fake(t)
	created, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	before := srv.Endpoints()[0]

	updated, err := gq(rp).Update(t.Context(), created.ID, func(s *graphqlendpoints.EndpointParams) {
		s.WorkersMax = runpod.Ptr(9)
	})
	require.NoError(t, err)
	want := fullSpec()
	want.Type = graphqlendpoints.EndpointTypeQueueBased
	want.WorkersMax = runpod.Ptr(9)
	assert.Equal(t, want, updated.EndpointParams)

	after := srv.Endpoints()[0]
	assert.Equal(t, 9, after.WorkersMax)
	before.WorkersMax = 9
	assert.Equal(t, before, after, "every other setting is as it was")

	bodies, _ := graphqlBodies(t, srv)
	assert.Equal(t, []string{"SaveEndpoint", "ListEndpoints", "EndpointSettings", "SaveEndpoint"}, opNames(bodies))
	inputs := saveInputs(t, srv)
	require.Len(t, inputs, 2)
	create, save := inputs[0], inputs[1]
	assert.Equal(t, created.ID, save["id"])
	save["workersMax"] = create["workersMax"]
	delete(save, "id")
	create["type"] = "QB"
	assert.Equal(t, create, save, "every setting created is sent back")
	assert.Equal(t, 2, fakegraphql.Mutations(srv, "saveEndpoint"))

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
	stored := srv.Endpoints()[0]
	assert.Equal(t, 5, stored.IdleTimeout, "reset to the default")
	assert.Empty(t, stored.Locations, "reset")
	assert.Empty(t, stored.NetworkVolumeID, "reset")
	assert.Empty(t, stored.AllowedCUDAVersions, "reset")
	assert.Equal(t, 3, stored.WorkersMax, "reset")
}

// richEndpoint is a fixture with every setting GraphQL can carry away
// from its default, and settings outside EndpointInput (standby workers,
// environment) that no save may touch.
func richEndpoint() runpodtest.Endpoint {
	return runpodtest.Endpoint{
		Name: "rich-endpoint", TemplateID: "tmpl-1",
		GPUs:             []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere48},
		Locations:        []serverless.Location{serverless.LocationUS},
		FlashBoot:        serverless.FlashBootOn,
		ScalerType:       serverless.ScalerTypeRequestCount,
		ScalerValue:      6,
		IdleTimeout:      42,
		WorkersMin:       1,
		WorkersMax:       5,
		WorkersStandby:   2,
		GPUCount:         2,
		ExecutionTimeout: 45 * time.Second,
		NetworkVolumeID:  "vol-1",
		NetworkVolumeIDs: []string{"vol-1", "vol-2"},
		MinCUDAVersion:   "12.1",
		AllowedCUDAVersions: []string{
			"12.4", "12.6",
		},
		ModelReferences: []string{"org/model-a", "org/model-b"},
		Env:             map[string]string{"MODE": "fast"},
	}
}

// TestAllowedCUDAVersionsAndStandbySurviveUpdate: allowedCudaVersions,
// which only the settings read carries, and workersStandby, which no
// save takes, come through Update and ScaleToZero unchanged; the saves
// send allowedCudaVersions back comma-joined and never send
// workersStandby.
func TestAllowedCUDAVersionsAndStandbySurviveUpdate(t *testing.T) {
	srv, rp, _ := fake(t)
	id := srv.AddEndpoint(richEndpoint())

	ep, err := gq(rp).Update(t.Context(), id, func(s *graphqlendpoints.EndpointParams) { s.WorkersMax = runpod.Ptr(8) })
	require.NoError(t, err)
	assert.Equal(t, []string{"12.4", "12.6"}, ep.AllowedCUDAVersions)
	stored := srv.Endpoints()[0]
	assert.Equal(t, 8, stored.WorkersMax)
	assert.Equal(t, []string{"12.4", "12.6"}, stored.AllowedCUDAVersions)
	assert.Equal(t, 2, stored.WorkersStandby)

	ep, err = gq(rp).ScaleToZero(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, 0, *ep.WorkersMin)
	assert.Equal(t, 0, *ep.WorkersMax)
	assert.Equal(t, []string{"12.4", "12.6"}, ep.AllowedCUDAVersions)
	stored = srv.Endpoints()[0]
	assert.Equal(t, 0, stored.WorkersMin)
	assert.Equal(t, 0, stored.WorkersMax)
	assert.Equal(t, []string{"12.4", "12.6"}, stored.AllowedCUDAVersions)
	assert.Equal(t, 2, stored.WorkersStandby)

	inputs := saveInputs(t, srv)
	require.Len(t, inputs, 2)
	for _, in := range inputs {
		assert.Equal(t, "12.4,12.6", in["allowedCudaVersions"])
		assert.NotContains(t, in, "workersStandby")
	}
}

// TestUpdateKeepsEveryStoredSetting: a WorkersMax change over GraphQL
// leaves the fake's whole record as it was, for a GPU endpoint and a CPU
// endpoint made outside the SDK, with every setting away from its
// default.
func TestUpdateKeepsEveryStoredSetting(t *testing.T) {
	cpu := richEndpoint()
	cpu.Name, cpu.GPUs, cpu.GPUCount, cpu.InstanceIDs = "cpu-endpoint", nil, 0, []string{"cpu3c-2-4", "cpu3g-4-16"}
	for name, fixture := range map[string]runpodtest.Endpoint{"gpu": richEndpoint(), "cpu": cpu} {
		t.Run(name, func(t *testing.T) {
			srv, rp, _ := fake(t)
			id := srv.AddEndpoint(fixture)
			before := srv.Endpoints()[0]
			_, err := gq(rp).Update(t.Context(), id, func(s *graphqlendpoints.EndpointParams) {
				s.WorkersMax = runpod.Ptr(before.WorkersMax + 1)
			})
			require.NoError(t, err)
			after := srv.Endpoints()[0]
			before.WorkersMax++
			assert.Equal(t, before, after)
		})
	}
}

// TestSettingsReadFailureRefusesUpdate: when the platform refuses the
// settings read (a GraphQL validation error for one of its fields, as a
// 200 with errors or a 400; or a 410), Update, ScaleToZero and
// ScaleDownAndDelete save nothing and say why, which settings, and what
// to use instead.
func TestSettingsReadFailureRefusesUpdate(t *testing.T) {
	refusal := `{"errors":[{"message":"Cannot query field \"allowedCudaVersions\" on type \"Endpoint\".","locations":[{"line":6,"column":4}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`
	for name, answer := range map[string]opAnswer{
		"200 with errors": {200, refusal},
		"400":             {400, refusal},
		"410":             {410, `{"title":"Gone","status":410,"detail":"The GraphQL API is retired."}`},
	} {
		for call, do := range map[string]func(rp *runpod.Client) error{
			"Update": func(rp *runpod.Client) error {
				_, err := gq(rp).Update(t.Context(), "ep1", func(s *graphqlendpoints.EndpointParams) { s.WorkersMax = runpod.Ptr(3) })
				return err
			},
			"ScaleToZero": func(rp *runpod.Client) error {
				_, err := gq(rp).ScaleToZero(t.Context(), "ep1")
				return err
			},
			"ScaleDownAndDelete": func(rp *runpod.Client) error {
				return gq(rp).ScaleDownAndDelete(t.Context(), "ep1", option.Poll[int]{})
			},
		} {
			t.Run(name+"/"+call, func(t *testing.T) {
				rt := &opServer{answers: map[string]opAnswer{
					"ListEndpoints":    {200, `{"data":{"myself":{"endpoints":[` + endpointJSON(1, 2, 0) + `],"serverlessDiscount":null}}}`},
					"EndpointSettings": answer,
				}}
				err := do(scriptedClient(t, rt))
				require.ErrorIs(t, err, graphqlendpoints.ErrSettingsUnread)
				var se *graphqlendpoints.SettingsUnreadError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, "ep1", se.EndpointID)
				assert.Equal(t, []string{"FlashBoot", "AllowedCUDAVersions", "InstanceIDs", "NetworkVolumeIDs", "ExecutionTimeout", "MinCUDAVersion", "ModelReferences"}, se.Settings)
				msg := err.Error()
				for _, want := range []string{"endpoint ep1", "nothing was saved", "AllowedCUDAVersions (allowedCudaVersions)", "FlashBoot (flashBootType)",
					"rp.Serverless.Endpoints.Update", "PATCH /v2/serverless/{id}"} {
					assert.Contains(t, msg, want)
				}
				switch answer.status {
				case 200:
					var ge *errs.GraphQLError
					require.ErrorAs(t, err, &ge, "the cause stays reachable")
					assert.Equal(t, "EndpointSettings", ge.Operation)
					assert.Contains(t, msg, "Cannot query field")
				case 400:
					var apiErr *errs.APIError
					require.ErrorAs(t, err, &apiErr, "the cause stays reachable")
					assert.Equal(t, 400, apiErr.StatusCode)
					assert.Contains(t, msg, "Cannot query field")
				case 410:
					require.ErrorIs(t, err, errs.ErrGraphQLRetired)
					var apiErr *errs.APIError
					require.ErrorAs(t, err, &apiErr)
					assert.Equal(t, 410, apiErr.StatusCode)
					assert.Contains(t, msg, "graphql EndpointSettings: the platform retired its GraphQL API (410 Gone); use rp.Serverless.Endpoints.Update (REST v2) instead")
				}
				assert.Equal(t, []string{"ListEndpoints", "EndpointSettings"}, rt.seen(), "no saveEndpoint was sent")
				testkit.NoSecret(t, err)
			})
		}
	}
}

// TestSetTemplate: updateEndpointTemplate, as runpod-python and runpodctl
// send it, changes the template and nothing else.
func TestSetTemplate(t *testing.T) {
	srv, rp, _ := fake(t)
	id := srv.AddEndpoint(richEndpoint())
	before := srv.Endpoints()[0]

	require.NoError(t, gq(rp).SetTemplate(t.Context(), id, "tmpl-2"))
	after := srv.Endpoints()[0]
	assert.Equal(t, "tmpl-2", after.TemplateID)
	before.TemplateID = "tmpl-2"
	assert.Equal(t, before, after, "nothing else changed")
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "updateEndpointTemplate"))
	assert.Zero(t, fakegraphql.Mutations(srv, "saveEndpoint"), "no full replace")

	bodies, _ := graphqlBodies(t, srv)
	require.Len(t, bodies, 1)
	assert.Equal(t, "UpdateEndpointTemplate", bodies[0].OperationName)
	assert.Equal(t, "\nmutation UpdateEndpointTemplate ($input: UpdateEndpointTemplateInput!) {\n\tupdateEndpointTemplate(input: $input) {\n\t\tid\n\t\ttemplateId\n\t}\n}\n", bodies[0].Query)
	assert.JSONEq(t, `{"input":{"endpointId":"`+id+`","templateId":"tmpl-2"}}`, string(bodies[0].Variables))

	got, err := gq(rp).Get(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, "tmpl-2", got.TemplateID)

	// Checked before sending.
	var ve *errs.ValidationError
	require.ErrorAs(t, gq(rp).SetTemplate(t.Context(), " ", "tmpl-2"), &ve)
	assert.Equal(t, "id", ve.Field)
	require.ErrorAs(t, gq(rp).SetTemplate(t.Context(), id, ""), &ve)
	assert.Equal(t, "templateID", ve.Field)
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "updateEndpointTemplate"))

	// The platform's refusals.
	err = gq(rp).SetTemplate(t.Context(), id, "tmpl-unknown")
	var ge *errs.GraphQLError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "UpdateEndpointTemplate", ge.Operation)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	require.ErrorIs(t, gq(rp).SetTemplate(t.Context(), "ep-unknown", "tmpl-1"), errs.ErrNotFound)
	assert.Equal(t, "tmpl-2", srv.Endpoints()[0].TemplateID)
}

// TestRetiredPerCall: once the platform retires GraphQL (410 Gone), every
// call fails with an error matching errs.ErrGraphQLRetired that names
// its REST v2 replacement and keeps the *errs.APIError; nothing is
// retried.
func TestRetiredPerCall(t *testing.T) {
	srv, rp, _ := fake(t)
	ep, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	fakegraphql.Retire(srv, true)
	ctx := t.Context()
	for _, tc := range []struct {
		call    string
		do      func() error
		op      string
		instead []string
	}{
		{"Create", func() error { _, err := gq(rp).Create(ctx, fullSpec()); return err },
			"SaveEndpoint", []string{"use rp.Serverless.Endpoints.Create or rp.Serverless.Endpoints.Update (REST v2) instead"}},
		{"List", func() error { _, err := gq(rp).List(ctx); return err },
			"ListEndpoints", []string{"use rp.Serverless.Endpoints.List or rp.Serverless.Endpoints.Get", "serverless discount has no REST v2 equivalent"}},
		{"Get", func() error { _, err := gq(rp).Get(ctx, ep.ID); return err },
			"ListEndpoints", []string{"use rp.Serverless.Endpoints.List or rp.Serverless.Endpoints.Get"}},
		{"Update", func() error {
			_, err := gq(rp).Update(ctx, ep.ID, func(s *graphqlendpoints.EndpointParams) { s.Name = "new-name" })
			return err
		}, "ListEndpoints", []string{"use rp.Serverless.Endpoints.Update (REST v2) instead"}},
		{"ScaleToZero", func() error { _, err := gq(rp).ScaleToZero(ctx, ep.ID); return err },
			"ListEndpoints", []string{"use rp.Serverless.Endpoints.ScaleToZero (REST v2) instead"}},
		{"Delete", func() error { return gq(rp).Delete(ctx, ep.ID) },
			"ListEndpoints", []string{"use rp.Serverless.Endpoints.Delete (REST v2) instead"}},
		{"ScaleDownAndDelete", func() error { return gq(rp).ScaleDownAndDelete(ctx, ep.ID, option.Poll[int]{}) },
			"ListEndpoints", []string{"use rp.Serverless.Endpoints.ScaleDownAndDelete (REST v2) instead"}},
		{"SetTemplate", func() error { return gq(rp).SetTemplate(ctx, ep.ID, "tmpl-2") },
			"UpdateEndpointTemplate", []string{"use rp.Serverless.Endpoints.Update with UpdateEndpointRequest.TemplateID (REST v2) instead"}},
	} {
		t.Run(tc.call, func(t *testing.T) {
			before := srv.Count(fakegraphql.Route)
			err := tc.do()
			require.ErrorIs(t, err, errs.ErrGraphQLRetired)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusGone, apiErr.StatusCode)
			assert.Equal(t, "/graphql", apiErr.Path)
			assert.True(t, strings.HasPrefix(err.Error(), "runpod: graphql "+tc.op+": the platform retired its GraphQL API (410 Gone); "), err.Error())
			for _, want := range tc.instead {
				assert.Contains(t, err.Error(), want)
			}
			assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
			assert.Equal(t, before+1, srv.Count(fakegraphql.Route), "one request, not retried")
			testkit.NoSecret(t, err)
		})
	}
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "saveEndpoint"))
}

func TestUpdateChangeCannotAliasEndpoint(t *testing.T) {
	_, rp, _ := fake(t)
	created, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, err = gq(rp).Update(t.Context(), created.ID, func(s *graphqlendpoints.EndpointParams) {
		s.GPUs[0] = serverless.GPUPoolAmpere80
		*s.IdleTimeout = 10
		s.AllowedCUDAVersions[0] = "11.8"
	})
	require.NoError(t, err)
	got, err := gq(rp).Get(t.Context(), created.ID)
	require.NoError(t, err)
	assert.Equal(t, []serverless.GPUPool{serverless.GPUPoolAmpere80, serverless.GPUPoolAmpere24}, got.GPUs)
	assert.Equal(t, 10, *got.IdleTimeout)
}

// TestValidation: every rule, before anything is sent.
func TestValidation(t *testing.T) {
	srv, rp, _ := fake(t)
	cases := []struct {
		field string
		edit  func(*graphqlendpoints.EndpointParams)
	}{
		{"EndpointParams.Name", func(s *graphqlendpoints.EndpointParams) { s.Name = "" }},
		{"EndpointParams.Name", func(s *graphqlendpoints.EndpointParams) { s.Name = "ab" }},
		{"EndpointParams.TemplateID", func(s *graphqlendpoints.EndpointParams) { s.TemplateID = " " }},
		{"EndpointParams.GPUs", func(s *graphqlendpoints.EndpointParams) { s.GPUs = nil }},
		{"EndpointParams.GPUs[1]", func(s *graphqlendpoints.EndpointParams) {
			s.GPUs = []serverless.GPUPool{serverless.GPUPoolAda24, "A,B"}
		}},
		{"EndpointParams.Locations[0]", func(s *graphqlendpoints.EndpointParams) { s.Locations = []serverless.Location{""} }},
		{"EndpointParams.AllowedCUDAVersions[1]", func(s *graphqlendpoints.EndpointParams) { s.AllowedCUDAVersions = []string{"12.4", "12.5,12.6"} }},
		{"EndpointParams.ScalerValue", func(s *graphqlendpoints.EndpointParams) { s.ScalerValue = runpod.Ptr(0) }},
		{"EndpointParams.IdleTimeout", func(s *graphqlendpoints.EndpointParams) { s.IdleTimeout = runpod.Ptr(0) }},
		{"EndpointParams.IdleTimeout", func(s *graphqlendpoints.EndpointParams) { s.IdleTimeout = runpod.Ptr(3601) }},
		{"EndpointParams.WorkersMin", func(s *graphqlendpoints.EndpointParams) { s.WorkersMin = runpod.Ptr(-1) }},
		{"EndpointParams.WorkersMax", func(s *graphqlendpoints.EndpointParams) { s.WorkersMin, s.WorkersMax = runpod.Ptr(3), runpod.Ptr(2) }},
		{"EndpointParams.WorkersMax", func(s *graphqlendpoints.EndpointParams) { s.WorkersMin, s.WorkersMax = nil, runpod.Ptr(-1) }},
		{"EndpointParams.Type", func(s *graphqlendpoints.EndpointParams) { s.Type = "QUEUE" }},
		{"EndpointParams.ScalerType", func(s *graphqlendpoints.EndpointParams) { s.ScalerType = "CPU" }},
		{"EndpointParams.ScalerType", func(s *graphqlendpoints.EndpointParams) {
			s.Type, s.ScalerType = graphqlendpoints.EndpointTypeLoadBalancing, serverless.ScalerTypeQueueDelay
		}},
		{"EndpointParams.FlashBoot", func(s *graphqlendpoints.EndpointParams) { s.FlashBoot = "ON" }},
		{"EndpointParams.FlashBoot", func(s *graphqlendpoints.EndpointParams) { s.FlashBoot = serverless.FlashBootPriority }},
		{"EndpointParams.GPUCount", func(s *graphqlendpoints.EndpointParams) { s.GPUCount = runpod.Ptr(0) }},
		{"EndpointParams.ExecutionTimeout", func(s *graphqlendpoints.EndpointParams) { s.ExecutionTimeout = runpod.Ptr(1500 * time.Microsecond) }},
	}
	for _, c := range cases {
		spec := fullSpec()
		c.edit(&spec)
		_, err := gq(rp).Create(t.Context(), spec)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.field)
		assert.Equal(t, c.field, ve.Field)
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")

	created, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, err = gq(rp).Update(t.Context(), created.ID, func(s *graphqlendpoints.EndpointParams) { s.ScalerValue = runpod.Ptr(0) })
	require.ErrorIs(t, err, errs.ErrValidation)
	_, err = gq(rp).Update(t.Context(), created.ID, nil)
	require.ErrorIs(t, err, errs.ErrValidation)
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "saveEndpoint"), "an invalid update is not saved")
}

// TestPlatformErrors: the fake's own checks come back as GraphQLErrors
// with every message, path and code.
func TestPlatformErrors(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.TemplateID = "tmpl-unknown"
	_, err := gq(rp).Create(t.Context(), spec)
	var ge *errs.GraphQLError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "SaveEndpoint", ge.Operation)
	require.Len(t, ge.Errors, 1)
	assert.Equal(t, "template not found", ge.Errors[0].Message)
	assert.Equal(t, []any{"saveEndpoint"}, ge.Errors[0].Path)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	assert.Equal(t, `runpod: graphql SaveEndpoint: template not found (at saveEndpoint) [NOT_FOUND]`, err.Error())
	assert.Zero(t, fakegraphql.Mutations(srv, "saveEndpoint"))

	ro := srv.NewKey(runpodtest.PermissionServerlessRead)
	rpRead, err := srv.NewClient(option.WithAPIKey(ro))
	require.NoError(t, err)
	_, err = gq(rpRead).Create(t.Context(), fullSpec())
	require.ErrorIs(t, err, errs.ErrForbidden, "a read-only key cannot save")
	testkit.NoSecret(t, err)
}

func TestAuthErrors(t *testing.T) {
	srv, _, _ := fake(t)
	t.Run("myself null", func(t *testing.T) {
		rp, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionBillingRead)))
		require.NoError(t, err)
		_, err = gq(rp).List(t.Context())
		require.ErrorIs(t, err, errs.ErrUnauthorized)
		testkit.NoSecret(t, err)
	})
	t.Run("401", func(t *testing.T) {
		rp, err := srv.NewClient(option.WithAPIKey("rpa_00000000000000000000000000000000"))
		require.NoError(t, err)
		_, err = gq(rp).List(t.Context())
		require.ErrorIs(t, err, errs.ErrUnauthorized)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 401, apiErr.StatusCode)
		assert.Equal(t, "/graphql", apiErr.Path)
		testkit.NoSecret(t, err, apiErr)
	})
	t.Run("429", func(t *testing.T) {
		// A fixed clock 30 s into a minute: both calls fall in one window,
		// whenever the test runs.
		at := time.Date(2026, 6, 1, 12, 0, 30, 0, time.UTC)
		srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { return at }), fakegraphql.Serve())
		t.Cleanup(srv.Close)
		key := srv.NewKey(runpodtest.PermissionServerlessRead)
		srv.SetQuota(key, runpodtest.Quota{Minute: 1, Hour: 10, Day: 10})
		rp, err := srv.NewClient(option.WithAPIKey(key), option.WithMaxWait(time.Second))
		require.NoError(t, err)
		_, err = gq(rp).List(t.Context())
		require.NoError(t, err)
		_, err = gq(rp).List(t.Context())
		require.ErrorIs(t, err, errs.ErrRateLimited)
		var apiErr *errs.APIError
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
		before := fakegraphql.Mutations(srv, "saveEndpoint")
		requests := srv.Count(fakegraphql.Route)
		srv.FailNext(fakegraphql.Route, 1, f)
		_, err := gq(rp).Create(t.Context(), fullSpec())
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "%+v", f)
		assert.Equal(t, requests+1, srv.Count(fakegraphql.Route), "sent once: %+v", f)
		applied := fakegraphql.Mutations(srv, "saveEndpoint") - before
		if f.Drop == runpodtest.DropAfter {
			assert.Equal(t, 1, applied, "the platform acted; the client never heard")
		} else {
			assert.Zero(t, applied)
		}
		testkit.NoSecret(t, err)
	}
	assert.Len(t, srv.Endpoints(), 1)

	srv.FailNext(fakegraphql.Route, 2, runpodtest.Fault{Status: 503})
	list, err := gq(rp).List(t.Context())
	require.NoError(t, err, "a query is retried")
	assert.Len(t, list.Endpoints, 1)

	// The settings read is a query too.
	id := list.Endpoints[0].ID
	srv.FailNext(fakegraphql.Route, 1, runpodtest.Fault{Status: 503})
	_, err = gq(rp).Update(t.Context(), id, func(s *graphqlendpoints.EndpointParams) { s.WorkersMax = runpod.Ptr(6) })
	require.NoError(t, err)

	srv.FailNext(fakegraphql.Route, 1, runpodtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"0"}}})
	_, err = gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err, "429 means not processed: the mutation is retried")
	assert.Len(t, srv.Endpoints(), 2)
	assert.NotContains(t, lines.String(), "api_key=")
}

func TestDeleteLifecycle(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.WorkersMin = runpod.Ptr(2)
	ep, err := gq(rp).Create(t.Context(), spec)
	require.NoError(t, err)
	got, err := gq(rp).Get(t.Context(), ep.ID)
	require.NoError(t, err)
	assert.Len(t, got.Workers, 2)

	err = gq(rp).Delete(t.Context(), ep.ID)
	require.ErrorIs(t, err, serverless.ErrNotScaledDown)
	assert.Contains(t, err.Error(), "workersMin 2, workersMax 4")
	assert.Zero(t, fakegraphql.Mutations(srv, "deleteEndpoint"))
	bodies, _ := graphqlBodies(t, srv)
	assert.NotContains(t, opNames(bodies), "DeleteEndpoint", "refused before sending")

	scaled, err := gq(rp).ScaleToZero(t.Context(), ep.ID)
	require.NoError(t, err)
	assert.Equal(t, 0, *scaled.WorkersMin)
	assert.Equal(t, 0, *scaled.WorkersMax)
	assert.Equal(t, 77, *scaled.IdleTimeout, "scaling keeps the rest")
	assert.Equal(t, []string{"12.4", "12.6"}, scaled.AllowedCUDAVersions)
	require.NoError(t, gq(rp).Delete(t.Context(), ep.ID))
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "deleteEndpoint"))
	bodies, _ = graphqlBodies(t, srv)
	last := bodies[len(bodies)-1]
	assert.Equal(t, "\nmutation DeleteEndpoint ($id: String!) {\n\tdeleteEndpoint(id: $id)\n}\n", last.Query)
	assert.JSONEq(t, `{"id":"`+ep.ID+`"}`, string(last.Variables))
	assert.Empty(t, srv.Endpoints())

	err = gq(rp).Delete(t.Context(), ep.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
}

func TestScaleDownAndDelete(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.WorkersMin = runpod.Ptr(2)
	ep, err := gq(rp).Create(t.Context(), spec)
	require.NoError(t, err)
	var seen []int
	err = gq(rp).ScaleDownAndDelete(t.Context(), ep.ID, option.Poll[int]{
		Interval: 10 * time.Millisecond,
		OnCheck:  func(n int) { seen = append(seen, n) },
	})
	require.NoError(t, err)
	require.NotEmpty(t, seen)
	assert.Equal(t, 2, seen[0], "the drained workers linger at first")
	assert.Equal(t, 0, seen[len(seen)-1])
	assert.Empty(t, srv.Endpoints())
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "deleteEndpoint"))
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
	_, err := gq(rp).List(t.Context())
	require.NoError(t, err)
	ep, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, err = gq(rp).ScaleToZero(t.Context(), ep.ID)
	require.NoError(t, err)
	require.NoError(t, gq(rp).SetTemplate(t.Context(), ep.ID, "tmpl-2"))
	bodies, _ := graphqlBodies(t, srv)
	require.Len(t, bodies, 6)
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
	ep, err := gq(rp).Create(t.Context(), graphqlendpoints.EndpointParams{Name: "cpu-endpoint", TemplateID: "tmpl-1", InstanceIDs: []string{"cpu3c-2-4", "cpu3g-4-16"}})
	require.NoError(t, err)
	assert.Empty(t, ep.GPUs)
	assert.Equal(t, []string{"cpu3c-2-4", "cpu3g-4-16"}, ep.InstanceIDs)
	bodies, _ := graphqlBodies(t, srv)
	assert.JSONEq(t, `{"input":{"name":"cpu-endpoint","templateId":"tmpl-1","instanceIds":["cpu3c-2-4","cpu3g-4-16"]}}`, string(bodies[0].Variables))

	updated, err := gq(rp).Update(t.Context(), ep.ID, func(s *graphqlendpoints.EndpointParams) { s.WorkersMax = runpod.Ptr(3) })
	require.NoError(t, err, "an endpoint the platform reports with empty gpuIds can be updated")
	assert.Equal(t, 3, *updated.WorkersMax)
	assert.Equal(t, []string{"cpu3c-2-4", "cpu3g-4-16"}, updated.InstanceIDs, "the flavours, read by the settings query, are kept")

	_, err = gq(rp).Create(t.Context(), graphqlendpoints.EndpointParams{Name: "both", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, InstanceIDs: []string{"cpu3c-2-4"}})
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "EndpointParams.InstanceIDs", ve.Field)
	_, err = gq(rp).Create(t.Context(), graphqlendpoints.EndpointParams{Name: "neither", TemplateID: "tmpl-1"})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "EndpointParams.GPUs", ve.Field)
}

// TestPriorityFlashBoot: PRIORITY_FLASHBOOT, which the platform's GraphQL
// clients do not document, is refused before sending, on Create and as a
// change in Update, with a pointer to REST v2; an endpoint the platform
// reports with it keeps it through an Update.
func TestPriorityFlashBoot(t *testing.T) {
	srv, rp, _ := fake(t)
	spec := fullSpec()
	spec.FlashBoot = serverless.FlashBootPriority
	_, err := gq(rp).Create(t.Context(), spec)
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "EndpointParams.FlashBoot", ve.Field)
	assert.Contains(t, ve.Message, "rp.Serverless.Endpoints.Create or Update")
	assert.Contains(t, ve.Message, "REST v2")
	assert.Zero(t, srv.Count("*"), "nothing was sent")

	ep, err := gq(rp).Create(t.Context(), fullSpec())
	require.NoError(t, err)
	_, err = gq(rp).Update(t.Context(), ep.ID, func(s *graphqlendpoints.EndpointParams) { s.FlashBoot = serverless.FlashBootPriority })
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "EndpointParams.FlashBoot", ve.Field)
	assert.Equal(t, 1, fakegraphql.Mutations(srv, "saveEndpoint"), "not saved")

	fixture := richEndpoint()
	fixture.FlashBoot = serverless.FlashBootPriority
	id := srv.AddEndpoint(fixture)
	updated, err := gq(rp).Update(t.Context(), id, func(s *graphqlendpoints.EndpointParams) { s.Name = "renamed" })
	require.NoError(t, err)
	assert.Equal(t, serverless.FlashBootPriority, updated.FlashBoot)
	inputs := saveInputs(t, srv)
	assert.Equal(t, "PRIORITY_FLASHBOOT", inputs[len(inputs)-1]["flashBootType"], "the reported value is sent back as it is")
	for _, e := range srv.Endpoints() {
		if e.ID == id {
			assert.Equal(t, serverless.FlashBootPriority, e.FlashBoot)
			assert.Equal(t, "renamed", e.Name)
		}
	}
}
