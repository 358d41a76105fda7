// Package secretref holds the rules of account secrets' names and of the
// references to them that environment variables carry,
// "{{ RUNPOD_SECRET_<name> }}", which the platform replaces with the
// secret's value when a pod or a serverless worker boots. Package secrets
// renders references (secrets.Ref) and checks names before a create;
// package check refuses an environment whose references name a secret no
// account can hold, before a template, pod or endpoint is sent.
package secretref

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Prefix is what a reference puts before the secret's name.
const Prefix = "RUNPOD_SECRET_"

// MaxName is the longest name a secret may have, in characters.
const MaxName = 191

// reserved is the prefix no secret's name may start with, in any case.
const reserved = "RUNPOD"

// CheckName checks a secret's name as the platform's create page states
// the rules: 1 to 191 characters, starting with a letter or '_', then
// letters, digits and "_.-/"; a name starting with RUNPOD, in any case,
// is reserved. field names the name in the *errs.ValidationError.
func CheckName(field, name string) error {
	if p := Problem(name); p != "" {
		return fail.Invalid(field, "%s", p)
	}
	return nil
}

// Problem says what is wrong with a secret's name (CheckName's rules), or
// returns "" for a good one.
func Problem(name string) string {
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "is required"
	case n > MaxName:
		return fmt.Sprintf("must be at most %d characters, got %d", MaxName, n)
	}
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
		if i == 0 && !letter {
			return fmt.Sprintf("must start with a letter or '_', got %q", name)
		}
		if !letter && !(r >= '0' && r <= '9') && !strings.ContainsRune(".-/", r) {
			return fmt.Sprintf("want letters, digits and _.-/ only, got %q", name)
		}
	}
	if len(name) >= len(reserved) && strings.EqualFold(name[:len(reserved)], reserved) {
		return fmt.Sprintf("names starting with RUNPOD (in any case) are reserved, got %q", name)
	}
	return ""
}

// Format returns the reference to the secret name, as an environment
// variable's value carries it: "{{ RUNPOD_SECRET_<name> }}". It does not
// check name.
func Format(name string) string { return "{{ " + Prefix + name + " }}" }

// Names returns the names of the secrets value references, in order, each
// as written (possibly empty or invalid: CheckName tells). A reference is
// "{{", optional spaces or tabs, Prefix, the name (up to the next space,
// tab or '}'), optional spaces or tabs, "}}". Text that is not a
// reference is left alone.
func Names(value string) []string {
	var out []string
	for rest := value; ; {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return out
		}
		name, after, ok := parse(rest[i+2:])
		if !ok {
			rest = rest[i+1:] // "{{{ RUNPOD_SECRET_x }}": the reference starts one further
			continue
		}
		out = append(out, name)
		rest = after
	}
}

// parse reads a reference after its "{{": the name and what follows the
// closing "}}".
func parse(s string) (name, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, Prefix) {
		return "", "", false
	}
	s = s[len(Prefix):]
	end := strings.IndexAny(s, " \t}")
	if end < 0 {
		return "", "", false
	}
	name, s = s[:end], strings.TrimLeft(s[end:], " \t")
	if !strings.HasPrefix(s, "}}") {
		return "", "", false
	}
	return name, s[2:], true
}

// Only returns the name of the secret value references when value is one
// reference and nothing else (surrounding spaces aside), with a name that
// is not empty.
func Only(value string) (string, bool) {
	s := strings.TrimSpace(value)
	if !strings.HasPrefix(s, "{{") {
		return "", false
	}
	name, rest, ok := parse(s[2:])
	if !ok || name == "" || strings.TrimSpace(rest) != "" {
		return "", false
	}
	return name, true
}
