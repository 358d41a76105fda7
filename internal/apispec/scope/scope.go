// Package scope tells which API key scope a REST v2 operation requires,
// as the repository's REST v2 document names it (the extension
// x-runpod-scope on an operation, with its source beside it): a table
// derive generates from the document (scopes.gen.go), so that the SDK can
// name the missing scope in the error of a 403 without carrying the
// document itself.
package scope

import (
	"strings"
	"sync"
)

// Of returns the scope the operation at method and route requires, or ""
// when the document names none. route is a route template such as
// "/v2/pods/{podId}" (any parameter name) or a request path such as
// "/v2/pods/abc"; a path's query is not part of it. It is meant for the
// error path: it allocates.
func Of(method, route string) string {
	mu.RLock()
	defer mu.RUnlock()
	if len(table) == 0 {
		return ""
	}
	if i := strings.Index(route, "/v2/"); i > 0 {
		route = route[i:] // a base URL's path prefix
	}
	segs := strings.Split(route, "/")
	for key, scope := range table {
		m, tmpl, _ := strings.Cut(key, " ")
		if m == method && matches(strings.Split(tmpl, "/"), segs) {
			return scope
		}
	}
	return ""
}

// matches reports whether the segments of a path or route template fit
// those of a document template, whose parameters are written "{}".
func matches(tmpl, segs []string) bool {
	if len(tmpl) != len(segs) {
		return false
	}
	for i, t := range tmpl {
		param := strings.HasPrefix(segs[i], "{") && strings.HasSuffix(segs[i], "}")
		switch {
		case t == "{}" && segs[i] != "":
		case t == segs[i] && !param:
		default:
			return false
		}
	}
	return true
}

var mu sync.RWMutex

// Set replaces the table for a test and returns the function that puts the
// generated one back. Keys are "METHOD /v2/path/{}" (parameters written
// "{}"), values scopes such as "pods:write".
func Set(t map[string]string) (restore func()) {
	mu.Lock()
	old := table
	table = t
	mu.Unlock()
	return func() {
		mu.Lock()
		table = old
		mu.Unlock()
	}
}
