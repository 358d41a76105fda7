package fakegraphql

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/graph-gophers/graphql-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSDKOperationsAgainstTheFakesSchema checks every GraphQL operation
// the SDK sends (its operations.graphql) against the fake's own schema,
// written from the platform's documents: a field, argument or type the
// platform's documents do not have fails here.
func TestSDKOperationsAgainstTheFakesSchema(t *testing.T) {
	ops, err := os.ReadFile("../../serverless/graphqlendpoints/graphql/operations.graphql")
	require.NoError(t, err)
	schema, err := graphql.ParseSchema(schemaSDL, nil)
	require.NoError(t, err)
	doc := string(ops)
	require.Contains(t, doc, "mutation SaveEndpoint")
	// Each operation with variables of its own, so that only the documents
	// are judged.
	vars := map[string]any{"input": map[string]any{"name": "fake"}, "id": "ep1"}
	starts := regexp.MustCompile(`(?m)^(query|mutation) `).FindAllStringIndex(doc, -1)
	require.NotEmpty(t, starts)
	for i, at := range starts {
		end := len(doc)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		op := doc[at[0]:end]
		v := vars
		if regexp.MustCompile(`\$input:\s*UpdateEndpointTemplateInput`).MatchString(op) {
			v = map[string]any{"input": map[string]any{"endpointId": "ep1", "templateId": "tmpl-1"}}
		}
		for _, e := range schema.ValidateWithVariables(op, v) {
			t.Errorf("operations.graphql: %v\n%s", e, op)
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		if line = strings.TrimSpace(line); !strings.HasPrefix(line, "#") {
			assert.NotContains(t, line, "fragment ", "fields inline, no fragment on a platform type")
			assert.NotContains(t, line, "...", "fields inline, no fragment on a platform type")
		}
	}

	// The check has teeth: a field the platform does not document, or a
	// wrong type name in a fragment, is refused.
	bad := strings.Replace(doc, "desiredStatus", "desiredState", 1)
	assert.NotEmpty(t, schema.ValidateWithVariables(bad, vars))
	assert.NotEmpty(t, schema.Validate(`query Q { myself { endpoints { ...F } } } fragment F on ServerlessEndpoint { id }`))
}
