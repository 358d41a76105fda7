package runpod_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoMutableExportedGlobals: no package a user can import (every
// package of the module but internal and main ones) exports a
// package-level variable, which any importer could change under every
// other: defaults and fixed lists are constants or functions. An error
// sentinel (errors.New, fmt.Errorf) is the one exception, as errors.Is
// compares it by identity.
func TestNoMutableExportedGlobals(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	walkGoFiles(t, fset, func(dir string) bool {
		return strings.HasPrefix(dir, ".") || strings.HasPrefix(dir, "_") || dir == "testdata" || dir == "internal" || dir == "tools"
	}, func(path string) bool {
		return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
	}, func(f *ast.File) {
		if f.Name.Name == "main" {
			return
		}
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
					found = append(found, fset.Position(name.Pos()).String()+": "+f.Name.Name+"."+name.Name)
				}
			}
		}
	})
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

// TestNoGeneratedAliasesOfPlainTypes: no generated file (*.gen.go)
// declares an alias of a type that is not one of its package's own
// (`type LogTail = int`, `type CountryCodesFilter = []string`): such a
// name says nothing the field's type does not, and is a second name to
// learn. oapi-codegen makes one for each shared parameter of the
// document an operation refers to; the overlays write those parameters
// out, so each field holds its plain type.
func TestNoGeneratedAliasesOfPlainTypes(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	walkGoFiles(t, fset, func(dir string) bool {
		return strings.HasPrefix(dir, ".") || dir == "testdata" || dir == "tools"
	}, func(path string) bool { return strings.HasSuffix(path, ".gen.go") }, func(f *ast.File) {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Assign.IsValid() {
					continue
				}
				if id, ok := ts.Type.(*ast.Ident); ok && !builtin(id.Name) {
					continue // another name of a schema of the package's own
				}
				found = append(found, fset.Position(ts.Pos()).String()+": type "+ts.Name.Name+" = "+types.ExprString(ts.Type))
			}
		}
	})
	require.Empty(t, found, "generated aliases of plain types: write the parameter out in the package's overlay")
}

// builtin reports whether name is one of Go's predeclared types.
func builtin(name string) bool {
	return types.Universe.Lookup(name) != nil
}

// walkGoFiles parses every Go file of the module's tree that want
// accepts, skipping the directories whose name skip accepts, and hands
// each to visit.
func walkGoFiles(t *testing.T, fset *token.FileSet, skip func(dir string) bool, want func(path string) bool, visit func(*ast.File)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && skip(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !want(path) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		visit(f)
		return nil
	})
	require.NoError(t, err)
}
