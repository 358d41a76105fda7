// Package option configures the SDK: the Config every service is built
// from, and the RequestOptions that set it, accepted alike by
// runpod.NewClient, by a surface's constructor and by every call:
//
//	rp, err := runpod.NewClient(option.WithMaxRetries(5))
//	pod, err := rp.Pods.Get(ctx, id, option.WithMaxRetries(0), option.WithRequestTimeout(10*time.Second))
//
// A RequestOption given to a call applies to that call only, on top of
// the client's. Options that say what the client talks to (the API key,
// the hosts, the HTTP client) configure a client; a call given one fails
// with a *errs.ValidationError before anything is sent.
//
// A surface can be used alone, built from a Config:
//
//	cfg, err := option.NewConfig(option.WithAPIKey(key))
//	pods := pods.NewFromConfig(cfg)
//
// NewConfig reads the RUNPOD_* environment variables first; options win
// over them. Invalid URLs or hosts are a *errs.ValidationError naming the
// option or variable, and plain http:// is accepted only for loopback
// hosts, so credentials never travel in clear.
//
// # The options
//
// What a client talks to (each "configures a client"); given to a call,
// each fails it with a *errs.ValidationError before anything is sent:
//
//   - WithAPIKey (RUNPOD_API_KEY; then the rp CLI's profile file,
//     ~/.runpod/config.toml, profile RUNPOD_PROFILE or "default"; none:
//     errs.ErrNoAPIKey): the API key, sent as Authorization: Bearer, to
//     GraphQL too. WithProfile reads it from a named profile of that file
//     instead (see NewConfig for the order and the errors).
//   - WithBaseURL (RUNPOD_BASE_URL; https://api.runpod.io): the REST v2 and
//     GraphQL host.
//   - WithInferenceURL (RUNPOD_INFERENCE_URL; https://api.runpod.ai): the
//     host of endpoints and public models.
//   - WithProxyHost (RUNPOD_PROXY_HOST; proxy.runpod.net): the host of pods'
//     HTTP proxy URLs.
//   - WithS3Credentials (RUNPOD_S3_ACCESS_KEY and RUNPOD_S3_SECRET_KEY, or
//     AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and WithS3URL: the S3 API
//     key and host of network volumes' files.
//   - WithHTTPClient (a pooled transport): the base *http.Client (its
//     Transport, Jar, Timeout, CheckRedirect), never modified;
//     WithMaxIdleConnsPerHost (256) sizes the default transport's pool.
//   - WithDialer: how the TCP connections outside HTTP are opened (SSH to
//     pods, package pods/podssh).
//   - WithGraphQLQueryKey (off): send the key to GraphQL as ?api_key=, the
//     platform's GraphQL documentation's form (added last, never logged),
//     instead of a Bearer header.
//
// How calls behave; given to a call, each applies to it alone, on top of
// the client's:
//
//   - WithMaxRetries (3; 0 turns retries off), WithBackoff (500 ms to 8 s,
//     exponential with full jitter), WithMaxWait (1 min: the longest
//     server-directed wait, Retry-After or an exhausted RateLimit window,
//     slept through).
//   - WithRequestTimeout (none): the bound of each attempt, from sending to
//     the end of its body; the context bounds the whole call.
//   - WithPollInterval (2 s, DefaultPollInterval): the pause between the
//     checks of a wait whose Poll.Interval is zero.
//   - WithPageSize (the platform's 1000): the items per page of a list.
//   - WithMaxResponseBytes (64 MiB): the largest successful body read; a
//     larger one is refused as it arrives (errs.ErrResponseTooLarge).
//   - WithLogger (discard): a *slog.Logger, one line per attempt (method,
//     path without query, status, attempt, duration, request id).
//   - WithUserAgent: a suffix to runpod-go/<version> (<os>/<arch>; <go
//     version>). WithHeader: a header on every request (not Authorization:
//     the key is added after every middleware).
//   - WithMiddleware, WithAttemptHook, WithResponseInto: below.
//
// # Middleware, hooks and responses
//
// A Middleware wraps a call: it sees the request as the SDK built it,
// before the key is added (the key is added to each attempt after every
// middleware, so none can see or log it), and its next sends it with the
// SDK's retries and returns the final response, whose body it may read or
// replace. Middlewares run in the order given, the client's first. Route
// names a call's route template (/v2/pods/{podId}) from its request's
// context. An AttemptHook (WithAttemptHook) sees every attempt of a call;
// WithResponseInto fills a ResponseInfo with the final response's status,
// headers, request id, attempts and rate limits. OpenTelemetry tracing is
// built on these two alone, in the separate module
// github.com/runpodkit/runpod-go/otel. Poll tunes every wait of the SDK.
package option
