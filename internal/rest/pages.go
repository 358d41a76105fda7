package rest

import (
	"context"
	"hash/maphash"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// The lists of the REST v2 API come in pages (docs.runpod.io, the list
// operations, from October 2026): a list takes the query parameters
// cursor, an opaque value valid only for the operation and parameters that
// issued it, and limit, 1 to 1000 items a page (1000 when left out), and
// every answer carries pagination{nextCursor, hasNextPage}, the same for
// every list. The next page is asked for with the nextCursor of the page
// before, sent back as it came, with the same parameters, while
// hasNextPage is true. An answer without pagination is the whole list: the
// platform answered so before (August 2026), and some clients of the
// platform still say its lists are not paged.
//
// List and All below walk those pages, each page one GET (idempotent, so
// retried as any read is). A walk the platform's answers would make
// endless is an *errs.PaginationError instead: a cursor named twice, an
// empty page followed by another, a next page without a cursor, or more
// than option.MaxListPages pages.

// Pagination is a list answer's pagination envelope, as the REST v2
// document describes it; the generated Pagination type of a surface
// converts to it. A nil *Pagination is an answer without one.
type Pagination struct {
	HasNextPage bool    `json:"hasNextPage"`
	NextCursor  *string `json:"nextCursor,omitempty"`
}

// Page tells where the answer r of a list keeps its items and its
// pagination envelope, for List and All.
type Page[R, T any] func(r *R) (items *[]T, p *Pagination)

// List reads every page of the list at p (GET, retried) and returns the
// first page's answer with the items of the later ones appended to its
// items: the whole list, which is never nil (an empty list is an empty
// slice). What else the answer holds (a summary, its pagination) is the
// first page's. opts apply to each page's call, and set the page size
// (option.WithPageSize). On failure R is zero.
func List[R, T any](ctx context.Context, t *transport.Transport, p Path, opts []option.RequestOption, page Page[R, T]) (R, error) {
	var whole, zero R
	w, r, err := newPager(t, p, opts)
	if err != nil {
		return zero, err
	}
	all, _ := page(&whole)
	for {
		dst := &whole
		if w.pages > 0 {
			dst = new(R)
		}
		if err := t.DoJSON(ctx, r, dst, opts...); err != nil {
			return zero, err
		}
		items, pg := page(dst)
		if dst != &whole {
			*all = append(*all, *items...)
		}
		if r, err = w.next(len(*items), pg); err != nil {
			return zero, err
		}
		if r == nil {
			break
		}
	}
	if *all == nil {
		*all = []T{}
	}
	return whole, nil
}

// All returns the items of the list at p one by one, as List reads them,
// holding one page at a time: the first page is asked for when the loop
// starts, each next one when the items of the one before are all yielded.
// A failure (an invalid option, a failed call, an *errs.PaginationError
// after the items of the page that caused it) is yielded once and ends the
// loop; breaking out sends nothing more.
func All[R, T any](ctx context.Context, t *transport.Transport, p Path, opts []option.RequestOption, page Page[R, T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		w, r, err := newPager(t, p, opts)
		for err == nil && r != nil {
			out := new(R)
			if err = t.DoJSON(ctx, r, out, opts...); err != nil {
				break
			}
			items, pg := page(out)
			r, err = w.next(len(*items), pg)
			for _, v := range *items {
				if !yield(v, nil) {
					return
				}
			}
		}
		if err != nil {
			yield(zero, err)
		}
	}
}

// pager follows the pages of one list: it makes the request of each next
// page from the answer to the one before, and refuses a chain of pages
// that would not end.
type pager struct {
	first *url.URL // the first page's URL: p's query, then limit
	route string
	pages int // pages read
	items int // their items
	seed  maphash.Seed
	seen  map[uint64]struct{} // the hashes of the cursors followed
}

// newPager returns the pager of the list at p and the request of its
// first page, with limit when opts (or the client) set a page size.
func newPager(t *transport.Transport, p Path, opts []option.RequestOption) (pager, *transport.Request, error) {
	r, err := p.Request(t, http.MethodGet, nil)
	if err != nil {
		return pager{}, nil, err
	}
	size, err := t.PageSize(opts)
	if err != nil {
		return pager{}, nil, err
	}
	if size > 0 {
		r.URL.RawQuery = addQuery(r.URL.RawQuery, "limit", strconv.Itoa(size))
	}
	return pager{first: r.URL, route: r.Route}, r, nil
}

// next takes the answer to the page just read, which held n items and
// pg, and returns the request of the next page, or nil when that page was
// the last; or the *errs.PaginationError that ends the walk.
func (w *pager) next(n int, pg *Pagination) (*transport.Request, error) {
	w.pages++
	w.items += n
	if pg == nil || !pg.HasNextPage {
		return nil, nil
	}
	var cursor string
	if pg.NextCursor != nil {
		cursor = *pg.NextCursor
	}
	switch {
	case cursor == "":
		return nil, w.fail(errs.ErrMissingCursor, cursor)
	case n == 0:
		return nil, w.fail(errs.ErrEmptyPage, cursor)
	case w.pages >= option.MaxListPages:
		return nil, w.fail(errs.ErrTooManyPages, cursor)
	}
	if w.seen == nil {
		w.seed, w.seen = maphash.MakeSeed(), map[uint64]struct{}{}
	}
	h := maphash.String(w.seed, cursor)
	if _, ok := w.seen[h]; ok {
		return nil, w.fail(errs.ErrRepeatedCursor, cursor)
	}
	w.seen[h] = struct{}{}
	u := *w.first
	u.RawQuery = addQuery(u.RawQuery, "cursor", cursor)
	return &transport.Request{Method: http.MethodGet, URL: &u, Route: w.route, Idempotent: true}, nil
}

// fail is the error that ends the walk at the page just read, which named
// cursor.
func (w *pager) fail(cause error, cursor string) error {
	return &errs.PaginationError{Method: http.MethodGet, Path: w.first.EscapedPath(), Page: w.pages, Items: w.items, Cursor: cursor, Err: cause}
}

// addQuery returns the query q with name=value appended, value escaped.
func addQuery(q, name, value string) string {
	if q != "" {
		q += "&"
	}
	return q + name + "=" + url.QueryEscape(value)
}
