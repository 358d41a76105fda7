package seam

import (
	"context"
	"net/http"
)

// Core is what a server gives its subpackages. runpodtest fills the
// functions over its state in NewServer; a subpackage's option sets the
// hooks (GraphQL, ...) while NewServer runs its options, before the
// server starts serving.
type Core struct {
	// Closing is closed when the server starts closing.
	Closing <-chan struct{}

	// GraphQL is the fake's GraphQL API: the resolvers over the
	// server's serverless state, and the hooks of its engine.
	GraphQL GraphQL
}

// Exec runs one GraphQL request and returns the response to encode as
// JSON (data and errors).
type Exec func(ctx context.Context, query, operationName string, variables map[string]any) any

// GraphQL is the server's side of the GraphQL API.
type GraphQL struct {
	// Root is the resolver root the engine binds the schema to.
	Root any
	// Serve installs the engine's Exec: POST /graphql is served with it
	// from then on (fakegraphql's option sets it before the server starts).
	Serve func(Exec)
	// Retire retires the API (410 Gone) or brings it back.
	Retire func(bool)
	// Mutations counts the mutations of one name that changed something.
	Mutations func(name string) int
}

// NotServed writes the answer of a route whose server was not attached:
// 501 with a problem+json body naming the option that serves it.
func NotServed(w http.ResponseWriter, what, option string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusNotImplemented)
	_, _ = w.Write([]byte(`{"title":"Not Implemented","status":501,"detail":"runpodtest: ` + what + ` is not served: start the server with ` + option + `"}` + "\n"))
}
