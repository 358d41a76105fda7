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
// RUNPOD_PROXY_HOST, then applies its options (package option:
// option.WithAPIKey, WithBaseURL, WithHTTPClient, WithLogger,
// WithMaxRetries, WithMiddleware, …), which win over the environment. A
// Client is safe for concurrent use: make one and share it. Every surface
// can also be used alone, built from an option.Config
// (pods.NewFromConfig(cfg)); NewClient is those constructors over one
// Config.
//
// # Surfaces
//
// Each field of Client is the service of one package:
//
//   - rp.Billing (package billing): billing history of serverless
//     endpoints, the whole account, pods, public endpoints, network volumes
//     and clusters, split into hour to year buckets, with totals.
//   - rp.Serverless (package serverless): endpoint management over REST
//     v2 (rp.Serverless.Endpoints: Create, Get, List, Update, Apply,
//     ScaleToZero, Delete; the platform's GraphQL operations, retired in
//     early 2027, are package serverless/graphqlendpoints, built with
//     graphqlendpoints.NewFromConfig(rp.Config())); jobs of a queue-based endpoint or public model
//     (rp.Serverless.Queue(id): Run, RunSync, Wait, Stream, Status, Cancel,
//     Retry, Purge, Health); HTTP requests to a load-balancing endpoint
//     (rp.Serverless.LoadBalancer(id): Do, Ping, WaitReady); and
//     serverless.ReadWebhook for job-completion webhooks. The runtime that
//     runs your handler inside a worker is package serverless/worker.
//   - rp.Video (package video): the public image-to-video models, with
//     validated inputs, prices known before the call (video.EstimateCost)
//     and the download of the result.
//   - rp.Pods (package pods): pods over REST v2 (List, Get, Create, Update,
//     Delete, Start, Stop, Restart, Terminate, Logs), and how to reach them:
//     the proxy URL of an HTTP port, the public address of a TCP port.
//   - rp.OpenAI (package openai): the OpenAI-compatible route of an
//     endpoint (rp.OpenAI.Route(id)): chat completions, plain or streamed,
//     text completions and the model list.
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
// pause between checks (option.DefaultPollInterval when zero) and a callback with what
// each check found. Every stream (chat chunks, job output, pod logs) is an
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
// streams. option.WithPageSize sets how many items a page holds (1 to
// 1000, the platform's default).
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
// loopback, and never to another origin on a redirect. NewClient refuses a
// key with white space, control characters or non-ASCII bytes.
//
// # Testing
//
// Tests and offline examples need no network and no key: runpodtest.NewServer
// starts an in-process fake of the platform with the platform's semantics
// (keys and permissions, rate limits, injected faults), and its NewClient
// returns a Client aimed at it.
package runpod
