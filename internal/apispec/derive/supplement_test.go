package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const supp = `{
  "sources": {"docs": "docs.runpod.io /a/page (2026-10-13)", "mcp": "@runpod/mcp-server 4.0.0 schema"},
  "fragments": {"cursor": {"in": "query", "name": "cursor", "schema": {"type": "string", "minLength": 1}}},
  "patches": [
    {"source": "docs", "op": "append", "match": ["name", "in"], "at": ["/paths/~1v2~1pods~1{id}/get/parameters"], "value": {"$fragment": "cursor"}},
    {"source": "docs", "op": "set", "at": ["/components/schemas/Pod/properties/page"], "value": {"$ref": "#/components/schemas/Summary"}, "why": "ours"},
    {"source": "mcp", "op": "set", "at": ["/components/schemas/Pod/properties/limit/maximum"], "value": 2.5},
    {"source": "mcp", "op": "append", "at": ["/components/schemas/Pod/required"], "value": "status"},
    {"source": "mcp", "op": "remove", "at": ["/components/schemas/Pod/required"], "value": "description"},
    {"source": "mcp", "op": "set", "at": ["/paths/~1v2~1pods~1{id}/get/responses/422"], "value": {"$ref": "#/components/responses/NotFound"}}
  ]
}`

// TestSupplementAddsWithSources: each op lands where its pointer says, and
// its source is kept on the value, or beside it where the value may not
// carry one (a scalar, a list entry, a response $ref).
func TestSupplementAddsWithSources(t *testing.T) {
	out, err := derive([]byte(published), []byte(supp))
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []map[string]any `json:"parameters"`
			Responses  map[string]any   `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(out, &doc))
	get := doc.Paths["/v2/pods/{id}"]["get"]
	require.Len(t, get.Parameters, 2)
	assert.Equal(t, "cursor", get.Parameters[1]["name"])
	assert.Equal(t, []any{"docs.runpod.io /a/page (2026-10-13)"}, get.Parameters[1][sourceKey])
	assert.Equal(t, map[string]any{"$ref": "#/components/responses/NotFound"}, get.Responses["422"], "a response $ref takes no extension")
	assert.Equal(t, []any{"@runpod/mcp-server 4.0.0 schema"}, get.Responses[sourceKey], "so the responses carry its source")

	pod := doc.Components.Schemas["Pod"]
	props := pod["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"$ref": "#/components/schemas/Summary", sourceKey: []any{"docs.runpod.io /a/page (2026-10-13)"}},
		props["page"], "a schema $ref may carry it")
	limit := props["limit"].(map[string]any)
	assert.InDelta(t, 2.5, limit["maximum"], 0)
	assert.Equal(t, []any{"@runpod/mcp-server 4.0.0 schema"}, limit[sourceKey])
	assert.Equal(t, []any{"id", "status"}, pod["required"])
	assert.Equal(t, []any{"@runpod/mcp-server 4.0.0 schema"}, pod[sourceKey])
	assert.NotContains(t, string(out), "ours", "why stays in the supplement")

	again, err := resupplement(out, []byte(supp))
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again), "applying a supplement twice changes nothing")
}

func TestSupplementRefusesMistakes(t *testing.T) {
	for name, s := range map[string]string{
		"unknown source":   `{"sources": {}, "patches": [{"source": "x", "op": "set", "at": ["/info/x"], "value": 1}]}`,
		"unknown op":       `{"sources": {"s": "s"}, "patches": [{"source": "s", "op": "merge", "at": ["/info/x"], "value": 1}]}`,
		"missing parent":   `{"sources": {"s": "s"}, "patches": [{"source": "s", "op": "set", "at": ["/nothing/here"], "value": 1}]}`,
		"unknown fragment": `{"sources": {"s": "s"}, "patches": [{"source": "s", "op": "set", "at": ["/info/x"], "value": {"$fragment": "f"}}]}`,
		"unknown field":    `{"sources": {"s": "s"}, "patches": [{"source": "s", "op": "set", "at": ["/info/x"], "value": 1, "note": "?"}]}`,
		"no pointer":       `{"sources": {"s": "s"}, "patches": [{"source": "s", "op": "set", "value": 1}]}`,
	} {
		_, err := derive([]byte(published), []byte(s))
		assert.Error(t, err, name)
	}
}

// committed returns the committed copy and supplement.
func committed(t *testing.T) (doc, supp []byte) {
	t.Helper()
	doc, err := os.ReadFile("../rest-v2.json")
	require.NoError(t, err)
	supp, err = os.ReadFile("../supplement.json")
	require.NoError(t, err)
	return doc, supp
}

// TestCommittedCopyHasTheSupplement: the committed rest-v2.json already
// holds every addition of supplement.json, so the copy a fresh clone
// builds from (without the published document) is the one derive makes
// with it, and go generate there changes nothing.
func TestCommittedCopyHasTheSupplement(t *testing.T) {
	doc, supp := committed(t)
	again, err := resupplement(doc, supp)
	require.NoError(t, err)
	assert.Equal(t, string(doc), string(again), "run go generate ./internal/apispec")
}

// TestCommittedCopyIsDerived: where the published document is at hand
// (the path go generate reads), the committed copy is exactly what derive
// makes of it and the supplement.
func TestCommittedCopyIsDerived(t *testing.T) {
	published, err := os.ReadFile("../../../../shared/reference/platform-openapi-v2.json")
	if os.IsNotExist(err) {
		t.Skip("the published document is not in this checkout")
	}
	require.NoError(t, err)
	doc, supp := committed(t)
	out, err := derive(published, supp)
	require.NoError(t, err)
	assert.Equal(t, string(doc), string(out), "run go generate ./internal/apispec")
}

// TestScopesTable: the operations that name their API key scope land in
// package scope's table, keyed by method and path with the parameters
// written {}; the committed table is the one the committed copy gives.
func TestScopesTable(t *testing.T) {
	doc, err := decodeObject([]byte(`{"paths": {
	  "/v2/tags/{id}": {"get": {"operationId": "getTag", "x-runpod-scope": "tags:read"}, "parameters": []},
	  "/v2/tags/{id}/resources/{resourceType}/{resourceId}": {"put": {"x-runpod-scope": "tags:write"}},
	  "/v2/pods": {"get": {"operationId": "listPods"}}}}`))
	require.NoError(t, err)
	src, err := scopesSource(doc)
	require.NoError(t, err)
	assert.Contains(t, string(src), `"GET /v2/tags/{}":                 "tags:read",`)
	assert.Contains(t, string(src), `"PUT /v2/tags/{}/resources/{}/{}": "tags:write",`)
	assert.NotContains(t, string(src), "/v2/pods")

	_, err = scopesSource(map[string]any{"paths": map[string]any{"/x": map[string]any{"get": map[string]any{scopeKey: 1}}}})
	assert.Error(t, err, "a scope is a name")

	copied, _ := committed(t)
	doc, err = decodeObject(copied)
	require.NoError(t, err)
	src, err = scopesSource(doc)
	require.NoError(t, err)
	table, err := os.ReadFile("../scope/scopes.gen.go")
	require.NoError(t, err)
	assert.Equal(t, string(src), string(table), "run go generate ./internal/apispec")
}
