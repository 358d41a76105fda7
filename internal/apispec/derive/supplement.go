package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A supplement holds what the platform documents or serves after the date
// of the published document derive copies: each patch names its source,
// and the copy keeps that source beside what the patch added, as the
// extension x-runpod-source (a list of citations), so a reader of
// rest-v2.json sees which facts are the published document's and which
// come from where.
//
// The file is JSON:
//
//	{
//	  "sources":   {"key": "citation: a docs page path and its date, or a package and version"},
//	  "fragments": {"name": <any JSON>},
//	  "patches": [
//	    {"source": "key", "op": "set", "at": ["/json/pointer", …], "value": <JSON>},
//	    {"source": "key", "op": "append", "at": [...], "value": <JSON>, "match": ["name", "in"]},
//	    {"source": "key", "op": "remove", "at": [...], "value": <JSON, for an array>}
//	  ]
//	}
//
// and each patch may have "why", our reason for it, kept in the file only.
//
// A value may hold {"$fragment": "name"}, replaced by a copy of the
// fragment, so one parameter or schema is written once and placed at many
// pointers. Each op is idempotent, so applying a supplement to a copy that
// already has it changes nothing (derive -if-present relies on it):
//
//   - set puts the value at the pointer, whose parent must exist (a key of
//     an object, added or replaced).
//   - append adds the value to the array at the pointer (made if absent)
//     unless an equal element is there; with match, an element whose match
//     fields equal the value's is replaced instead.
//   - remove deletes the key at the pointer, or, with a value, the equal
//     elements of the array at the pointer.
//
// The source goes on the value itself when the value is an object that
// may carry an extension (not a parameter or response $ref, which OpenAPI
// lets have no siblings; a schema $ref may); otherwise on the nearest
// object that holds the change: the owner of the array or key.
type supplementFile struct {
	Sources   map[string]string          `json:"sources"`
	Fragments map[string]json.RawMessage `json:"fragments"`
	Patches   []patch                    `json:"patches"`
}

type patch struct {
	Source string          `json:"source"`
	Op     string          `json:"op"`
	At     []string        `json:"at"`
	Value  json.RawMessage `json:"value"`
	Match  []string        `json:"match"`
	// Why says why the patch is as it is, for a reader of the supplement;
	// it does not reach the document.
	Why string `json:"why"`
}

// sourceKey is the extension that names where a supplemented fact comes
// from.
const sourceKey = "x-runpod-source"

// supplement applies the supplement supp to doc, in place; nil supp
// changes nothing.
func supplement(doc map[string]any, supp []byte) error {
	if supp == nil {
		return nil
	}
	var f supplementFile
	dec := json.NewDecoder(strings.NewReader(string(supp)))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("reading the supplement: %w", err)
	}
	fragments := map[string]any{}
	for name, raw := range f.Fragments {
		v, err := decodeValue(raw)
		if err != nil {
			return fmt.Errorf("supplement fragment %s: %w", name, err)
		}
		fragments[name] = v
	}
	for i, p := range f.Patches {
		src, ok := f.Sources[p.Source]
		if !ok || src == "" {
			return fmt.Errorf("supplement patch %d: unknown source %q", i, p.Source)
		}
		if len(p.At) == 0 {
			return fmt.Errorf("supplement patch %d: no pointer", i)
		}
		for _, at := range p.At {
			var value any
			if p.Value != nil {
				v, err := decodeValue(p.Value)
				if err != nil {
					return fmt.Errorf("supplement patch %d: %w", i, err)
				}
				if value, err = expand(v, fragments); err != nil {
					return fmt.Errorf("supplement patch %d: %w", i, err)
				}
			}
			if err := apply(doc, p, at, value, src); err != nil {
				return fmt.Errorf("supplement patch %d at %s: %w", i, at, err)
			}
		}
	}
	return nil
}

func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// expand returns a copy of v with every {"$fragment": name} replaced by a
// copy of that fragment.
func expand(v any, fragments map[string]any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if name, ok := v["$fragment"].(string); ok && len(v) == 1 {
			f, ok := fragments[name]
			if !ok {
				return nil, fmt.Errorf("unknown fragment %q", name)
			}
			return expand(f, fragments)
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			x, err := expand(e, fragments)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			x, err := expand(e, fragments)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	return v, nil
}

// apply performs one patch at one pointer.
func apply(doc map[string]any, p patch, at string, value any, src string) error {
	tokens, err := pointer(at)
	if err != nil {
		return err
	}
	if len(tokens) == 0 {
		return fmt.Errorf("the document itself cannot be patched")
	}
	owner, err := walk(doc, tokens[:len(tokens)-1])
	if err != nil {
		return err
	}
	last := tokens[len(tokens)-1]
	switch p.Op {
	case "set":
		if value == nil && p.Value == nil {
			return fmt.Errorf("set needs a value")
		}
		if carries(value, tokens) {
			cite(value.(map[string]any), src)
		} else {
			cite(owner, src)
		}
		owner[last] = value
	case "append":
		list, _ := owner[last].([]any)
		if _, exists := owner[last]; exists && list == nil {
			return fmt.Errorf("append: not an array")
		}
		if carries(value, append(tokens, "-")) {
			cite(value.(map[string]any), src)
		} else {
			cite(owner, src)
		}
		replaced := false
		for i, e := range list {
			if reflect.DeepEqual(e, value) {
				replaced = true
				break
			}
			if len(p.Match) > 0 && sameFields(e, value, p.Match) {
				list[i], replaced = value, true
				break
			}
		}
		if !replaced {
			list = append(list, value)
		}
		owner[last] = list
	case "remove":
		cite(owner, src)
		if p.Value == nil {
			delete(owner, last)
			return nil
		}
		list, ok := owner[last].([]any)
		if !ok {
			return fmt.Errorf("remove with a value: not an array")
		}
		owner[last] = slices.DeleteFunc(list, func(e any) bool { return reflect.DeepEqual(e, value) })
	default:
		return fmt.Errorf("unknown op %q", p.Op)
	}
	return nil
}

// carries reports whether value, placed at tokens, can carry the source
// extension itself: an object that is not a $ref outside a schema (a
// parameter, response or other reference object, which takes no
// extension).
func carries(value any, tokens []string) bool {
	m, ok := value.(map[string]any)
	if !ok {
		return false
	}
	if _, ref := m["$ref"]; !ref {
		return true
	}
	// A $ref in a schema may have siblings (JSON Schema 2020-12): the
	// value is a schema when its place is under a schema keyword.
	return slices.ContainsFunc(tokens, func(t string) bool {
		return t == "schemas" || t == "schema" || t == "properties" || t == "items"
	})
}

// cite adds src to o's list of sources, once.
func cite(o map[string]any, src string) {
	list, _ := o[sourceKey].([]any)
	if slices.Contains(list, any(src)) {
		return
	}
	o[sourceKey] = append(list, src)
}

// sameFields reports whether a and b are objects whose fields named
// fields are all equal (and present in b).
func sameFields(a, b any, fields []string) bool {
	ma, ok1 := a.(map[string]any)
	mb, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	for _, f := range fields {
		v, ok := mb[f]
		if !ok || !reflect.DeepEqual(ma[f], v) {
			return false
		}
	}
	return true
}

// pointer splits a JSON pointer (RFC 6901) into its unescaped tokens.
func pointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("not a JSON pointer: %q", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// walk follows tokens from doc to an object, which must exist.
func walk(doc map[string]any, tokens []string) (map[string]any, error) {
	var cur any = doc
	for i, t := range tokens {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[t]
			if !ok {
				return nil, fmt.Errorf("no %s in the document", "/"+strings.Join(tokens[:i+1], "/"))
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || n >= len(c) {
				return nil, fmt.Errorf("no element %s of %s", t, "/"+strings.Join(tokens[:i], "/"))
			}
			cur = c[n]
		default:
			return nil, fmt.Errorf("%s is not an object or array", "/"+strings.Join(tokens[:i], "/"))
		}
	}
	o, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", "/"+strings.Join(tokens, "/"))
	}
	return o, nil
}
