// Package runpodtest is an in-process fake of the RunPod platform, in the
// spirit of net/http/httptest: it serves the platform's routes on loopback
// with the platform's semantics, so code using the SDK can be tested, and
// examples run, with no network and no real key.
//
// The engine every route shares is faithful to the platform's contract:
//
//   - API keys with permissions: a missing, malformed or unknown bearer
//     token (or api_key query parameter, on GraphQL) gets a 401
//     application/problem+json; a key lacking the route's permission a 403.
//   - Per-key rate limits over minute, hour and day windows, with
//     RateLimit and RateLimit-Policy headers on every response and
//     Retry-After on 429.
//   - Fault injection: fail the next N requests of a route with a status,
//     headers and body; add latency; drop the connection before or after
//     the route's handler acted.
//   - A request log, so tests can count requests per route and prove that
//     nothing was created twice.
//
// Use it with the SDK:
//
//	srv := runpodtest.NewServer()
//	defer srv.Close()
//	rp, err := srv.NewClient()
//
// # What it serves
//
// The whole public surface, by area:
//
//   - Engine: NewServer (WithClock, WithQuota, …), NewClient,
//     ClientOptions, Client, Close, NewKey, RevokeKey, SetQuota, FailNext,
//     SetLatency, Requests, Count, Acted, Connections, Now; Handle, Problem,
//     WriteJSON and HasPermission for routes of your own. Every route the
//     REST v2 document describes is checked against it on the way in and
//     out.
//   - Billing: AddServerlessUsage, AddPodUsage, AddNetworkVolumeUsage,
//     AddClusterUsage, AddPublicEndpointUsage; the six reports are computed
//     from that ledger.
//   - Serverless endpoints (GraphQL): AddEndpoint, AddTemplate, Endpoints,
//     Mutations, SetDiscount, WithWorkerDrain.
//   - Jobs: HandleQueue (your worker.Handler behind a queue endpoint),
//     HandleWorkerQueue and WorkerEnv (your worker's production loop against
//     the fake), JobResults, Pings, WebhookDeliveries,
//     WithWebhookRetryDelay, WithWorkerLongPoll.
//   - Load-balancing endpoints: HandleLoadBalancer.
//   - Video models: ModelWan25 and ModelWan22LoRA, WithVideoDelay.
//   - Pods: AddPod, Pods, SetPodStatus, AppendPodLog, WithPodBoot.
//   - OpenAI-compatible routes: HandleOpenAI.
//   - Account: SetSSHKeys.
package runpodtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/routers"

	"github.com/runpodkit/runpod-go"
)

// Permission is what an API key may do; each route requires one.
type Permission string

// Permissions the fake's routes require.
const (
	// AccountRead reads account settings (SSH keys).
	AccountRead Permission = "account:read"
	// BillingRead reads billing history.
	BillingRead Permission = "billing:read"
	// ServerlessRead lists serverless endpoints.
	ServerlessRead Permission = "serverless:read"
	// ServerlessWrite creates, modifies and deletes serverless endpoints.
	ServerlessWrite Permission = "serverless:write"
	// PodsRead reads pods.
	PodsRead Permission = "pods:read"
	// PodsWrite creates and changes pods.
	PodsWrite Permission = "pods:write"
	// Inference runs jobs on endpoints and public models.
	Inference Permission = "inference"
)

// AllPermissions lists every permission; the server's default key has them
// all.
var AllPermissions = []Permission{AccountRead, BillingRead, ServerlessRead, ServerlessWrite, PodsRead, PodsWrite, Inference}

// Quota is the number of requests a key may make per window.
type Quota struct {
	Minute, Hour, Day int
}

// DefaultQuota is generous enough for test suites; set a small one with
// WithQuota or SetQuota to exercise 429s.
var DefaultQuota = Quota{Minute: 1000, Hour: 20000, Day: 200000}

// Route describes one route of the fake.
type Route struct {
	// Pattern is a net/http ServeMux pattern with a method, such as
	// "GET /v2/account/ssh-keys".
	Pattern string
	// Permission is what the key must hold; empty means any valid key.
	Permission Permission
	// QueryKey accepts the key as the api_key query parameter too (GraphQL).
	QueryKey bool
	// Inference serves the route on the inference host (InferenceURL), which
	// sends no RateLimit headers, instead of the API host (URL).
	Inference bool
	// Public serves the route without any credential (as the video host
	// serves generated files).
	Public bool
	// RawKey accepts the key as the whole Authorization value, without
	// "Bearer", as workers send it.
	RawKey bool
}

// Drop says when an injected fault closes the connection.
type Drop int

const (
	// NoDrop answers with the fault's status.
	NoDrop Drop = iota
	// DropBefore closes the connection before the route's handler runs:
	// the server does nothing, but the client cannot know that.
	DropBefore
	// DropAfter runs the route's handler, then closes the connection
	// without answering: the server acted, but the client never hears.
	DropAfter
)

// Fault is an injected failure.
type Fault struct {
	// Status is the status to answer with (with NoDrop). Default 503.
	Status int
	// Header is added to the response (for example Retry-After).
	Header http.Header
	// Body is the response body; empty means a problem+json body for Status.
	Body string
	// Drop closes the connection instead of answering.
	Drop Drop
}

// Request is one request the fake received.
type Request struct {
	// Route is the pattern of the route that matched, "" for none.
	Route  string
	Method string
	Path   string
	// Query is the parsed query, with any api_key value replaced by
	// "[REDACTED]".
	Query url.Values
	// RawQuery is the query string as sent (api_key redacted likewise).
	RawQuery string
	// Header is the request header, with Authorization redacted.
	Header http.Header
	Body   []byte
	// Auth says how the key came: "bearer", "api_key" or "".
	Auth string
	// Status is the status answered, 0 when the connection was dropped.
	Status int
	// Acted reports whether the route's handler ran.
	Acted bool
	Time  time.Time
}

// Server is a fake platform. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the REST v2 and GraphQL API host.
	URL string
	// InferenceURL is the base URL of the inference host.
	InferenceURL string
	// APIKey is a key holding every permission.
	APIKey string

	api, inference *httptest.Server
	apiMux         *http.ServeMux
	inferenceMux   *http.ServeMux
	now            func() time.Time
	quota          Quota
	requestID      atomic.Int64

	mu      sync.Mutex
	keys    map[string]*key
	faults  map[string][]Fault
	latency map[string]time.Duration
	log     []Request
	sshKeys []string
	ledger  ledger

	drain time.Duration

	base          context.Context // ends when the server closes; jobs run under it
	stop          context.CancelFunc
	closing       chan struct{}
	closeOnce     sync.Once
	jobsWG        sync.WaitGroup
	conns         atomic.Int64
	httpClient    *http.Client
	webhookClient *http.Client
	webhookDelay  time.Duration
	webhooks      []WebhookDelivery
	queues        map[string]*queue
	balancers     map[string]*LoadBalancer
	videos        map[string][]byte
	pods          map[string]*fakePod
	openai        map[string]OpenAIOptions
	takeWait      time.Duration
	pings         []Ping
	podProvision  time.Duration
	podStart      time.Duration
	videoDelay    time.Duration
	templates     map[string]bool
	endpoints     map[string]*Endpoint
	endpointSeq   int
	discount      *Discount
	mutations     map[string]int
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

// Option configures a Server.
type Option func(*Server)

// WithQuota sets the quota of every key the server makes.
func WithQuota(q Quota) Option { return func(s *Server) { s.quota = q } }

// WithClock sets the server's clock (rate-limit windows, default time
// ranges). The default is time.Now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// NewServer starts a fake platform on loopback. Close it when done.
func NewServer(opts ...Option) *Server {
	s := &Server{
		now:          time.Now,
		quota:        DefaultQuota,
		keys:         map[string]*key{},
		faults:       map[string][]Fault{},
		latency:      map[string]time.Duration{},
		apiMux:       http.NewServeMux(),
		inferenceMux: http.NewServeMux(),
		drain:        DefaultWorkerDrain,
		templates:    map[string]bool{},
		endpoints:    map[string]*Endpoint{},
		mutations:    map[string]int{},
		closing:      make(chan struct{}),
		webhookDelay: 10 * time.Second,
		queues:       map[string]*queue{},
		balancers:    map[string]*LoadBalancer{},
		videos:       map[string][]byte{},
		pods:         map[string]*fakePod{},
		openai:       map[string]OpenAIOptions{},
		takeWait:     time.Second,
		podProvision: DefaultPodPhase,
		podStart:     DefaultPodPhase,
	}
	for _, opt := range opts {
		opt(s)
	}
	s.apiMux.HandleFunc("/", s.notFound(s.apiMux))
	s.inferenceMux.HandleFunc("/", s.notFound(s.inferenceMux))
	s.base, s.stop = context.WithCancel(context.Background())
	s.api = s.start(s.apiMux)
	s.inference = s.start(http.HandlerFunc(s.serveInference))
	s.URL = s.api.URL
	// The inference host is named, so that load-balancing endpoints can
	// have the platform's <endpoint_id>.<inference host> addresses; the
	// client NewClient returns dials every *.localhost name to the fake.
	s.InferenceURL = "http://localhost:" + strconv.Itoa(s.inference.Listener.Addr().(*net.TCPAddr).Port)
	s.httpClient = s.newHTTPClient()
	s.webhookClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	s.APIKey = s.NewKey(AllPermissions...)
	s.registerAccount()
	s.registerBilling()
	s.registerGraphQL()
	s.registerJobs()
	s.registerVideo()
	s.registerPods()
	s.registerOpenAI()
	s.registerWorkerQueue()
	return s
}

// Close shuts the server down, closing its connections.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.stop()
		s.mu.Lock()
		for _, q := range s.queues {
			q.jq.Close()
		}
		s.mu.Unlock()
		s.api.Close()
		s.inference.Close()
		s.jobsWG.Wait()
		s.httpClient.CloseIdleConnections()
	})
}

// start serves h on a loopback listener, counting new connections.
func (s *Server) start(h http.Handler) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	ts.Start()
	return ts
}

// Connections returns how many TCP connections clients have opened to the
// fake: with Count, it shows whether a client reuses its connections.
func (s *Server) Connections() int64 { return s.conns.Load() }

// newHTTPClient returns the client NewClient uses: a pooled transport
// that dials localhost and every *.localhost name to the fake.
func (s *Server) newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 256, 256
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err == nil && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr}
}

// serveInference routes load-balancing endpoints by host name
// (<endpoint_id>.localhost) and everything else by path.
func (s *Server) serveInference(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if id, ok := strings.CutSuffix(host, ".localhost"); ok && id != "" && !strings.Contains(id, ".") {
		s.serveLoadBalancer(id, w, r)
		return
	}
	s.inferenceMux.ServeHTTP(w, r)
}

// NewClient returns a runpod.Client aimed at the server with its APIKey;
// opts are applied after, so they can override the key.
func (s *Server) NewClient(opts ...runpod.Option) (*runpod.Client, error) {
	return runpod.NewClient(append(s.ClientOptions(), opts...)...)
}

// Client returns the HTTP client NewClient's clients use, as
// httptest.Server.Client does: its transport dials the fake for localhost
// and every *.localhost name (load-balancing endpoints, pod proxies). Wrap
// its Transport to put a middleware between a client and the fake.
func (s *Server) Client() *http.Client { return s.httpClient }

// ClientOptions returns the options that aim a runpod.Client at the
// server with its APIKey.
func (s *Server) ClientOptions() []runpod.Option {
	return []runpod.Option{
		runpod.WithAPIKey(s.APIKey),
		runpod.WithBaseURL(s.URL),
		runpod.WithInferenceURL(s.InferenceURL),
		runpod.WithProxyHost("proxy.localhost"),
		runpod.WithHTTPClient(s.httpClient),
	}
}

// NewKey mints an API key with the given permissions.
func (s *Server) NewKey(perms ...Permission) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	k := fmt.Sprintf("rpa_%X", b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[k] = &key{perms: permSet(perms), quota: s.quota}
	return k
}

// RevokeKey makes k unknown to the server, as an expired or deleted key is.
func (s *Server) RevokeKey(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kk := s.keys[k]; kk != nil {
		kk.revoked = true
	}
}

// SetQuota changes the quota of key k and restarts its windows.
func (s *Server) SetQuota(k string, q Quota) {
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
func (s *Server) Now() time.Time { return s.now() }

// FailNext makes the next n requests that match route fail with f. route is
// a Route.Pattern, or "*" for every route.
func (s *Server) FailNext(route string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[route] = append(s.faults[route], f)
	}
}

// SetLatency delays every response of route (or "*") by d; zero removes it.
func (s *Server) SetLatency(route string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d <= 0 {
		delete(s.latency, route)
		return
	}
	s.latency[route] = d
}

// Requests returns a copy of the request log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Count returns how many requests matched route (or "*": all requests).
func (s *Server) Count(route string) int {
	return s.countIf(route, func(Request) bool { return true })
}

// Acted returns how many requests of route reached its handler: the number
// of times the server really did what the route does.
func (s *Server) Acted(route string) int {
	return s.countIf(route, func(r Request) bool { return r.Acted })
}

func (s *Server) countIf(route string, f func(Request) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if (route == "*" || r.Route == route) && f(r) {
			n++
		}
	}
	return n
}

// Handle adds a route. The handler runs only for requests that pass
// authentication, the rate limit, the permission check and any injected
// fault; it can read the caller's permissions with HasPermission.
func (s *Server) Handle(rt Route, h http.Handler) {
	mux := s.apiMux
	if rt.Inference {
		mux = s.inferenceMux
	}
	mux.Handle(rt.Pattern, s.engine(rt, h))
}

type ctxKey struct{}

// HasPermission reports whether the key that made r holds p.
func HasPermission(r *http.Request, p Permission) bool {
	k, _ := r.Context().Value(ctxKey{}).(map[Permission]bool)
	return k[p]
}

// engine wraps a route's handler with the platform's behaviour. A route of
// the REST v2 document is also held to it: a request the document refuses
// is answered as the platform answers it (a problem+json naming the field)
// and never reaches the handler; a response the handler builds against the
// document becomes a 500 naming the rule it breaks.
func (s *Server) engine(rt Route, h http.Handler) http.Handler {
	var contract *routers.Route
	if !rt.Inference {
		contract = contractRoute(rt.Pattern)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(http.MaxBytesReader(w, r.Body, 32<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		entry := s.record(rt.Pattern, r, body)
		w.Header().Set("X-Request-Id", "req-"+strconv.FormatInt(s.requestID.Add(1), 10))

		perms, authErr := s.authenticate(rt, r, entry)
		if rt.Public {
			perms, authErr = map[Permission]bool{}, ""
		}
		if authErr != "" {
			s.finish(entry, Problem(w, http.StatusUnauthorized, authErr))
			return
		}
		if !rt.Inference && !rt.Public {
			if wait, limited := s.rateLimit(r, w.Header()); limited {
				w.Header().Set("Retry-After", strconv.Itoa(wait))
				s.finish(entry, Problem(w, http.StatusTooManyRequests, "rate limit exceeded for the "+s.exhaustedWindow(r)+" window"))
				return
			}
		}
		if rt.Permission != "" && !perms[rt.Permission] {
			s.finish(entry, Problem(w, http.StatusForbidden, "access denied"))
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
				s.finish(entry, Problem(w, status, "injected fault"))
			} else {
				w.WriteHeader(status)
				_, _ = io.WriteString(w, f.Body)
				s.finish(entry, status)
			}
			return
		}
		if contract != nil {
			if status, ok := checkRequest(w, r, contract, body); !ok {
				s.finish(entry, status)
				return
			}
			cw := newContractWriter(w)
			s.markActed(entry)
			h.ServeHTTP(cw, r)
			s.finish(entry, cw.finish(r, contract, body))
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		s.markActed(entry)
		h.ServeHTTP(sw, r)
		s.finish(entry, cmpOr(sw.status, http.StatusOK))
	})
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// notFound answers a request no route took: 405 with Allow when the path
// is a route's under another method, as the platform answers, else 404.
func (s *Server) notFound(mux *http.ServeMux) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.unrouted(mux, w, r)
	}
}

func (s *Server) unrouted(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
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
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.finish(entry, Problem(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path))
		return
	}
	s.finish(entry, Problem(w, http.StatusNotFound, "resource not found"))
}

// authenticate returns the key's permissions, or the detail of a 401.
func (s *Server) authenticate(rt Route, r *http.Request, entry int) (map[Permission]bool, string) {
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
func (s *Server) rateLimit(r *http.Request, h http.Header) (int, bool) {
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

func (s *Server) exhaustedWindow(r *http.Request) string {
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

func (s *Server) latencyFor(route string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.latency[route], s.latency["*"])
}

func (s *Server) nextFault(route string) (Fault, bool) {
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

func (s *Server) record(route string, r *http.Request, body []byte) int {
	q := r.URL.Query()
	if q.Has("api_key") {
		q.Set("api_key", "[REDACTED]")
	}
	h := r.Header.Clone()
	if h.Get("Authorization") != "" {
		h.Set("Authorization", "[REDACTED]")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, Request{
		Route: route, Method: r.Method, Path: r.URL.Path, Query: q, RawQuery: redactRawQuery(r.URL.RawQuery),
		Header: h, Body: body, Time: s.now(),
	})
	return len(s.log) - 1
}

func redactRawQuery(raw string) string {
	if !strings.Contains(raw, "api_key") {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		if name, _, _ := strings.Cut(p, "="); name == "api_key" {
			parts[i] = "api_key=[REDACTED]"
		}
	}
	return strings.Join(parts, "&")
}

func (s *Server) markActed(entry int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log[entry].Acted = true
}

func (s *Server) finish(entry, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log[entry].Status = status
}

// Problem writes an application/problem+json error with the platform's
// title for status, and returns status.
func Problem(w http.ResponseWriter, status int, detail string, errors ...string) int {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Title  string   `json:"title"`
		Status int      `json:"status"`
		Detail string   `json:"detail"`
		Errors []string `json:"errors,omitempty"`
	}{http.StatusText(status), status, detail, errors})
	return status
}

// WriteJSON writes v as a 200 application/json response.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// hangUp closes the connection without writing a response.
func hangUp(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = buf.Flush()
	_ = conn.Close()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the first status written.
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records an implicit 200.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streaming handlers flush through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
