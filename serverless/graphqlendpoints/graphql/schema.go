// Package graphql holds the GraphQL operations runpod-go sends
// (operations.graphql) and the schema genqlient checks them against at
// generation time (schema.graphql): the endpoint operations of RunPod's
// GraphQL API, with their fields listed inline as the platform's own
// clients write them. observed-fields.txt lists, with their sources, the
// fields those clients and the platform's documentation select and on
// which path; a test here fails when an operation selects anything else.
// The typed Go functions generated from the operations live in
// serverless/graphqlendpoints/internal/gql; nothing here is used at run time.
package graphql

//go:generate go tool -modfile=../../../tools/go.mod genqlient genqlient.yaml
