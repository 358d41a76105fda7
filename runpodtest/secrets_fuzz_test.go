package runpodtest

import (
	"strings"
	"testing"
)

// FuzzExpandSecretRefs: a pod's environment value of any text resolves
// without panicking; a reference to a known secret is replaced by its
// value, the text around it kept.
func FuzzExpandSecretRefs(f *testing.F) {
	for _, s := range []string{"", "{{", "}}", "{{ RUNPOD_SECRET_a }}", "{{{ RUNPOD_SECRET_a }}", "{{RUNPOD_SECRET_a}}x", "{{ RUNPOD_SECRET_ }}"} {
		f.Add(s, "pre ", " post")
	}
	f.Fuzz(func(t *testing.T, v, pre, post string) {
		_, _ = expandSecretRefs(v, func(string) (string, bool) { return "V", true })
		_, _ = expandSecretRefs(v, func(string) (string, bool) { return "", false })
		if strings.Contains(pre+post, "{") || strings.Contains(pre+post, "}") {
			return
		}
		got, missing := expandSecretRefs(pre+"{{ RUNPOD_SECRET_name }}"+post, func(n string) (string, bool) { return "<" + n + ">", n == "name" })
		if missing != "" || got != pre+"<name>"+post {
			t.Fatalf("got %q (missing %q), want %q", got, missing, pre+"<name>"+post)
		}
	})
}
