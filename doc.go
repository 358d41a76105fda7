// Package runpod is a typed Go SDK for the RunPod GPU/CPU compute platform.
//
// One Client serves every surface of the platform through one HTTP
// pipeline (credentials, retries, rate limits, typed errors):
//
//	rp, err := runpod.NewClient() // key and hosts from RUNPOD_* or options
//	if err != nil { … }
//	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 7})
//
// The surfaces are rp.Billing (package billing), rp.Serverless (endpoints
// and jobs, package serverless), rp.Video, rp.Pods and rp.OpenAI. Every
// method takes the context first and call options last (CallOption, from
// package option): runpod.WithResponseInto(&info) fills the status,
// headers, request id, attempt count and rate limits of the call's final
// response; several observers may watch one call.
//
// # Errors
//
// Every call either succeeds or returns one of these; match them with
// errors.Is and errors.As (the types live in package errs):
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
//   - ErrOutcomeUnknown: a call that is not safe to repeat (run a job,
//     create an endpoint or a pod, a mutation) failed after its request
//     may have reached the platform. The SDK never sends it twice; check
//     the platform's state before trying again.
//
// # Retries
//
// A call is retried (at most WithMaxRetries times, 3 by default) when:
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
// Bearer header (for GraphQL, as the api_key query parameter, added after
// every layer that logs), never over plain http to a host that is not
// loopback, and never to another origin on a redirect. NewClient refuses a
// key with white space, control characters or non-ASCII bytes.
//
// Package runpodtest runs an in-process fake of the platform, for tests
// and offline examples.
package runpod
