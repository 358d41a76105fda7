package runpodtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
)

// listAnswer is a list answer as it goes on the wire: its items under
// whatever name, and its pagination when it has one.
type listAnswer struct {
	items      []json.RawMessage
	ids        []string
	pagination *struct {
		NextCursor  *string `json:"nextCursor"`
		HasNextPage bool    `json:"hasNextPage"`
	}
	raw map[string]json.RawMessage
}

// getList asks the fake for path with query q (a cursor in it when
// cursor is not empty) and decodes the list under key.
func getList(t *testing.T, srv *runpodtest.Server, path, key string, q url.Values, cursor string) (int, listAnswer, string) {
	t.Helper()
	q2 := url.Values{}
	for k, v := range q {
		q2[k] = v
	}
	if cursor != "" {
		q2.Set("cursor", cursor)
	}
	u := srv.URL + path
	if len(q2) > 0 {
		u += "?" + q2.Encode()
	}
	resp, body := get(t, u, "Authorization", "Bearer "+srv.APIKey)
	var a listAnswer
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, a, body
	}
	require.NoError(t, json.Unmarshal([]byte(body), &a.raw), body)
	require.NoError(t, json.Unmarshal(a.raw[key], &a.items), body)
	for _, it := range a.items {
		var v struct{ ID string }
		require.NoError(t, json.Unmarshal(it, &v))
		a.ids = append(a.ids, v.ID)
	}
	if p, ok := a.raw["pagination"]; ok {
		require.NoError(t, json.Unmarshal(p, &a.pagination))
	}
	return resp.StatusCode, a, body
}

// walkPages follows a list's pages from the first, as the docs say, and
// returns the ids of each page.
func walkPages(t *testing.T, srv *runpodtest.Server, path, key string, q url.Values) [][]string {
	t.Helper()
	var pages [][]string
	cursor := ""
	for range 100 {
		status, a, body := getList(t, srv, path, key, q, cursor)
		require.Equal(t, http.StatusOK, status, body)
		require.NotNil(t, a.pagination, "every answer carries pagination: %s", body)
		pages = append(pages, a.ids)
		if !a.pagination.HasNextPage {
			require.Nil(t, a.pagination.NextCursor, "the last page names no cursor")
			return pages
		}
		require.NotNil(t, a.pagination.NextCursor)
		cursor = *a.pagination.NextCursor
	}
	t.Fatal("the pages do not end")
	return nil
}

// TestListPages: a list comes in pages of the smaller of limit (1000
// when not asked for) and WithPageSize, each carrying pagination; the
// cursor chain gives every item once, in order, whether the list's
// handler pages it (templates) or the engine cuts the page (registries,
// kept in the order they were made).
func TestListPages(t *testing.T) {
	srv := newServer(t, runpodtest.WithPageSize(2))
	var templates, regs []string
	for i := range 5 {
		templates = append(templates, srv.StoreTemplate(runpodtest.Template{ID: fmt.Sprintf("tpl-%d", i), Image: "img:1"}))
		regs = append(regs, srv.AddRegistry(fmt.Sprintf("reg-%d", i)))
	}
	for _, c := range []struct {
		path, key string
		want      []string
	}{
		{"/v2/templates", "templates", templates},
		{"/v2/registries", "registries", regs},
	} {
		pages := walkPages(t, srv, c.path, c.key, nil)
		require.Equal(t, [][]string{c.want[:2], c.want[2:4], c.want[4:]}, pages, c.path)
		pages = walkPages(t, srv, c.path, c.key, url.Values{"limit": {"1"}})
		require.Len(t, pages, 5, "limit below the server's page size wins")
	}

	big := newServer(t) // no WithPageSize: limit alone, 1000 by default
	for i := range 5 {
		big.AddRegistry(fmt.Sprintf("reg-%d", i))
	}
	require.Len(t, walkPages(t, big, "/v2/registries", "registries", nil), 1)
	pages := walkPages(t, big, "/v2/registries", "registries", url.Values{"limit": {"3"}})
	require.Equal(t, []int{3, 2}, []int{len(pages[0]), len(pages[1])})
}

// TestListLimit: limit is 1 to 1000, as the document says; out of range,
// or not a number, is the document's refusal (400 naming query.limit).
func TestListLimit(t *testing.T) {
	srv := newServer(t)
	for _, limit := range []string{"0", "1001", "-1", "ten"} {
		status, _, body := getList(t, srv, "/v2/pods", "pods", url.Values{"limit": {limit}}, "")
		require.Equal(t, http.StatusBadRequest, status, limit)
		require.Contains(t, body, "query.limit", limit)
	}
	for _, limit := range []string{"1", "1000"} {
		status, _, body := getList(t, srv, "/v2/pods", "pods", url.Values{"limit": {limit}}, "")
		require.Equal(t, http.StatusOK, status, body)
	}
}

// TestForeignCursor: a cursor is valid only for the operation and the
// parameters that issued it: another operation's, one issued for other
// parameters (limit included) or another server's, a malformed or an
// altered one, is refused with 422 and a problem detail.
func TestForeignCursor(t *testing.T) {
	srv := newServer(t, runpodtest.WithPageSize(1))
	other := newServer(t, runpodtest.WithPageSize(1))
	for i := range 3 {
		for _, s := range []*runpodtest.Server{srv, other} {
			s.StoreTemplate(runpodtest.Template{ID: fmt.Sprintf("tpl-%d", i), Image: "img:1"})
			s.AddRegistry(fmt.Sprintf("reg-%d", i))
			s.AddPod(runpodtest.Pod{ID: fmt.Sprintf("pod%d", i), Image: "img:1", CPU: "cpu3c"})
		}
	}
	first := func(s *runpodtest.Server, path, key string, q url.Values) string {
		_, a, body := getList(t, s, path, key, q, "")
		require.NotNil(t, a.pagination, body)
		require.NotNil(t, a.pagination.NextCursor, body)
		return *a.pagination.NextCursor
	}
	tpl := first(srv, "/v2/templates", "templates", nil)
	pods := first(srv, "/v2/pods", "pods", url.Values{"includeClusterPods": {"true"}})
	limited := first(srv, "/v2/registries", "registries", url.Values{"limit": {"1"}})
	foreign := first(other, "/v2/templates", "templates", nil)
	altered := []byte(tpl)
	altered[len(altered)/2] ^= 1
	for _, c := range []struct {
		name, path, key string
		q               url.Values
		cursor, why     string
	}{
		{"another operation", "/v2/registries", "registries", nil, tpl, "was issued by another operation (GET /v2/templates)"},
		{"other parameters", "/v2/pods", "pods", url.Values{"includeClusterPods": {"false"}}, pods, "was issued for other parameters"},
		{"another limit", "/v2/registries", "registries", url.Values{"limit": {"2"}}, limited, "was issued for other parameters"},
		{"another server", "/v2/templates", "templates", nil, foreign, "is malformed, or was not issued by this server"},
		{"malformed", "/v2/templates", "templates", nil, "not-a-cursor", "is malformed, or was not issued by this server"},
		{"altered", "/v2/templates", "templates", nil, string(altered), "is malformed, or was not issued by this server"},
	} {
		status, _, body := getList(t, srv, c.path, c.key, c.q, c.cursor)
		require.Equal(t, http.StatusUnprocessableEntity, status, "%s: %s", c.name, body)
		var problem struct {
			Status int
			Detail string
			Errors []string
		}
		require.NoError(t, json.Unmarshal([]byte(body), &problem), c.name)
		assert.Equal(t, 422, problem.Status, c.name)
		assert.Equal(t, "invalid cursor", problem.Detail, c.name)
		assert.Equal(t, []string{"query.cursor: " + c.why}, problem.Errors, c.name)
	}
	// The right cursor in the right place works.
	status, a, body := getList(t, srv, "/v2/templates", "templates", nil, tpl)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, []string{"tpl-1"}, a.ids)
}

// TestPageAfterDeletion: the page after a cursor starts after the item
// the page before ended with; when that item is gone, at the first item
// after it in a list ordered by id (templates), or at its old place in
// one kept in the order it was made (registries): no item is skipped or
// given twice.
func TestPageAfterDeletion(t *testing.T) {
	srv := newServer(t, runpodtest.WithPageSize(2))
	rp, err := srv.NewClient()
	require.NoError(t, err)
	var regs []string
	for i := range 5 {
		srv.StoreTemplate(runpodtest.Template{ID: fmt.Sprintf("tpl-%d", i), Image: "img:1"})
		regs = append(regs, srv.AddRegistry(fmt.Sprintf("reg-%d", i)))
	}
	_, a, _ := getList(t, srv, "/v2/templates", "templates", nil, "")
	require.Equal(t, []string{"tpl-0", "tpl-1"}, a.ids)
	require.NoError(t, rp.Templates.Delete(t.Context(), "tpl-1"))
	_, b, _ := getList(t, srv, "/v2/templates", "templates", nil, *a.pagination.NextCursor)
	require.Equal(t, []string{"tpl-2", "tpl-3"}, b.ids)

	_, a, _ = getList(t, srv, "/v2/registries", "registries", nil, "")
	require.Equal(t, regs[:2], a.ids)
	require.NoError(t, rp.Registries.Delete(t.Context(), regs[1]))
	_, b, _ = getList(t, srv, "/v2/registries", "registries", nil, *a.pagination.NextCursor)
	require.Equal(t, regs[2:4], b.ids)
	require.NoError(t, rp.Registries.Delete(t.Context(), regs[0])) // before the cursor's place
	_, c, _ := getList(t, srv, "/v2/registries", "registries", nil, *b.pagination.NextCursor)
	require.Equal(t, regs[4:], c.ids)
}

// TestWithoutPagination: the lists of August: cursor and limit are
// ignored, whatever they hold, no answer carries pagination, and a list
// is cut at its first 1000 items without an error.
func TestWithoutPagination(t *testing.T) {
	srv := newServer(t, runpodtest.WithoutPagination(), runpodtest.WithPageSize(2))
	for i := range 1200 {
		srv.AddRegistry(fmt.Sprintf("reg-%04d", i))
	}
	for _, q := range []url.Values{nil, {"limit": {"5"}, "cursor": {"not-a-cursor"}}, {"limit": {"0"}}} {
		status, a, body := getList(t, srv, "/v2/registries", "registries", q, "")
		require.Equal(t, http.StatusOK, status, body)
		require.Nil(t, a.pagination)
		require.NotContains(t, body, "pagination")
		require.Len(t, a.ids, 1000, q)
		require.Equal(t, "reg-0000", srv.Registries()[0].Name)
	}
	rp, err := srv.NewClient()
	require.NoError(t, err)
	list, err := rp.Registries.List(t.Context())
	require.NoError(t, err)
	require.Len(t, list, 1000, "an answer without pagination is taken as the whole list, as the platform's was")
	require.True(t, strings.HasPrefix(list[999].Name, "reg-0999"))
}
