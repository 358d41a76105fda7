// Package ops lists the operations of the repository's REST v2 document:
// a table derive generates from the document (ops.gen.go), so that
// runpodtest routes and pages the REST v2 API without carrying the
// document or an OpenAPI library.
package ops

import "strings"

// Op is one operation of the document.
type Op struct {
	// Method is the operation's HTTP method, such as "GET".
	Method string
	// Path is the document's path template, such as "/v2/pods/{id}".
	Path string
	// ID is the operation id, such as "listPods".
	ID string
	// Query lists the names of the operation's query parameters, sorted.
	Query []string
	// Cursor tells whether the operation takes a cursor parameter: a
	// paged list.
	Cursor bool
	// Items is, for a paged list, the property of its 200 answer that
	// holds the items.
	Items string
}

// Find returns the operation at method and route, a route template such
// as "/v2/pods/{podId}" whose parameters may be named otherwise than the
// document names them; ok is false when the document has no such
// operation.
func Find(method, route string) (Op, bool) {
	segs := strings.Split(route, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{}"
		}
	}
	op, ok := table[method+" "+strings.Join(segs, "/")]
	return op, ok
}
