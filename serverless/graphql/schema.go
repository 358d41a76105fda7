// Package graphql holds the GraphQL schema (SDL) of the subset of RunPod's
// GraphQL API that runpod-go uses, and the operations it sends. The SDK's
// typed operations are generated from them with genqlient; runpodtest
// serves Schema with a real GraphQL engine.
package graphql

import _ "embed"

//go:generate go tool -modfile=../../tools/go.mod genqlient genqlient.yaml

// Schema is the SDL in schema.graphql.
//
//go:embed schema.graphql
var Schema string
