// Package callctx carries the route template of a call in the context the
// SDK hands to middleware and attempt hooks (option.Route reads it).
package callctx

import "context"

type routeKey struct{}

// WithRoute returns ctx carrying route.
func WithRoute(ctx context.Context, route string) context.Context {
	return context.WithValue(ctx, routeKey{}, route)
}

// Route returns the route ctx carries, or "".
func Route(ctx context.Context) string {
	r, _ := ctx.Value(routeKey{}).(string)
	return r
}
