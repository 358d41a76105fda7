package confine_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/internal/confine"
)

// FuzzRel checks that every name Rel accepts is a plain relative path of
// the directory, whatever the remote side sends.
func FuzzRel(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "x/..", "/abs", "a//b", "a\x00b", `a\..\b`, "C:/x", "..."} {
		f.Add(s)
	}
	d, err := confine.Open(f.TempDir(), false)
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	f.Fuzz(func(t *testing.T, name string) {
		rel, err := d.Rel(name)
		if err != nil {
			return
		}
		parts := strings.Split(rel, string(filepath.Separator))
		if !filepath.IsLocal(rel) || slices.Contains(parts, "..") || slices.Contains(parts, ".") || slices.Contains(parts, "") || strings.ContainsRune(rel, 0) {
			t.Fatalf("Rel(%q) accepted %q", name, rel)
		}
		if d.Component(name) == nil && strings.ContainsRune(name, '/') {
			t.Fatalf("Component(%q) accepted a /", name)
		}
	})
}

// FuzzTempBase checks that TempBase, which reads names found in a
// directory, accepts only what TempName makes, and gives back its base.
func FuzzTempBase(f *testing.F) {
	for _, s := range []string{".a.tag-0123456789abcdef", ".tag-0123456789abcdef", "..tag-0123456789abcdef", ".a.tag-0123456789abcdef.tag-0123456789abcdef", ".a/b.tag-0123456789abcdef"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		base, ok := confine.TempBase(name, ".tag")
		if !ok {
			return
		}
		if base == "" || name != "."+base+".tag-"+name[len(name)-16:] {
			t.Fatalf("TempBase(%q) = %q", name, base)
		}
		for _, c := range name[len(name)-16:] {
			if !strings.ContainsRune("0123456789abcdef", c) {
				t.Fatalf("TempBase(%q) accepted digit %q", name, c)
			}
		}
		if again, ok := confine.TempBase(confine.TempName(base, ".tag"), ".tag"); !ok || again != base {
			t.Fatalf("TempBase(TempName(%q)) = %q, %v", base, again, ok)
		}
	})
}
