package runpodtest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestRegistryFixtures: AddRegistry and AddDelegation seed what GET
// returns in the document's wire format (a 500 would say the fake broke
// it); the delegation's repository, region and Docker host come from its
// ARN, and a name is null when none was given.
func TestRegistryFixtures(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	srv := newServer(t, runpodtest.WithClock(func() time.Time { return at }))
	id := srv.AddRegistry("ghcr")
	assert.Equal(t, []runpodtest.Registry{{ID: id, Name: "ghcr"}}, srv.Registries())
	status, got := podCall(t, srv, http.MethodGet, "/v2/registries/"+id, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"id": id, "name": "ghcr"}, got)

	d := srv.AddDelegation(runpodtest.Delegation{Resource: "arn:aws:ecr:eu-west-1:111122223333:repository/base/img"})
	assert.Equal(t, []runpodtest.Delegation{{ID: d, Resource: "arn:aws:ecr:eu-west-1:111122223333:repository/base/img", CreatedAt: at}}, srv.Delegations())
	status, got = podCall(t, srv, http.MethodGet, "/v2/registries/delegations", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, []any{map[string]any{
		"id": d, "name": nil, "delegatorUserId": "user_fake", "awsUser": "111122223333", "repository": "base/img", "tag": "latest",
		"awsRegion": "eu-west-1", "dockerRegistryUri": "111122223333.dkr.ecr.eu-west-1.amazonaws.com", "createdAt": "2026-06-01T12:00:00Z",
	}}, got["delegations"])

	assert.Panics(t, func() { srv.AddDelegation(runpodtest.Delegation{Resource: "arn:aws:s3:::bucket"}) })
}

// TestRegistryRules: the document's checks and the platform's own rules,
// on raw requests.
func TestRegistryRules(t *testing.T) {
	srv := newServer(t)
	status, got := podCall(t, srv, http.MethodPost, "/v2/registries", `{"name":"n","username":"u"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, status, "password is required")
	assert.Contains(t, got["errors"], "$: missing property 'password'")
	status, got = podCall(t, srv, http.MethodPost, "/v2/registries", `{"name":"n","username":"u","password":"p"}`)
	require.Equal(t, http.StatusCreated, status)
	assert.Equal(t, []string{"id", "name"}, registryFields(got), "the credential is never echoed")

	status, _ = podCall(t, srv, http.MethodDelete, "/v2/registries/unknown1", "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = podCall(t, srv, http.MethodDelete, "/v2/registries/delegations/deleg_unknown", "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = podCall(t, srv, http.MethodPost, "/v2/registries/delegations", `{"resource":"arn:aws:ecr:us-east-2:123456789012:image/app"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	status, _ = podCall(t, srv, http.MethodPost, "/v2/registries/delegations", `{"name":"x"}`)
	assert.Equal(t, http.StatusBadRequest, status, "resource is required")
	status, _ = podCall(t, srv, http.MethodGet, "/v2/registries/delegations/deleg_x", "")
	assert.Equal(t, http.StatusMethodNotAllowed, status)
}

// registryFields lists which of a credential's possible fields m has.
func registryFields(m map[string]any) []string {
	var out []string
	for _, k := range []string{"id", "name", "username", "password"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
