package runpod

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestDocListsEveryService: the package documentation names every service
// of Client (as "rp.Field ([package])"), so that a reader of the root
// package finds every surface.
func TestDocListsEveryService(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	ct := reflect.TypeFor[Client]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() {
			continue
		}
		pkg := f.Type.Elem().PkgPath()
		want := "rp." + f.Name + " ([" + pkg[strings.LastIndex(pkg, "/")+1:] + "]"
		if !strings.Contains(string(doc), want) {
			t.Errorf("doc.go does not list %s: want %q", f.Name, want)
		}
	}
}
