// Package errs defines the SDK's error types: every call of every surface
// either succeeds or returns one of them, matched with errors.Is and
// errors.As. They live here alone, under one name each; the root package's
// documentation sums them up.
//
// # What happened, and whether it was retried
//
// Idempotent calls are reads (GET, GraphQL queries, job status,
// status-sync, health) and the calls whose repetition changes nothing (an
// update of fixed values, a delete, a job cancel). Other calls run, create,
// mutate or act.
//
//   - A bad argument: a *ValidationError (ErrValidation) naming the field;
//     nothing was sent.
//   - The request never left (connection refused, DNS): a *TransportError;
//     retried, whatever the call.
//   - 429 Too Many Requests: an *APIError matching ErrRateLimited, with
//     RetryAfter and the RateLimit windows; retried after the server's wait,
//     whatever the call. A server that asks for a wait longer than
//     option.WithMaxWait, or longer than the context has left, gets its 429
//     back at once, RetryAfter carrying the wait it asked for.
//   - 500, 502, 503, 504: an *APIError; an idempotent call is retried with
//     backoff, any other is not and matches ErrOutcomeUnknown.
//   - A pod or cluster create (or a pod start) answered with a known
//     stock-out or no-matching-host message (a 500 or a 4xx): a
//     *CapacityError matching ErrNoCapacity; nothing was created, so it is
//     not ErrOutcomeUnknown, and it is not retried.
//   - A reset or a timeout after sending, including a 2xx body cut off while
//     it arrives: a *TransportError; an idempotent call is retried with
//     backoff, any other is not and matches ErrOutcomeUnknown.
//   - A 2xx body larger than option.WithMaxResponseBytes (64 MiB by
//     default): a *ResponseError matching ErrResponseTooLarge, refused as it
//     arrives (costing about the limit in memory). A 2xx body that is not
//     the JSON expected (an HTML page from a proxy, JSON cut short by the
//     server): a *ResponseError with the status, Content-Type and an
//     excerpt. Neither is retried; for a call that is not idempotent both
//     also match ErrOutcomeUnknown.
//   - 401, 403, 404: an *APIError matching ErrUnauthorized, ErrForbidden or
//     ErrNotFound; a 403 names the API key scope the operation requires
//     (RequiredScope) where the platform's document gives one. 501 and the
//     other 4xx: an *APIError. None is retried.
//   - A GraphQL answer with errors[]: a *GraphQLError keeping every
//     message, path and extension; not retried.
//   - A list whose pages do not chain: a *PaginationError (ErrPagination).
//   - The context cancelled or past its deadline: a *TransportError wrapping
//     ctx.Err(); every wait ends with the context.
//   - A local copy (a volume's files, a pod's files) given a remote name
//     that is not a plain relative path, or finding a symbolic link in its
//     target: an *UnsafePathError (ErrUnsafePath) naming it; nothing was
//     written for it.
//
// ErrOutcomeUnknown means that a call that is not safe to repeat may or
// may not have taken effect: the SDK never sends it twice, so check the
// platform before trying again.
//
// An *APIError decodes application/problem+json (Title, Detail, Errors)
// and keeps a short, capped excerpt of any other body; RetryAfter carries
// the server's wait from Retry-After or an exhausted RateLimit window. No
// error carries the API key: a key the server echoes back, as sent or
// URL-escaped, is replaced by [REDACTED] in an APIError (Body, Excerpt,
// Detail, Errors, RequestID), a GraphQLError, a ResponseError and a wrapped
// transport error.
package errs
