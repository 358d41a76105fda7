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
//   - On the inference host, the documented per-endpoint limits of the job
//     API and the OpenAI-compatible route (requests per 10 s and at once,
//     DefaultInferenceLimits; lower them with WithInferenceLimits): 429
//     with Retry-After, on the server's clock; a held status-sync counts
//     as a /status request in progress. The platform raises them with an
//     endpoint's running workers; the fake does not.
//   - Errors on an endpoint's OpenAI-compatible route (/openai/v1/*) in
//     OpenAI's shape, {"error": {"message", "type", "code"}}, which
//     OpenAI's clients read; problem+json everywhere else.
//   - Fault injection: fail the next N requests of a route with a status,
//     headers and body; add latency; drop the connection before or after
//     the route's handler acted.
//   - A request log, so tests can count requests per route and prove that
//     nothing was created twice.
//   - A Date header on every answer of the API host, read from the
//     server's clock (WithClock), as an origin server sends its own.
//   - Lists in pages, as the platform's list pages describe them (cursor
//     and limit, 1000 items a page by default, pagination{nextCursor,
//     hasNextPage} in every answer, 422 for a malformed or foreign
//     cursor); WithPageSize makes pages small, so a test crosses them,
//     and WithoutPagination serves the unpaged lists of August 2026.
//   - Its hosts over TLS with HTTP/2 (WithTLS, CertPool), and on an
//     in-memory network (WithMemoryNetwork), so that a fake made in a
//     testing/synctest bubble runs on the bubble's clock.
//   - With contract.Check (runpodtest/contract), the REST v2
//     document's rules: a request it does not allow (an unknown property,
//     a wrong type, a value out of range) is refused 400 or 422 with a
//     problem+json naming the field, as the platform refuses it, and an
//     answer of the fake that breaks it becomes a 500.
//
// The platform refuses malformed requests; the fake does so only with
// contract.Check, which links an OpenAPI validator. Without it, a server
// checks nothing against the document: a route's handler gets what was
// sent and applies the rules it keeps itself (the ones the document says
// the platform enforces beyond its schemas), so a malformed request the
// platform would refuse may be served. A test of code that builds REST v2
// requests (the SDK's own tests, a client of one's own) attaches the
// checker:
//
//	srv := runpodtest.NewServer(contract.Check())
//
// The engine has its own lock, and each surface below keeps its own state
// under its own lock, so a slow or blocked handler of one surface never
// holds up another.
//
// Use it with the SDK:
//
//	srv := runpodtest.NewServer()
//	defer srv.Close()
//	rp, err := srv.NewClient()
//
// The clients NewClient returns run at test speed: retries back off for
// 1 to 10 ms (TestBackoffMin, TestBackoffMax) instead of 500 ms to 8 s, and
// waits check every 10 ms (TestPollInterval) instead of 2 s, so a test
// that injects faults or waits for a pod takes milliseconds. Retry-After
// and RateLimit resets are still honoured as the fake sends them.
//
// # What a test seeds
//
// The fake starts as a new account does: no templates, endpoints, pods or
// billing history, and no worker behind any endpoint. What a test needs,
// it adds:
//
//   - Endpoint creation (Endpoints.Create) refuses an unknown template, or
//     a pod template, as the platform does: register a serverless template
//     with AddTemplate, StoreTemplate or POST /v2/templates
//     (Templates.Create), or with HandleTemplate, which also gives every
//     queue-based endpoint of that template a worker, so jobs sent to an
//     endpoint the test created run. An endpoint created with an inline
//     image gets a template the fake makes; HandleImage gives the
//     endpoints of an image a worker.
//   - Jobs need a worker: HandleQueue(id, handler) serves a queue-based
//     endpoint (or public model) id with a worker.Handler; AddQueueEndpoint
//     adds a listed endpoint and its worker in one call. The jobs of an
//     endpoint with no worker are queued and never taken, as on the
//     platform, until one comes.
//   - AddEndpoint stores a listed endpoint (typed with the serverless
//     package's enums; zero settings get the fake's defaults).
//   - Billing reports are computed from what the fake's pods and
//     endpoints use (see Billing below) and from usage a test adds with
//     AddServerlessUsage and its siblings.
//   - Pods: AddPod, or create them through the SDK.
//   - Network volumes: AddNetworkVolume, or create them through the SDK in
//     the fake's data centers (see NetworkVolume).
//   - Instant clusters: AddCluster (with its pods), or create them through
//     the SDK.
//   - The public video models and OpenAI routes (qwen3-32b-awq,
//     granite-4-0-h-small) are there from the start.
//   - The catalog is the platform's, so a small one is there from the
//     start: data centers EU-RO-1, EU-SE-1, US-TX-3, US-KS-2, CA-MTL-1 and
//     AP-JP-1; GPU types RTX 4090, L4, RTX A6000, L40S, A100 80GB PCIe,
//     H100 80GB HBM3 and MI300X, each in stock in a few of them; CPU
//     flavors cpu3c, cpu3g, cpu3m and cpu5c; public templates
//     runpod-torch-v240, runpod-ubuntu and runpod-vllm-worker (official),
//     comfyui-flux (verified) and ollama-webui (community). Add to it or
//     replace entries with AddGPUType and its siblings; WithEmptyCatalog
//     starts without it.
//
// # What it serves
//
// The whole public surface, by area:
//
//   - Engine: NewServer (WithClock, WithQuota, WithInferenceLimits, WithTLS,
//     WithMemoryNetwork, WithPageSize, WithoutPagination, …), CertPool, NewClient,
//     ClientOptions (TestBackoffMin, TestBackoffMax, TestPollInterval),
//     Client, Close, NewKey, RevokeKey, SetQuota, FailNext, SetLatency,
//     Requests, Count, Acted, Connections, Now; Handle, Problem, WriteJSON
//     and HasPermission for routes of your own. Every route the REST v2
//     document describes is checked against it on the way in and out.
//   - Billing: the six reports are computed, on the fake's clock, from
//     what its pods and serverless endpoints use, added to the usage a
//     test adds (AddServerlessUsage, AddPodUsage, AddNetworkVolumeUsage,
//     AddClusterUsage, AddPublicEndpointUsage). A pod bills its cost (the
//     catalog's price of its GPUs on its cloud, or of its vCPUs) from its
//     create, PROVISIONING and STARTING included, until it stops or is
//     deleted, and its container and volume disk at $0.10 per GB-month
//     (the volume disk alone, at $0.20, while stopped; a month is 30
//     days). An endpoint bills its workers at the catalog's serverless
//     price of its first GPU pool times its GPU count (or of its CPU
//     flavor times its vCPUs): at every instant, the workers workers.min
//     keeps or the jobs running, whichever are more; each job from when a
//     worker took it to its end, rounded up to the second, once it has
//     ended. Deleted pods and endpoints stay in the history. Cluster
//     pods, network volumes, serverless disk and fees are not computed.
//   - Serverless endpoints, one state for the REST v2 routes
//     (/v2/serverless: create, list, get, update, delete), the GraphQL API
//     (saveEndpoint, updateEndpointTemplate, deleteEndpoint,
//     myself.endpoints) and the job API: AddEndpoint, AddQueueEndpoint,
//     AddTemplate, HandleTemplate, HandleTemplateNamed, HandleAnyTemplate, HandleImage, Endpoints,
//     SetDiscount, WithWorkerDrain. The GraphQL API is served by package
//     fakegraphql (NewServer(fakegraphql.Serve())); without it, POST
//     /graphql answers 410 Gone, as the platform will once it retires
//     the API.
//   - An endpoint's workers, releases, builds and worker logs (REST v2):
//     WorkerIDs, SetWorkerStatus, AppendWorkerLog, AddRelease (Release,
//     ReleaseChange), AddBuild (Build). CrashLoopWorkers and ThrottleWorkers keep its
//     workers from taking jobs, UNHEALTHY (crash-looping) or THROTTLED
//     (no capacity) in the worker list, while its jobs wait.
//   - Jobs: HandleQueue (your worker.Handler behind a queue endpoint),
//     HandleWorkerQueue and WorkerEnv (your worker's production loop against
//     the fake), JobResults, Pings, WebhookDeliveries,
//     WithWebhookRetryDelay, WithWorkerLongPoll.
//   - Batch jobs (beta) of queue endpoints: the nine routes of
//     /v2/{endpoint}/batch (RouteBatchCreate and its siblings), DRAFT →
//     FINALIZED → FAILED or CANCELLED, the requests run as jobs on the
//     endpoint's handler, paged results, the documented limits
//     (DefaultBatchLimits; WithBatchLimits, BatchPageDefault, BatchPageMax).
//   - Load-balancing endpoints: HandleLoadBalancer (SetPing takes a
//     serverless.PingState).
//   - Video models: ModelWan25 and ModelWan22LoRA, WithVideoDelay.
//   - Pods: AddPod, Pods, SetPodStatus, AppendPodLog, WithPodBoot. A pod
//     made from a template takes its settings (the environment merged per
//     variable, the pod's winning). PodEnv is the environment a pod's
//     container got at its last boot, with references to account secrets
//     resolved then.
//   - Account secrets (REST v2 /v2/account/secrets): AddSecret, Secrets.
//     Values are write-only; a name starting with RUNPOD is refused (400),
//     a taken name too (409). A pod's boot replaces each
//     "{{ RUNPOD_SECRET_<name> }}" of its environment with the value at
//     that moment, so a rotation reaches a pod at its next restart; a
//     reference to a missing secret fails the boot (ERROR). WorkerBootEnv
//     is the environment a serverless worker of an endpoint boots with
//     now, resolved likewise.
//   - Network volumes: AddNetworkVolume, NetworkVolumes.
//   - Global volumes (beta, REST v2 /v2/global-volumes): AddGlobalVolume,
//     GlobalVolumes. Endpoints take one (globalVolumes), GPU endpoints
//     only and not with network volumes (400).
//   - Network volumes' files, on disk (WithS3Storage), streamed: seed
//     and read them with WriteVolumeFile, MakeVolumeDir, VolumeFile and
//     VolumeUsage; a REST delete of a volume removes them. Their
//     S3-compatible API (S3URL, S3AccessKey, S3SecretKey) is served by
//     package fakes3 (NewServer(fakes3.Serve())), built on gofakes3, with
//     the platform's documented rules; fakes3.Endpoint gives aws, s3cmd
//     and rclone an address, fakes3.Count counts its requests and
//     fakes3.Fail injects the platform's known faults. Without fakes3,
//     S3URL answers every request 501.
//   - Instant clusters: AddCluster, Clusters. A cluster's pods are fake
//     pods too: GET /v2/pods lists them with includeClusterPods=true,
//     SetPodStatus and Pods reach them, and the pod routes refuse to change
//     or delete them (409).
//   - OpenAI-compatible routes: HandleOpenAI.
//   - Account: SetSSHKeys.
//   - SSH to pods (exec, SFTP, port forwarding) through the dialer of
//     ClientOptions, served by package fakessh
//     (NewServer(fakessh.Serve())): fakessh.PodHostKey,
//     RotatePodHostKey, HandlePodCommand, HandlePodPort, PodFile,
//     WritePodFile; and, for ssh, scp and sftp, on a loopback port of a
//     pod's own that fakessh.Listen opens. Without fakessh, a pod's SSH
//     port refuses connections, as one nothing listens on.
//   - Registry credentials and ECR delegations: AddRegistry, Registries,
//     AddDelegation, Delegations.
//   - Catalog: AddGPUType, AddCPUType, AddDataCenter, AddPublicTemplate,
//     WithEmptyCatalog; availability and the filters as the document
//     describes them.
//   - Stock: a GPU pod or cluster is placed where its GPU type has stock
//     (the first of its dataCenterIds that does, else the best stocked);
//     SetGPUStock runs a data center out, and a create with nowhere to go
//     gets the platform's HTTP 500 and stock-out message (no host at all
//     for its CUDA versions: the no-matching-host message), creating
//     nothing; starting a stopped pod whose data center is out is refused
//     with the platform's "not enough free GPUs" message.
//   - Sandboxes (REST v2, /v2/sandboxes): CREATING → RUNNING on the
//     server's clock, exec and logs answering 409 while the container
//     starts (WithSandboxTiming), FAILED for an image FailSandboxImage
//     names, the documented timeout defaults and clamping, 402 below the
//     account's balance (SetBalance) and 503 beyond the room for them
//     (SetSandboxCapacity), commands run by HandleSandboxCommand or a
//     small built-in shell, container log lines (AppendSandboxLog), and
//     each sandbox's cost per second until it ends (Sandboxes).
//   - Templates (REST v2): StoreTemplate, Templates. They are the store
//     AddTemplate and HandleTemplate register serverless templates in, so
//     a serverless template created with POST /v2/templates is one
//     endpoints can be made from, and one that an endpoint uses cannot be
//     deleted.
package runpodtest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
)

// Permission is what an API key may do; each route requires one.
type Permission string

// Permissions the fake's routes require.
const (
	// PermissionAccountRead reads account settings (SSH keys).
	PermissionAccountRead Permission = "account:read"
	// PermissionBillingRead reads billing history.
	PermissionBillingRead Permission = "billing:read"
	// PermissionServerlessRead lists serverless endpoints.
	PermissionServerlessRead Permission = "serverless:read"
	// PermissionServerlessWrite creates, modifies and deletes serverless endpoints.
	PermissionServerlessWrite Permission = "serverless:write"
	// PermissionPodsRead reads pods.
	PermissionPodsRead Permission = "pods:read"
	// PermissionPodsWrite creates and changes pods.
	PermissionPodsWrite Permission = "pods:write"
	// PermissionInference runs jobs on endpoints and public models.
	PermissionInference Permission = "inference"
	// PermissionAccountWrite changes account settings (SSH keys).
	PermissionAccountWrite Permission = "account:write"
	// PermissionTemplatesRead reads templates; PermissionTemplatesWrite creates, changes and
	// deletes them.
	PermissionTemplatesRead  Permission = "templates:read"
	PermissionTemplatesWrite Permission = "templates:write"
	// PermissionVolumesRead reads network volumes; PermissionVolumesWrite creates, changes and
	// deletes them.
	PermissionVolumesRead  Permission = "volumes:read"
	PermissionVolumesWrite Permission = "volumes:write"
	// PermissionRegistriesRead reads registry credentials and ECR delegations;
	// PermissionRegistriesWrite creates and deletes them.
	PermissionRegistriesRead  Permission = "registries:read"
	PermissionRegistriesWrite Permission = "registries:write"
	// PermissionCatalogRead reads the catalog (GPU and CPU types, data centers,
	// public templates).
	PermissionCatalogRead Permission = "catalog:read"
	// PermissionClustersRead reads instant clusters; PermissionClustersWrite creates, changes
	// and deletes them.
	PermissionClustersRead  Permission = "clusters:read"
	PermissionClustersWrite Permission = "clusters:write"
	// PermissionSandboxesRead reads sandboxes and their logs;
	// PermissionSandboxesWrite creates, runs commands in and terminates
	// them.
	PermissionSandboxesRead  Permission = "sandboxes:read"
	PermissionSandboxesWrite Permission = "sandboxes:write"
)

// AllPermissions lists every permission; the server's default key has them
// all.
func AllPermissions() []Permission {
	return []Permission{PermissionAccountRead, PermissionAccountWrite, PermissionBillingRead, PermissionServerlessRead, PermissionServerlessWrite, PermissionPodsRead, PermissionPodsWrite, PermissionInference,
		PermissionTemplatesRead, PermissionTemplatesWrite, PermissionVolumesRead, PermissionVolumesWrite, PermissionRegistriesRead, PermissionRegistriesWrite, PermissionCatalogRead, PermissionClustersRead, PermissionClustersWrite,
		PermissionSandboxesRead, PermissionSandboxesWrite}
}

// Quota is the number of requests a key may make per window.
type Quota struct {
	// Minute is the number of requests per clock minute.
	Minute int
	// Hour is the number of requests per clock hour.
	Hour int
	// Day is the number of requests per UTC day.
	Day int
}

// DefaultQuota is generous enough for test suites; set a small one with
// WithQuota or SetQuota to exercise 429s.
func DefaultQuota() Quota {
	return Quota{Minute: 1000, Hour: 20000, Day: 200000}
}

// Route describes one route of the fake.
type Route struct {
	// Pattern is a net/http ServeMux pattern with a method, such as
	// "GET /v2/account/ssh-keys".
	Pattern string
	// Permission is what the key must hold; empty means any valid key.
	Permission Permission
	// QueryKey accepts the key as the api_key query parameter too (GraphQL).
	QueryKey bool
	// PermissionInference serves the route on the inference host (InferenceURL), which
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
	// DropNone answers with the fault's status.
	DropNone Drop = iota
	// DropBefore closes the connection before the route's handler runs:
	// the server does nothing, but the client cannot know that.
	DropBefore
	// DropAfter runs the route's handler, then closes the connection
	// without answering: the server acted, but the client never hears.
	DropAfter
)

// Fault is an injected failure.
type Fault struct {
	// Status is the status to answer with (with DropNone). Default 503.
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
	Route string
	// Method is the request's method.
	Method string
	// Path is the request's URL path.
	Path string
	// Query is the parsed query, with any api_key value replaced by
	// "[REDACTED]".
	Query url.Values
	// RawQuery is the query string as sent (api_key redacted likewise).
	RawQuery string
	// Header is the request header, with Authorization redacted.
	Header http.Header
	// Body is the request body as sent.
	Body []byte
	// Auth says how the key came: "bearer", "api_key" or "".
	Auth string
	// Status is the status answered, 0 when the connection was dropped.
	Status int
	// Acted reports whether the route's handler ran.
	Acted bool
	// Time is when the request arrived, by the server's clock.
	Time time.Time
}

// Server is a fake platform. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the REST v2 and GraphQL API host.
	URL string
	// InferenceURL is the base URL of the inference host.
	InferenceURL string
	// APIKey is a key holding every permission.
	APIKey string

	// S3URL is the S3 endpoint of network volumes' files, for
	// option.WithS3URL: "http://s3api-{dc}.localhost:<port>", where the
	// client puts the data center id in lower case, one host per data
	// center as on the platform (https://s3api-{dc}.runpod.io). Only the
	// clients of Client and NewClient reach these names (their dialer
	// sends *.localhost to the fake); a program that resolves names
	// itself is given fakes3.Endpoint. Data centers without the
	// platform's S3 API answer 404. The API is served by package fakes3
	// (NewServer(fakes3.Serve())); without it, every request is answered
	// 501.
	S3URL string
	// S3AccessKey is the access key of the one S3 API key the S3 API
	// accepts, in the platform's shape (a user id, user_…), for
	// option.WithS3Credentials. The S3 API key is not APIKey.
	S3AccessKey string
	// S3SecretKey is that S3 API key's secret (rps_…).
	S3SecretKey string

	// engine is what every route shares: keys, rate limits, faults,
	// latency, the request log and the clock, under its own lock.
	engine

	// One unit per surface, each owning its state under its own lock.
	account       accountUnit
	billing       billingUnit
	graphql       graphqlUnit
	jobs          jobsUnit
	video         videoUnit
	pods          podsUnit
	volumes       volumesUnit
	openai        openaiUnit
	loadBalancers loadBalancerUnit
	registries    registriesUnit
	secrets       secretsUnit
	globalVolumes globalVolumesUnit
	clusters      clustersUnit
	catalog       catalogUnit
	templates     templatesUnit
	serverless    serverlessUnit
	sandboxes     sandboxesUnit
	storage       volumeStorage

	api, inference *httptest.Server
	s3api          *httptest.Server // the S3 API of every data center
	base           context.Context  // ends when the server closes; jobs run under it
	stop           context.CancelFunc
	closing        chan struct{}
	closeOnce      sync.Once
	jobsWG         sync.WaitGroup
	httpClient     *http.Client

	// core is what the subpackages (fakes3, fakessh, fakegraphql) reach
	// of the server, registered for seam.Of.
	core *seam.Core
}

// Option configures a Server.
type Option func(*Server)

// WithQuota sets the quota of every key the server makes.
func WithQuota(q Quota) Option { return func(s *Server) { s.quota = q } }

// WithInferenceLimits sets the per-endpoint limits of the inference
// host's operations (DefaultInferenceLimits unless set): lower ones let a
// test reach a 429 in a few requests; a zero InferenceLimits turns them
// off. The platform raises its limits with an endpoint's running workers
// (the higher of the base and workers × a per-worker rate); the fake keeps
// to what is set here.
func WithInferenceLimits(l InferenceLimits) Option {
	return func(s *Server) { s.inferenceLimits = l }
}

// WithClock sets the server's clock (rate-limit windows, default time
// ranges, the Date header of the API host's answers). The default is
// time.Now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// NewServer starts a fake platform on loopback. Close it when done.
func NewServer(opts ...Option) *Server {
	s := &Server{
		engine:        newEngine(),
		graphql:       newGraphQLUnit(),
		jobs:          newJobsUnit(),
		video:         videoUnit{files: map[string][]byte{}},
		pods:          newPodsUnit(),
		volumes:       newVolumesUnit(),
		openai:        openaiUnit{routes: map[string]OpenAIOptions{}},
		loadBalancers: loadBalancerUnit{byID: map[string]*LoadBalancer{}},
		clusters:      newClustersUnit(),
		catalog:       newCatalogUnit(),
		templates:     newTemplatesUnit(),
		serverless:    newServerlessUnit(),
		sandboxes:     newSandboxesUnit(),
		secrets:       newSecretsUnit(),
		globalVolumes: newGlobalVolumesUnit(),
		closing:       make(chan struct{}),
	}
	s.core = &seam.Core{Base: func() context.Context { return s.base }, GraphQL: s.graphQLSeam(), SSH: s.sshSeam(), S3: s.s3Seam()}
	s.contract = &s.core.Contract
	seam.Register(s, s.core)
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
	scheme := "http"
	if s.tlsID != nil {
		scheme = "https"
	}
	s.InferenceURL = scheme + "://localhost:" + strconv.Itoa(s.inference.Listener.Addr().(*net.TCPAddr).Port)
	s.startS3()
	s.httpClient = s.newHTTPClient()
	s.APIKey = s.NewKey(AllPermissions()...)
	s.registerAccount()
	s.registerBilling()
	s.registerGraphQL()
	s.registerJobs()
	s.registerBatches()
	s.registerVideo()
	s.registerREST()
	s.registerOpenAI()
	s.registerWorkerQueue()
	s.registerCatalog()
	s.registerServerless()
	s.registerBuilds()
	s.registerSandboxes()
	s.registerSecrets()
	s.registerGlobalVolumes()
	return s
}

// Close shuts the server down, closing its connections, and removes the
// volumes' files unless WithS3Storage placed them.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.stop()
		s.jobs.mu.Lock()
		for _, q := range s.jobs.queues {
			q.jq.Close()
		}
		s.jobs.mu.Unlock()
		if f := s.core.SSH.Close; f != nil {
			f()
		}
		s.api.Close()
		s.inference.Close()
		s.s3api.Close()
		s.jobsWG.Wait()
		s.httpClient.CloseIdleConnections()
		s.closeS3()
	})
}

// newHTTPClient returns the client NewClient uses: a pooled transport
// that dials localhost and every *.localhost name to the fake. It never
// goes through a proxy: net/http exempts localhost and loopback addresses
// from HTTP_PROXY but not <id>.localhost names (load-balancing endpoints),
// and every address it dials is the fake's, on loopback.
func (s *Server) newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 256, 256
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err == nil && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		if s.network != nil {
			return s.network.dial(ctx, addr)
		}
		return d.DialContext(ctx, network, addr)
	}
	if s.tlsID != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: s.tlsID.pool, MinVersion: tls.VersionTLS12}
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

// NewClient returns a runpod.Client aimed at the server with its APIKey,
// tuned for tests (see ClientOptions); opts are applied after, so they can
// override any of it.
func (s *Server) NewClient(opts ...option.RequestOption) (*runpod.Client, error) {
	return runpod.NewClient(append(s.ClientOptions(), opts...)...)
}

// Client returns the HTTP client NewClient's clients use, as
// httptest.Server.Client does: its transport dials the fake for localhost
// and every *.localhost name (load-balancing endpoints, pod proxies). Wrap
// its Transport to put a middleware between a client and the fake.
func (s *Server) Client() *http.Client { return s.httpClient }

// Test speeds of the clients NewClient returns: retries back off from
// TestBackoffMin to TestBackoffMax (production: 500 ms to 8 s), and waits
// whose Poll.Interval is zero check every TestPollInterval (production:
// 2 s). A server-directed wait (Retry-After) is still honoured as sent.
const (
	TestBackoffMin   = time.Millisecond
	TestBackoffMax   = 10 * time.Millisecond
	TestPollInterval = 10 * time.Millisecond
)

// ClientOptions returns the options that aim a runpod.Client at the
// server with its APIKey (and its S3 API, S3URL, with its S3 API key,
// which package fakes3 serves; and, with option.WithDialer, SSH at its
// pods' SSH servers, which package fakessh serves), at
// test speed: retry backoff from
// TestBackoffMin to TestBackoffMax, and TestPollInterval between the
// checks of waits. Append option.WithBackoff or option.WithPollInterval
// to measure production timing.
func (s *Server) ClientOptions() []option.RequestOption {
	return []option.RequestOption{
		option.WithAPIKey(s.APIKey),
		option.WithBaseURL(s.URL),
		option.WithInferenceURL(s.InferenceURL),
		option.WithProxyHost("proxy.localhost"),
		option.WithHTTPClient(s.httpClient),
		option.WithBackoff(TestBackoffMin, TestBackoffMax),
		option.WithPollInterval(TestPollInterval),
		option.WithS3URL(s.S3URL),
		option.WithS3Credentials(s.S3AccessKey, s.S3SecretKey),
		option.WithDialer(s.dial),
	}
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
