package option_test

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
)

// TestNoInternalImports: the public package option imports no internal
// package of the module, so the internal packages may import it and a
// reader of option finds all of it here.
func TestNoInternalImports(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			require.NotContains(t, path, "runpod-go/internal", "%s imports %s", name, path)
		}
	}
}

// TestContextWithRoute: Route reads what ContextWithRoute put.
func TestContextWithRoute(t *testing.T) {
	require.Empty(t, option.Route(t.Context()))
	require.Equal(t, "/v2/pods/{podId}", option.Route(option.ContextWithRoute(t.Context(), "/v2/pods/{podId}")))
}
