package runpodtest

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/runpodkit/runpod-go/internal/apispec/ops"
)

// Pages of the REST v2 lists, as the platform's list pages describe them
// (docs.runpod.io, from October 2026): a list operation takes the query
// parameters cursor, "only valid for the operation and parameters that
// issued it; a malformed or foreign cursor is rejected with 422", and
// limit, 1 to 1000 items a page, 1000 when left out; every answer carries
// pagination{nextCursor, hasNextPage}, "uniform across list endpoints".
// The fake pages every operation the REST v2 document gives a cursor
// parameter, whatever its handler: a handler that keeps its resources by
// id renders only the page (serveList); any other answers with the whole
// list, and the engine cuts the page out of it. Either way the page is
// checked against the document before it is sent, with contract.Check.
//
// A cursor of the fake is opaque: it names the operation and a digest of
// the request's path and query (every parameter but the cursor, limit
// included), the item the page ended with and its position, sealed with a
// key of the server's own (HMAC-SHA256), in base64url. A cursor another
// server issued, one altered, or one of another operation or parameters
// is answered 422. The next page starts after the item the page before
// ended with, wherever it is now; when that item is gone, at the first
// item that sorts after it in a list ordered by id, else at its old
// position. So a resource deleted during a walk makes no other one be
// skipped or given twice.

// WithPageSize makes every paged list answer hold at most n items a page:
// the smaller of n and the limit the request asks for (1000 when it asks
// for none), so that a test crosses pages with a few items. n must be at
// least 1.
func WithPageSize(n int) Option {
	if n < 1 {
		panic("runpodtest: WithPageSize: n must be at least 1, got " + strconv.Itoa(n))
	}
	return func(s *Server) { s.pages.size = n }
}

// WithoutPagination makes the fake answer lists as the platform did in
// August 2026, before its lists were paged: the cursor and limit
// parameters are ignored (dropped before the request is checked, as the
// platform ignored query parameters it did not know), no answer carries
// pagination, and a list longer than 1000 items is cut to its first 1000
// without an error, as the platform cut a large account's lists.
// WithPageSize has no effect then.
func WithoutPagination() Option { return func(s *Server) { s.pages.off = true } }

// unpagedMax is the most items an unpaged answer held (WithoutPagination).
const unpagedMax = 1000

// defaultLimit is the page size of a request without limit, and the
// largest limit.
const defaultLimit = 1000

// pageRules are how the server pages lists: WithPageSize, WithoutPagination,
// and the key its cursors are sealed with.
type pageRules struct {
	size int  // at most this many items a page (0: the limit alone)
	off  bool // the lists of August: no pages
	key  [32]byte
}

func newPageRules() pageRules {
	var p pageRules
	_, _ = rand.Read(p.key[:])
	return p
}

// listOperation is a paged list operation of the document: the route
// pattern that serves it and the property of its answer holding the
// items.
type listOperation struct {
	pattern string
	items   string
}

// listOperationOf returns the list operation op serves, nil when op is
// nil or takes no cursor.
func listOperationOf(op *ops.Op, pattern string) *listOperation {
	if op == nil || !op.Cursor {
		return nil
	}
	return &listOperation{pattern: pattern, items: op.Items}
}

// pageRequest is what a request to a list asks for: the page size, and
// where the page starts. A list handler that pages its own answer
// (serveList) finds it in the request's context (pageOf) and marks it
// served; the engine cuts the page out of any other list answer.
type pageRequest struct {
	op     *listOperation
	key    []byte // the server's cursor key
	size   int    // the most items the page holds
	digest [8]byte
	cursor *cursor // nil for the first page
	served bool    // the handler wrote the page and its pagination
}

type pageKey struct{}

// pageOf returns the page r asks for of a paged list, nil when r is not
// a request for one (or the server does not page: WithoutPagination).
func pageOf(r *http.Request) *pageRequest {
	p, _ := r.Context().Value(pageKey{}).(*pageRequest)
	return p
}

// next is the cursor of the page after one that ended with the item
// whose key is last, at position offset.
func (p *pageRequest) next(last string, offset int) *string {
	c := encodeCursor(p.key, cursor{op: p.op.pattern, digest: p.digest, last: last, offset: offset})
	return &c
}

// pagination is the envelope of a page; next is nil on the last page.
type pagination struct {
	NextCursor  *string `json:"nextCursor"`
	HasNextPage bool    `json:"hasNextPage"`
}

// cursor is what a cursor of the fake holds.
type cursor struct {
	op     string  // the route pattern that issued it
	digest [8]byte // of the path and query it was issued for
	last   string  // the key of the item the page ended with
	offset int     // the position after that item, then
}

// dropPageParams removes cursor and limit from r's query, which the
// platform of August ignored (WithoutPagination).
func dropPageParams(r *http.Request) {
	if q := r.URL.Query(); q.Has("cursor") || q.Has("limit") {
		q.Del("cursor")
		q.Del("limit")
		r.URL.RawQuery = q.Encode()
	}
}

// pageRequest reads r's limit and cursor for op, or answers the 422 the
// platform documents for a malformed or foreign cursor.
func (s *engine) pageRequest(w http.ResponseWriter, r *http.Request, op *listOperation) (*pageRequest, bool) {
	q := r.URL.Query()
	p := &pageRequest{op: op, key: s.pages.key[:], size: defaultLimit, digest: paramsDigest(r.URL.Path, q)}
	if v := q.Get("limit"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 1 && n <= defaultLimit {
			p.size = n
		} // else the document's check answers 400 first
	}
	if s.pages.size > 0 {
		p.size = min(p.size, s.pages.size)
	}
	if !q.Has("cursor") {
		return p, true
	}
	c, err := decodeCursor(s.pages.key[:], q.Get("cursor"))
	switch {
	case err != nil:
		return p, refuseCursor(w, "is malformed, or was not issued by this server")
	case c.op != op.pattern:
		return p, refuseCursor(w, "was issued by another operation ("+c.op+")")
	case c.digest != p.digest:
		return p, refuseCursor(w, "was issued for other parameters")
	}
	p.cursor = &c
	return p, true
}

// refuseCursor answers 422 about the request's cursor and reports false.
func refuseCursor(w http.ResponseWriter, why string) bool {
	Problem(w, http.StatusUnprocessableEntity, "invalid cursor", "query.cursor: "+why)
	return false
}

// paramsDigest is the digest of a request's path and query, the cursor
// left out: a cursor is valid only where it was issued.
func paramsDigest(path string, q url.Values) [8]byte {
	q = maps.Clone(q)
	q.Del("cursor")
	sum := sha256.Sum256([]byte(path + "?" + q.Encode()))
	return [8]byte(sum[:8])
}

// cutPage replaces the whole list a handler wrote to cw with the page p
// asks for and its pagination, or, with WithoutPagination (p nil), with
// the first unpagedMax items. An answer other than a 200 list, or a page
// its handler served, is left as it is.
func (s *engine) cutPage(cw *heldWriter, op *listOperation, p *pageRequest) {
	if cmpOr(cw.status, http.StatusOK) != http.StatusOK || p != nil && p.served {
		return
	}
	var answer map[string]json.RawMessage
	var items []json.RawMessage
	if json.Unmarshal(cw.body.Bytes(), &answer) != nil || json.Unmarshal(answer[op.items], &items) != nil {
		return // not a list: the document's check reports it
	}
	if p == nil {
		answer[op.items] = joinItems(items[:min(len(items), unpagedMax)])
		writeAnswer(cw, answer)
		return
	}
	start := 0
	if p.cursor != nil {
		start = resumeAt(items, *p.cursor)
	}
	end := min(start+p.size, len(items))
	page := pagination{HasNextPage: end < len(items)}
	if page.HasNextPage {
		page.NextCursor = p.next(itemKey(items[end-1]), end)
	}
	answer[op.items] = joinItems(items[start:end])
	answer["pagination"], _ = json.Marshal(page)
	writeAnswer(cw, answer)
}

// resumeAt is where the page after c starts in items.
func resumeAt(items []json.RawMessage, c cursor) int {
	if i := c.offset - 1; i >= 0 && i < len(items) && itemKey(items[i]) == c.last {
		return c.offset
	}
	for i, it := range items {
		if itemKey(it) == c.last {
			return i + 1
		}
	}
	// The item is gone: the page starts at its old place, which holds the
	// item after it, whatever order the list keeps. (Inferring an order
	// from the keys left would take a list of random ids that happen to
	// be sorted for one ordered by id.)
	return min(max(c.offset-1, 0), len(items))
}

// itemKey names an item of a list: its id, or a digest of its JSON for
// an item without one.
func itemKey(item json.RawMessage) string {
	var v struct {
		ID *string `json:"id"`
	}
	if json.Unmarshal(item, &v) == nil && v.ID != nil {
		return *v.ID
	}
	sum := sha256.Sum256(item)
	return "#" + hex.EncodeToString(sum[:8])
}

// joinItems is the JSON array of items.
func joinItems(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// writeAnswer replaces cw's body with answer.
func writeAnswer(cw *heldWriter, answer map[string]json.RawMessage) {
	b, err := json.Marshal(answer)
	if err != nil {
		return
	}
	cw.body.Reset()
	cw.body.Write(b)
	cw.body.WriteByte('\n')
}

// macSize is the length of a cursor's seal.
const macSize = 16

// encodeCursor seals c with key: version 1, the operation, the digest,
// the last item's key and the offset, then the first macSize bytes of
// their HMAC-SHA256, in base64url without padding.
func encodeCursor(key []byte, c cursor) string {
	b := []byte{1}
	b = binary.AppendUvarint(b, uint64(len(c.op)))
	b = append(b, c.op...)
	b = append(b, c.digest[:]...)
	b = binary.AppendUvarint(b, uint64(len(c.last)))
	b = append(b, c.last...)
	b = binary.AppendUvarint(b, uint64(c.offset))
	m := hmac.New(sha256.New, key)
	m.Write(b)
	b = m.Sum(b)[:len(b)+macSize]
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadCursor = errors.New("malformed cursor")

// decodeCursor reads a cursor encodeCursor sealed with key; anything else
// is errBadCursor.
func decodeCursor(key []byte, s string) (cursor, error) {
	if len(s) > 4096 {
		return cursor{}, errBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 1+macSize {
		return cursor{}, errBadCursor
	}
	body, mac := b[:len(b)-macSize], b[len(b)-macSize:]
	m := hmac.New(sha256.New, key)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil)[:macSize], mac) || body[0] != 1 {
		return cursor{}, errBadCursor
	}
	body = body[1:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > uint64(len(body)-k) {
			return "", false
		}
		v := string(body[k : k+int(n)])
		body = body[k+int(n):]
		return v, true
	}
	var c cursor
	var ok bool
	if c.op, ok = str(); !ok || len(body) < len(c.digest) {
		return cursor{}, errBadCursor
	}
	body = body[copy(c.digest[:], body):]
	if c.last, ok = str(); !ok {
		return cursor{}, errBadCursor
	}
	off, k := binary.Uvarint(body)
	if k <= 0 || k != len(body) || off > 1<<31 {
		return cursor{}, errBadCursor
	}
	c.offset = int(off)
	return c, nil
}
