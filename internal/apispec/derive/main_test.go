package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const published = `{
  "openapi": "3.1.0",
  "info": {"title": "Runpod API", "version": "2.0", "description": "Long prose."},
  "servers": [{"url": "https://api.runpod.io", "description": "production"}],
  "tags": [{"name": "Pods", "description": "Pod things."}],
  "paths": {
    "/v2/pods/{id}": {
      "get": {
        "operationId": "getPod", "summary": "Get a pod", "description": "Prose.",
        "x-codeSamples": [{"lang": "curl", "source": "curl ..."}],
        "parameters": [{"name": "id", "in": "path", "required": true, "description": "The id.", "schema": {"type": "string", "minLength": 1}}],
        "responses": {
          "200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pod"},
            "examples": {"one": {"summary": "A pod", "value": {"id": "x"}}}}}},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    }
  },
  "components": {
    "responses": {"NotFound": {"description": "Not found."}},
    "schemas": {
      "Pod": {
        "type": "object", "title": "Pod", "description": "A pod.", "required": ["id", "description"],
        "properties": {
          "id": {"type": "string", "example": "abc", "description": "Its id."},
          "description": {"type": ["string", "null"], "examples": ["words"]},
          "summary": {"$ref": "#/components/schemas/Summary"},
          "status": {"enum": ["RUNNING", "EXITED"], "default": "RUNNING", "x-enum-varnames": ["Running", "Exited"]},
          "limit": {"type": "number", "maximum": 1.50, "multipleOf": 0.01}
        },
        "unevaluatedProperties": false
      },
      "Summary": {"type": "object", "properties": {"title": {"type": "string"}}}
    }
  }
}`

func TestDeriveKeepsFactsDropsProse(t *testing.T) {
	out, err := derive([]byte(published), nil)
	require.NoError(t, err)
	want := `{
  "components": {
    "responses": {"NotFound": {"description": ""}},
    "schemas": {
      "Pod": {
        "properties": {
          "description": {"type": ["string", "null"]},
          "id": {"type": "string"},
          "limit": {"maximum": 1.50, "multipleOf": 0.01, "type": "number"},
          "status": {"default": "RUNNING", "enum": ["RUNNING", "EXITED"], "x-enum-varnames": ["Running", "Exited"]},
          "summary": {"$ref": "#/components/schemas/Summary"}
        },
        "required": ["id", "description"],
        "type": "object",
        "unevaluatedProperties": false
      },
      "Summary": {"properties": {"title": {"type": "string"}}, "type": "object"}
    }
  },
  "info": {"title": "Runpod API", "version": "2.0"},
  "openapi": "3.1.0",
  "paths": {
    "/v2/pods/{id}": {
      "get": {
        "operationId": "getPod",
        "parameters": [{"in": "path", "name": "id", "required": true, "schema": {"minLength": 1, "type": "string"}}],
        "responses": {
          "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pod"}}}, "description": ""},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    }
  },
  "servers": [{"url": "https://api.runpod.io"}],
  "tags": [{"name": "Pods"}]
}`
	assert.JSONEq(t, want, string(out))
	assert.Contains(t, string(out), `"maximum": 1.50`, "numbers are kept as written")

	again, err := derive([]byte(published), nil)
	require.NoError(t, err)
	assert.Equal(t, out, again, "deterministic")
	var doc map[string]any
	require.NoError(t, json.Unmarshal(out, &doc))
}

func TestDeriveRefusesOtherDocuments(t *testing.T) {
	_, err := derive([]byte(`{"swagger": "2.0"}`), nil)
	assert.ErrorContains(t, err, "not an OpenAPI 3 document")
	_, err = derive([]byte(`{`), nil)
	assert.Error(t, err)
}
