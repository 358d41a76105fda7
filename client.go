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
	"github.com/runpodkit/runpod-go/globalvolumes"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/version"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/ratelimit"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/sandboxes"
	"github.com/runpodkit/runpod-go/secrets"
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
	// GlobalVolumes manages global volumes (beta): storage not tied to a
	// data center, mounted by GPU serverless endpoints.
	GlobalVolumes *globalvolumes.Service
	// Secrets manages account secrets, which templates, pods and
	// endpoints refer to from their environment (secrets.Ref).
	Secrets *secrets.Service
	// Registries manages container registry credentials and ECR
	// delegations.
	Registries *registries.Service
	// Sandboxes creates isolated CPU sandboxes for untrusted code, runs
	// commands in them, streams their logs and terminates them.
	Sandboxes *sandboxes.Service
	// Catalog lists GPU types, CPU types, data centers and public
	// templates.
	Catalog *catalog.Service
	// Clusters manages instant clusters.
	Clusters *clusters.Service
	// Account reads and changes account settings (SSH keys).
	Account *account.Service

	cfg option.Config
	t   *transport.Transport
}

// NewClient returns a Client configured from the RUNPOD_* environment
// variables and then opts (option.NewConfig). The API key is the first
// of: an option (option.WithAPIKey, option.WithProfile), RUNPOD_API_KEY,
// and the key `rp login` saved in ~/.runpod/config.toml (the profile
// RUNPOD_PROFILE names, else "default"). It fails with an error matching
// errs.ErrNoAPIKey when none gives a key (saying where it looked), with
// a *option.ProfileError when the profile file cannot give the key it
// was asked for (never falling back), and with a *errs.ValidationError
// naming the option or variable when a URL, host or key is invalid. Its
// services share one Config: one connection pool, one rate-limit Tracker,
// the same options.
func NewClient(opts ...option.RequestOption) (*Client, error) {
	cfg, err := option.NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	sl := serverless.NewFromConfig(cfg)
	return &Client{
		Billing:       billing.NewFromConfig(cfg),
		Serverless:    sl,
		Video:         video.NewFromConfig(cfg),
		Pods:          pods.NewFromConfig(cfg),
		OpenAI:        openai.NewFromConfig(cfg),
		Templates:     templates.NewFromConfig(cfg),
		Volumes:       volumes.NewFromConfig(cfg),
		GlobalVolumes: globalvolumes.NewFromConfig(cfg),
		Secrets:       secrets.NewFromConfig(cfg),
		Registries:    registries.NewFromConfig(cfg),
		Sandboxes:     sandboxes.NewFromConfig(cfg),
		Catalog:       catalog.NewFromConfig(cfg),
		Clusters:      clusters.NewFromConfig(cfg),
		Account:       account.NewFromConfig(cfg),
		cfg:           cfg,
		t:             transport.New(cfg),
	}, nil
}

// Config returns the configuration the client's services were built from.
func (c *Client) Config() option.Config { return c.cfg }

// RateLimit returns the rate limits the most recent response reported
// (RateLimit and RateLimit-Policy headers), or the zero RateLimit before
// any response carried them.
func (c *Client) RateLimit() ratelimit.RateLimit { return c.t.RateLimit() }

// CloseIdleConnections closes idle connections of the client's pool.
func (c *Client) CloseIdleConnections() { c.t.CloseIdleConnections() }

// Do calls a REST v2 operation the SDK has no typed method for yet. path is
// relative to the base URL and may carry a query, for example
// "/v2/account/ssh-keys". in, when not nil, is encoded as the JSON body;
// a 2xx JSON response is decoded into out when out is not nil. GET, HEAD,
// PUT, DELETE and OPTIONS are retried as idempotent; POST and PATCH are not
// retried after the request may have reached the server.
func (c *Client) Do(ctx context.Context, method, path string, in, out any, opts ...option.RequestOption) error {
	method = strings.ToUpper(method)
	if !transport.ValidMethod(method) {
		return fail.Invalid("method", "want an HTTP method, got %q", method)
	}
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return fail.Invalid("path", "want an absolute path such as /v2/pods, got %q", path)
	}
	var u *url.URL
	if strings.ContainsAny(path, "?#%") {
		ref, err := url.Parse(path)
		if err != nil || ref.Fragment != "" {
			return fail.Invalid("path", "want an absolute path such as /v2/pods, got %q", path)
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
//	serverless.EndpointWorkers{Min: runpod.Ptr(0)}
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
