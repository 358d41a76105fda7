package secretref_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/secretref"
)

func TestNames(t *testing.T) {
	for in, want := range map[string][]string{
		"":                      nil,
		"plain":                 nil,
		"{{ RUNPOD_SECRET_a }}": {"a"},
		"x{{RUNPOD_SECRET_a}}y{{ RUNPOD_SECRET_b/c }}": {"a", "b/c"},
		"{{ RUNPOD_SECRET_a":                           nil,
		"{{ RUNPOD_SECRET_a b }}":                      nil,
		"{{ RUNPOD_SECRET_ }}":                         {""},
		"{{ {{ RUNPOD_SECRET_a }}":                     {"a"},
		"{{ OTHER }} {{ RUNPOD_SECRET_x }}":            {"x"},
	} {
		assert.Equal(t, want, secretref.Names(in), in)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "_", "hf-token", "a.b/c-d_e", strings.Repeat("x", 191), "myRUNPOD", "R", "RUNPO"} {
		assert.NoError(t, secretref.CheckName("f", ok), ok)
	}
	for _, bad := range []string{"", "1a", "-a", ".a", "a b", "a=b", "é", strings.Repeat("x", 192), "RUNPOD", "runpod_x", "RunPodKey"} {
		err := secretref.CheckName("f", bad)
		assert.ErrorIs(t, err, errs.ErrValidation, bad)
	}
}

// FuzzRefs: any text parses without panicking; every reference Format
// renders is found again, whole and inside other text.
func FuzzRefs(f *testing.F) {
	for _, s := range []string{"", "hf-token", "a b", "}}", "{{", "RUNPOD_SECRET_", "{{ RUNPOD_SECRET_x }}", "\t", "é"} {
		f.Add(s, "pre ", " post")
	}
	f.Fuzz(func(t *testing.T, name, pre, post string) {
		_ = secretref.Names(name)
		_, _ = secretref.Only(name)
		_ = secretref.Problem(name)
		if secretref.Problem(name) != "" {
			return
		}
		ref := secretref.Format(name)
		got, ok := secretref.Only(ref)
		if !ok || got != name {
			t.Fatalf("Only(Format(%q)) = %q, %v", name, got, ok)
		}
		names := secretref.Names(pre + ref + post)
		found := false
		for _, n := range names {
			found = found || n == name
		}
		if !found && !strings.Contains(pre, "{{") {
			t.Fatalf("Names(%q) = %q, want %q among them", pre+ref+post, names, name)
		}
	})
}
