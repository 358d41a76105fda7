package apicheck

import (
	"go/types"
	"slices"
	"strings"
	"testing"
)

// quantities are the numeric types whose constants are units or bounds,
// not a set of values: billing.Dollar is an Amount as time.Second is a
// Duration.
var quantities = map[string]bool{module + "/billing.Amount": true}

// TestEnumConstantsCarryTheirType: an exported constant of a named type
// of its own package is named after the type (serverless.JobStatusCompleted,
// GPUPoolAda24), so that a value reads the same wherever it is used and a
// package's values of one set sort together. Exempt: a numeric type's units
// and bounds, which read as quantities (billing.Dollar, like time.Second),
// and the Default… and Max…/Min… constants, which name a value of the set
// rather than being one. The quantity types are listed in quantities.
func TestEnumConstantsCarryTheirType(t *testing.T) {
	var problems []string
	for _, pkg := range publicPackages(t) {
		scope := pkg.types.Scope()
		for _, name := range scope.Names() {
			c, ok := scope.Lookup(name).(*types.Const)
			if !ok || !c.Exported() {
				continue
			}
			named, ok := c.Type().(*types.Named)
			if !ok || named.Obj().Pkg() != pkg.types {
				continue
			}
			if quantities[pkg.types.Path()+"."+named.Obj().Name()] {
				continue // units and bounds of a quantity
			}
			if strings.HasPrefix(name, named.Obj().Name()) || slices.ContainsFunc([]string{"Default", "Max", "Min"}, func(p string) bool { return strings.HasPrefix(name, p) }) {
				continue
			}
			problems = append(problems, pkg.types.Name()+"."+name+" (of type "+named.Obj().Name()+")")
		}
	}
	if len(problems) > 0 {
		t.Errorf("%d constants do not start with their type's name:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
	}
}

// TestTransfersTakeLocalThenRemote: every call that moves files between
// this machine and a remote place (a pod over SSH, a volume over S3)
// takes the local path before the remote one, whichever way the data
// goes: (ctx, local, remote, …). The direction is the method's name
// (Upload, Download) or a Direction argument, never the order.
func TestTransfersTakeLocalThenRemote(t *testing.T) {
	checked := 0
	var problems []string
	for _, pkg := range publicPackages(t) {
		scope := pkg.types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() {
				continue
			}
			mset := types.NewMethodSet(types.NewPointer(tn.Type()))
			for i := range mset.Len() {
				m := mset.At(i).Obj().(*types.Func)
				if !m.Exported() || !slices.ContainsFunc([]string{"Upload", "Download", "Sync"}, func(p string) bool { return strings.HasPrefix(m.Name(), p) }) {
					continue
				}
				local, remote := -1, -1
				params := m.Signature().Params()
				for j := range params.Len() {
					p := params.At(j)
					if b, ok := p.Type().(*types.Basic); !ok || b.Kind() != types.String {
						continue
					}
					switch n := strings.ToLower(p.Name()); {
					case strings.HasPrefix(n, "local"):
						local = j
					case strings.HasPrefix(n, "remote"), n == "key":
						remote = j
					}
				}
				if local < 0 || remote < 0 {
					continue // a stream (UploadFrom, DownloadTo) or no paths
				}
				checked++
				if local > remote {
					problems = append(problems, pkg.types.Name()+"."+name+"."+m.Name()+m.Signature().String())
				}
			}
		}
	}
	if len(problems) > 0 {
		t.Errorf("transfers must take (ctx, local, remote):\n\t%s", strings.Join(problems, "\n\t"))
	}
	if checked < 4 {
		t.Errorf("checked %d transfer methods; want at least Upload and Download of volumes/files and pods/podssh", checked)
	}
}
