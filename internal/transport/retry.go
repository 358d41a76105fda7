package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	waitpkg "github.com/runpodkit/runpod-go/internal/wait"
)

// checkRetry applies the retry table, and then waits before the retry
// itself (retryablehttp's own Backoff is zero), because only here are the
// call's context and outcome both known:
//
//	what happened                       idempotent      not idempotent
//	request never left (dial, DNS)      retry           retry
//	429                                 retry after the server-directed wait
//	500/502/503/504, reset or timeout,  retry           no: outcome unknown
//	2xx body cut off while reading
//	501, other 4xx, body too large      no              no
//
// The wait is the server's Retry-After, else the reset of an exhausted
// RateLimit window, else exponential backoff with full jitter. A
// server-directed wait longer than MaxWait, or any wait longer than the
// context has left, stops the retries at once: the caller gets the last
// response (a 429 carrying RetryAfter) or error instead of sleeping
// towards a deadline that would end the call anyway.
func (t *Transport) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	c := callFrom(ctx)
	if c == nil { // not a request built by Do
		return false, err
	}
	var wait time.Duration
	serverAsked := false
	unknown := false // this attempt may have reached the platform and acted
	if err != nil {
		if isPermanent(err) {
			return false, nil
		}
		sent := c.connected.Load() || !isDialError(err)
		unknown = sent
		if sent && !c.idempotent {
			c.ambiguous.Store(true)
			return false, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
	} else {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests:
		case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			unknown = true
			if !c.idempotent {
				c.ambiguous.Store(true)
				return false, nil
			}
		default:
			return false, nil
		}
		if wait, serverAsked = serverWait(resp); serverAsked && wait > t.cfg.MaxWait {
			return false, nil
		}
	}
	if c.retries >= t.cfg.MaxRetries {
		return false, nil
	}
	if !serverAsked {
		wait = waitpkg.Backoff(t.cfg.RetryWaitMin, t.cfg.RetryWaitMax, c.retries)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if wait > time.Until(deadline) {
			c.deadlineCut = true
			return false, nil
		}
		if _, fits := fitHold(c, time.Until(deadline)-wait); !fits {
			c.deadlineCut = true
			return false, nil
		}
	}
	if err := waitpkg.Sleep(ctx, wait); err != nil {
		return false, err
	}
	if unknown {
		c.earlierUnknown = true
	}
	c.retries++
	return true, nil
}

// fitHold returns the hold a long poll (Request.Hold) may ask for when
// left has to cover it and the answer's margin, and whether that reaches
// its MinHold. A request that is not a long poll always fits.
func fitHold(c *call, left time.Duration) (time.Duration, bool) {
	if c.hold <= 0 || c.holdParam == "" {
		return c.hold, true
	}
	margin := waitpkg.AnswerMargin(left)
	hold := min(c.hold, left-margin).Truncate(time.Millisecond)
	return hold, hold >= max(c.minHold, time.Millisecond)
}

// refitHold is retryablehttp's PrepareRetry: a retried long poll asks for
// the hold that still fits in its context (checkRetry made sure one does).
func refitHold(req *http.Request) error {
	c := callFrom(req.Context())
	deadline, ok := req.Context().Deadline()
	if c == nil || !ok || c.holdParam == "" {
		return nil
	}
	hold, _ := fitHold(c, time.Until(deadline))
	u := *req.URL
	q := u.Query()
	q.Set(c.holdParam, strconv.FormatInt(hold.Milliseconds(), 10))
	u.RawQuery = q.Encode()
	req.URL = &u
	return nil
}

// noBackoff is retryablehttp's Backoff: checkRetry has already waited.
func noBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// serverWait is the wait the response asks for, if any.
func serverWait(resp *http.Response) (time.Duration, bool) {
	return errs.ServerWait(resp.Header, time.Now())
}

// isDialError reports whether err happened before any byte of the request
// could have left: resolving the host or opening the connection.
func isDialError(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect")
}

// isPermanent reports failures that another attempt cannot fix.
func isPermanent(err error) bool {
	var big *tooLargeError
	if errors.Is(err, errs.ErrInsecureURL) || errors.As(err, &big) {
		return true
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuthority) ||
		errors.As(err, &hostnameErr) || errors.As(err, &invalidCert)
}
