// Package secret holds Env, the type of the environment variables the
// platform returns with a template, a serverless endpoint or a pod. Their
// values may be secrets (tokens, passwords), so an Env never prints them:
// fmt (every verb), log/slog (every handler, however deeply the Env is
// nested) and encoding/json show the names of the variables, each value
// as "[REDACTED]". Reading a value takes an explicit call:
//
//	tmpl, _ := rp.Templates.Get(ctx, id)
//	fmt.Println(tmpl.Env)                  // {"HF_TOKEN":[REDACTED]}
//	token, ok := tmpl.Env.Value("HF_TOKEN") // the value itself
//	all := tmpl.Env.Reveal()               // a map[string]string copy
//
// Requests (such as templates.CreateTemplateRequest) take a plain
// map[string]string, since the SDK must send the values.
package secret

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Redacted stands in for every value of an Env that is printed.
const Redacted = "[REDACTED]"

// Env is a set of environment variables, by name, whose values are not
// printed. The zero Env holds none and is what a response without
// variables (or with "env": null) decodes to. An Env is read-only: Reveal
// returns a copy. Two Envs holding the same variables are equal for
// reflect.DeepEqual. The values sit behind two pointers, so that fmt,
// which cannot call the methods of a value held in an unexported field
// (and follows one pointer to a map or a struct for a verb that does not
// fit), prints an address rather than the values even then.
type Env struct{ p **map[string]string }

// NewEnv returns an Env holding a copy of vars; nil gives the zero Env.
func NewEnv(vars map[string]string) Env {
	if vars == nil {
		return Env{}
	}
	return newEnv(maps.Clone(vars))
}

func newEnv(m map[string]string) Env {
	pm := &m
	return Env{p: &pm}
}

func (e Env) vars() map[string]string {
	if e.p == nil {
		return nil
	}
	return **e.p
}

// IsZero reports whether e is the zero Env (no variables were given; an
// empty, non-nil set is not zero). A struct field of type Env tagged
// omitzero is left out of JSON when it is zero.
func (e Env) IsZero() bool { return e.p == nil }

// Len returns the number of variables.
func (e Env) Len() int { return len(e.vars()) }

// Names returns the names of the variables, sorted.
func (e Env) Names() []string { return slices.Sorted(maps.Keys(e.vars())) }

// Has reports whether a variable of that name is set.
func (e Env) Has(name string) bool {
	_, ok := e.vars()[name]
	return ok
}

// Value returns the value of the variable name, and whether it is set.
func (e Env) Value(name string) (string, bool) {
	v, ok := e.vars()[name]
	return v, ok
}

// Reveal returns a copy of the variables with their values; nil for the
// zero Env.
func (e Env) Reveal() map[string]string { return maps.Clone(e.vars()) }

// String returns the names, sorted, each with its value as
// "[REDACTED]": {"HF_TOKEN":[REDACTED] "MODE":[REDACTED]}; "{}" when
// there are none.
func (e Env) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range e.Names() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(k) + ":" + Redacted)
	}
	b.WriteByte('}')
	return b.String()
}

// GoString is String.
func (e Env) GoString() string { return e.String() }

// Format prints String for every verb.
func (e Env) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(e.String())) }

// LogValue logs the names, each with its value as "[REDACTED]", as a
// group.
func (e Env) LogValue() slog.Value {
	names := e.Names()
	attrs := make([]slog.Attr, len(names))
	for i, k := range names {
		attrs[i] = slog.String(k, Redacted)
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the names, each with the value "[REDACTED]", as a
// JSON object; null for the zero Env. JSON made from an SDK value so
// never holds a value: send values with a plain map.
func (e Env) MarshalJSON() ([]byte, error) {
	if e.p == nil {
		return []byte("null"), nil
	}
	red := make(map[string]string, e.Len())
	for k := range e.vars() {
		red[k] = Redacted
	}
	return json.Marshal(red)
}

// UnmarshalJSON reads a JSON object of strings, as the platform sends
// it; null gives the zero Env.
func (e *Env) UnmarshalJSON(b []byte) error {
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*e = Env{}
	if m != nil {
		*e = newEnv(m)
	}
	return nil
}
