package runpod_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestOverlaysWriteOutParametersAsTheDocument: where an overlay writes
// out an operation's parameters in place of the document's references to
// its shared ones (so that no alias is generated for them), it writes
// the document's parameters, in its order, with the same facts (place,
// requirement, style, schema); only the descriptions are ours. A
// parameter the document adds, drops or changes fails here.
func TestOverlaysWriteOutParametersAsTheDocument(t *testing.T) {
	raw, err := os.ReadFile("internal/apispec/rest-v2.json")
	require.NoError(t, err)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]map[string]any `json:"parameters"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	target := regexp.MustCompile(`^\$\.paths\['([^']+)'\]\.(\w+)$`)

	written := 0
	for _, path := range []string{"pods/overlay.yaml", "serverless/rest-overlay.yaml", "catalog/overlay.yaml"} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var overlay struct {
			Actions []struct {
				Target string
				Update map[string]any
			}
		}
		require.NoError(t, yaml.Unmarshal(b, &overlay), path)
		for _, a := range overlay.Actions {
			params, ok := a.Update["parameters"].([]any)
			if !ok {
				continue
			}
			m := target.FindStringSubmatch(a.Target)
			require.NotNil(t, m, "%s: %s", path, a.Target)
			var op struct {
				Parameters []map[string]any `json:"parameters"`
			}
			require.NoError(t, json.Unmarshal(doc.Paths[m[1]][m[2]], &op), "%s: %s", path, a.Target)
			var want, got []map[string]any
			for _, p := range op.Parameters {
				if ref, ok := p["$ref"].(string); ok {
					p = doc.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")]
				}
				want = append(want, facts(t, p))
			}
			for _, p := range params {
				got = append(got, facts(t, p))
			}
			require.Equal(t, want, got, "%s: %s", path, a.Target)
			written++
		}
	}
	require.Equal(t, 6, written, "operations whose parameters the overlays write out")
}

// facts returns parameter p as JSON would hold it, without its
// description.
func facts(t *testing.T, p any) map[string]any {
	t.Helper()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	delete(out, "description")
	if out["required"] == false {
		delete(out, "required")
	}
	return out
}
