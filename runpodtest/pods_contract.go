package runpodtest

import (
	"bytes"
	"io"
	"net/http"
)

// documented checks a pods route against the REST v2 document: a request
// the document refuses is answered as the platform answers it (a
// problem+json naming the field) and never reaches h; a response h builds
// against the document becomes a 500 naming the rule it breaks.
//
// The pods routes wrap themselves with it so they are checked whatever the
// engine does; should the engine check every REST v2 route itself, this
// wrapper goes.
func documented(pattern string, h http.HandlerFunc) http.HandlerFunc {
	route := contractRoute(pattern)
	if route == nil {
		panic("runpodtest: " + pattern + " is not an operation of the REST v2 document")
	}
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if _, ok := checkRequest(w, r, route, body); !ok {
			return
		}
		cw := newContractWriter(w)
		h(cw, r)
		cw.finish(r, route, body)
	}
}
