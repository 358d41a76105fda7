package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOnePublicNamePerType: no public package re-exports a type of
// another package of the module under a second name (an alias such as
// runpod.APIError = errs.APIError): a type has one name, the one its
// signatures use.
func TestOnePublicNamePerType(t *testing.T) {
	var problems []string
	for _, pkg := range publicPackages(t) {
		scope := pkg.types.Scope()
		for _, name := range scope.Names() {
			obj, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || !obj.Exported() || !obj.IsAlias() {
				continue
			}
			if named, ok := types.Unalias(obj.Type()).(*types.Named); ok {
				if p := named.Obj().Pkg(); p != nil && p != pkg.types && strings.HasPrefix(p.Path(), module) {
					problems = append(problems, pkg.types.Path()+"."+name+" is a second name for "+p.Path()+"."+named.Obj().Name())
				}
			}
		}
	}
	if len(problems) > 0 {
		t.Errorf("%d types have two public names:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
	}
}

// TestNoPlumbingExported: what only the SDK's own packages call is not
// part of the public API. The names are those that were once exported.
func TestNoPlumbingExported(t *testing.T) {
	plumbing := map[string][]string{
		module + "/errs":   {"Invalid", "NewAPIError", "NewResponseError", "ServerWait", "Redact", "RedactError", "MaxErrorBody"},
		module + "/option": {"NewCall", "Call", "CallOption"},
	}
	methods := map[string][]string{module + "/option.Poll": {"Saw"}, module + "/option.Config": {"Report"}}
	var problems []string
	for _, pkg := range publicPackages(t) {
		scope := pkg.types.Scope()
		for _, name := range plumbing[pkg.types.Path()] {
			if scope.Lookup(name) != nil {
				problems = append(problems, pkg.types.Path()+"."+name)
			}
		}
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			for _, m := range methods[pkg.types.Path()+"."+name] {
				if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, pkg.types, m); obj != nil {
					problems = append(problems, pkg.types.Path()+"."+name+"."+m)
				}
			}
		}
	}
	if len(problems) > 0 {
		t.Errorf("SDK plumbing is exported:\n\t%s", strings.Join(problems, "\n\t"))
	}
}

// TestNoUnusedGeneratedTypes: every exported type the generator wrote
// (*.gen.go) is reachable from the hand-written public API: a parameter,
// a result, a field or an element of something a program can call or
// hold. A schema that only describes error bodies or headers the SDK
// handles itself stays out of the generated code.
func TestNoUnusedGeneratedTypes(t *testing.T) {
	pkgs := publicPackages(t)
	generated := map[*types.TypeName]bool{}
	reached := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(t types.Type) {
		if t == nil || reached[t] {
			return
		}
		reached[t] = true
		switch t := t.(type) {
		case *types.Alias:
			walk(types.Unalias(t))
		case *types.Named:
			walk(t.Underlying())
			for i := range t.NumMethods() {
				if t.Method(i).Exported() {
					walk(t.Method(i).Type())
				}
			}
			if args := t.TypeArgs(); args != nil {
				for i := range args.Len() {
					walk(args.At(i))
				}
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
				for i := range tuple.Len() {
					walk(tuple.At(i).Type())
				}
			}
		case *types.Struct:
			for i := range t.NumFields() {
				if f := t.Field(i); f.Exported() || f.Embedded() {
					walk(f.Type())
				}
			}
		case *types.Interface:
			for i := range t.NumMethods() {
				walk(t.Method(i).Type())
			}
		}
	}
	for _, pkg := range pkgs {
		gen := generatedNames(t, pkg.dir)
		scope := pkg.types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			if gen[name] {
				if tn, ok := obj.(*types.TypeName); ok {
					generated[tn] = true
				}
				continue
			}
			if tn, ok := obj.(*types.TypeName); ok {
				walk(tn.Type())
				walk(types.NewPointer(tn.Type()))
				ms := types.NewMethodSet(types.NewPointer(tn.Type()))
				for i := range ms.Len() {
					if ms.At(i).Obj().Exported() {
						walk(ms.At(i).Obj().Type())
					}
				}
				continue
			}
			walk(obj.Type())
		}
	}
	var unused []string
	for tn := range generated {
		if !reached[tn.Type()] {
			unused = append(unused, tn.Pkg().Path()+"."+tn.Name())
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("%d generated types are used by no public API:\n\t%s", len(unused), strings.Join(unused, "\n\t"))
	}
}

// generatedNames lists the top-level names declared in dir's *.gen.go
// files.
func generatedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.gen.go"))
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}
