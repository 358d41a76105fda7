// Package runpod is a typed Go SDK for the RunPod GPU/CPU compute platform.
//
// One Client serves every surface of the platform through one HTTP
// pipeline (credentials, retries, rate limits, typed errors):
//
//	rp, err := runpod.NewClient() // key and hosts from RUNPOD_* or options
//	if err != nil { … }
//	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 7})
//
// NewClient reads RUNPOD_API_KEY, RUNPOD_BASE_URL, RUNPOD_INFERENCE_URL and
// RUNPOD_PROXY_HOST, then applies its options. The key comes from an
// option (option.WithAPIKey, option.WithProfile), else RUNPOD_API_KEY, else
// the file the rp CLI's login writes, ~/.runpod/config.toml (its profile
// RUNPOD_PROFILE, else "default"); a file that cannot give it is an error,
// never skipped. The options (package option: option.WithAPIKey,
// WithBaseURL, WithHTTPClient, WithLogger, WithMaxRetries, WithMiddleware,
// …) win over the environment. A
// Client is safe for concurrent use: make one and share it. Every surface
// can also be used alone, built from an option.Config
// (pods.NewFromConfig(cfg)); NewClient is those constructors over one
// Config.
//
// # Services
//
// Each field of Client is the service of one package:
//
//   - rp.Serverless ([serverless]): serverless endpoints over REST v2
//     (rp.Serverless.Endpoints: Apply, Create, Update, List, the three
//     deletes, workers, releases, logs, builds); jobs of a queue-based
//     endpoint or public model (rp.Serverless.Queue(id): RunSync, Run,
//     Wait, Stream, Status, Cancel, Retry, Purge, Health, and Batches); HTTP
//     requests to a load-balancing endpoint (rp.Serverless.LoadBalancer(id)).
//   - rp.Pods ([pods]): pods over REST v2, their actions and logs, how to
//     reach them (proxy URLs, TCP addresses), and placement that falls back
//     over GPU types, data centers and clouds.
//   - rp.Volumes ([volumes]): network volumes: create, grow, delete (their
//     files: package volumes/files, below).
//   - rp.Billing ([billing]): billing history of serverless endpoints, the
//     whole account, pods, public endpoints, network volumes and clusters,
//     in hour to year buckets, with exact totals.
//   - rp.Templates ([templates]): pod and serverless templates; environment
//     values never printed.
//   - rp.Registries ([registries]): container registry credentials
//     (write-only) and Amazon ECR delegations.
//   - rp.Secrets ([secrets]): account secrets (write-only values) that
//     templates, pods and endpoints refer to from their environment
//     (secrets.Ref), resolved when a pod or worker boots.
//   - rp.GlobalVolumes ([globalvolumes], beta): storage not tied to a
//     data center, mounted by GPU serverless endpoints.
//   - rp.Sandboxes ([sandboxes]): isolated CPU sandboxes for untrusted
//     code, billed per second: create (found again by its token label
//     after an ambiguous failure, never created twice), wait, exec, logs,
//     terminate.
//   - rp.Catalog ([catalog]): GPU types, CPU flavors, data centers and
//     public templates, with prices and stock; FindGPUs.
//   - rp.Clusters ([clusters]): instant clusters and their pods.
//   - rp.Account ([account]): the account's SSH public keys.
//   - rp.Video ([video]): the public image-to-video models, with validated
//     inputs, prices known before the call (video.EstimateCost) and the
//     download of the result.
//   - rp.OpenAI ([openai]): the OpenAI-compatible route of an endpoint
//     (rp.OpenAI.Route(id)): chat completions, plain or streamed, text
//     completions and the model list.
//
// # Packages built from a client's configuration
//
// These are not fields of Client: build them from rp.Config() (or any
// option.Config), or hand them the client, when a program needs them:
//
//   - [github.com/runpodkit/runpod-go/pods/podssh]: commands (stopped on the pod when
//     cancelled), file copies and port forwarding over SSH to a pod:
//     podssh.NewFromConfig(rp.Config()).
//   - [github.com/runpodkit/runpod-go/pods/podtask]: one command on a fresh
//     pod (fallback placement, a lease, SSH, files both ways) with the pod
//     terminated on every path: podtask.NewFromConfig(rp.Config()).Run.
//   - [github.com/runpodkit/runpod-go/volumes/files]: the files on a network volume over the platform's
//     S3-compatible API, without a pod: files.NewFromConfig(rp.Config()).Volume(ctx, id).
//   - [github.com/runpodkit/runpod-go/serverless/worker]: the runtime that runs your handler inside a
//     serverless worker (local test mode, local API server, production
//     loop): worker.Start(handler).
//   - [github.com/runpodkit/runpod-go/serverless/webhook]: signed job-completion webhooks, a URL per job
//     and a handler that refuses forgeries and replays: webhook.NewSigner.
//   - [github.com/runpodkit/runpod-go/serverless/tracker]: jobs recorded as they are submitted, so a
//     program that restarts finds them again: tracker.New(rp.Serverless.Queue(id), store).
//   - [github.com/runpodkit/runpod-go/lease]: a deadline in a resource's name; lease.Reap(ctx, rp, …)
//     deletes what is past it; leasetest.Track (package lease/leasetest) cleans
//     up after a test.
//   - [github.com/runpodkit/runpod-go/serverless/graphqlendpoints]: the
//     platform's GraphQL endpoint operations until it retires them in early
//     2027: graphqlendpoints.NewFromConfig(rp.Config()).
//   - [github.com/runpodkit/runpod-go/runpodtest]: an in-process fake of the platform for tests;
//     srv.NewClient() returns a Client aimed at it.
//   - github.com/runpodkit/runpod-go/otel (package runpodotel, a module of
//     its own): OpenTelemetry spans and metrics for every call and job,
//     one option: runpodotel.WithTelemetry().
//
// And the packages every surface shares: [option] (the Config and every
// option, Poll, middleware), [errs] (the error types), [ratelimit] (the
// RateLimit headers) and [secret] (values that never print).
//
// Client.Do calls a REST v2 operation the SDK has no typed method for yet,
// through the same pipeline.
//
// # Calls, waits and streams
//
// Every method takes the context first and options last
// (option.RequestOption, the type NewClient takes): given to a call, they
// apply to it alone. option.WithMaxRetries, WithRequestTimeout (each
// attempt), WithHeader and WithMiddleware (wrapping the call, before the
// key is added) tune it; WithResponseInto(&info) fills an
// option.ResponseInfo with the status, headers, request id, attempt count
// and rate limits of the call's final response; Client.RateLimit keeps
// the latest rate limits seen.
//
// Every call that waits by checking again and again (a job, a video, an
// endpoint's drain, a pod's TCP port, a load balancer's readiness) takes a
// option.Poll, directly or inside the WaitOptions of jobs and videos: the
// pause between checks (option.DefaultPollInterval when zero) and a
// callback with what each check found. Every wait ends with its context,
// and none sleeps through its context's deadline: when the next check
// would be answered too late, it is made at the last moment that leaves the
// answer its margin (a fifth of the time left, at least 250 ms). The error
// of a wait that ends early carries what was waited for (a job's id, the
// workers left, the pod's status).
//
// Every stream (chat chunks, job output, pod and worker logs) is an
// iter.Seq2 of items and errors: the request is sent when the loop starts,
// a failure arrives as the loop's error, and breaking out stops the stream
// and closes its connection.
//
// Every list of the REST v2 API comes in pages, and the SDK follows them
// (an answer without pagination is the whole list, as the platform's
// answers were before): List (and the other whole-list methods: Workers,
// Releases, GPUTypes, …) returns every page's items, and the iterators
// named All… (Pods.All, Endpoints.All, Catalog.AllGPUTypes, …) yield them
// one at a time, holding one page, in the same iter.Seq2 shape as the
// streams (the first page is asked for when the loop starts; breaking out
// sends nothing more). option.WithPageSize sets how many items a page holds
// (1 to 1000, the platform's default); each page is one GET, retried as any
// read is, and its cursor goes back as the platform wrote it, with the same
// parameters. What acts on a list reads all of it: serverless.Endpoints.Apply,
// lease.Reap, catalog.Service.FindGPUs and so pods.Service.CreateWithFallback's
// candidates.
//
// Optional request fields are pointers, where an explicit zero differs from
// leaving the field out; Ptr makes one: runpod.Ptr(0).
//
// # Errors
//
// Every call either succeeds or returns one of these; match them with
// errors.Is and errors.As (package errs: errs.APIError, errs.ErrNotFound…):
//
//   - *ValidationError: an argument refused before any request was sent;
//     Field names it.
//   - *APIError: a non-2xx response. REST errors are
//     application/problem+json (Title, Detail, Errors); other bodies are
//     kept as a short, redacted Excerpt. errors.Is matches ErrUnauthorized
//     (401), ErrForbidden (403), ErrNotFound (404) and ErrRateLimited (429).
//     RetryAfter is the wait the server asked for.
//   - *GraphQLError: a GraphQL response carrying errors, every message,
//     path and extension kept.
//   - *TransportError: no response (connection refused or reset, timeout,
//     the context ended), or a successful body cut off as it arrived.
//   - *ResponseError: a successful response whose body was larger than
//     WithMaxResponseBytes (ErrResponseTooLarge) or not the JSON expected.
//   - *PaginationError: a list whose pages cannot be followed to an end
//     (ErrPagination): a cursor named twice (ErrRepeatedCursor), an
//     empty page that says more follow (ErrEmptyPage), a next page
//     without a cursor (ErrMissingCursor), or more than
//     option.MaxListPages pages (ErrTooManyPages). The walk stops there.
//   - *UnsafePathError: a local copy (files of a volume, of a pod) refused
//     to write a name the other side sent that is not a plain relative
//     path, or through a symbolic link in the target directory; nothing
//     was written for it.
//   - *CapacityError: a pod or cluster create (or a pod start) the platform
//     answered with a known stock-out or no-matching-host message
//     (ErrNoCapacity; Reason OutOfStock or NoMatchingHost): nothing was
//     created, so it is not ErrOutcomeUnknown. *PlacementError is
//     CreateWithFallback's, listing every candidate tried.
//   - ErrOutcomeUnknown: a call that is not safe to repeat (run a job,
//     create an endpoint or a pod, a mutation) failed after its request
//     may have reached the platform. The SDK never sends it twice; check
//     the platform's state before trying again.
//
// A few calls return an error of their own, which carries more than these
// do:
// *serverless.JobError (a job that ended FAILED, CANCELLED or TIMED_OUT),
// *serverless.WaitError (a wait for a job that ended first, carrying the
// job's id and wrapping the cause) and *openai.Error (an error in OpenAI's
// shape, wrapping the *APIError of an HTTP error).
//
// # Retries
//
// A call is retried (at most option.WithMaxRetries times, 3 by default)
// when:
//
//	what happened                          idempotent call    other calls
//	request never left (refused, DNS)      yes                yes
//	429 Too Many Requests                  yes, after wait    yes, after wait
//	500, 502, 503, 504                     yes, backoff       no: ErrOutcomeUnknown
//	reset or timeout after sending         yes, backoff       no: ErrOutcomeUnknown
//	401, 403, 404, other 4xx, 501          no                 no
//	2xx body too large or not JSON         no                 no
//
// Idempotent calls are reads (GET, GraphQL queries, job status,
// status-sync, health) and the calls whose repetition changes nothing: a
// pod update (PATCH of the same fields), a pod delete, a job cancel. The wait before
// a retry is the response's Retry-After (seconds or an HTTP date), else the
// reset of an exhausted RateLimit window, else exponential backoff with
// full jitter (WithBackoff). A wait longer than WithMaxWait, or longer than
// the context has left, is not slept: the error comes back at once. A
// long poll (/runsync, status-sync) is retried only with a hold that still
// fits in the context.
//
// # Security
//
// The API key never appears in an error, a log line, a URL that is
// logged, or the printed form of any SDK value; a key the server echoes
// back, as sent or escaped, is replaced by [REDACTED]. It is sent as a
// Bearer header (to GraphQL too; with WithGraphQLQueryKey, as the api_key
// query parameter, added after every layer that logs), never over plain http to a host that is not
// loopback, and never to another origin on a redirect (another scheme, host
// or port, subdomains included: the Authorization header is dropped, and a
// redirect from https to plain http on a host that is not loopback is
// refused). NewClient refuses a
// key with white space, control characters or non-ASCII bytes.
//
// # Testing
//
// Tests and offline examples need no network and no key: runpodtest.NewServer
// starts an in-process fake of the platform with the platform's semantics
// (keys and permissions, rate limits, injected faults), and its NewClient
// returns a Client aimed at it.
package runpod
