package main

import (
	"fmt"
	"slices"
	"strings"
)

// methods are the operations' keys of a path item, in the order the
// table lists them.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// opsSource returns the Go source of package ops's table: every operation
// of doc, keyed "METHOD /path/{}" as scope's table is, with its path
// template, operation id, query parameters (the path item's and its own,
// $refs followed), whether it takes a cursor, and, for one that does, the
// property of its 200 answer that holds the items.
func opsSource(doc map[string]any) ([]byte, error) {
	paths, _ := doc["paths"].(map[string]any)
	var lines []string
	for path, item := range paths {
		it, _ := resolve(doc, item).(map[string]any)
		shared, _ := it["parameters"].([]any)
		for _, method := range methods {
			o, ok := it[method].(map[string]any)
			if !ok {
				continue
			}
			id, _ := o["operationId"].(string)
			own, _ := o["parameters"].([]any)
			var query []string
			for _, p := range append(slices.Clone(shared), own...) {
				pm, _ := resolve(doc, p).(map[string]any)
				if in, _ := pm["in"].(string); in == "query" {
					name, _ := pm["name"].(string)
					query = append(query, name)
				}
			}
			slices.Sort(query)
			query = slices.Compact(query)
			cursor := slices.Contains(query, "cursor")
			items := ""
			if cursor {
				var err error
				if items, err = listItems(doc, o); err != nil {
					return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), path, err)
				}
			}
			key := strings.ToUpper(method) + " " + param.ReplaceAllString(path, "{}")
			fields := fmt.Sprintf("Method: %q, Path: %q, ID: %q", strings.ToUpper(method), path, id)
			if len(query) > 0 {
				fields += fmt.Sprintf(", Query: %#v", query)
			}
			if cursor {
				fields += fmt.Sprintf(", Cursor: true, Items: %q", items)
			}
			lines = append(lines, fmt.Sprintf("\t%q: {%s},\n", key, fields))
		}
	}
	return goTable("ops", "// table holds every operation of the document, keyed \"METHOD /path/{}\".\n", "map[string]Op", lines)
}

// listItems returns the one array property of a list operation's 200
// JSON answer.
func listItems(doc map[string]any, op map[string]any) (string, error) {
	responses, _ := op["responses"].(map[string]any)
	resp, _ := resolve(doc, responses["200"]).(map[string]any)
	content, _ := resp["content"].(map[string]any)
	mt, _ := content["application/json"].(map[string]any)
	schema, _ := resolve(doc, mt["schema"]).(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	var items []string
	for name, p := range props {
		pm, _ := resolve(doc, p).(map[string]any)
		if isArray(pm["type"]) {
			items = append(items, name)
		}
	}
	if len(items) != 1 {
		return "", fmt.Errorf("it takes a cursor, but its answer has %d lists", len(items))
	}
	return items[0], nil
}

// isArray reports whether a schema's type is "array" or a list of types
// holding it.
func isArray(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "array"
	case []any:
		return slices.Contains(t, any("array"))
	}
	return false
}

// resolve follows v's local $ref ("#/components/..."), repeatedly.
func resolve(doc map[string]any, v any) any {
	for range 32 {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return v
		}
		var cur any = doc
		for _, seg := range strings.Split(ref[2:], "/") {
			seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
			cm, _ := cur.(map[string]any)
			cur = cm[seg]
		}
		v = cur
	}
	return v
}
