// Package apispec holds the repository's one description of the RunPod
// REST v2 API: rest-v2.json, a facts-only copy of the platform's published
// OpenAPI 3.1 document (every path, operation id, parameter, schema, enum
// and constraint; none of its prose), made by the program in derive/.
//
// The models of the REST packages (account, billing, catalog, clusters,
// pods, registries, serverless, templates, volumes) are generated from it
// by oapi-codegen, each package with its own configuration and overlay
// (names, doc comments, and what the models leave out) and all with the
// one set of templates in templates/ (the file header, and the doc
// comments of enum constants, parameters types and request bodies),
// which each package's generate.go passes with -templates. runpodtest
// validates every REST v2 request it receives and every response it
// sends against it.
package apispec

import _ "embed"

//go:generate go run ./derive -if-present -in ../../../shared/reference/platform-openapi-v2.json -out rest-v2.json

// RESTv2 is the OpenAPI 3.1 document of the REST v2 API, as JSON.
//
//go:embed rest-v2.json
var RESTv2 []byte
