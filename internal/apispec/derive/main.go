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
// With -if-present, a missing input is not an error: the output is left
// as it is (a checkout without the published document keeps the
// committed copy). The output is deterministic: the same input always
// gives the same bytes.
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
	ifPresent := flag.Bool("if-present", false, "leave -out as it is when -in does not exist")
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: derive -in published.json -out copy.json [-if-present]")
		os.Exit(2)
	}
	src, err := os.ReadFile(*in)
	if errors.Is(err, fs.ErrNotExist) && *ifPresent {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "derive:", err)
		os.Exit(1)
	}
	b, err := derive(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "derive:", err)
		os.Exit(1)
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, b) {
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "derive:", err)
		os.Exit(1)
	}
}

// derive returns the facts-only copy of the OpenAPI document src.
func derive(src []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber() // keep numbers (limits, defaults) exactly as written
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
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
