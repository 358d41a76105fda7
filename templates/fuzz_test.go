package templates

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/secret"
)

// FuzzEnvNeverShown: whatever an Env value is, printing a template shows
// the same line as with any other value, and whatever the platform's error
// answer wraps around a value of four bytes or more (raw, or JSON-escaped
// in the body), the *errs.APIError a call returns no longer holds it.
// Values that overlap the marker itself ("ACTED", "[x") are left out: the
// marker would show them.
func FuzzEnvNeverShown(f *testing.F) {
	f.Add("hf_SECRETvalue", "env HF_TOKEN=", " is not allowed")
	f.Add(`p<a&s>s"w\rd`, "", "")
	f.Add("aaaa", "aaa", "aaaaa")
	f.Add("héllo wörld ☃", "bad value: ", ".")
	f.Fuzz(func(t *testing.T, value, before, after string) {
		env := map[string]string{"K": value}
		shown := Template{ID: "t", Env: secret.NewEnv(env)}.String()
		if other := (Template{ID: "t", Env: secret.NewEnv(map[string]string{"K": "x"})}).String(); shown != other {
			t.Fatalf("the value changes what is printed: %q", shown)
		}
		if len(value) < minRedacted || strings.ContainsAny(value, "[]") || strings.Contains(redacted, value) {
			return
		}
		detail := before + value + after
		body, _ := json.Marshal(map[string]any{"title": "Bad Request", "status": 400, "detail": detail, "errors": []string{value}})
		e := &errs.APIError{StatusCode: 400, Title: before, Detail: detail, Errors: []string{value, after + value}, Excerpt: detail, Body: body}
		_ = scrub(e, env)
		for _, s := range append([]string{e.Title, e.Detail, e.Excerpt, string(e.Body)}, e.Errors...) {
			if strings.Contains(s, value) {
				t.Fatalf("%q still holds the value %q", s, value)
			}
		}
		q, _ := json.Marshal(value)
		if q := string(q[1 : len(q)-1]); strings.Contains(string(e.Body), q) {
			t.Fatalf("the body still holds the value as JSON writes it: %q", e.Body)
		}
	})
}
