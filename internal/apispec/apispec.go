// Package apispec holds the repository's one description of the RunPod
// REST v2 API: rest-v2.json, a facts-only copy of the platform's published
// OpenAPI 3.1 document (every path, operation id, parameter, schema, enum
// and constraint; none of its prose), made by the program in derive/,
// with the additions of supplement.json: what the platform documents or
// serves after the published document's date (its docs pages, its own
// REST client), each carrying its source in the copy (x-runpod-source).
// derive also writes package scope's table of the API key scope each
// operation names (x-runpod-scope), and package ops's table of the
// operations (what runpodtest routes and pages without the document).
//
// The models of the REST packages (account, billing, catalog, clusters,
// pods, registries, serverless, templates, volumes) are generated from it
// by oapi-codegen, each package with its own configuration and overlay
// (names, doc comments, and what the models leave out) and all with the
// one set of templates in templates/ (the file header, and the doc
// comments of enum constants, parameters types and request bodies),
// which each package's generate.go passes with -templates. runpodtest/contract
// validates every REST v2 request a runpodtest server receives and every
// response it sends against it.
package apispec

import _ "embed"

//go:generate go run ./derive -if-present -in ../../../shared/reference/platform-openapi-v2.json -supplement supplement.json -out rest-v2.json -scopes scope/scopes.gen.go -ops ops/ops.gen.go

// RESTv2 is the OpenAPI 3.1 document of the REST v2 API, as JSON.
//
//go:embed rest-v2.json
var RESTv2 []byte
