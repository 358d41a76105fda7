// Package contract holds a runpodtest server to the platform's REST v2
// document (the facts-only copy the module keeps), as the platform holds
// its callers to it:
//
//	srv := runpodtest.NewServer(contract.Check())
//	defer srv.Close()
//	rp, err := srv.NewClient()
//
// With Check, a REST v2 request the document does not allow (an unknown
// property, a value of the wrong type, out of range or not in its enum, a
// missing required field or parameter) is answered as the platform
// answers it, with a 400 or 422 application/problem+json naming each
// field ("errors": "$.cpu.memory: property not allowed"), before the
// route's handler runs, and is logged as a request the server did not act
// on. A response the fake builds against the document is replaced by a 500
// naming the rule it broke, so the fake's own mistakes fail the tests
// that meet them. Streams (text/event-stream) pass through unchecked.
//
// Without Check, a runpodtest server checks nothing against the document
// (its routes still page and keep the platform's other rules): the
// handler gets what was sent. A test of code that builds REST v2 requests
// itself, or that relies on the platform refusing a malformed one, attaches
// Check; it costs the test binary an OpenAPI validator (kin-openapi),
// which a test that only runs jobs need not link.
package contract

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/runpodkit/runpod-go/internal/apispec"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
)

// Check returns the runpodtest option that checks the server's REST v2
// requests and responses against the REST v2 document (see the package's
// doc).
func Check() runpodtest.Option {
	return func(srv *runpodtest.Server) {
		c := seam.Of(srv)
		if c == nil {
			panic("contract: the server was not made by runpodtest.NewServer")
		}
		c.Contract.Request = func(r *http.Request, pattern string, body []byte) (int, []string) {
			route := contractRoute(pattern)
			if route == nil {
				return 0, nil
			}
			return checkRequest(r, route, body)
		}
		c.Contract.Response = func(r *http.Request, pattern string, reqBody []byte, status int, header http.Header, body []byte) []string {
			route := contractRoute(pattern)
			if route == nil {
				return nil
			}
			return checkResponse(r, route, reqBody, status, header, body)
		}
	}
}

var (
	restDocOnce sync.Once
	restDoc     *openapi3.T
	restDocErr  error
)

// restDocument loads the REST v2 document once per process.
func restDocument() (*openapi3.T, error) {
	restDocOnce.Do(func() {
		loader := openapi3.NewLoader()
		restDoc, restDocErr = loader.LoadFromData(apispec.RESTv2)
		if restDocErr == nil {
			restDoc.Servers = nil // routes are matched by path, on any host
			anyValueForEmptySchemas(restDoc)
		}
	})
	return restDoc, restDocErr
}

// anyValueForEmptySchemas gives the document's empty schemas ({}) the list
// of every JSON type, null included, which allows the same values. In
// OpenAPI 3.1 an empty schema allows every value, null too (a release
// diff's "old" is null when the setting was added), but the validator's
// fallback for schemas its JSON Schema compiler does not take lets null
// through only where a schema's types include it.
func anyValueForEmptySchemas(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.IsEmpty() {
			s.Type = &openapi3.Types{openapi3.TypeNull, openapi3.TypeBoolean, openapi3.TypeObject, openapi3.TypeArray,
				openapi3.TypeNumber, openapi3.TypeString, openapi3.TypeInteger}
			return
		}
		for _, p := range s.Properties {
			walk(p)
		}
		for _, refs := range [][]*openapi3.SchemaRef{s.AllOf, s.AnyOf, s.OneOf} {
			for _, r := range refs {
				walk(r)
			}
		}
		walk(s.Items)
		walk(s.Not)
		walk(s.AdditionalProperties.Schema)
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			walk(mt.Schema)
		}
	}
	if doc.Components != nil {
		for _, s := range doc.Components.Schemas {
			walk(s)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				content(op.RequestBody.Value.Content)
			}
			for _, resp := range op.Responses.Map() {
				if resp.Value != nil {
					content(resp.Value.Content)
				}
			}
		}
	}
}

// routeCache holds contractRoute's answers, by pattern.
var routeCache sync.Map // string → *routers.Route

// contractRoute is a route of the fake matched to an operation of the
// document, or nil when the document does not describe the route (GraphQL,
// the inference host).
func contractRoute(pattern string) *routers.Route {
	if v, ok := routeCache.Load(pattern); ok {
		return v.(*routers.Route)
	}
	route := findRoute(pattern)
	routeCache.Store(pattern, route)
	return route
}

// findRoute matches pattern to an operation of the document.
func findRoute(pattern string) *routers.Route {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return nil
	}
	doc, err := restDocument()
	if err != nil {
		panic("contract: the REST v2 document does not load: " + err.Error())
	}
	item := doc.Paths.Find(path)
	if item == nil {
		return nil
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil
	}
	return &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
}

// pathParams reads the route's path parameters from r.
func pathParams(route *routers.Route, r *http.Request) map[string]string {
	params := map[string]string{}
	for _, seg := range strings.Split(route.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			name := seg[1 : len(seg)-1]
			params[name] = r.PathValue(name)
		}
	}
	return params
}

var validationOptions = &openapi3filter.Options{
	AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, // the engine checks keys
	MultiError:         true,
}

// checkRequest validates r (whose body has been read into body) against
// route. It returns 0 when the document allows r, else the status of the
// refusal the platform would send and the failing fields.
func checkRequest(r *http.Request, route *routers.Route, body []byte) (int, []string) {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	err := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: pathParams(route, r), Route: route, Options: validationOptions,
	})
	if err == nil {
		return 0, nil
	}
	problems, inBody := describe(err)
	status := http.StatusBadRequest
	if inBody && route.Operation.Responses.Status(http.StatusUnprocessableEntity) != nil {
		status = http.StatusUnprocessableEntity
	}
	return status, problems
}

// describe turns a validation error into the platform's "errors" list:
// one "<where>: <what>" line per failing field, and reports whether any
// failure was in the body.
func describe(err error) (problems []string, inBody bool) {
	var reqErrs []*openapi3filter.RequestError
	walkErrors(err, func(e error) bool {
		if re, ok := e.(*openapi3filter.RequestError); ok {
			reqErrs = append(reqErrs, re)
			return false
		}
		return true
	})
	if len(reqErrs) == 0 {
		return []string{err.Error()}, false
	}
	for _, re := range reqErrs {
		where := "$"
		switch {
		case re.Parameter != nil:
			where = re.Parameter.In + "." + re.Parameter.Name
		case re.RequestBody != nil:
			inBody = true
		}
		leaves := schemaLeaves(re.Err)
		if len(leaves) == 0 {
			reason := re.Reason
			if reason == "" && re.Err != nil {
				reason = lastLine(re.Err.Error())
			}
			problems = append(problems, where+": "+reason)
			continue
		}
		for _, l := range leaves {
			problems = append(problems, joinPointer(where, l.pointer)+": "+l.reason)
		}
	}
	return slices.Compact(problems), inBody
}

type leaf struct {
	pointer []string
	reason  string
	depth   int
}

// schemaLeaves returns the innermost schema failures of err. A property
// that unevaluatedProperties refuses shows as "false schema"; when an
// allOf branch fails, every property becomes unevaluated, so those
// follow-on failures are dropped in favour of the real ones, or, when all
// are of that kind, only the deepest are kept.
func schemaLeaves(err error) []leaf {
	var leaves []leaf
	var walk func(e error, depth int)
	walk = func(e error, depth int) {
		if e == nil {
			return
		}
		if me, ok := e.(openapi3.MultiError); ok {
			for _, x := range me {
				walk(x, depth+1)
			}
			return
		}
		if se, ok := e.(*openapi3.SchemaError); ok {
			inner := 0
			walkErrors(se.Origin, func(x error) bool {
				if _, ok := x.(*openapi3.SchemaError); ok {
					inner++
				}
				return true
			})
			if inner == 0 {
				leaves = append(leaves, leaf{pointer: se.JSONPointer(), reason: lastLine(se.Reason), depth: depth})
				return
			}
			walk(se.Origin, depth+1)
			return
		}
		if u, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range u.Unwrap() {
				walk(x, depth+1)
			}
			return
		}
		walk(errors.Unwrap(e), depth+1)
	}
	walk(err, 0)
	real := slices.DeleteFunc(slices.Clone(leaves), func(l leaf) bool { return strings.HasSuffix(l.reason, "false schema") })
	if len(real) > 0 {
		return real
	}
	deepest := 0
	for _, l := range leaves {
		deepest = max(deepest, l.depth)
	}
	var out []leaf
	for _, l := range leaves {
		if l.depth == deepest {
			l.reason = "property not allowed"
			out = append(out, l)
		}
	}
	return out
}

// walkErrors calls f on err and, while f returns true, on what it wraps.
func walkErrors(err error, f func(error) bool) {
	if err == nil || !f(err) {
		return
	}
	switch e := err.(type) {
	case openapi3.MultiError:
		for _, x := range e {
			walkErrors(x, f)
		}
	case *openapi3.SchemaError:
		walkErrors(e.Origin, f)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			walkErrors(x, f)
		}
	default:
		walkErrors(errors.Unwrap(err), f)
	}
}

// lastLine returns the last line of a multi-line reason, without the
// "at '/x':" position prefix the schema engine adds (the pointer says it).
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(strings.TrimSpace(s), "- ")
	if strings.HasPrefix(s, "error at ") {
		if _, rest, ok := strings.Cut(s, ": "); ok {
			s = rest
		}
	}
	if strings.HasPrefix(s, "at '") {
		if _, rest, ok := strings.Cut(s, "': "); ok {
			s = rest
		}
	}
	return s
}

func joinPointer(where string, ptr []string) string {
	if len(ptr) == 0 {
		return where
	}
	return where + "." + strings.Join(ptr, ".")
}

// checkResponse validates the answer (status, header, body) the fake
// built to r against route, and returns the rules it breaks.
func checkResponse(r *http.Request, route *routers.Route, reqBody []byte, status int, header http.Header, body []byte) []string {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams(route, r), Route: route, Options: validationOptions},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	})
	if err == nil {
		return nil
	}
	var problems []string
	for _, l := range schemaLeaves(err) {
		problems = append(problems, joinPointer("$", l.pointer)+": "+l.reason)
	}
	if len(problems) == 0 {
		problems = []string{lastLine(err.Error())}
	}
	return problems
}
