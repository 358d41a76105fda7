package runpodtest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/internal/apispec/ops"
	"github.com/runpodkit/runpod-go/internal/apispec/scope"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
)

// engine is the part of the fake every route shares, as the platform's
// gateway is: API keys and their permissions, per-key rate-limit windows,
// injected faults and latency, the request log and the clock. It has its
// own lock, taken only for its own state, so a surface's handler never
// waits on another surface.
type engine struct {
	now          func() time.Time
	quota        Quota
	apiMux       *http.ServeMux
	inferenceMux *http.ServeMux
	requestID    atomic.Int64
	conns        atomic.Int64

	mu      sync.Mutex
	keys    map[string]*key
	faults  map[string][]Fault
	latency map[string]time.Duration
	log     []Request

	inferenceLimits InferenceLimits
	buckets         map[bucketKey]*bucket // per endpoint and operation, under mu

	tlsID   *tlsIdentity // WithTLS: the hosts' certificate
	network *memNetwork  // WithMemoryNetwork: the hosts' listeners
	pages   pageRules    // how list answers are paged (pages.go)

	// contract is the REST v2 document's checks (contract.Check sets
	// them in the server's seam.Core); their functions are nil without.
	contract *seam.Contract
}

func newEngine() engine {
	return engine{
		now:          time.Now,
		quota:        DefaultQuota(),
		apiMux:       http.NewServeMux(),
		inferenceMux: http.NewServeMux(),
		keys:         map[string]*key{},
		faults:       map[string][]Fault{},
		latency:      map[string]time.Duration{},

		inferenceLimits: DefaultInferenceLimits(),
		buckets:         map[bucketKey]*bucket{},
		pages:           newPageRules(),
	}
}

type key struct {
	perms   map[Permission]bool
	quota   Quota
	revoked bool
	windows [3]window
}

type window struct {
	name  string
	start time.Time
	count int
}

// start serves h on a loopback listener (an in-memory one with
// WithMemoryNetwork), over TLS with WithTLS, counting new connections.
func (s *engine) start(h http.Handler) *httptest.Server {
	var ts *httptest.Server
	if s.network != nil {
		ts = &httptest.Server{Listener: s.network.listen(), Config: &http.Server{Handler: h}}
	} else {
		ts = httptest.NewUnstartedServer(h)
	}
	ts.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	if s.tlsID != nil {
		ts.TLS, ts.EnableHTTP2 = s.tlsID.serverConfig(), true
		ts.StartTLS()
		return ts
	}
	ts.Start()
	return ts
}

// Connections returns how many TCP connections clients have opened to the
// fake: with Count, it shows whether a client reuses its connections.
func (s *engine) Connections() int64 { return s.conns.Load() }

// NewKey mints an API key with the given permissions.
func (s *engine) NewKey(perms ...Permission) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	k := fmt.Sprintf("rpa_%X", b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[k] = &key{perms: permSet(perms), quota: s.quota}
	return k
}

// RevokeKey makes k unknown to the server, as an expired or deleted key is.
func (s *engine) RevokeKey(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kk := s.keys[k]; kk != nil {
		kk.revoked = true
	}
}

// SetQuota changes the quota of key k and restarts its windows.
func (s *engine) SetQuota(k string, q Quota) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kk := s.keys[k]; kk != nil {
		kk.quota = q
		kk.windows = [3]window{}
	}
}

func permSet(perms []Permission) map[Permission]bool {
	m := make(map[Permission]bool, len(perms))
	for _, p := range perms {
		m[p] = true
	}
	return m
}

// Now returns the server clock's time.
func (s *engine) Now() time.Time { return s.now() }

// FailNext makes the next n requests that match route fail with f. route is
// a Route.Pattern, or "*" for every route.
func (s *engine) FailNext(route string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[route] = append(s.faults[route], f)
	}
}

// SetLatency delays every response of route (or "*") by d; zero removes it.
func (s *engine) SetLatency(route string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d <= 0 {
		delete(s.latency, route)
		return
	}
	s.latency[route] = d
}

// Handle adds a route. The handler runs only for requests that pass
// authentication, the rate limit, the permission check and any injected
// fault; it can read the caller's permissions with HasPermission.
func (s *engine) Handle(rt Route, h http.Handler) {
	mux := s.apiMux
	if rt.Inference {
		mux = s.inferenceMux
	}
	mux.Handle(rt.Pattern, s.wrap(rt, h))
}

// routes returns a function that adds routes requiring permission p: the
// read and write helpers of each surface's register function.
func (s *engine) routes(p Permission) func(pattern string, h http.HandlerFunc) {
	return func(pattern string, h http.HandlerFunc) { s.Handle(Route{Pattern: pattern, Permission: p}, h) }
}

type ctxKey struct{}

// HasPermission reports whether the key that made r holds p.
func HasPermission(r *http.Request, p Permission) bool {
	k, _ := r.Context().Value(ctxKey{}).(map[Permission]bool)
	return k[p]
}

// wrap wraps a route's handler with the platform's behaviour. A route of
// the REST v2 document has its lists paged (pages.go) and, with
// contract.Check, is also held to the document: a request the document
// refuses is answered as the platform answers it (a problem+json naming
// the field) and never reaches the handler; a response the handler builds
// against the document becomes a 500 naming the rule it breaks.
func (s *engine) wrap(rt Route, h http.Handler) http.Handler {
	var docOp *ops.Op
	if method, path, ok := strings.Cut(rt.Pattern, " "); ok && !rt.Inference {
		if o, ok := ops.Find(method, path); ok {
			docOp = &o
		}
	}
	list := listOperationOf(docOp, rt.Pattern)
	op, hasLimit := inferenceOps[rt.Pattern]
	hasLimit = hasLimit && rt.Inference
	fail := Problem
	if isOpenAIPath(rt.Pattern) {
		fail = openAIProblem
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(http.MaxBytesReader(w, r.Body, 32<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		entry := s.record(rt.Pattern, r, body)
		w.Header().Set("X-Request-Id", "req-"+strconv.FormatInt(s.requestID.Add(1), 10))
		// Date is the server's clock (WithClock), as an origin server's
		// Date is its own clock (RFC 9110, section 6.6.1).
		w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat))

		perms, authErr := s.authenticate(rt, r, entry)
		if rt.Public {
			perms, authErr = map[Permission]bool{}, ""
		}
		if authErr != "" {
			s.finish(entry, fail(w, http.StatusUnauthorized, authErr))
			return
		}
		if !rt.Inference && !rt.Public {
			if wait, limited := s.rateLimit(r, w.Header()); limited {
				w.Header().Set("Retry-After", strconv.Itoa(wait))
				s.finish(entry, Problem(w, http.StatusTooManyRequests, "rate limit exceeded for the "+s.exhaustedWindow(r)+" window"))
				return
			}
		}
		if hasLimit {
			release, wait, detail := s.inferenceLimit(op, r.PathValue("endpoint"))
			if release == nil {
				w.Header().Set("Retry-After", strconv.Itoa(wait))
				s.finish(entry, fail(w, http.StatusTooManyRequests, detail))
				return
			}
			defer release()
		}
		if need := requiredPermission(rt); need != "" && !perms[need] {
			s.finish(entry, fail(w, http.StatusForbidden, "access denied"))
			return
		}
		if d := s.latencyFor(rt.Pattern); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				s.finish(entry, 0)
				return
			}
		}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, perms))
		if f, ok := s.nextFault(rt.Pattern); ok {
			switch f.Drop {
			case DropBefore:
				hangUp(w)
				s.finish(entry, 0)
				return
			case DropAfter:
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				s.markActed(entry)
				hangUp(w)
				s.finish(entry, 0)
				return
			}
			maps.Copy(w.Header(), f.Header)
			status := cmpOr(f.Status, http.StatusServiceUnavailable)
			if f.Body == "" {
				s.finish(entry, fail(w, status, "injected fault"))
			} else {
				w.WriteHeader(status)
				_, _ = io.WriteString(w, f.Body)
				s.finish(entry, status)
			}
			return
		}
		if docOp != nil {
			if list != nil && s.pages.off {
				dropPageParams(r)
			}
			if check := s.contract.Request; check != nil {
				if status, problems := check(r, rt.Pattern, body); status != 0 {
					s.finish(entry, Problem(w, status, "Request validation failed.", problems...))
					return
				}
			}
			var page *pageRequest
			if list != nil && !s.pages.off {
				var ok bool
				if page, ok = s.pageRequest(w, r, list); !ok {
					s.finish(entry, http.StatusUnprocessableEntity)
					return
				}
				r = r.WithContext(context.WithValue(r.Context(), pageKey{}, page))
			}
			cw := newHeldWriter(w)
			s.markActed(entry)
			h.ServeHTTP(cw, r)
			if list != nil {
				s.cutPage(cw, list, page)
			}
			var check func(int, http.Header, []byte) []string
			if f := s.contract.Response; f != nil {
				check = func(status int, header http.Header, b []byte) []string {
					return f(r, rt.Pattern, body, status, header, b)
				}
			}
			s.finish(entry, cw.finish(*docOp, check))
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		s.markActed(entry)
		h.ServeHTTP(sw, r)
		s.finish(entry, cmpOr(sw.status, http.StatusOK))
	})
}

// requiredPermission is what a key needs to call rt: the API key scope the
// REST v2 document names for the operation (x-runpod-scope), when it names
// one, else the route's own Permission. The fake's permissions are named
// as the document names scopes ("tags:read"; docs.runpod.io
// /api-reference-v2/tags/get-a-tag, 2026-11-18), resource then read or
// write.
func requiredPermission(rt Route) Permission {
	if method, path, ok := strings.Cut(rt.Pattern, " "); ok && !rt.Inference && !rt.Public {
		if s := scope.Of(method, path); s != "" {
			return Permission(s)
		}
	}
	return rt.Permission
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// notFound answers a request no route took: 405 with Allow when the path
// is a route's under another method, as the platform answers, else 404.
func (s *engine) notFound(mux *http.ServeMux) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.unrouted(mux, w, r)
	}
}

func (s *engine) unrouted(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	entry := s.record("", r, body)
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	fail := Problem
	if mux == s.inferenceMux && isOpenAIPath(r.URL.Path) {
		fail = openAIProblem
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.finish(entry, fail(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path))
		return
	}
	s.finish(entry, fail(w, http.StatusNotFound, "resource not found"))
}

// authenticate returns the key's permissions, or the detail of a 401.
func (s *engine) authenticate(rt Route, r *http.Request, entry int) (map[Permission]bool, string) {
	token, how := "", ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, ok := strings.Cut(h, " ")
		switch {
		case rt.RawKey && !ok:
			token, how = strings.TrimSpace(h), "raw"
		case !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(rest) == "":
			return nil, "malformed bearer token"
		default:
			token, how = strings.TrimSpace(rest), "bearer"
		}
	} else if rt.QueryKey && r.URL.Query().Has("api_key") {
		token, how = r.URL.Query().Get("api_key"), "api_key"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log[entry].Auth = how
	if token == "" {
		if rt.QueryKey {
			return nil, "missing api key"
		}
		return nil, "missing bearer token"
	}
	k := s.keys[token]
	if k == nil || k.revoked {
		return nil, "invalid or expired api key"
	}
	return k.perms, ""
}

var windowLengths = [3]struct {
	name   string
	length time.Duration
}{{"minute", time.Minute}, {"hour", time.Hour}, {"day", 24 * time.Hour}}

func (q Quota) of(i int) int { return [3]int{q.Minute, q.Hour, q.Day}[i] }

// rateLimit counts the request against its key's windows and sets the
// RateLimit headers; it reports the Retry-After seconds when a window is
// exhausted (the request is then not counted).
func (s *engine) rateLimit(r *http.Request, h http.Header) (int, bool) {
	token := bearerOrQueryKey(r)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.keys[token]
	if k == nil {
		return 0, false
	}
	limited, wait := false, 0
	for i, wl := range windowLengths {
		w := &k.windows[i]
		start := now.Truncate(wl.length)
		if !w.start.Equal(start) {
			*w = window{name: wl.name, start: start}
		}
		if w.count >= k.quota.of(i) {
			limited = true
			wait = max(wait, resetSeconds(w.start, wl.length, now))
		}
	}
	var rl, pol []string
	for i, wl := range windowLengths {
		w := &k.windows[i]
		if !limited {
			w.count++
		}
		rl = append(rl, fmt.Sprintf("%q;r=%d;t=%d", wl.name, max(k.quota.of(i)-w.count, 0), resetSeconds(w.start, wl.length, now)))
		pol = append(pol, fmt.Sprintf("%q;q=%d;w=%d", wl.name, k.quota.of(i), int(wl.length/time.Second)))
	}
	h.Set("RateLimit", strings.Join(rl, ", "))
	h.Set("RateLimit-Policy", strings.Join(pol, ", "))
	return wait, limited
}

func (s *engine) exhaustedWindow(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.keys[bearerOrQueryKey(r)]; k != nil {
		for i, w := range k.windows {
			if w.count >= k.quota.of(i) {
				return w.name
			}
		}
	}
	return "minute"
}

func resetSeconds(start time.Time, length time.Duration, now time.Time) int {
	d := start.Add(length).Sub(now)
	return max(int((d+time.Second-1)/time.Second), 1)
}

func bearerOrQueryKey(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if _, rest, ok := strings.Cut(h, " "); ok {
		return strings.TrimSpace(rest)
	}
	if h != "" {
		return strings.TrimSpace(h)
	}
	return r.URL.Query().Get("api_key")
}

func (s *engine) latencyFor(route string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.latency[route], s.latency["*"])
}

func (s *engine) nextFault(route string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range []string{route, "*"} {
		if q := s.faults[k]; len(q) > 0 {
			s.faults[k] = q[1:]
			return q[0], true
		}
	}
	return Fault{}, false
}

// InferenceLimit is the limit of one operation of the job API, per
// endpoint: Rate requests per Per (a window on the server's clock), and
// Concurrent requests at once. A zero Rate or Concurrent sets no limit of
// that kind. A request over either is answered 429 with Retry-After (the
// seconds until the window ends, or 1 for the concurrency limit) and does
// not reach the route.
type InferenceLimit struct {
	// Rate is how many requests a window admits.
	Rate int
	// Per is the window's length; zero means 10 s, as documented.
	Per time.Duration
	// Concurrent is how many requests may be in progress at once (a
	// /runsync held open counts until it answers).
	Concurrent int
}

// InferenceLimits are the per-endpoint limits of the inference host's
// operations. The platform's are the higher of these base values and the
// endpoint's running workers times a per-worker rate, so a busy endpoint
// may allow more; the fake keeps to the base. Status covers /status, and
// a status-sync request, which the platform counts as status, counts
// against its Rate and against its Concurrent until it is answered;
// Stream covers /stream, and OpenAI the POST routes of /openai/v1;
// /retry, /health, the workers' routes and load balancers are not
// limited, as the documents list no limit for them.
type InferenceLimits struct {
	// RunSync limits POST /runsync.
	RunSync InferenceLimit
	// Run limits POST /run.
	Run InferenceLimit
	// Status limits /status.
	Status InferenceLimit
	// Stream limits /stream.
	Stream InferenceLimit
	// Cancel limits POST /cancel.
	Cancel InferenceLimit
	// PurgeQueue limits POST /purge-queue.
	PurgeQueue InferenceLimit
	// OpenAI limits POST /openai/v1/chat/completions and
	// /openai/v1/completions, together.
	OpenAI InferenceLimit
}

// DefaultInferenceLimits are the platform's documented base limits per
// endpoint (docs serverless/endpoints/send-requests.mdx): /runsync 2,000
// per 10 s and 400 at once, /run 1,000 and 200, /status and /stream 2,000
// and 400, /cancel 100 and 20, /purge-queue 2 per 10 s, /openai/* 2,000
// and 400.
func DefaultInferenceLimits() InferenceLimits {
	return InferenceLimits{
		RunSync:    InferenceLimit{Rate: 2000, Per: 10 * time.Second, Concurrent: 400},
		Run:        InferenceLimit{Rate: 1000, Per: 10 * time.Second, Concurrent: 200},
		Status:     InferenceLimit{Rate: 2000, Per: 10 * time.Second, Concurrent: 400},
		Stream:     InferenceLimit{Rate: 2000, Per: 10 * time.Second, Concurrent: 400},
		Cancel:     InferenceLimit{Rate: 100, Per: 10 * time.Second, Concurrent: 20},
		PurgeQueue: InferenceLimit{Rate: 2, Per: 10 * time.Second},
		OpenAI:     InferenceLimit{Rate: 2000, Per: 10 * time.Second, Concurrent: 400},
	}
}

// inferenceOp is a limited operation of the inference host.
type inferenceOp struct {
	name  string
	limit func(*InferenceLimits) InferenceLimit
}

// inferenceOps maps the limited routes to their operation.
var inferenceOps = map[string]inferenceOp{
	RouteRunSync:         {"/runsync", func(l *InferenceLimits) InferenceLimit { return l.RunSync }},
	RouteRun:             {"/run", func(l *InferenceLimits) InferenceLimit { return l.Run }},
	RouteStatus:          {"/status", func(l *InferenceLimits) InferenceLimit { return l.Status }},
	RouteStatusSync:      statusSyncOp,
	RouteStream:          {"/stream", func(l *InferenceLimits) InferenceLimit { return l.Stream }},
	RouteCancel:          {"/cancel", func(l *InferenceLimits) InferenceLimit { return l.Cancel }},
	RoutePurgeQueue:      {"/purge-queue", func(l *InferenceLimits) InferenceLimit { return l.PurgeQueue }},
	RouteChatCompletions: {"/openai", func(l *InferenceLimits) InferenceLimit { return l.OpenAI }},
	RouteCompletions:     {"/openai", func(l *InferenceLimits) InferenceLimit { return l.OpenAI }},
}

type bucketKey struct{ endpoint, op string }

// bucket counts one endpoint's requests of one operation.
type bucket struct {
	start    time.Time // of the current window
	count    int       // requests admitted in it
	inFlight int
}

// inferenceLimit admits a request of op on endpoint, returning the
// function that ends it; or refuses it, returning nil, the Retry-After
// seconds and the 429's detail.
func (s *engine) inferenceLimit(op inferenceOp, endpoint string) (release func(), wait int, detail string) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	l := op.limit(&s.inferenceLimits)
	if l.Rate <= 0 && l.Concurrent <= 0 {
		return func() {}, 0, ""
	}
	per := cmp.Or(l.Per, 10*time.Second)
	k := bucketKey{endpoint, op.name}
	b := s.buckets[k]
	if b == nil {
		b = &bucket{}
		s.buckets[k] = b
	}
	if start := now.Truncate(per); !b.start.Equal(start) {
		b.start, b.count = start, 0
	}
	if l.Rate > 0 && b.count >= l.Rate {
		return nil, resetSeconds(b.start, per, now), fmt.Sprintf("rate limit exceeded: %d %s requests per %s for endpoint %s", l.Rate, op.name, per, endpoint)
	}
	if l.Concurrent > 0 && b.inFlight >= l.Concurrent {
		return nil, 1, fmt.Sprintf("rate limit exceeded: %d concurrent %s requests for endpoint %s", l.Concurrent, op.name, endpoint)
	}
	if l.Rate > 0 {
		b.count++
	}
	b.inFlight++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			b.inFlight--
		})
	}, 0, ""
}

// isOpenAIPath reports whether a path or pattern is under an endpoint's
// OpenAI-compatible route, whose errors take OpenAI's shape.
func isOpenAIPath(p string) bool {
	_, rest, _ := strings.Cut(p, "/v2/")
	_, rest, ok := strings.Cut(rest, "/")
	return ok && (rest == "openai/v1" || strings.HasPrefix(rest, "openai/v1/"))
}
