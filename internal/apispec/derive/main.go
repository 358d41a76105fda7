// Command derive makes the repository's description of the RunPod REST v2
// API from the platform's published OpenAPI document: a facts-only copy
// that keeps every path, operation id, parameter, schema, enum and
// constraint, and drops the prose (descriptions, summaries, titles,
// examples and code samples), which is the platform's writing, not ours.
//
// Usage:
//
//	go run ./internal/apispec/derive -in published.json -out internal/apispec/rest-v2.json
//
// With -supplement, the copy then takes the additions of a supplement
// file (supplement.go): what the platform documents or serves after the
// published document's date, each addition carrying its source in the
// copy (x-runpod-source).
//
// With -scopes, it also writes the table of package scope (the API key
// scope each operation names, x-runpod-scope) from the copy; with -ops,
// the table of package ops (every operation's method, path template,
// operation id and query parameters, and whether and where it pages).
//
// With -if-present, a missing input is not an error: the output is kept,
// and only the supplement is applied to it again (its additions are
// idempotent, so a checkout without the published document keeps the
// committed copy, and takes a new or changed addition). The output is
// deterministic: the same input always gives the same bytes.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
)

// prose lists the keywords that carry text for readers, not facts a
// program checks; they are dropped wherever they are keywords (never where
// they name a property or a path).
var prose = map[string]bool{
	"description":   true,
	"summary":       true,
	"title":         true,
	"example":       true,
	"examples":      true,
	"externalDocs":  true,
	"x-codeSamples": true,
}

// nameMaps are the keywords whose value is an object keyed by names
// (properties, paths, status codes, media types, component names): its
// keys are kept whatever they are, and each value is cleaned.
var nameMaps = map[string]bool{
	"properties":        true,
	"patternProperties": true,
	"$defs":             true,
	"definitions":       true,
	"dependentSchemas":  true,
	"dependentRequired": true,
	"paths":             true,
	"webhooks":          true,
	"schemas":           true,
	"responses":         true,
	"parameters":        true, // a map under components; a list in operations
	"headers":           true,
	"requestBodies":     true,
	"securitySchemes":   true,
	"links":             true,
	"callbacks":         true,
	"pathItems":         true,
	"content":           true,
	"encoding":          true,
	"mapping":           true,
	"variables":         true,
	"scopes":            true,
}

// literals hold data values (enum members, defaults, constants), copied
// as they are.
var literals = map[string]bool{
	"enum":            true,
	"const":           true,
	"default":         true,
	"x-enum-varnames": true,
	"required":        true,
}

func main() {
	in := flag.String("in", "", "the published OpenAPI document (JSON)")
	out := flag.String("out", "", "where to write the facts-only copy")
	ifPresent := flag.Bool("if-present", false, "when -in does not exist, apply -supplement to -out as it is")
	suppPath := flag.String("supplement", "", "additions to the published document, with their sources (supplement.go)")
	scopesPath := flag.String("scopes", "", "where to write package scope's table of the operations' API key scopes (scopes.go)")
	opsPath := flag.String("ops", "", "where to write package ops's table of the operations (method, path, id, query parameters, paging)")
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: derive -in published.json -out copy.json [-supplement supplement.json] [-if-present] [-scopes scopes.gen.go] [-ops ops.gen.go]")
		os.Exit(2)
	}
	var supp []byte
	if *suppPath != "" {
		var err error
		if supp, err = os.ReadFile(*suppPath); err != nil {
			fmt.Fprintln(os.Stderr, "derive:", err)
			os.Exit(1)
		}
	}
	src, err := os.ReadFile(*in)
	var b []byte
	switch {
	case errors.Is(err, fs.ErrNotExist) && *ifPresent:
		if supp == nil {
			return
		}
		committed, rerr := os.ReadFile(*out)
		if rerr != nil {
			fmt.Fprintln(os.Stderr, "derive:", rerr)
			os.Exit(1)
		}
		b, err = resupplement(committed, supp)
	case err != nil: // reported below
	default:
		b, err = derive(src, supp)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "derive:", err)
		os.Exit(1)
	}
	files := map[string][]byte{*out: b}
	if *scopesPath != "" {
		doc, err := decodeObject(b)
		if err == nil {
			files[*scopesPath], err = scopesSource(doc)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "derive:", err)
			os.Exit(1)
		}
	}
	if *opsPath != "" {
		doc, err := decodeObject(b)
		if err == nil {
			files[*opsPath], err = opsSource(doc)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "derive:", err)
			os.Exit(1)
		}
	}
	for path, b := range files {
		if err := writeIfChanged(path, b); err != nil {
			fmt.Fprintln(os.Stderr, "derive:", err)
			os.Exit(1)
		}
	}
}

// writeIfChanged writes b to path unless path holds b already.
func writeIfChanged(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return os.WriteFile(path, b, 0o644)
}

// derive returns the facts-only copy of the OpenAPI document src, with
// the additions of the supplement supp (none if supp is nil).
func derive(src, supp []byte) ([]byte, error) {
	doc, err := decodeObject(src)
	if err != nil {
		return nil, fmt.Errorf("reading the document: %w", err)
	}
	if v, _ := doc["openapi"].(string); len(v) < 2 || v[:2] != "3." {
		return nil, fmt.Errorf("not an OpenAPI 3 document (openapi: %q)", v)
	}
	// info.title and info.version are required by OpenAPI; the title names
	// the API, it is not prose.
	info, _ := doc["info"].(map[string]any)
	if info != nil {
		info = map[string]any{"title": info["title"], "version": info["version"]}
	}
	clean(doc, false)
	if info != nil {
		doc["info"] = info
	}
	if err := supplement(doc, supp); err != nil {
		return nil, err
	}
	return encode(doc)
}

// resupplement applies the supplement supp to an already derived copy
// (the committed one, when the published document is absent).
func resupplement(derived, supp []byte) ([]byte, error) {
	doc, err := decodeObject(derived)
	if err != nil {
		return nil, fmt.Errorf("reading the derived copy: %w", err)
	}
	if err := supplement(doc, supp); err != nil {
		return nil, err
	}
	return encode(doc)
}

// decodeObject decodes a JSON object, keeping numbers (limits, defaults)
// exactly as written.
func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// encode writes the document as indented JSON, keys sorted.
func encode(doc map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// clean drops prose keywords from the object o, in place, and cleans what
// it holds. names says that o is a name map: its keys are names, kept.
func clean(o map[string]any, names bool) {
	for k, v := range o {
		if !names && prose[k] {
			delete(o, k)
			continue
		}
		if !names && literals[k] {
			continue
		}
		switch v := v.(type) {
		case map[string]any:
			clean(v, !names && nameMaps[k])
			if !names && k == "responses" {
				for _, r := range v {
					if r, ok := r.(map[string]any); ok {
						if _, ref := r["$ref"]; !ref {
							r["description"] = "" // required by OpenAPI
						}
					}
				}
			}
		case []any:
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					clean(e, false)
				}
			}
		}
	}
}
