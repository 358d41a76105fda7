// Package rest holds the calls every REST v2 resource makes the same way,
// so that the surface packages (pods, templates, volumes, registries,
// clusters, …) state only what differs: their paths, their id rules and
// their types. Each call keeps the transport's retry table: reads, PATCH
// and DELETE are idempotent and retried; a create is never repeated after
// the request may have reached the platform.
package rest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Get reads the JSON resource at u into a new T (GET, retried).
func Get[T any](ctx context.Context, t *transport.Transport, u *url.URL, opts []option.CallOption) (*T, error) {
	var out T
	if err := t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Idempotent: true}, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// Create posts body to u and reads the created resource (POST, never
// repeated after an ambiguous failure: the error then matches
// errs.ErrOutcomeUnknown). The caller has validated body.
func Create[T any](ctx context.Context, t *transport.Transport, u *url.URL, body any, opts []option.CallOption) (*T, error) {
	return send[T](ctx, t, http.MethodPost, u, body, false, opts)
}

// Update sends body to u with PATCH and reads the resource back. A PATCH
// of fixed values gives the same resource twice, so it is retried.
func Update[T any](ctx context.Context, t *transport.Transport, u *url.URL, body any, opts []option.CallOption) (*T, error) {
	return send[T](ctx, t, http.MethodPatch, u, body, true, opts)
}

// Replace sends body to u with PUT (retried) and reads the answer.
func Replace[T any](ctx context.Context, t *transport.Transport, u *url.URL, body any, opts []option.CallOption) (*T, error) {
	return send[T](ctx, t, http.MethodPut, u, body, true, opts)
}

func send[T any](ctx context.Context, t *transport.Transport, method string, u *url.URL, body any, idempotent bool, opts []option.CallOption) (*T, error) {
	b, err := transport.MarshalBody(body)
	if err != nil {
		return nil, err
	}
	var out T
	if err := t.DoJSON(ctx, &transport.Request{Method: method, URL: u, Body: b, Idempotent: idempotent}, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes the resource at u (DELETE, retried). A retried delete
// whose later attempt finds the resource gone (404) succeeds only when an
// earlier attempt's outcome is unknown (a reset after sending, a 5xx): that
// attempt may have deleted it. A 404 after a 429 (the platform did not
// act) or on the first attempt is the errs.ErrNotFound it is.
func Delete(ctx context.Context, t *transport.Transport, u *url.URL, opts []option.CallOption) error {
	var earlierUnknown bool
	err := t.DoJSON(ctx, &transport.Request{Method: http.MethodDelete, URL: u, Idempotent: true, EarlierUnknown: &earlierUnknown}, nil, opts...)
	if errors.Is(err, errs.ErrNotFound) && earlierUnknown {
		return nil
	}
	return err
}

// ItemURL is the URL of one resource of a collection, such as
// /v2/clusters/{id}/pods: collection, then the escaped id, then suffix
// (empty or starting with "/"). valid checks the id first; its error is
// returned and nothing is built.
func ItemURL(t *transport.Transport, collection, id, suffix string, valid func(string) error) (*url.URL, error) {
	if err := valid(id); err != nil {
		return nil, err
	}
	return t.BaseURL(collection + "/" + url.PathEscape(id) + suffix), nil
}

// SegmentID checks an id that names one path segment as it is: not
// empty, and only ASCII letters, digits and the runes of extra. field
// names it in the *errs.ValidationError.
func SegmentID(field, id, extra string) error {
	if id == "" {
		return errs.Invalid(field, "is empty")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') && !strings.ContainsRune(extra, r) {
			if extra == "" {
				return errs.Invalid(field, "want letters and digits, got %q", id)
			}
			return errs.Invalid(field, "want letters, digits, %s, got %q", quoteRunes(extra), id)
		}
	}
	return nil
}

// quoteRunes names extra's runes as the messages do: '_' and '-'.
func quoteRunes(extra string) string {
	var out string
	rs := []rune(extra)
	for i, r := range rs {
		switch {
		case i == 0:
		case i == len(rs)-1:
			out += " and "
		default:
			out += ", "
		}
		out += "'" + string(r) + "'"
	}
	return out
}
