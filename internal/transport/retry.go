package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/internal/errs"
	"github.com/runpodkit/runpod-go/internal/ratelimit"
)

// checkRetry applies the retry table of DESIGN.md:
//
//	what happened                       idempotent      not idempotent
//	request never left (dial, DNS)      retry           retry
//	429                                 retry after the server-directed wait
//	500/502/503/504, reset or timeout   retry           no: outcome unknown
//	501, other 4xx                      no              no
//
// A server-directed wait longer than MaxWait stops the retries at once, so
// the caller gets the 429 (or 5xx) as an error carrying RetryAfter.
func (t *Transport) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	c := callFrom(ctx)
	if c == nil { // not a request built by Do
		return false, err
	}
	if err != nil {
		if isPermanent(err) {
			return false, nil
		}
		sent := c.connected.Load() || !isDialError(err)
		if sent && !c.idempotent {
			c.ambiguous.Store(true)
			return false, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !c.idempotent {
			c.ambiguous.Store(true)
			return false, nil
		}
	default:
		return false, nil
	}
	if wait, ok := serverWait(resp); ok && wait > t.cfg.MaxWait {
		return false, nil
	}
	return true, nil
}

// backoff returns the wait before the next attempt: the server's
// Retry-After, else the reset of an exhausted RateLimit window, else
// exponential backoff with full jitter.
func (t *Transport) backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if wait, ok := serverWait(resp); ok {
			return wait
		}
	}
	return jitter(lo, hi, attempt)
}

// jitter returns a uniformly random wait in [0, min(hi, lo·2^attempt)].
func jitter(lo, hi time.Duration, attempt int) time.Duration {
	ceiling := hi
	if attempt < 62 {
		if d := lo << attempt; d > 0 && d < hi {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// serverWait is the wait the response asks for, if any.
func serverWait(resp *http.Response) (time.Duration, bool) {
	now := time.Now()
	if d, ok := ratelimit.RetryAfter(resp.Header.Get("Retry-After"), now); ok {
		return d, true
	}
	return ratelimit.Parse(resp.Header, now).ExhaustedWait()
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
	if errors.Is(err, errs.ErrInsecureURL) {
		return true
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuthority) ||
		errors.As(err, &hostnameErr) || errors.As(err, &invalidCert)
}
