package registries_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// password is the write-only secret of the tests' credentials. testkit
// fails the suite if any captured log line shows it.
const password = "s3cr3t-Registry-Pa55word"

func init() { testkit.RegisterSecret(password) }

const arn = "arn:aws:ecr:us-east-2:123456789012:repository/team/app"

func fake(t *testing.T) (*runpodtest.Server, *runpod.Client, *testkit.Lines) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	log, lines := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp, lines
}

func newRegistry() registries.CreateRegistryRequest {
	return registries.CreateRegistryRequest{Name: "dockerhub-private", Username: "runpod-user", Password: password}
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

// noServerErrors fails when the fake answered any request with a 500: a
// response of the fake that breaks the REST v2 document.
func noServerErrors(t *testing.T, srv *runpodtest.Server) {
	t.Helper()
	for _, r := range srv.Requests() {
		assert.NotEqual(t, http.StatusInternalServerError, r.Status, "%s %s", r.Method, r.Path)
	}
}

func TestRegistries(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()

	list, err := rp.Registries.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.NotNil(t, list, "an empty account lists an empty slice")

	reg, err := rp.Registries.Create(ctx, newRegistry())
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteCreateRegistry, r.Route)
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.JSONEq(t, `{"name":"dockerhub-private","username":"runpod-user","password":"`+password+`"}`, string(r.Body))
	assert.Equal(t, "dockerhub-private", reg.Name)
	assert.NotEmpty(t, reg.ID)

	got, err := rp.Registries.Get(ctx, reg.ID)
	require.NoError(t, err)
	assert.Equal(t, *reg, *got)
	assert.Equal(t, "/v2/registries/"+reg.ID, last(srv).Path)

	seeded := srv.AddRegistry("ghcr")
	list, err = rp.Registries.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []registries.Registry{*reg, {ID: seeded, Name: "ghcr"}}, list)
	assert.Equal(t, []runpodtest.Registry{{ID: reg.ID, Name: reg.Name}, {ID: seeded, Name: "ghcr"}}, srv.Registries())

	require.NoError(t, rp.Registries.Delete(ctx, reg.ID))
	r = last(srv)
	assert.Equal(t, runpodtest.RouteDeleteRegistry, r.Route)
	assert.Equal(t, http.StatusNoContent, r.Status)
	_, err = rp.Registries.Get(ctx, reg.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	assert.Equal(t, []runpodtest.Registry{{ID: seeded, Name: "ghcr"}}, srv.Registries())
	noServerErrors(t, srv)
}

func TestDelegations(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()

	list, err := rp.Registries.ListDelegations(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)

	d, err := rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{Resource: arn, Name: runpod.Ptr("app")})
	require.NoError(t, err)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteCreateDelegation, r.Route)
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.JSONEq(t, `{"resource":"`+arn+`","name":"app"}`, string(r.Body))
	assert.Equal(t, "app", *d.Name)
	assert.Equal(t, "team/app", d.Repository)
	assert.Equal(t, "us-east-2", d.AWSRegion)
	assert.Equal(t, "123456789012", d.AWSUser)
	assert.Equal(t, "latest", d.Tag)
	assert.NotEmpty(t, d.DelegatorUserID)
	require.NotNil(t, d.DockerRegistryURI)
	assert.Equal(t, "123456789012.dkr.ecr.us-east-2.amazonaws.com", *d.DockerRegistryURI)
	assert.False(t, d.CreatedAt.IsZero())

	unnamed, err := rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{Resource: "arn:aws-cn:ecr:cn-north-1:000000000001:repository/x"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"resource":"arn:aws-cn:ecr:cn-north-1:000000000001:repository/x"}`, string(last(srv).Body), "no name: none sent")
	assert.Nil(t, unnamed.Name)

	seeded := srv.AddDelegation(runpodtest.Delegation{Name: "seeded", Resource: "arn:aws:ecr:eu-west-1:111122223333:repository/base"})
	list, err = rp.Registries.ListDelegations(ctx)
	require.NoError(t, err)
	require.Len(t, list, 3)
	assert.Equal(t, []string{d.ID, unnamed.ID, seeded}, []string{list[0].ID, list[1].ID, list[2].ID})
	assert.Equal(t, "base", list[2].Repository)

	require.NoError(t, rp.Registries.RevokeDelegation(ctx, d.ID))
	r = last(srv)
	assert.Equal(t, runpodtest.RouteRevokeDelegation, r.Route)
	assert.Equal(t, "/v2/registries/delegations/"+d.ID, r.Path)
	assert.Equal(t, http.StatusNoContent, r.Status)
	assert.Len(t, srv.Delegations(), 2)

	err = rp.Registries.RevokeDelegation(ctx, d.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	noServerErrors(t, srv)
}

// TestPlatformErrors: what the platform refuses surfaces as a typed
// error: unknown ids (404), a credential a pod uses (400), a body the
// document refuses (422), a key without the permission (403).
func TestPlatformErrors(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	var apiErr *errs.APIError

	_, err := rp.Registries.Get(ctx, "nope1234")
	require.ErrorIs(t, err, errs.ErrNotFound)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "registry not found", apiErr.Detail)
	err = rp.Registries.Delete(ctx, "nope1234")
	require.ErrorIs(t, err, errs.ErrNotFound, "a first attempt's 404 is an error")

	// A pod pulls its image with the credential: it cannot be deleted.
	reg, err := rp.Registries.Create(ctx, newRegistry())
	require.NoError(t, err)
	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name: "private", Image: runpod.Ptr("me/private:1"), Registry: &reg.ID, GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"},
	})
	require.NoError(t, err)
	err = rp.Registries.Delete(ctx, reg.ID)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Contains(t, apiErr.Detail, "in use")
	require.NoError(t, rp.Pods.Delete(ctx, pod.ID))
	require.NoError(t, rp.Registries.Delete(ctx, reg.ID), "deletable once no pod uses it")

	// The fake holds raw requests to the document: an empty password is a
	// 422, an unknown property too. (The SDK refuses both before sending.)
	for _, body := range []string{
		`{"name":"n","username":"u","password":""}`,
		`{"name":"n","username":"u","password":"p","email":"e"}`,
	} {
		err = rp.Do(ctx, http.MethodPost, "/v2/registries", json.RawMessage(body), nil)
		require.ErrorAs(t, err, &apiErr, body)
		assert.Equal(t, http.StatusUnprocessableEntity, apiErr.StatusCode, body)
	}
	// A delegation whose resource is no ECR repository's ARN.
	err = rp.Do(ctx, http.MethodPost, "/v2/registries/delegations", map[string]string{"resource": "arn:aws:s3:::bucket"}, nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Empty(t, srv.Registries())
	assert.Empty(t, srv.Delegations())

	// A key that may only read.
	reader, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionRegistriesRead)))
	require.NoError(t, err)
	t.Cleanup(reader.CloseIdleConnections)
	_, err = reader.Registries.List(ctx)
	require.NoError(t, err)
	_, err = reader.Registries.Create(ctx, newRegistry())
	require.ErrorIs(t, err, errs.ErrForbidden)
	_, err = reader.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{Resource: arn})
	require.ErrorIs(t, err, errs.ErrForbidden)
	noServerErrors(t, srv)
}

// TestValidation: requests the document's constraints refuse are refused
// before sending, with a *errs.ValidationError naming the field; nothing
// reaches the fake.
func TestValidation(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	check := func(err error, field string) {
		t.Helper()
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
		assert.ErrorIs(t, err, errs.ErrValidation)
		assert.NotContains(t, err.Error(), password)
	}
	for field, edit := range map[string]func(*registries.CreateRegistryRequest){
		"CreateRegistryRequest.Name":     func(r *registries.CreateRegistryRequest) { r.Name = "" },
		"CreateRegistryRequest.Username": func(r *registries.CreateRegistryRequest) { r.Username = "" },
		"CreateRegistryRequest.Password": func(r *registries.CreateRegistryRequest) { r.Password = "" },
	} {
		req := newRegistry()
		edit(&req)
		_, err := rp.Registries.Create(ctx, req)
		check(err, field)
	}
	for _, resource := range []string{
		"",
		"team/app",
		"123456789012.dkr.ecr.us-east-2.amazonaws.com/team/app",
		"arn:aws:s3:::bucket/key",
		"arn::ecr:us-east-2:123456789012:repository/app",
		"arn:aws:ecr::123456789012:repository/app",
		"arn:aws:ecr:us-east-2::repository/app",
		"arn:aws:ecr:us-east-2:acct:repository/app",
		"arn:aws:ecr:us-east-2:123456789012:app",
		"arn:aws:ecr:us-east-2:123456789012:repository/",
		"arn:aws:ecr:us-east-2:123456789012:repository/app ",
		"arn:aws:ecr:us-east-2:123456789012",
	} {
		_, err := rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{Resource: resource})
		check(err, "CreateDelegationRequest.Resource")
	}
	for _, id := range []string{"", " ", ".", "..", "a/b", "a?b", "a#b", "a%2Fb", "a b", "a\nb", "delegations"} {
		_, err := rp.Registries.Get(ctx, id)
		check(err, "registryID")
		check(rp.Registries.Delete(ctx, id), "registryID")
		if id != "delegations" {
			check(rp.Registries.RevokeDelegation(ctx, id), "delegationID")
		}
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")

	require.NoError(t, newRegistry().Validate())
	require.NoError(t, registries.CreateDelegationRequest{Resource: arn}.Validate())
}

// TestRetries: creates are never repeated after they may have reached the
// platform; reads and deletes are retried, and a retried delete that finds
// the thing gone succeeds.
func TestRetries(t *testing.T) {
	srv, rp, lines := fake(t)
	ctx := t.Context()
	drop := runpodtest.Fault{Drop: runpodtest.DropAfter}

	srv.FailNext(runpodtest.RouteCreateRegistry, 1, drop)
	_, err := rp.Registries.Create(ctx, newRegistry())
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateRegistry), "not repeated")
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteCreateRegistry))
	assert.NotContains(t, err.Error(), password)
	list, err := rp.Registries.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1, "List tells that the credential exists")

	srv.FailNext(runpodtest.RouteCreateDelegation, 1, drop)
	_, err = rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{Resource: arn})
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateDelegation))
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteCreateDelegation))

	// A server error answering a create may come after the platform
	// acted: not repeated either.
	srv.FailNext(runpodtest.RouteCreateRegistry, 1, runpodtest.Fault{Status: http.StatusBadGateway})
	_, err = rp.Registries.Create(ctx, newRegistry())
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteCreateRegistry))

	id := list[0].ID
	for _, c := range []struct {
		route string
		call  func() error
	}{
		{runpodtest.RouteRegistries, func() error { _, err := rp.Registries.List(ctx); return err }},
		{runpodtest.RouteRegistry, func() error { _, err := rp.Registries.Get(ctx, id); return err }},
		{runpodtest.RouteDelegations, func() error { _, err := rp.Registries.ListDelegations(ctx); return err }},
	} {
		before := srv.Count(c.route)
		srv.FailNext(c.route, 1, drop)
		require.NoError(t, c.call(), c.route)
		assert.Equal(t, before+2, srv.Count(c.route), "%s: retried once", c.route)
	}

	before := srv.Count(runpodtest.RouteDeleteRegistry)
	srv.FailNext(runpodtest.RouteDeleteRegistry, 1, drop)
	require.NoError(t, rp.Registries.Delete(ctx, id), "the first attempt deleted it; the retry's 404 is success")
	assert.Equal(t, before+2, srv.Count(runpodtest.RouteDeleteRegistry))
	assert.Equal(t, http.StatusNotFound, last(srv).Status)
	assert.Empty(t, srv.Registries())

	dels := srv.Delegations()
	require.Len(t, dels, 1)
	srv.FailNext(runpodtest.RouteRevokeDelegation, 1, drop)
	require.NoError(t, rp.Registries.RevokeDelegation(ctx, dels[0].ID))
	assert.Equal(t, 2, srv.Count(runpodtest.RouteRevokeDelegation))
	assert.Empty(t, srv.Delegations())

	assert.NotContains(t, lines.String(), password)
}

// TestPasswordIsWriteOnly: the password goes to the platform in the create
// request's body and nowhere else: not printed with any verb, not in a
// slog record, not in the SDK's log, not in an error (even one whose body
// quotes it), not in any response.
func TestPasswordIsWriteOnly(t *testing.T) {
	srv, rp, lines := fake(t)
	ctx := t.Context()
	req := newRegistry()

	type wrapper struct {
		Req  registries.CreateRegistryRequest
		Ptr  *registries.CreateRegistryRequest
		List []registries.CreateRegistryRequest
	}
	for _, v := range []any{req, &req, wrapper{req, &req, []registries.CreateRegistryRequest{req}}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%T %[1]v", "%10.3v"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, password, verb)
		}
	}
	assert.Equal(t, "CreateRegistryRequest{Name:dockerhub-private Username:runpod-user Password:[REDACTED]}", req.String())
	assert.Equal(t, req.String(), fmt.Sprintf("%#v", req))
	assert.Equal(t, "CreateRegistryRequest{Name:n Username:u Password:}", registries.CreateRegistryRequest{Name: "n", Username: "u"}.String(),
		"an empty password shows as empty")
	testkit.NoSecret(t, req, &req)

	var logged bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&logged, nil), slog.NewTextHandler(&logged, nil)} {
		slog.New(h).Info("creating", "req", req, "ptr", &req)
	}
	assert.NotContains(t, logged.String(), password)
	assert.Contains(t, logged.String(), "[REDACTED]")

	// Errors: a failure the platform reports quoting the password, as
	// problem+json and as plain text, and a dropped connection.
	quoting := []runpodtest.Fault{
		{Status: http.StatusUnprocessableEntity, Header: http.Header{"Content-Type": {"application/problem+json"}},
			Body: `{"title":"Unprocessable Entity","status":422,"detail":"login as runpod-user with ` + password + ` failed","errors":["$.password: ` + password + `"]}`},
		{Status: http.StatusBadRequest, Header: http.Header{"Content-Type": {"text/plain"}}, Body: "bad credentials: " + password},
		{Drop: runpodtest.DropBefore},
	}
	for _, f := range quoting {
		srv.FailNext(runpodtest.RouteCreateRegistry, 1, f)
		_, err := rp.Registries.Create(ctx, req)
		require.Error(t, err)
		testkit.NoSecret(t, err)
		var apiErr *errs.APIError
		if errors.As(err, &apiErr) {
			assert.NotContains(t, string(apiErr.Body), password)
			assert.NotContains(t, fmt.Sprintf("%+v", *apiErr), password)
			assert.Contains(t, err.Error(), "[REDACTED]", "the error still says what was wrong")
		}
	}
	var apiErr *errs.APIError
	srv.FailNext(runpodtest.RouteCreateRegistry, 1, quoting[0])
	_, err := rp.Registries.Create(ctx, req)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnprocessableEntity, apiErr.StatusCode)
	assert.Equal(t, []string{"$.password: [REDACTED]"}, apiErr.Errors)

	// Success: the answer has only an id and a name.
	reg, err := rp.Registries.Create(ctx, req)
	require.NoError(t, err)
	_, err = rp.Registries.Get(ctx, reg.ID)
	require.NoError(t, err)
	_, err = rp.Registries.List(ctx)
	require.NoError(t, err)

	// The fake's request log holds the password in the create bodies it
	// received (five: three failed, two succeeded), and nothing else
	// anywhere does.
	sent := 0
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteCreateRegistry {
			assert.Contains(t, string(r.Body), password)
			sent++
			continue
		}
		assert.NotContains(t, string(r.Body), password, "%s %s", r.Method, r.Path)
		assert.NotContains(t, fmt.Sprint(r.Header), password)
	}
	assert.Equal(t, 5, sent)
	assert.NotContains(t, fmt.Sprint(srv.Registries()), password)
	assert.NotContains(t, lines.String(), password)
	assert.NotEmpty(t, lines.String(), "the SDK logged the calls")
	assert.True(t, strings.Contains(lines.String(), "/v2/registries"))
}

// TestResponsesCarryNoCredential: what the platform answers, and so what
// the SDK decodes, has no username or password field.
func TestResponsesCarryNoCredential(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	reg, err := rp.Registries.Create(ctx, newRegistry())
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, rp.Do(ctx, http.MethodGet, "/v2/registries/"+reg.ID, nil, &raw))
	assert.Equal(t, map[string]any{"id": reg.ID, "name": "dockerhub-private"}, raw)
	var all struct{ Registries []map[string]any }
	require.NoError(t, rp.Do(ctx, http.MethodGet, "/v2/registries", nil, &all))
	assert.Equal(t, []map[string]any{{"id": reg.ID, "name": "dockerhub-private"}}, all.Registries)
	noServerErrors(t, srv)
}
