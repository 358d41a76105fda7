package rest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Path is where a REST v2 call goes, not built yet: its route template,
// such as "/v2/pods/{podId}", the ids its parameters take, in order, its
// query, and an error found in the caller's arguments. Building it (URL,
// Request) checks the ids first, then returns that error, so the call
// fails before anything is sent; the route goes with the request, for
// middleware, attempt hooks and logs.
type Path struct {
	route string
	ids   []Param
	query string
	err   error
}

// Param is an id as the value of a route parameter, with its rule.
type Param struct {
	rule  ID
	value string
}

// At returns the Path of route, whose parameters ({podId}, {workerId})
// take ids in order.
func At(route string, ids ...Param) Path { return Path{route: route, ids: ids} }

// Query returns p with q, already encoded, as its query string.
func (p Path) Query(q string) Path {
	p.query = q
	return p
}

// Check returns p failing with err, when err is not nil and p has no
// error yet: the caller's arguments are not valid.
func (p Path) Check(err error) Path {
	if p.err == nil {
		p.err = err
	}
	return p
}

// URL checks p's ids, then its error, and returns the URL on t's REST
// host: each parameter of the route replaced by its id, escaped.
func (p Path) URL(t *transport.Transport) (*url.URL, error) {
	var b strings.Builder
	left := p.route
	for _, id := range p.ids {
		i := strings.IndexByte(left, '{')
		j := strings.IndexByte(left, '}')
		if i < 0 || j < i {
			return nil, fmt.Errorf("rest: route %q has fewer parameters than the %d ids given", p.route, len(p.ids))
		}
		if err := id.rule.Check(id.value); err != nil {
			return nil, err
		}
		b.WriteString(left[:i])
		b.WriteString(url.PathEscape(id.value))
		left = left[j+1:]
	}
	if strings.IndexByte(left, '{') >= 0 {
		return nil, fmt.Errorf("rest: route %q has more parameters than the %d ids given", p.route, len(p.ids))
	}
	if p.err != nil {
		return nil, p.err
	}
	b.WriteString(left)
	u := t.BaseURL(b.String())
	u.RawQuery = p.query
	return u, nil
}

// Body is a request body that checks itself before it is sent.
type Body interface {
	Validate() error
}

// Request returns the request of a call to p with method: p's URL and
// route, body (checked when it is a Body, after p) sent as JSON when it
// is not nil, and Idempotent for every method but POST (a GET, PUT,
// PATCH of fixed values or DELETE gives the same result twice; a POST
// creates or acts, and is never repeated after it may have reached the
// platform).
func (p Path) Request(t *transport.Transport, method string, body any) (*transport.Request, error) {
	u, err := p.URL(t)
	if err != nil {
		return nil, err
	}
	if b, ok := body.(Body); ok {
		if err := b.Validate(); err != nil {
			return nil, err
		}
	}
	return &transport.Request{Method: method, URL: u, Route: p.route, JSON: body, Idempotent: method != http.MethodPost}, nil
}

// ID is the rule for the ids of one route parameter, checked before an id
// goes into a path so that it names one resource and nothing else.
type ID struct {
	// Field names the id in the *errs.ValidationError, such as "podID".
	Field string
	// Extra lists the runes an id may hold besides ASCII letters and
	// digits (none: letters and digits only).
	Extra string
	// Loose takes any id that is one path segment: not blank, not "." or
	// "..", without a slash, a backslash or a control character; the
	// rest is escaped (a GPU type id has spaces). Extra is then unused.
	Loose bool
}

// Of returns id as the value of a parameter of this rule, for At.
func (r ID) Of(id string) Param { return Param{rule: r, value: id} }

// Check returns a *errs.ValidationError naming r.Field when id does not
// follow r.
func (r ID) Check(id string) error {
	if !r.Loose {
		return segmentID(r.Field, id, r.Extra)
	}
	switch {
	case strings.TrimSpace(id) == "":
		return fail.Invalid(r.Field, "is empty")
	case id == "." || id == "..":
		return fail.Invalid(r.Field, "must not be %q", id)
	case strings.ContainsAny(id, `/\`):
		return fail.Invalid(r.Field, "must not contain a slash, got %q", id)
	case strings.ContainsFunc(id, unicode.IsControl):
		return fail.Invalid(r.Field, "must not contain control characters, got %q", id)
	}
	return nil
}

// segmentID checks an id that names one path segment as it is: not
// empty, and only ASCII letters, digits and the runes of extra. field
// names it in the *errs.ValidationError.
func segmentID(field, id, extra string) error {
	if id == "" {
		return fail.Invalid(field, "is empty")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') && !strings.ContainsRune(extra, r) {
			if extra == "" {
				return fail.Invalid(field, "want letters and digits, got %q", id)
			}
			return fail.Invalid(field, "want letters, digits, %s, got %q", quoteRunes(extra), id)
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
