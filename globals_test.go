package runpod_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pendingGlobals are exported variables that other changes of the same
// issue turn into constants or functions, by package directory: they are
// left to those changes, and this list only shrinks.
var pendingGlobals = map[string][]string{
	"volumes/files": {"DataCenters"},
	"runpodtest":    {"AllPermissions", "DefaultBatchLimits", "DefaultInferenceLimits", "DefaultQuota"},
}

// TestNoMutableExportedGlobals: no package a user can import (every
// package of the module but internal and main ones) exports a
// package-level variable, which any importer could change under every
// other: defaults and fixed lists are constants or functions. An error
// sentinel (errors.New, fmt.Errorf) is the one exception, as errors.Is
// compares it by identity.
func TestNoMutableExportedGlobals(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "internal" || name == "tools") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || (i < len(vs.Values) && errorSentinel(vs.Values[i])) {
						continue
					}
					if slices.Contains(pendingGlobals[dir], name.Name) {
						continue
					}
					found = append(found, fset.Position(name.Pos()).String()+": "+f.Name.Name+"."+name.Name)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, found, "exported package-level variables: make each a constant or a function")
}

// errorSentinel reports whether v is errors.New(…) or fmt.Errorf(…).
func errorSentinel(v ast.Expr) bool {
	call, ok := v.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && (pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf")
}
