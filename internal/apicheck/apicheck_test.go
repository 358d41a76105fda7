// Package apicheck holds a test over the module's public API: no exported
// identifier of a public package may name a type of an internal package
// (users cannot name it), and no exported function may need one (users
// cannot call it).
package apicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const module = "github.com/runpodkit/runpod-go"

type listed struct {
	ImportPath string
	Dir        string
	Export     string
	Standard   bool
	Module     *struct{ Path string }
}

// TestNoInternalTypesInThePublicAPI type-checks the module from its export
// data and walks every exported name of every public package.
func TestNoInternalTypesInThePublicAPI(t *testing.T) {
	var problems []string
	for _, pkg := range publicPackages(t) {
		problems = append(problems, leaks(pkg.types)...)
	}
	slices.Sort(problems)
	assert(t, slices.Compact(problems))
}

// public is one public package of the module: its types from export data
// and its directory.
type public struct {
	types *types.Package
	dir   string
}

// publicPackages type-checks the module from its export data and returns
// every public package (not internal, not an example).
func publicPackages(t *testing.T) []public {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the module's export data")
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", module+"/...")
	cmd.Dir = "../.."
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	dirs := map[string]string{}
	var paths []string
	dec := json.NewDecoder(&out)
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == module && !isInternal(p.ImportPath) && !strings.Contains(p.ImportPath, "/examples/") {
			paths = append(paths, p.ImportPath)
			dirs[p.ImportPath] = p.Dir
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var pkgs []public
	for _, path := range paths {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		pkgs = append(pkgs, public{types: pkg, dir: dirs[path]})
	}
	return pkgs
}

func assert(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Errorf("%d exported names use internal types:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
	}
}

func isInternal(path string) bool {
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// leaks lists the exported names of pkg whose declarations mention a type
// of an internal package.
func leaks(pkg *types.Package) []string {
	var out []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		where := pkg.Path() + "." + name
		if _, isAlias := obj.Type().(*types.Alias); isAlias || obj.Type() != types.Unalias(obj.Type()) {
			if n := internalIn(obj.Type(), map[types.Type]bool{}, true); n != "" {
				out = append(out, where+" is "+n)
			}
			continue
		}
		if tn, ok := obj.(*types.TypeName); ok {
			named, _ := tn.Type().(*types.Named)
			if named != nil {
				if n := internalIn(named.Underlying(), map[types.Type]bool{}, false); n != "" {
					out = append(out, where+" uses "+n)
				}
				for i := range named.NumMethods() {
					m := named.Method(i)
					if m.Exported() {
						if n := internalIn(m.Type(), map[types.Type]bool{}, false); n != "" {
							out = append(out, where+"."+m.Name()+" uses "+n)
						}
					}
				}
				if ptr := types.NewPointer(named); ptr != nil {
					ms := types.NewMethodSet(ptr)
					for i := range ms.Len() {
						m := ms.At(i).Obj()
						if m.Exported() && m.Pkg() == pkg {
							if n := internalIn(m.Type(), map[types.Type]bool{}, false); n != "" {
								out = append(out, where+"."+m.Name()+" uses "+n)
							}
						}
					}
				}
			}
			continue
		}
		if n := internalIn(obj.Type(), map[types.Type]bool{}, false); n != "" {
			out = append(out, where+" uses "+n)
		}
	}
	return slices.Compact(out)
}

// internalIn returns the first internal type t mentions through exported
// parts (exported struct fields, signatures, elements), or "".
func internalIn(t types.Type, seen map[types.Type]bool, top bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			return obj.Pkg().Path() + "." + obj.Name()
		}
		return internalIn(types.Unalias(t), seen, top)
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			return obj.Pkg().Path() + "." + obj.Name()
		}
		if args := t.TypeArgs(); args != nil {
			for i := range args.Len() {
				if n := internalIn(args.At(i), seen, false); n != "" {
					return n
				}
			}
		}
		return ""
	case *types.Pointer:
		return internalIn(t.Elem(), seen, false)
	case *types.Slice:
		return internalIn(t.Elem(), seen, false)
	case *types.Array:
		return internalIn(t.Elem(), seen, false)
	case *types.Map:
		if n := internalIn(t.Key(), seen, false); n != "" {
			return n
		}
		return internalIn(t.Elem(), seen, false)
	case *types.Chan:
		return internalIn(t.Elem(), seen, false)
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tuple.Len() {
				if n := internalIn(tuple.At(i).Type(), seen, false); n != "" {
					return n
				}
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() || f.Embedded() {
				if n := internalIn(f.Type(), seen, false); n != "" {
					return f.Name() + " " + n
				}
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if m := t.Method(i); m.Exported() {
				if n := internalIn(m.Type(), seen, false); n != "" {
					return n
				}
			}
		}
	}
	return ""
}
