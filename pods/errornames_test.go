package pods_test

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

// TestErrorNamesAreErrors: an exported type named …Error is a Go error
// (has an Error method). The generated aliases of the document's error
// responses are plain ErrorResponse bodies, so they are named …Response:
// errors.As on a type that is not an error fails go vet (issue 26 item 17).
func TestErrorNamesAreErrors(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	named := map[string]token.Position{}
	hasError := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Error") {
						named[ts.Name.Name] = fset.Position(ts.Pos())
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "Error" && len(d.Recv.List) == 1 {
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						hasError[id.Name] = true
					}
				}
			}
		}
	}
	for name, pos := range named {
		assert.True(t, hasError[name], "%s: %s is named as an error but is not one", pos, name)
	}
}
