package files

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"

	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/ratelimit"
)

// RoutePrefix begins the route (option.Route, option.Attempt.Route) of an
// S3 request of this package: "s3:" and the S3 operation, such as
// "s3:PutObject".
const RoutePrefix = "s3:"

// hooked is the HTTP client of the S3 client. It redacts the S3 secret
// from every error, and, when the Config has middleware or attempt
// hooks, sends every S3 request through the
// Config's middleware, first outermost, and every attempt is reported to
// its attempt hooks, as the SDK's other calls are. The AWS client signs a
// request and retries it above this layer, so the middleware sees each
// attempt, signed (its Authorization header holds the access key id and
// a signature, never the secret), and its next sends that one attempt.
type hooked struct {
	base   *http.Client
	mw     []option.Middleware
	hooks  []option.AttemptHook
	secret func() string
}

// Do sends one attempt of an S3 request through the middleware; an error
// has the S3 secret redacted, whatever quoted it (a proxy, a transport).
func (h *hooked) Do(req *http.Request) (*http.Response, error) {
	if len(h.mw) == 0 && len(h.hooks) == 0 {
		resp, err := h.base.Do(req)
		if err != nil {
			return nil, h.redact(err)
		}
		return resp, nil
	}
	ctx := req.Context()
	route := RoutePrefix + awsmiddleware.GetOperationName(ctx)
	req = req.WithContext(option.ContextWithRoute(ctx, route))
	number := attemptNumber(req.Header.Get("Amz-Sdk-Request"))
	next := func(r *http.Request) (*http.Response, error) { return h.attempt(r, route, number) }
	for i := len(h.mw) - 1; i >= 0; i-- {
		mw, inner := h.mw[i], next
		next = func(r *http.Request) (*http.Response, error) { return mw(r, inner) }
	}
	resp, err := next(req)
	if err == nil && resp == nil {
		err = errors.New("runpod: middleware returned no response")
	}
	if err != nil {
		return nil, h.redact(err)
	}
	return resp, nil
}

// attempt sends r with the base client and reports it to the hooks.
func (h *hooked) attempt(r *http.Request, route string, number int) (*http.Response, error) {
	start := time.Now()
	resp, err := h.base.Do(r)
	took := time.Since(start)
	if err != nil {
		err = h.redact(err)
	}
	if len(h.hooks) > 0 {
		a := option.Attempt{Method: r.Method, Route: route, Number: number, Err: err, Duration: took}
		if resp != nil {
			a.StatusCode = resp.StatusCode
			a.RequestID = resp.Header.Get("X-Amz-Request-Id")
			a.RateLimit = ratelimit.Parse(resp.Header, start.Add(took))
			switch resp.StatusCode {
			case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
				a.OutcomeUnknown = true
			}
		} else {
			a.OutcomeUnknown = !notSent(err)
		}
		for _, hook := range h.hooks {
			hook(r.Context(), a)
		}
	}
	return resp, err
}

// redact returns err with every spelling of the S3 secret replaced.
func (h *hooked) redact(err error) error {
	if s := h.secret(); s != "" {
		return redact.Error(err, s)
	}
	return err
}

// attemptNumber reads the attempt's number from the AWS client's
// amz-sdk-request header ("attempt=2; max=10"); 1 without one.
func attemptNumber(header string) int {
	for part := range strings.SplitSeq(header, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "attempt="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return n
			}
		}
	}
	return 1
}

// notSent reports failures after which the request cannot have reached
// the platform: it was refused before sending, a dial or a TLS
// verification failed.
func notSent(err error) bool {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	return errors.As(err, &dnsErr) || (errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect")) ||
		errors.As(err, &certErr) || errors.As(err, &unknownAuthority) || errors.As(err, &hostnameErr)
}
