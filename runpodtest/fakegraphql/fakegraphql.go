// Package fakegraphql serves the GraphQL API of a runpodtest server: the
// endpoint operations the platform serves at POST /graphql until it
// retires the API (saveEndpoint, updateEndpointTemplate, deleteEndpoint,
// myself.endpoints and myself.serverlessDiscount), over the same
// endpoints as the server's REST v2 routes. A server started without
// Serve answers POST /graphql as the retired API (410 Gone), so a test
// that does not use GraphQL does not link a GraphQL engine.
//
//	srv := runpodtest.NewServer(fakegraphql.Serve())
//	defer srv.Close()
//	rp, err := srv.NewClient()
//	gq := graphqlendpoints.NewFromConfig(rp.Config()) // talks to srv's GraphQL API
//
// The schema the fake serves is its own, written from the platform's
// GraphQL documentation and the platform's own clients (schema.graphql).
package fakegraphql

import (
	"context"
	_ "embed"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
)

// Route is the GraphQL API's route, for runpodtest.Server's Count, Acted
// and FailNext. It takes the key as the api_key query parameter or a
// Bearer header.
const Route = "POST /graphql"

// schemaSDL is the fake's own schema of the platform's GraphQL API; see
// schema.graphql for what it is written from.
//
//go:embed schema.graphql
var schemaSDL string

// Serve returns the runpodtest option that serves the GraphQL API on the
// server's API host. Without it, the server answers POST /graphql as the
// platform will once it retires the API, in early 2027: 410 Gone (see
// Retire), so the REST v2 routes alone manage its endpoints.
func Serve() runpodtest.Option {
	return func(srv *runpodtest.Server) {
		g := of(srv)
		schema := graphql.MustParseSchema(schemaSDL, g.Root)
		g.Serve(func(ctx context.Context, query, operationName string, variables map[string]any) any {
			return schema.Exec(ctx, query, operationName, variables)
		})
	}
}

// Retire retires srv's GraphQL API (true) or brings it back (false); it
// has no effect on a server started without Serve, whose API is retired.
// While it is retired, every request to POST /graphql is answered 410
// Gone with a problem+json body saying to use the REST API v2, before the
// key is looked at, as the platform answered every request to its retired
// REST v1: a caller with no key, a bad key or a key without the
// permission gets the same 410, no rate limit is counted and no fault is
// injected. The request is logged (srv.Count(Route) counts it, Acted
// does not). The REST v2 routes serve the same endpoints as before.
func Retire(srv *runpodtest.Server, retired bool) { of(srv).Retire(retired) }

// Mutations returns how many times the named GraphQL mutation (for
// example "saveEndpoint") was applied on srv: the proof that a retry
// never applied one twice.
func Mutations(srv *runpodtest.Server, name string) int { return of(srv).Mutations(name) }

// of returns srv's side of the GraphQL API.
func of(srv *runpodtest.Server) *seam.GraphQL {
	c := seam.Of(srv)
	if c == nil {
		panic("fakegraphql: the server was not made by runpodtest.NewServer")
	}
	return &c.GraphQL
}
