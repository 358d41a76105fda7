package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpsSource: every operation is listed, keyed as scope's table is,
// with its query parameters (the path item's and its own, $refs
// followed) and, for a list that takes a cursor, its items' property; a
// cursor list whose answer has no single list is an error.
func TestOpsSource(t *testing.T) {
	doc, err := decodeObject([]byte(`{
	  "paths": {
	    "/v2/things": {"get": {"operationId": "listThings",
	      "parameters": [{"$ref": "#/components/parameters/Cursor"}, {"name": "limit", "in": "query"}],
	      "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/List"}}}}}}},
	    "/v2/things/{thingId}": {"parameters": [{"name": "thingId", "in": "path"}, {"name": "v", "in": "query"}],
	      "delete": {"operationId": "deleteThing"}}
	  },
	  "components": {
	    "parameters": {"Cursor": {"name": "cursor", "in": "query"}},
	    "schemas": {"List": {"properties": {"things": {"type": "array"}, "pagination": {"type": "object"}}}}
	  }}`))
	require.NoError(t, err)
	src, err := opsSource(doc)
	require.NoError(t, err)
	assert.Regexp(t, `"GET /v2/things":\s+\{Method`, string(src))
	assert.Regexp(t, `"DELETE /v2/things/\{\}":\s+\{Method: "DELETE"`, string(src))
	assert.Contains(t, string(src), `{Method: "GET", Path: "/v2/things", ID: "listThings", Query: []string{"cursor", "limit"}, Cursor: true, Items: "things"},`)
	assert.Contains(t, string(src), `{Method: "DELETE", Path: "/v2/things/{thingId}", ID: "deleteThing", Query: []string{"v"}},`)

	doc["components"].(map[string]any)["schemas"].(map[string]any)["List"] = map[string]any{}
	_, err = opsSource(doc)
	assert.ErrorContains(t, err, "GET /v2/things")
}
