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
