// Package envprint prints request types that hold a container's
// environment without the values of its variables, which may be secrets
// (tokens, passwords): the names show, each value as [REDACTED].
package envprint

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Redacted replaces each environment value in printed output.
const Redacted = "[REDACTED]"

// Struct prints v, a struct or a pointer to one, as one line:
// "Type{Field:value …}" with the fields that are set (nil pointers, nil
// slices and maps and empty nullable values left out), pointers followed,
// strings quoted, and the map of each field named Env (a map[string]string
// or a pointer to one) as its sorted names with every value Redacted.
// Nested structs are printed the same way, so an Env inside one is
// redacted too.
func Struct(v any) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "<nil>"
		}
		rv = rv.Elem()
	}
	var b strings.Builder
	value(&b, rv, "", 0)
	return b.String()
}

func value(b *strings.Builder, v reflect.Value, name string, depth int) {
	if depth > 8 {
		b.WriteString("…")
		return
	}
	if name == "Env" {
		env(b, v)
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("<nil>")
			return
		}
		value(b, v.Elem(), name, depth+1)
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Struct:
		structFields(b, v, depth)
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			value(b, v.Index(i), "", depth+1)
		}
		b.WriteByte(']')
	default:
		if v.CanInterface() {
			fmt.Fprint(b, v.Interface())
		}
	}
}

// structFields prints a struct's set exported fields.
func structFields(b *strings.Builder, v reflect.Value, depth int) {
	t := v.Type()
	b.WriteString(t.Name() + "{")
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		fv := v.Field(i)
		if !f.IsExported() || unset(fv) {
			continue
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(f.Name + ":")
		value(b, fv, f.Name, depth+1)
	}
	b.WriteByte('}')
}

// unset reports a field left out: a nil pointer, slice, map or interface
// (a nullable value is a map, empty when not given).
func unset(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice:
		return v.IsNil()
	case reflect.Map:
		return v.Len() == 0 && v.IsNil()
	}
	return false
}

// env prints an environment's names, sorted, each value Redacted; a
// pointer to one is followed.
func env(b *strings.Builder, v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			b.WriteString("<nil>")
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
		b.WriteString(Redacted) // not a map of names: nothing of it shows
		return
	}
	names := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		names = append(names, k.String())
	}
	slices.Sort(names)
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(n) + ":" + Redacted)
	}
	b.WriteByte('}')
}
