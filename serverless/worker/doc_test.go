package worker

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterfaceMethodsDocumented: every method of an exported interface
// has a doc comment (issue 26 item 17: Validator.Validate had none, and
// the package's API check looks at declarations, not interface methods).
func TestInterfaceMethodsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok {
				return true
			}
			for _, m := range it.Methods.List {
				for _, id := range m.Names {
					assert.NotNil(t, m.Doc, "%s: %s.%s has no doc comment", fset.Position(id.Pos()), ts.Name.Name, id.Name)
				}
			}
			return true
		})
	}
}
