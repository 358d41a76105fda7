// Package webhook authenticates the job-completion webhooks of RunPod
// serverless endpoints, which the platform does not sign.
//
// When a job is submitted with RunParams.Webhook, the platform POSTs the
// finished job's status JSON (what Queue.Status returns) to that URL, and
// tries twice more, 10 seconds apart, until it is answered 200. It adds
// no signature and no header of its own, so the one thing a receiver can
// trust is a secret in the URL itself. A Signer, keyed with a secret of
// yours, mints a URL per submission that carries an HMAC-SHA256 token
// (Signer.URL says exactly what it signs), and verifies the deliveries
// that come back to it:
//
//	signer, err := webhook.NewSigner([]byte(os.Getenv("WEBHOOK_SECRET"))) // 32 bytes or more
//
//	// Submitting:
//	hook, err := signer.URL("https://example.com/runpod/done", webhook.ForEndpoint(endpointID))
//	job, err := rp.Serverless.Queue(endpointID).Run(ctx, serverless.RunParams{Input: in, Webhook: hook})
//
//	// Receiving:
//	http.Handle("POST /runpod/done", signer.Handler(func(ctx context.Context, job *serverless.Job) error {
//		return save(ctx, job) // an error answers 500: the platform delivers again
//	}))
//
// Handler answers 200 for a delivery it accepted and for a duplicate, 503
// for one whose handler is still running, and 401, 403, 405, 413 or 400
// for one it refused; Verify is the same check for a handler of your
// own, its refusals typed (*Error, with a Reason matched by errors.Is
// against ErrForged, ErrExpired, ErrDuplicate, ErrInProgress, …).
//
// # What it protects against, and what not
//
// The token proves that the URL was minted with your secret, for this
// path, and has not expired. It is not a signature over the body, which
// the platform does not sign: whoever sees the URL can post a body of
// their choosing to it until the token expires: the platform; the
// endpoint's workers, which are handed the job with its webhook; whoever
// can read the job's submission (your own logs of it); and whatever
// records URLs on the way (proxies and load balancers that log query
// strings). So:
//
//   - Use https: Signer.URL refuses plain http except to a loopback host,
//     since the token would cross the network in clear.
//   - Keep the expiry no longer than your jobs need (DefaultExpiry,
//     WithExpiry, ValidFor), and mint a new URL for every job.
//   - Each accepted delivery is recorded (a SeenStore, in memory by
//     default) under the URL's nonce, the job's id and its status: first
//     as being handled, then as handled once your function returned nil.
//     The platform's retry of a delivery whose handler still runs is
//     answered 503, so that if the handler then fails the platform
//     delivers once more and the job is not lost; retries and replays of
//     a handled delivery are answered 200 as duplicates and never run
//     your handler twice. The in-memory store remembers the last
//     DefaultMaxSeen handled deliveries of one process, each until its
//     token expires: a replay of one it has forgotten (a restart, or more
//     deliveries than that within a token's lifetime) runs your handler
//     again. Where that must not happen, give the Signer a persistent,
//     shared SeenStore (WithSeenStore).
//
// When acting on a result matters (billing, publishing), confirm it with
// the platform, which answers only your API key: bind the URL to its
// endpoint with ForEndpoint, and read the job's status back. The platform
// keeps a /run result for 30 minutes, so confirm promptly:
//
//	signer.Handler(func(ctx context.Context, job *serverless.Job) error {
//		tok, _ := webhook.TokenFrom(ctx)
//		confirmed, err := rp.Serverless.Queue(tok.EndpointID).Status(ctx, job.ID)
//		if err != nil {
//			return err // 500: the platform delivers again
//		}
//		return save(ctx, confirmed) // what the platform says, not what was posted
//	})
//
// A job id that is not the endpoint's is then a 404 (errs.ErrNotFound),
// not a result.
//
// serverless.ReadWebhook is the unauthenticated reader this package
// replaces: it decodes a delivery and checks nothing. Use it only behind
// another check of your own.
//
// # What "once" means
//
// The platform retries any answer but 200 twice, 10 s apart, then never
// again. Keep the function well under 20 s (hand long work to a durable
// queue): a failure on the platform's last attempt is final. The token is
// checked, in constant time, before the body is read; the body is capped
// (WithMaxBody: 21 MiB, the platform posts results up to 20 MB); tokens
// last 25 hours by default (WithExpiry, per URL ValidFor), since a job may
// queue and run for its 24-hour default TTL. Receivers behind a load
// balancer, or that must never act twice, give one shared, persistent
// SeenStore (WithSeenStore; with Redis, Claim is SET NX PX, Done is SET
// PXAT, Forget is DEL).
//
// # Tests
//
// NewRequest builds the request the platform sends, to a URL from
// Signer.URL (a genuine delivery) or Signer.ForgedURL (a forgery), so a
// receiver can be tested without the platform; runpodtest's fake platform
// delivers webhooks too (to loopback receivers), retries included.
package webhook
