package apicheck

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPublicAPIIsDocumented walks every public package of the module
// (not internal/, not the examples' main packages) and fails on a package
// without a doc comment, an exported type, function, method, constant or
// variable without one, an exported struct field without one, and a type
// alias of an internal package's type (its fields would not show in
// godoc, and the user could not read them), an exported interface method
// without one, and a type named …Error that is not an error.
func TestPublicAPIIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		base := d.Name()
		if rel != "." && (strings.HasPrefix(base, ".") || base == "internal" || base == "testdata" || base == "tools" || base == "examples") {
			return filepath.SkipDir
		}
		if rel != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		dirs = append(dirs, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		problems, ok, err := apiProblems(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		checked++
		rel, _ := filepath.Rel(root, dir)
		if len(problems) > 0 {
			t.Errorf("%s: %d problems:\n\t%s", rel, len(problems), strings.Join(problems, "\n\t"))
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked: the walk is broken", checked)
	}
}

// apiProblems checks the package in dir; ok is false when dir holds no
// non-test Go file of a library package.
func apiProblems(dir string) (problems []string, ok bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, false, err
		}
		if f.Name.Name == "main" {
			return nil, false, nil
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, false, nil
	}
	fields, err := undocumented(dir)
	if err != nil {
		return nil, false, err
	}
	problems = append(problems, fields...)
	for _, f := range files {
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		for _, decl := range f.Decls {
			gd, isGen := decl.(*ast.GenDecl)
			if !isGen || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Name.IsExported() || !ts.Assign.IsValid() {
					continue
				}
				if sel, isSel := ts.Type.(*ast.SelectorExpr); isSel {
					if x, isIdent := sel.X.(*ast.Ident); isIdent && strings.Contains(imports[x.Name], "/internal/") {
						problems = append(problems, "type "+ts.Name.Name+" is an alias of "+imports[x.Name]+"."+sel.Sel.Name)
					}
				}
			}
		}
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/"+filepath.ToSlash(dir))
	if err != nil {
		return nil, false, err
	}
	if strings.TrimSpace(pkg.Doc) == "" {
		problems = append(problems, "package "+pkg.Name+" has no doc comment")
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			if strings.TrimSpace(v.Doc) != "" {
				continue
			}
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				if vs.Doc != nil || vs.Comment != nil {
					continue
				}
				for _, n := range vs.Names {
					if n.IsExported() {
						problems = append(problems, "value "+n.Name)
					}
				}
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			if strings.TrimSpace(f.Doc) == "" && ast.IsExported(f.Name) {
				problems = append(problems, "func "+prefix+f.Name)
			}
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs("", pkg.Funcs)
	for _, typ := range pkg.Types {
		values(typ.Consts)
		values(typ.Vars)
		funcs("", typ.Funcs)
		funcs(typ.Name+".", typ.Methods)
		// A type named like an error is one: errors.As on a type that is
		// not an error fails go vet (the document's error responses are
		// bodies, named …Response).
		if ast.IsExported(typ.Name) && strings.HasSuffix(typ.Name, "Error") && !aliasElsewhere(typ.Decl) &&
			!slices.ContainsFunc(typ.Methods, func(f *doc.Func) bool { return f.Name == "Error" }) {
			problems = append(problems, "type "+typ.Name+" is named as an error but has no Error method")
		}
		// Every method of an exported interface has a doc comment.
		for _, spec := range typ.Decl.Specs {
			it, isIface := spec.(*ast.TypeSpec).Type.(*ast.InterfaceType)
			if !isIface {
				continue
			}
			for _, m := range it.Methods.List {
				for _, id := range m.Names {
					if id.IsExported() && m.Doc == nil && m.Comment == nil {
						problems = append(problems, "interface method "+typ.Name+"."+id.Name)
					}
				}
			}
		}
	}
	slices.Sort(problems)
	return slices.Compact(problems), true, nil
}

// aliasElsewhere reports whether decl declares an alias of another
// package's type (the root package's re-exported errors), whose methods
// the declaring package's files do not show.
func aliasElsewhere(decl *ast.GenDecl) bool {
	for _, spec := range decl.Specs {
		if ts := spec.(*ast.TypeSpec); ts.Assign.IsValid() {
			if _, isSel := ts.Type.(*ast.SelectorExpr); isSel {
				return true
			}
		}
	}
	return false
}

// TestGeneratedModelsAreDocumented checks the packages whose models are
// generated from the REST v2 document: every exported struct field has a
// doc comment, and no exported type keeps oapi-codegen's placeholder
// comment. The comments come from the descriptions in each package's
// overlay.yaml, so a schema or property the document gains without one
// shows up here.
func TestGeneratedModelsAreDocumented(t *testing.T) {
	for _, dir := range []string{"pods", "billing", "registries", "account", "serverless", "secrets", "globalvolumes"} {
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

// TestAPIProblemsHasTeeth: a package with each fault is caught.
func TestAPIProblemsHasTeeth(t *testing.T) {
	dir := t.TempDir()
	src := `package bad

import "github.com/runpodkit/runpod-go/internal/transport"

type Alias = transport.Transport

// T is documented.
type T struct {
	Field int
}

func F() {}

// M is documented.
func (T) M() {}

func (T) N() {}

const C = 1
`
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	problems, ok, err := apiProblems(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := []string{"bad.go: T.Field", "bad.go: type Alias", "func F", "func T.N", "package bad has no doc comment",
		"type Alias is an alias of github.com/runpodkit/runpod-go/internal/transport.Transport", "value C"}
	for _, w := range want {
		if !slices.Contains(problems, w) {
			t.Errorf("missing %q in %q", w, problems)
		}
	}
}
