// Package rest holds the calls every REST v2 resource makes the same way,
// so that the surface packages (pods, templates, volumes, registries,
// clusters, …) state only what differs: their routes, their id rules and
// their types. A call goes to a Path (a route template and its ids, see
// At), which every request carries as its Route. Each call keeps the
// transport's retry table: reads, PUT, PATCH and DELETE are idempotent and
// retried; a create or an action (POST) is never repeated after the
// request may have reached the platform.
//
// A service method calls one function of this package, which calls the
// transport: no deeper chain of the SDK's own frames lies between a
// method and the network.
package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Call sends a request with method to p and reads the JSON answer into a
// new T. body, when not nil, is checked (Validate) after p's ids and
// sent as JSON; nothing is sent when either is invalid. A POST is never
// repeated after an ambiguous failure (the error then matches
// errs.ErrOutcomeUnknown); every other method is retried.
func Call[T any](ctx context.Context, t *transport.Transport, method string, p Path, body Body, opts []option.RequestOption) (*T, error) {
	r, err := p.Request(t, method, body)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := t.DoJSON(ctx, r, out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}

// Delete deletes the resource at p (DELETE, retried). A retried delete
// whose later attempt finds the resource gone (404) succeeds only when an
// earlier attempt's outcome is unknown (a reset after sending, a 5xx): that
// attempt may have deleted it. A 404 after a 429 (the platform did not
// act) or on the first attempt is the errs.ErrNotFound it is.
func Delete(ctx context.Context, t *transport.Transport, p Path, opts []option.RequestOption) error {
	r, err := p.Request(t, http.MethodDelete, nil)
	if err != nil {
		return err
	}
	var earlierUnknown bool
	r.EarlierUnknown = &earlierUnknown
	err = t.DoJSON(ctx, r, nil, opts...)
	if errors.Is(err, errs.ErrNotFound) && earlierUnknown {
		return nil
	}
	return err
}
