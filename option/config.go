package option

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/ratelimit"
	"github.com/runpodkit/runpod-go/secret"
)

// Default hosts, used when neither an option nor the environment sets them.
const (
	// DefaultBaseURL is the host of the REST v2 and GraphQL APIs
	// (WithBaseURL).
	DefaultBaseURL = "https://api.runpod.io"
	// DefaultInferenceURL is the host that serves endpoints' jobs, the
	// OpenAI-compatible routes, load-balancing endpoints (as subdomains)
	// and the public models (WithInferenceURL).
	DefaultInferenceURL = "https://api.runpod.ai"
	// DefaultProxyHost is the host of pods' HTTP proxy URLs
	// (WithProxyHost).
	DefaultProxyHost = "proxy.runpod.net"
)

// Environment variables NewConfig reads. Options override them.
const (
	// EnvAPIKey holds the API key (WithAPIKey); surrounding white space is
	// trimmed, and a blank value is taken as unset.
	EnvAPIKey = "RUNPOD_API_KEY"
	// EnvBaseURL overrides DefaultBaseURL (WithBaseURL); empty means unset.
	EnvBaseURL = "RUNPOD_BASE_URL"
	// EnvInferenceURL overrides DefaultInferenceURL (WithInferenceURL);
	// empty means unset.
	EnvInferenceURL = "RUNPOD_INFERENCE_URL"
	// EnvProxyHost overrides DefaultProxyHost (WithProxyHost); empty means
	// unset.
	EnvProxyHost = "RUNPOD_PROXY_HOST"
)

// Defaults of the retry policy and the limits.
const (
	// DefaultMaxRetries is how many times a failed call is retried.
	DefaultMaxRetries = 3
	// DefaultRetryWaitMin and DefaultRetryWaitMax bound the exponential
	// backoff between retries.
	DefaultRetryWaitMin = 500 * time.Millisecond
	DefaultRetryWaitMax = 8 * time.Second
	// DefaultMaxWait caps a wait the server asks for.
	DefaultMaxWait = time.Minute
	// DefaultMaxIdleConnsPerHost sizes the connection pool NewConfig makes.
	DefaultMaxIdleConnsPerHost = 256
	// DefaultMaxResponseBytes caps a successful body read whole (64 MiB).
	DefaultMaxResponseBytes = 64 << 20
	// DefaultPollInterval is the pause between checks of every wait whose
	// Poll.Interval is zero, on a client without WithPollInterval.
	DefaultPollInterval = 2 * time.Second
)

// Bounds of the lists the REST v2 API returns in pages.
const (
	// MaxPageSize is the most items a page may hold: the platform's
	// largest limit, and its default (WithPageSize).
	MaxPageSize = 1000
	// MaxListPages is the most pages the SDK reads of one list: a list
	// whose answers still say a next page follows after that many fails
	// with errs.ErrTooManyPages. At the platform's default page size that
	// is ten million items.
	MaxListPages = 10000
)

// RequestOption sets part of a Config. runpod.NewClient, NewConfig, the
// surfaces' constructors and every call take them; options apply in
// order, so a later one wins.
type RequestOption func(*Config) error

// Config is the configuration every service of the SDK is built from and
// every call runs with. NewConfig makes one from the environment and
// options; the services built from one Config share its connection pool
// (HTTPClient) and its rate-limit Tracker. A Config built by hand works
// too: its zero fields mean the defaults, and Validate checks it.
//
// A Config prints and encodes without its key (APIKey is a
// secret.String); its functions are left out of JSON.
type Config struct {
	// APIKey authenticates every request (WithAPIKey, RUNPOD_API_KEY).
	APIKey secret.String `json:"-"`
	// BaseURL is the host of the REST v2 and GraphQL APIs; empty means
	// DefaultBaseURL.
	BaseURL string
	// InferenceURL is the host of endpoints' jobs, the OpenAI-compatible
	// routes and the public models; empty means DefaultInferenceURL.
	InferenceURL string
	// ProxyHost is the host of pods' HTTP proxy URLs; empty means
	// DefaultProxyHost.
	ProxyHost string
	// S3URL is the S3 endpoint of network volumes' files, "{dc}" standing
	// for the data center id in lower case; empty means DefaultS3URL.
	S3URL string
	// S3AccessKey is the access key of the S3 API key
	// (WithS3Credentials): the account's user id (user_…). Only the files
	// on network volumes use it.
	S3AccessKey string
	// S3SecretKey is the secret of the S3 API key (rps_…), never printed.
	S3SecretKey secret.String `json:"-"`
	// HTTPClient supplies the base RoundTripper, cookie jar, per-attempt
	// timeout and redirect policy under the SDK's own layers. NewConfig
	// fills it with a pooled client sized by MaxIdleConnsPerHost when it
	// is nil, so the services built from the Config share one pool.
	HTTPClient *http.Client `json:"-"`
	// MaxIdleConnsPerHost sizes the pool NewConfig makes; zero means
	// DefaultMaxIdleConnsPerHost.
	MaxIdleConnsPerHost int
	// Logger receives one line per attempt; nil discards them.
	Logger *slog.Logger `json:"-"`
	// UserAgent is appended to the SDK's User-Agent.
	UserAgent string
	// MaxRetries is how many times a failed call may be retried: negative
	// means DefaultMaxRetries, zero none.
	MaxRetries int
	// RetryWaitMin and RetryWaitMax bound the exponential backoff with
	// full jitter between retries; zero means the defaults.
	RetryWaitMin, RetryWaitMax time.Duration
	// MaxWait caps a wait the server asks for (Retry-After, an exhausted
	// RateLimit window): when it asks for longer, the call fails at once.
	// Zero means DefaultMaxWait.
	MaxWait time.Duration
	// RequestTimeout bounds each attempt, from sending the request to the
	// end of its body; zero leaves it to the context and HTTPClient.
	RequestTimeout time.Duration
	// MaxResponseBytes caps a successful body read whole; zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// PollInterval is the pause of every wait whose Poll.Interval is zero;
	// zero means DefaultPollInterval.
	PollInterval time.Duration
	// PageSize is how many items each page of a list asks for (the
	// limit query parameter), 1 to MaxPageSize; zero sends none, and the
	// platform's default applies (MaxPageSize).
	PageSize int
	// GraphQLQueryKey sends the key to the GraphQL API as the api_key
	// query parameter instead of the Authorization header.
	GraphQLQueryKey bool
	// Header holds headers added to every request.
	Header http.Header
	// Middleware wraps every call, first outermost.
	Middleware []Middleware `json:"-"`
	// AttemptHooks see every attempt of every call.
	AttemptHooks []AttemptHook `json:"-"`
	// ResponseInto receives the metadata of each call's final response.
	ResponseInto []*ResponseInfo `json:"-"`
	// Dialer opens the TCP connections the SDK makes outside HTTP: SSH to
	// pods (package pods/podssh). Nil means a net.Dialer. HTTP requests
	// go through HTTPClient and do not use it.
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error) `json:"-"`
	// RateLimits records the rate limits responses report
	// (runpod.Client.RateLimit reads it). NewConfig makes one; nil means
	// none is kept.
	RateLimits *ratelimit.Tracker `json:"-"`

	// Where the key and the hosts came from, for error messages.
	keyFrom, baseFrom, inferenceFrom, proxyFrom, s3URLFrom, s3KeyFrom string
	// The profile of the rp profile file to read the key from, and who
	// named it (WithProfile, RUNPOD_PROFILE; "" for DefaultProfile).
	profile, profileFrom string
	// clientSet names the last option applied that configures a client
	// (WithAPIKey, WithDialer, …): ForCall refuses a call's.
	clientSet string
}

// setsClient records that the option name, which configures a client,
// was applied.
func (c *Config) setsClient(name string) { c.clientSet = name }

// ForCall returns the Config of one call: c with opts applied on top, in
// order. An option that configures a client (WithAPIKey, WithBaseURL,
// WithInferenceURL, WithProxyHost, WithS3URL, WithS3Credentials,
// WithHTTPClient, WithDialer, WithMaxIdleConnsPerHost,
// WithGraphQLQueryKey) is refused with a *errs.ValidationError naming
// it, as is the first option that fails.
func (c Config) ForCall(opts ...RequestOption) (Config, error) {
	c.clientSet = ""
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c); err != nil {
			return Config{}, err
		}
		if c.clientSet != "" {
			return Config{}, &errs.ValidationError{Field: c.clientSet, Message: "configures a client (option.NewConfig, runpod.NewClient), not one call"}
		}
	}
	return c, nil
}

// NewConfig returns a Config made from the RUNPOD_* environment
// variables, then opts, with a pooled HTTP client and a rate-limit
// Tracker, and validated. It fails with a *errs.ValidationError naming
// the option or variable of a URL, host or key that is not valid.
//
// The API key is the first of:
//
//  1. the options: WithAPIKey, or WithProfile (a profile of the rp
//     CLI's file), whichever comes last;
//  2. RUNPOD_API_KEY, when set and not blank;
//  3. the rp CLI's profile file, ~/.runpod/config.toml (see
//     ProfilePath), as `rp login` writes it: the api_key of the profile
//     RUNPOD_PROFILE names, else of DefaultProfile ("default").
//
// The file is read only when neither of the first two gives a key. When
// it is not there, or has no [default] profile, and no profile was named,
// NewConfig fails with an error matching errs.ErrNoAPIKey that says where
// it looked. Any other failure of the file is a *ProfileError (matching
// ErrProfile) naming the file and the profile, never the key: a file that
// cannot be read, is not TOML, may be written by other users, or lacks
// the profile that WithProfile or RUNPOD_PROFILE named (or its api_key).
// It never falls back to another source then.
func NewConfig(opts ...RequestOption) (Config, error) {
	c := Config{MaxRetries: -1}
	if v := strings.TrimSpace(os.Getenv(EnvAPIKey)); v != "" {
		c.APIKey, c.keyFrom = secret.NewString(v), EnvAPIKey
	}
	if v := strings.TrimSpace(os.Getenv(EnvProfile)); v != "" {
		c.profile, c.profileFrom = v, EnvProfile // checked when it is used
	}
	if v := os.Getenv(EnvBaseURL); v != "" {
		c.BaseURL, c.baseFrom = v, EnvBaseURL
	}
	if v := os.Getenv(EnvInferenceURL); v != "" {
		c.InferenceURL, c.inferenceFrom = v, EnvInferenceURL
	}
	if v := os.Getenv(EnvProxyHost); v != "" {
		c.ProxyHost, c.proxyFrom = v, EnvProxyHost
	}
	c.readS3Env()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&c); err != nil {
			return Config{}, err
		}
	}
	if c.keyFrom == "" {
		if err := c.keyFromProfile(); err != nil {
			return Config{}, err
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	c.BaseURL, c.InferenceURL, c.ProxyHost = c.Hosts()
	if c.HTTPClient == nil {
		pooled := http.DefaultTransport.(*http.Transport).Clone()
		n := c.MaxIdleConnsPerHost
		if n <= 0 {
			n = DefaultMaxIdleConnsPerHost
		}
		pooled.MaxIdleConns, pooled.MaxIdleConnsPerHost = n, n
		pooled.MaxResponseHeaderBytes = 1 << 20
		c.HTTPClient = &http.Client{Transport: pooled}
	}
	if c.RateLimits == nil {
		c.RateLimits = new(ratelimit.Tracker)
	}
	return c, nil
}

// Validate checks the key, the hosts and the bounds: errs.ErrNoAPIKey
// when there is no key, else a *errs.ValidationError naming the option,
// variable or field at fault.
func (c Config) Validate() error {
	key := c.APIKey.Reveal()
	if key == "" {
		return errNoAPIKey
	}
	if err := checkKey(from(c.keyFrom, "Config.APIKey"), key); err != nil {
		return err
	}
	// A value an option or variable gave is judged as given (an empty one
	// too); an empty field of a Config made by hand means the default.
	if _, err := parseBase(from(c.baseFrom, "Config.BaseURL"), given(c.baseFrom, c.BaseURL, DefaultBaseURL)); err != nil {
		return err
	}
	if _, err := parseBase(from(c.inferenceFrom, "Config.InferenceURL"), given(c.inferenceFrom, c.InferenceURL, DefaultInferenceURL)); err != nil {
		return err
	}
	if _, err := checkHost(from(c.proxyFrom, "Config.ProxyHost"), given(c.proxyFrom, c.ProxyHost, DefaultProxyHost), DefaultProxyHost); err != nil {
		return err
	}
	if err := c.validateS3(); err != nil {
		return err
	}
	return c.validateCall()
}

// Hosts returns the base URL, the inference URL and the proxy host the
// Config stands for: the defaults where a field is empty, a trailing
// "/v2" dropped from a URL. Validate says whether they are valid.
func (c Config) Hosts() (baseURL, inferenceURL, proxyHost string) {
	norm := func(raw, def string) string {
		u, err := parseBase("", orDefault(raw, def))
		if err != nil {
			return raw
		}
		return u.String()
	}
	return norm(c.BaseURL, DefaultBaseURL), norm(c.InferenceURL, DefaultInferenceURL), strings.TrimSpace(orDefault(c.ProxyHost, DefaultProxyHost))
}

func from(set, field string) string {
	if set != "" {
		return set
	}
	return field
}

func given(from, v, def string) string {
	if from != "" {
		return v
	}
	return orDefault(v, def)
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}
