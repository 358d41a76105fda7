package serverless

// The REST v2 models of the endpoint's workers, releases and worker logs
// (rest.gen.go); the GraphQL operations are
// generated in graphqlendpoints/graphql/.
//go:generate go tool -modfile=../tools/go.mod oapi-codegen -config rest-oapi-codegen.yaml -templates ../internal/apispec/templates ../internal/apispec/rest-v2.json
