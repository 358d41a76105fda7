package runpod_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
)

type sshKeys struct {
	Keys []string `json:"keys"`
}

func TestDoRoundTrip(t *testing.T) {
	srv, rp, lines := fixture.New(t)
	srv.SetSSHKeys("ssh-ed25519 AAAA me@example.com")
	var out sshKeys
	var info option.ResponseInfo
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, &out, option.WithResponseInto(&info)))
	assert.Equal(t, []string{"ssh-ed25519 AAAA me@example.com"}, out.Keys)
	assert.Equal(t, 200, info.StatusCode)
	assert.NotEmpty(t, info.RequestID)
	m, ok := info.RateLimit.Window("minute")
	require.True(t, ok)
	assert.Equal(t, int64(runpodtest.DefaultQuota().Minute-1), m.Remaining)
	assert.Equal(t, int64(runpodtest.DefaultQuota().Minute), m.Quota)
	latest, ok := rp.RateLimit().Window("day")
	require.True(t, ok)
	assert.Equal(t, int64(runpodtest.DefaultQuota().Day-1), latest.Remaining)
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteSSHKeys))
	assert.Contains(t, lines.String(), "path=/v2/account/ssh-keys")
}

func TestUnauthorized(t *testing.T) {
	srv, _, _ := fixture.New(t)
	for name, key := range map[string]string{"unknown": "rpa_NOPE", "revoked": srv.NewKey(runpodtest.PermissionAccountRead)} {
		t.Run(name, func(t *testing.T) {
			srv.RevokeKey(key)
			testkit.RegisterSecret(key)
			rp, err := srv.NewClient(option.WithAPIKey(key))
			require.NoError(t, err)
			err = rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil)
			require.ErrorIs(t, err, errs.ErrUnauthorized)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, "Unauthorized", apiErr.Title)
			assert.Equal(t, "invalid or expired api key", apiErr.Detail)
			assert.True(t, apiErr.RateLimit.IsZero(), "401 carries no RateLimit")
			testkit.NoSecret(t, err, apiErr, rp)
		})
	}
}

func TestForbidden(t *testing.T) {
	srv, _, _ := fixture.New(t)
	key := srv.NewKey(runpodtest.PermissionBillingRead)
	rp, err := srv.NewClient(option.WithAPIKey(key))
	require.NoError(t, err)
	err = rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil)
	require.ErrorIs(t, err, errs.ErrForbidden)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "access denied", apiErr.Detail)
	assert.False(t, apiErr.RateLimit.IsZero(), "403 carries RateLimit")
	assert.Zero(t, srv.Acted(runpodtest.RouteSSHKeys))
	testkit.NoSecret(t, err)
}

func TestRateLimitedCarriesHeaders(t *testing.T) {
	// A fixed clock 30 s into a minute: both calls fall in one window.
	at := time.Date(2026, 6, 1, 12, 0, 30, 0, time.UTC)
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithClock(func() time.Time { return at })), fixture.Client(option.WithMaxWait(time.Second)))
	srv.SetQuota(srv.APIKey, runpodtest.Quota{Minute: 1, Hour: 100, Day: 1000})
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil))
	err := rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil)
	require.ErrorIs(t, err, errs.ErrRateLimited)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 429, apiErr.StatusCode)
	assert.Equal(t, 30*time.Second, apiErr.RetryAfter, "the minute window's reset exceeds the cap, so no wait happened")
	assert.Equal(t, "rate limit exceeded for the minute window", apiErr.Detail)
	m, ok := apiErr.RateLimit.Window("minute")
	require.True(t, ok)
	assert.True(t, m.Exhausted())
	assert.Equal(t, 2, srv.Count(runpodtest.RouteSSHKeys), "given up at once, not retried")
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteSSHKeys))
}

func TestFaultRetriedForIdempotent(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.FailNext(runpodtest.RouteSSHKeys, 2, runpodtest.Fault{Status: 503})
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil))
	assert.Equal(t, 3, srv.Count(runpodtest.RouteSSHKeys))
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteSSHKeys))
}

func TestDroppedConnections(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.FailNext(runpodtest.RouteSSHKeys, 1, runpodtest.Fault{Drop: runpodtest.DropBefore})
	srv.FailNext(runpodtest.RouteSSHKeys, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil), "an idempotent call survives both drops")
	assert.Equal(t, 3, srv.Count(runpodtest.RouteSSHKeys))
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteSSHKeys))
}

// TestNonIdempotentNeverSentTwice: a POST whose connection drops after the
// server acted is not repeated, and the error says the outcome is unknown.
func TestNonIdempotentNeverSentTwice(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	const route = "POST /v2/things"
	srv.Handle(runpodtest.Route{Pattern: route}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runpodtest.WriteJSON(w, map[string]string{"id": "t1"})
	}))
	for _, f := range []runpodtest.Fault{{Drop: runpodtest.DropAfter}, {Drop: runpodtest.DropBefore}, {Status: 502}, {Status: 500}} {
		srv.FailNext(route, 1, f)
		before := srv.Count(route)
		err := rp.Do(t.Context(), "POST", "/v2/things", map[string]string{"name": "x"}, nil)
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown, "fault %+v", f)
		assert.Equal(t, before+1, srv.Count(route), "sent once for fault %+v", f)
		testkit.NoSecret(t, err)
	}
	assert.Equal(t, 1, srv.Acted(route), "only the DropAfter request reached the handler")

	srv.FailNext(route, 1, runpodtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"0"}}})
	require.NoError(t, rp.Do(t.Context(), "POST", "/v2/things", map[string]string{"name": "y"}, nil), "429 means not processed: retried")
	assert.Equal(t, 2, srv.Acted(route))
}

func TestLatencyAndDeadline(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.SetLatency(runpodtest.RouteSSHKeys, time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := rp.Do(ctx, "GET", "/v2/account/ssh-keys", nil, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var te *errs.TransportError
	require.ErrorAs(t, err, &te)
	srv.SetLatency(runpodtest.RouteSSHKeys, 0)
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil))
}

func TestConnectionRefusedRetried(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	url := srv.URL
	srv.Close()
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithBaseURL(url),
		option.WithMaxRetries(2), option.WithBackoff(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	err = rp.Do(t.Context(), "POST", "/v2/things", map[string]int{"a": 1}, nil)
	var te *errs.TransportError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 3, te.Attempts, "a request that never left is retried even when not idempotent")
	assert.False(t, te.OutcomeUnknown)
	testkit.NoSecret(t, err)
}

func TestNewClientConfig(t *testing.T) {
	t.Setenv(option.EnvAPIKey, "")
	t.Setenv(option.EnvBaseURL, "")
	t.Setenv(option.EnvInferenceURL, "")
	t.Setenv(option.EnvProxyHost, "")
	_, err := runpod.NewClient()
	require.ErrorIs(t, err, errs.ErrNoAPIKey)
	_, err = runpod.NewClient(option.WithAPIKey("  "))
	require.ErrorIs(t, err, errs.ErrNoAPIKey)

	t.Setenv(option.EnvAPIKey, "rpa_ENV")
	testkit.RegisterSecret("rpa_ENV")
	rp, err := runpod.NewClient()
	require.NoError(t, err)
	testkit.NoSecret(t, rp, *rp)
	assert.Equal(t, "runpod.Client{"+runpod.Version+"}", fmt.Sprint(rp))

	bad := []struct {
		opt   option.RequestOption
		env   [2]string
		field string
	}{
		{opt: option.WithBaseURL("api.runpod.io"), field: "WithBaseURL"},
		{opt: option.WithBaseURL("https://"), field: "WithBaseURL"},
		{opt: option.WithBaseURL("https://u:p@api.runpod.io"), field: "WithBaseURL"},
		{opt: option.WithBaseURL("https://api.runpod.io?x=1"), field: "WithBaseURL"},
		{opt: option.WithInferenceURL("http://api.runpod.ai"), field: "WithInferenceURL"},
		{opt: option.WithInferenceURL("://"), field: "WithInferenceURL"},
		{opt: option.WithProxyHost("https://proxy.runpod.net"), field: "WithProxyHost"},
		{opt: option.WithProxyHost(""), field: "WithProxyHost"},
		{env: [2]string{option.EnvBaseURL, "http://api.runpod.io"}, field: option.EnvBaseURL},
		{env: [2]string{option.EnvProxyHost, "a/b"}, field: option.EnvProxyHost},
		{opt: option.WithMaxRetries(-1), field: "WithMaxRetries"},
		{opt: option.WithMaxWait(0), field: "WithMaxWait"},
		{opt: option.WithBackoff(time.Second, time.Millisecond), field: "WithBackoff"},
		{opt: option.WithHTTPClient(nil), field: "WithHTTPClient"},
		{opt: option.WithLogger(nil), field: "WithLogger"},
		{opt: option.WithUserAgent("a\r\nb"), field: "WithUserAgent"},
		{opt: option.WithMaxIdleConnsPerHost(0), field: "WithMaxIdleConnsPerHost"},
		{opt: option.WithPollInterval(0), field: "WithPollInterval"},
	}
	for _, b := range bad {
		t.Run(b.field, func(t *testing.T) {
			if b.env[0] != "" {
				t.Setenv(b.env[0], b.env[1])
			}
			var opts []option.RequestOption
			if b.opt != nil {
				opts = append(opts, b.opt)
			}
			_, err := runpod.NewClient(opts...)
			var ve *errs.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, b.field, ve.Field)
			assert.ErrorIs(t, err, errs.ErrValidation)
		})
	}
	_, err = runpod.NewClient(option.WithBaseURL("http://api.runpod.io"))
	assert.ErrorIs(t, err, errs.ErrInsecureURL)
}

// TestOptionsWinOverEnv: the env points at a dead host, the option at the
// fake; the call succeeds.
func TestOptionsWinOverEnv(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	t.Setenv(option.EnvAPIKey, "rpa_WRONG")
	t.Setenv(option.EnvBaseURL, "https://unreachable.invalid")
	rp, err := runpod.NewClient(option.WithAPIKey(srv.APIKey), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil))

	t.Setenv(option.EnvAPIKey, srv.APIKey)
	t.Setenv(option.EnvBaseURL, srv.URL)
	rp, err = runpod.NewClient()
	require.NoError(t, err)
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil), "env alone works too")
	rp.CloseIdleConnections()
}

func TestDoValidation(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	for _, c := range []struct{ method, path, field string }{
		{"", "/v2/x", "method"}, {"GE T", "/v2/x", "method"}, {"GE(T", "/v2/x", "method"}, {"GÉT", "/v2/x", "method"},
		{"GET", "v2/x", "path"}, {"GET", "https://evil.example/v2/x", "path"}, {"GET", "//evil.example/x", "path"},
	} {
		err := rp.Do(t.Context(), c.method, c.path, nil, nil)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%s %s", c.method, c.path)
		assert.Equal(t, c.field, ve.Field)
	}
	err := rp.Do(t.Context(), "POST", "/v2/x", func() {}, nil)
	require.ErrorContains(t, err, "encoding request body")
	assert.Zero(t, srv.Count("*"), "nothing was sent")
	err = rp.Do(t.Context(), "GET", "/v2/does-not-exist?a=b", nil, nil)
	require.ErrorIs(t, err, errs.ErrNotFound)
}

func TestUserSuppliedHTTPClientUntouched(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	hc := &http.Client{Timeout: 5 * time.Second}
	rp, err := srv.NewClient(option.WithHTTPClient(hc), option.WithUserAgent("app/1"))
	require.NoError(t, err)
	require.NoError(t, rp.Do(t.Context(), "GET", "/v2/account/ssh-keys", nil, nil))
	assert.Nil(t, hc.Transport)
	assert.Nil(t, hc.CheckRedirect)
	reqs := srv.Requests()
	assert.Regexp(t, `^runpod-go/.* app/1$`, reqs[len(reqs)-1].Header.Get("User-Agent"))
	rp.CloseIdleConnections()
}

func TestLogValueRedacted(t *testing.T) {
	_, rp, _ := fixture.New(t)
	log, lines := testkit.Logger()
	log.Info("client", slog.Any("rp", rp))
	assert.Contains(t, lines.String(), "runpod.Client{")
	testkit.NoSecret(t, rp, errors.New(lines.String()))
}

// TestKeyThatCannotBeSent: a key no HTTP header can carry is refused by
// NewClient, naming where it came from and never repeating it.
func TestKeyThatCannotBeSent(t *testing.T) {
	for _, key := range []string{"rpa_abc\r\nX-Evil: 1", "rpa_a\x00b", "rpa_tab\there", "rpa_é"} {
		_, err := runpod.NewClient(option.WithAPIKey(key), option.WithBaseURL("https://api.example.test"))
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, "%q", key)
		assert.Equal(t, "WithAPIKey", ve.Field)
		assert.NotContains(t, err.Error(), key)
		assert.NotContains(t, err.Error(), "rpa_")
	}
	t.Setenv(option.EnvAPIKey, "rpa_env\nkey")
	_, err := runpod.NewClient()
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, option.EnvAPIKey, ve.Field)
}

// TestBaseURLForms: a base URL written as other RunPod tools write it
// (ending in /v2) reaches the same paths as the bare host, and any other
// path is kept as a prefix of REST, GraphQL and inference calls.
func TestBaseURLForms(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/graphql"):
			_, _ = io.WriteString(w, `{"data":{"myself":{"endpoints":[],"serverlessDiscount":null}}}`)
		case strings.HasSuffix(r.URL.Path, "/v2/serverless"):
			_, _ = io.WriteString(w, `{"endpoints":[]}`)
		case strings.HasSuffix(r.URL.Path, "/health"):
			_, _ = io.WriteString(w, `{"jobs":{"completed":0,"failed":0,"inProgress":0,"inQueue":0,"retried":0},"workers":{"idle":0,"running":0}}`)
		default:
			_, _ = io.WriteString(w, `{"pods":[]}`)
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ base, prefix string }{
		{srv.URL, ""},
		{srv.URL + "/", ""},
		{srv.URL + "/v2", ""},
		{srv.URL + "/v2/", ""},
		{srv.URL + "/runpod", "/runpod"},
		{srv.URL + "/runpod/v2", "/runpod"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			mu.Lock()
			paths = nil
			mu.Unlock()
			t.Setenv(option.EnvBaseURL, tc.base)
			rp, err := runpod.NewClient(option.WithAPIKey("rpa_TEST"), option.WithInferenceURL(tc.base))
			require.NoError(t, err)
			t.Cleanup(rp.CloseIdleConnections)
			_, err = rp.Pods.List(t.Context(), pods.ListPodsParams{})
			require.NoError(t, err)
			_, err = rp.Serverless.Endpoints.List(t.Context())
			require.NoError(t, err)
			_, err = graphqlendpoints.NewFromConfig(rp.Config()).List(t.Context())
			require.NoError(t, err)
			_, err = rp.Serverless.Queue("ep1").Health(t.Context())
			require.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{tc.prefix + "/v2/pods", tc.prefix + "/v2/serverless", tc.prefix + "/graphql", tc.prefix + "/v2/ep1/health"}, paths)
		})
	}
}

// TestNewClientReadsTheProfileFile: with no option and no RUNPOD_API_KEY,
// NewClient takes the key rp login saved in ~/.runpod/config.toml (here
// under a temporary home), from the profile RUNPOD_PROFILE names; the
// client never shows it.
func TestNewClientReadsTheProfileFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, v := range []string{option.EnvAPIKey, option.EnvProfile, option.EnvBaseURL, option.EnvInferenceURL, option.EnvProxyHost} {
		t.Setenv(v, "")
	}
	const fileKey = "rpa_FROMTHEPROFILEFILE0123456789"
	testkit.RegisterSecret(fileKey)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".runpod"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".runpod", "config.toml"),
		[]byte("[default]\napi_key = \"rpa_NOTTHISONE\"\n[work]\napi_key = \""+fileKey+"\"\n"), 0o600))
	t.Setenv(option.EnvProfile, "work")
	rp, err := runpod.NewClient()
	require.NoError(t, err)
	assert.Equal(t, fileKey, rp.Config().APIKey.Reveal())
	testkit.NoSecret(t, rp, *rp, rp.Config())

	t.Setenv(option.EnvProfile, "missing")
	_, err = runpod.NewClient()
	require.ErrorIs(t, err, option.ErrProfile)
	testkit.NoSecret(t, err)
}
