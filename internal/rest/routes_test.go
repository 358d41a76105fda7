package rest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/apispec"
)

// param is a route parameter, {podId}: the document names each {id}.
var param = regexp.MustCompile(`\{[^}]*\}`)

// TestRoutesInDocument: every route template the REST surfaces write (a
// string starting with "/v2/" in their code) is a path of the REST v2
// document, whatever its parameters are named.
func TestRoutesInDocument(t *testing.T) {
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(apispec.RESTv2, &doc))
	paths := map[string]bool{}
	for p := range doc.Paths {
		paths[param.ReplaceAllString(p, "{}")] = true
	}
	n := 0
	for _, pkg := range []string{"account", "billing", "catalog", "clusters", "pods", "registries", "templates", "volumes"} {
		files, err := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, ".gen.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			ast.Inspect(file, func(node ast.Node) bool {
				lit, ok := node.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && strings.HasPrefix(s, "/v2/") {
					n++
					assert.True(t, paths[param.ReplaceAllString(s, "{}")], "%s: route %q is not a path of the REST v2 document", f, s)
				}
				return true
			})
		}
	}
	assert.Greater(t, n, 20, "routes found")
}
