package apispec

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// TestDocumentIsFactsOnly: the embedded copy is an OpenAPI 3.1 document
// whose operations all carry an id, and no operation or schema keeps the
// published prose.
func TestDocumentIsFactsOnly(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
		Comps   struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(RESTv2, &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	var ids []string
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" || strings.HasPrefix(method, "x-") {
				continue // path parameters, x-runpod-source
			}
			var op map[string]any
			require.NoError(t, json.Unmarshal(raw, &op))
			id, _ := op["operationId"].(string)
			require.NotEmpty(t, id, "%s %s", method, path)
			ids = append(ids, id)
			for _, k := range []string{"summary", "description", "x-codeSamples"} {
				assert.NotContains(t, op, k, "%s %s", method, path)
			}
		}
	}
	assert.Len(t, ids, 71, "the published document's 53, and the supplement's two builds, six sandbox, five secrets and five global volumes operations")
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(ids))), len(ids), "operation ids are unique")
	for name, s := range doc.Comps.Schemas {
		for _, k := range []string{"description", "examples", "example", "title"} {
			assert.NotContains(t, s, k, name)
		}
	}
}

func TestMain(m *testing.M) { testkit.Main(m) }
