package runpod

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/version"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
	"github.com/runpodkit/runpod-go/video"
	"github.com/runpodkit/runpod-go/volumes"
)

// Version is the SDK's version, as sent in the User-Agent.
const Version = version.Version

// Client is a RunPod API client. It is safe for concurrent use; make one
// and share it.
type Client struct {
	// Billing reads billing history: serverless endpoints, the account
	// summary, pods, public endpoints, network volumes and clusters.
	Billing *billing.Service
	// Serverless manages serverless endpoints, runs jobs on queue-based
	// endpoints and public models, and sends requests to load-balancing
	// endpoints.
	Serverless *serverless.Service
	// Video generates videos with the public image-to-video models.
	Video *video.Service
	// Pods manages pods and tells their proxy URLs and TCP addresses.
	Pods *pods.Service
	// OpenAI talks to the OpenAI-compatible route of endpoints.
	OpenAI *openai.Service
	// Templates manages pod and serverless templates.
	Templates *templates.Service
	// Volumes manages network volumes.
	Volumes *volumes.Service
	// Registries manages container registry credentials and ECR
	// delegations.
	Registries *registries.Service
	// Catalog lists GPU types, CPU types, data centers and public
	// templates.
	Catalog *catalog.Service
	// Clusters manages instant clusters.
	Clusters *clusters.Service
	// Account reads and changes account settings (SSH keys).
	Account *account.Service

	t *transport.Transport
}

// NewClient returns a Client configured from the RUNPOD_* environment
// variables and then opts. It fails with ErrNoAPIKey when no key is set,
// and with a *ValidationError naming the option or variable when a URL or
// host is invalid.
func NewClient(opts ...Option) (*Client, error) {
	s := defaults()
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	if s.apiKey.IsZero() {
		return nil, errs.ErrNoAPIKey
	}
	if err := validKey(s.apiKeyFrom, s.apiKey.Reveal()); err != nil {
		return nil, err
	}
	var err error
	if s.cfg.BaseURL, err = parseHostURL(s.baseFrom, s.baseURL); err != nil {
		return nil, err
	}
	if s.cfg.InferenceURL, err = parseHostURL(s.inferenceFrom, s.inferenceURL); err != nil {
		return nil, err
	}
	if s.cfg.ProxyHost, err = validHost(s.proxyFrom, s.proxyHost); err != nil {
		return nil, err
	}
	s.cfg.APIKey = s.apiKey
	t := transport.New(s.cfg)
	sl := link.Serverless(t).(*serverless.Service)
	return &Client{
		Billing:    link.Billing(t).(*billing.Service),
		Serverless: sl,
		Video:      link.Video(t, sl).(*video.Service),
		Pods:       link.Pods(t).(*pods.Service),
		OpenAI:     link.OpenAI(t).(*openai.Service),
		Templates:  link.Templates(t).(*templates.Service),
		Volumes:    link.Volumes(t).(*volumes.Service),
		Registries: link.Registries(t).(*registries.Service),
		Catalog:    link.Catalog(t).(*catalog.Service),
		Clusters:   link.Clusters(t).(*clusters.Service),
		Account:    link.Account(t).(*account.Service),
		t:          t,
	}, nil
}

// RateLimit returns the rate limits the most recent response reported
// (RateLimit and RateLimit-Policy headers), or the zero RateLimit before
// any response carried them.
func (c *Client) RateLimit() RateLimit { return c.t.RateLimit() }

// CloseIdleConnections closes idle connections of the client's pool.
func (c *Client) CloseIdleConnections() { c.t.CloseIdleConnections() }

// Do calls a REST v2 operation the SDK has no typed method for yet. path is
// relative to the base URL and may carry a query, for example
// "/v2/account/ssh-keys". in, when not nil, is encoded as the JSON body;
// a 2xx JSON response is decoded into out when out is not nil. GET, HEAD,
// PUT, DELETE and OPTIONS are retried as idempotent; POST and PATCH are not
// retried after the request may have reached the server.
func (c *Client) Do(ctx context.Context, method, path string, in, out any, opts ...CallOption) error {
	method = strings.ToUpper(method)
	if !transport.ValidMethod(method) {
		return errs.Invalid("method", "want an HTTP method, got %q", method)
	}
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return errs.Invalid("path", "want an absolute path such as /v2/pods, got %q", path)
	}
	var u *url.URL
	if strings.ContainsAny(path, "?#%") {
		ref, err := url.Parse(path)
		if err != nil || ref.Fragment != "" {
			return errs.Invalid("path", "want an absolute path such as /v2/pods, got %q", path)
		}
		u = c.t.BaseURL(ref.Path)
		u.RawQuery = ref.RawQuery
	} else {
		u = c.t.BaseURL(path)
	}
	req := &transport.Request{Method: method, URL: u, Idempotent: idempotentMethod(method)}
	if in != nil {
		var err error
		if req.Body, err = transport.MarshalBody(in); err != nil {
			return err
		}
	}
	return c.t.DoJSON(ctx, req, out, opts...)
}

// Ptr returns a pointer to v, for the optional fields of request types
// where an explicit zero differs from leaving the field out:
//
//	serverless.EndpointParams{WorkersMin: runpod.Ptr(0)}
func Ptr[T any](v T) *T { return &v }

func idempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// String describes the client without its key.
func (c *Client) String() string { return "runpod.Client{" + Version + "}" }

// GoString describes the client without its key.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb, so no verb can reach the key.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue logs the client without its key.
func (c *Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// validKey refuses a key that cannot travel in an HTTP header: one with
// white space, control characters or non-ASCII bytes would fail every
// call, each retried to no end. The message never repeats the key.
func validKey(field, key string) error {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c <= ' ' || c >= 0x7f {
			return errs.Invalid(field, "the API key has a character an HTTP header cannot carry (byte %d of %d: %s)", i+1, len(key), describeByte(c))
		}
	}
	return nil
}

func describeByte(c byte) string {
	switch {
	case c == ' ':
		return "a space"
	case c < ' ' || c == 0x7f:
		return fmt.Sprintf("control character 0x%02x", c)
	default:
		return "a non-ASCII byte"
	}
}
