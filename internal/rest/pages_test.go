package rest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// thing is an item of the tests' lists, thingList one of their pages, as
// a surface's generated types are.
type thing struct {
	ID  string `json:"id"`
	Pad string `json:"pad,omitempty"`
}

type thingList struct {
	Things     []thing     `json:"things"`
	Pagination *Pagination `json:"pagination,omitempty"`
}

func thingPage(r *thingList) (*[]thing, *Pagination) { return &r.Things, r.Pagination }

const thingsRoute = "/v2/things"

// wire is a server that answers each GET of /v2/things with the raw JSON
// page gives for the request's cursor ("" for the first page) and
// records every request's query.
type wire struct {
	srv  *httptest.Server
	page func(cursor string) (status int, body string)

	mu      sync.Mutex
	queries []string
}

func newWire(t *testing.T, page func(cursor string) (int, string)) *wire {
	w := &wire{page: page}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodGet, r.Method)
		assert.Equal(t, thingsRoute, r.URL.Path)
		w.mu.Lock()
		w.queries = append(w.queries, r.URL.RawQuery)
		w.mu.Unlock()
		status, body := w.page(r.URL.Query().Get("cursor"))
		rw.Header().Set("Content-Type", "application/json")
		if status >= 400 {
			rw.Header().Set("Content-Type", "application/problem+json")
		}
		rw.WriteHeader(status)
		_, _ = rw.Write([]byte(body))
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *wire) sent() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.queries...)
}

// walked is what walk found: the ids List and All gave, the error each
// ended with, and the queries each sent.
type walked struct {
	list, all         []string
	listErr, allErr   error
	listSent, allSent []string
}

// walk lists /v2/things?q=1 from w both ways, List and All.
func walk(t *testing.T, w *wire, opts ...option.RequestOption) walked {
	t.Helper()
	var out walked
	tr := newTransport(t, w.srv)
	at := At(thingsRoute).Query("q=1")
	got, err := List(t.Context(), tr, at, opts, thingPage)
	for _, v := range got.Things {
		out.list = append(out.list, v.ID)
	}
	out.listErr, out.listSent = err, w.sent()
	errors := 0
	for v, err := range All(t.Context(), tr, at, opts, thingPage) {
		if err != nil {
			out.allErr = err
			errors++
			continue
		}
		out.all = append(out.all, v.ID)
	}
	assert.LessOrEqual(t, errors, 1, "a failure is yielded once")
	out.allSent = w.sent()[len(out.listSent):]
	return out
}

// page is the raw JSON of a page holding ids, with a pagination envelope
// envelope (none when it is "").
func page(envelope string, ids ...string) string {
	var b strings.Builder
	b.WriteString(`{"things":[`)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":"` + id + `"}`)
	}
	b.WriteString(`]`)
	if envelope != "" {
		b.WriteString(`,"pagination":` + envelope)
	}
	b.WriteString(`}`)
	return b.String()
}

// TestPagesFollowTheCursor: the next page is asked for with the cursor the
// page before named, sent back as it came (characters a query escapes
// included), with the same parameters and limit; the last page says so
// with hasNextPage false and a null cursor. List and All give the same
// items, in order, each once.
func TestPagesFollowTheCursor(t *testing.T) {
	const c1, c2 = "c1/+ =&x", "c2%2F"
	w := newWire(t, func(cursor string) (int, string) {
		switch cursor {
		case "":
			return 200, page(`{"nextCursor":"c1/+ =&x","hasNextPage":true}`, "a", "b")
		case c1:
			return 200, page(`{"nextCursor":"c2%2F","hasNextPage":true}`, "c", "d")
		case c2:
			return 200, page(`{"nextCursor":null,"hasNextPage":false}`, "e")
		}
		return 422, `{"title":"Unprocessable Entity","status":422,"detail":"invalid cursor"}`
	})
	got := walk(t, w, option.WithPageSize(2))
	require.NoError(t, got.listErr)
	require.NoError(t, got.allErr)
	want := []string{"a", "b", "c", "d", "e"}
	require.Equal(t, want, got.list)
	require.Equal(t, want, got.all)
	wantQ := []string{"q=1&limit=2", "q=1&limit=2&cursor=c1%2F%2B+%3D%26x", "q=1&limit=2&cursor=c2%252F"}
	require.Equal(t, wantQ, got.listSent)
	require.Equal(t, wantQ, got.allSent)
}

// TestAnswerWithoutPaginationIsWhole: an answer without pagination (the
// platform of August) is the whole list: one request. Without a page
// size, no limit is sent. An empty list is an empty slice, not nil.
func TestAnswerWithoutPaginationIsWhole(t *testing.T) {
	w := newWire(t, func(string) (int, string) { return 200, page("", "a", "b") })
	got := walk(t, w)
	require.NoError(t, got.listErr)
	require.NoError(t, got.allErr)
	require.Equal(t, []string{"a", "b"}, got.list)
	require.Equal(t, []string{"a", "b"}, got.all)
	require.Equal(t, []string{"q=1"}, got.listSent)
	require.Equal(t, []string{"q=1"}, got.allSent)

	empty := newWire(t, func(string) (int, string) { return 200, `{"things":null}` })
	none, err := List(t.Context(), newTransport(t, empty.srv), At(thingsRoute), nil, thingPage)
	require.NoError(t, err)
	require.NotNil(t, none.Things)
	require.Empty(t, none.Things)
}

// TestHostilePages: answers that would make a walk endless, or cannot be
// followed, end it with an *errs.PaginationError naming the cause, after
// the pages read; All yields the items of those pages, then the error
// once.
func TestHostilePages(t *testing.T) {
	for _, c := range []struct {
		name  string
		page  func(cursor string) (int, string)
		cause error
		all   []string // what All yields before the error
		sent  int      // requests per walk
		pageN int      // the page named in the error
	}{
		{"repeated cursor", func(cursor string) (int, string) {
			switch cursor {
			case "":
				return 200, page(`{"nextCursor":"x","hasNextPage":true}`, "a")
			case "x":
				return 200, page(`{"nextCursor":"y","hasNextPage":true}`, "b")
			}
			return 200, page(`{"nextCursor":"x","hasNextPage":true}`, "c")
		}, errs.ErrRepeatedCursor, []string{"a", "b", "c"}, 3, 3},
		{"the same cursor again at once", func(string) (int, string) {
			return 200, page(`{"nextCursor":"x","hasNextPage":true}`, "a")
		}, errs.ErrRepeatedCursor, []string{"a", "a"}, 2, 2},
		{"empty page with a next page", func(cursor string) (int, string) {
			if cursor == "" {
				return 200, page(`{"nextCursor":"x","hasNextPage":true}`, "a")
			}
			return 200, page(`{"nextCursor":"y","hasNextPage":true}`)
		}, errs.ErrEmptyPage, []string{"a"}, 2, 2},
		{"next page without a cursor", func(string) (int, string) {
			return 200, page(`{"nextCursor":null,"hasNextPage":true}`, "a")
		}, errs.ErrMissingCursor, []string{"a"}, 1, 1},
		{"next page with an empty cursor", func(string) (int, string) {
			return 200, page(`{"nextCursor":"","hasNextPage":true}`, "a")
		}, errs.ErrMissingCursor, []string{"a"}, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := walk(t, newWire(t, c.page))
			for _, err := range []error{got.listErr, got.allErr} {
				require.ErrorIs(t, err, errs.ErrPagination)
				require.ErrorIs(t, err, c.cause)
				var pe *errs.PaginationError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, c.pageN, pe.Page)
				assert.Equal(t, thingsRoute, pe.Path)
				assert.Contains(t, err.Error(), "GET "+thingsRoute+": page "+strconv.Itoa(c.pageN))
			}
			require.Nil(t, got.list, "List returns no part of a list that does not end")
			require.Equal(t, c.all, got.all)
			require.Len(t, got.listSent, c.sent)
			require.Len(t, got.allSent, c.sent)
		})
	}
}

// TestTooManyPages: a list that goes on with a new cursor and an item on
// every page stops after option.MaxListPages pages.
func TestTooManyPages(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 10,000 pages")
	}
	n := 0
	tr := transport.New(option.Config{
		APIKey: secret.NewString("k"), BaseURL: "https://api.test", MaxRetries: 0,
		HTTPClient: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			n++
			next := strconv.Itoa(n)
			return jsonResponse(r, page(`{"nextCursor":"`+next+`","hasNextPage":true}`, next)), nil
		})},
	})
	_, err := List(t.Context(), tr, At(thingsRoute), nil, thingPage)
	require.ErrorIs(t, err, errs.ErrTooManyPages)
	var pe *errs.PaginationError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, option.MaxListPages, pe.Page)
	require.Equal(t, option.MaxListPages, pe.Items)
	require.Equal(t, option.MaxListPages, n, "no page past the bound is asked for")
}

// TestRefusedCursor: a cursor the platform refuses (422, a foreign or
// malformed cursor) is its *errs.APIError, not retried; All yields the
// items read before it.
func TestRefusedCursor(t *testing.T) {
	w := newWire(t, func(cursor string) (int, string) {
		if cursor == "" {
			return 200, page(`{"nextCursor":"stale","hasNextPage":true}`, "a")
		}
		return 422, `{"title":"Unprocessable Entity","status":422,"detail":"cursor is not valid for this operation and parameters"}`
	})
	got := walk(t, w)
	for _, err := range []error{got.listErr, got.allErr} {
		var ae *errs.APIError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, http.StatusUnprocessableEntity, ae.StatusCode)
		require.Contains(t, ae.Detail, "cursor")
	}
	require.Nil(t, got.list)
	require.Equal(t, []string{"a"}, got.all)
	require.Len(t, got.listSent, 2, "a 422 is not retried")
	require.Len(t, got.allSent, 2)
}

// TestPageRetried: a page that fails as reads may (503) is asked for
// again, cursor and all, as any GET is.
func TestPageRetried(t *testing.T) {
	var mu sync.Mutex
	failed := false
	w := newWire(t, func(cursor string) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case cursor == "":
			return 200, page(`{"nextCursor":"x","hasNextPage":true}`, "a")
		case !failed:
			failed = true
			return 503, `{"title":"Service Unavailable","status":503}`
		}
		return 200, page(`{"hasNextPage":false}`, "b")
	})
	got, err := List(t.Context(), newTransport(t, w.srv), At(thingsRoute), nil, thingPage)
	require.NoError(t, err)
	require.Equal(t, []thing{{ID: "a"}, {ID: "b"}}, got.Things)
	require.Equal(t, []string{"", "cursor=x", "cursor=x"}, w.sent())
}

// TestAllSendsWhenTheLoopStarts: nothing is sent until the loop ranges,
// and breaking out sends nothing more.
func TestAllSendsWhenTheLoopStarts(t *testing.T) {
	w := newWire(t, func(cursor string) (int, string) {
		return 200, page(`{"nextCursor":"`+cursor+`x","hasNextPage":true}`, cursor+"1", cursor+"2")
	})
	seq := All(t.Context(), newTransport(t, w.srv), At(thingsRoute), nil, thingPage)
	require.Empty(t, w.sent())
	n := 0
	for _, err := range seq {
		require.NoError(t, err)
		if n++; n == 3 {
			break
		}
	}
	require.Equal(t, []string{"", "cursor=x"}, w.sent())
}

// TestPageSizeChecked: a page size out of 1 to 1000 is refused before
// anything is sent, by List and by All.
func TestPageSizeChecked(t *testing.T) {
	w := newWire(t, func(string) (int, string) { return 200, page("", "a") })
	tr := newTransport(t, w.srv)
	for _, n := range []int{0, -1, option.MaxPageSize + 1} {
		_, err := List(t.Context(), tr, At(thingsRoute), []option.RequestOption{option.WithPageSize(n)}, thingPage)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, n)
		require.Equal(t, "WithPageSize", ve.Field)
		for _, err := range All(t.Context(), tr, At(thingsRoute), []option.RequestOption{option.WithPageSize(n)}, thingPage) {
			require.ErrorAs(t, err, &ve, n)
		}
	}
	require.Empty(t, w.sent())
	_, err := List(t.Context(), tr, At(thingsRoute), []option.RequestOption{option.WithPageSize(option.MaxPageSize)}, thingPage)
	require.NoError(t, err)
	require.Equal(t, []string{"limit=1000"}, w.sent())
}

// roundTripper is a base RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// jsonResponse is a 200 answer to r with body.
func jsonResponse(r *http.Request, body string) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r, ContentLength: int64(len(body)),
	}
}
