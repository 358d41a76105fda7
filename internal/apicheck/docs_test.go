package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeneratedModelsAreDocumented checks the packages whose models are
// generated from the REST v2 document: every exported struct field has a
// doc comment, and no exported type keeps oapi-codegen's placeholder
// comment. The comments come from the descriptions in each package's
// overlay.yaml, so a schema or property the document gains without one
// shows up here.
func TestGeneratedModelsAreDocumented(t *testing.T) {
	for _, dir := range []string{"pods", "billing"} {
		problems, err := undocumented(filepath.Join("..", "..", dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) > 0 {
			t.Errorf("%s: %d exported names lack a doc comment:\n\t%s", dir, len(problems), strings.Join(problems, "\n\t"))
		}
	}
}

// placeholders are the starts of oapi-codegen's comments for types that
// have no description.
var placeholders = []string{" defines model for ", " defines parameters for ", " defines body for ", "Defines values for "}

// undocumented lists, for the package in dir (its non-test files), the
// exported struct fields of exported types that have no doc comment, and
// the exported types whose comment is missing or oapi-codegen's
// placeholder.
func undocumented(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			if gd.Tok == token.CONST && gd.Doc != nil && placeholder(gd.Doc.Text()) {
				out = append(out, name+": const group: "+strings.TrimSpace(gd.Doc.Text()))
			}
			if gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Name.IsExported() {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if doc == nil || placeholder(doc.Text()) {
					out = append(out, name+": type "+ts.Name.Name)
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					if field.Doc != nil || field.Comment != nil {
						continue
					}
					if len(field.Names) == 0 { // embedded
						if n := embeddedName(field.Type); ast.IsExported(n) {
							out = append(out, name+": "+ts.Name.Name+"."+n)
						}
					}
					for _, n := range field.Names {
						if n.IsExported() {
							out = append(out, name+": "+ts.Name.Name+"."+n.Name)
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func placeholder(doc string) bool {
	return slices.ContainsFunc(placeholders, func(p string) bool { return strings.Contains(doc, p) })
}

// embeddedName returns the name an embedded field is known by.
func embeddedName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(x.X)
	case *ast.IndexListExpr:
		return embeddedName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}
