package option_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const key = "rpa_TESTKEY0123456789abcdef"

// TestNewConfigReadsEnvThenOptions: the environment first, options win,
// defaults where neither says; a pool and a tracker are made once.
func TestNewConfigReadsEnvThenOptions(t *testing.T) {
	t.Setenv(option.EnvAPIKey, "  env-key  ")
	t.Setenv(option.EnvBaseURL, "https://gw.example/v2")
	t.Setenv(option.EnvInferenceURL, "")
	t.Setenv(option.EnvProxyHost, "")
	c, err := option.NewConfig()
	require.NoError(t, err)
	assert.Equal(t, "env-key", c.APIKey.Reveal())
	assert.Equal(t, "https://gw.example", c.BaseURL, "a trailing /v2 is dropped")
	assert.Equal(t, option.DefaultInferenceURL, c.InferenceURL)
	assert.Equal(t, option.DefaultProxyHost, c.ProxyHost)
	assert.NotNil(t, c.HTTPClient)
	assert.NotNil(t, c.RateLimits)

	c, err = option.NewConfig(option.WithAPIKey(key), option.WithBaseURL("https://api.example"))
	require.NoError(t, err)
	assert.Equal(t, key, c.APIKey.Reveal())
	assert.Equal(t, "https://api.example", c.BaseURL)
}

// TestNewConfigNamesTheSource: a bad value's error names the option or
// the variable it came from.
func TestNewConfigNamesTheSource(t *testing.T) {
	t.Setenv(option.EnvAPIKey, "")
	t.Setenv(option.EnvBaseURL, "ftp://x")
	t.Setenv(option.EnvInferenceURL, "")
	t.Setenv(option.EnvProxyHost, "")
	_, err := option.NewConfig()
	require.ErrorIs(t, err, errs.ErrNoAPIKey)

	_, err = option.NewConfig(option.WithAPIKey(key))
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, option.EnvBaseURL, ve.Field)

	_, err = option.NewConfig(option.WithAPIKey(key), option.WithBaseURL("http://example.com"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithBaseURL", ve.Field)
	assert.ErrorIs(t, err, errs.ErrInsecureURL)

	_, err = option.NewConfig(option.WithAPIKey("a b"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithAPIKey", ve.Field)
	assert.NotContains(t, err.Error(), "a b")

	for name, o := range map[string]option.RequestOption{
		"WithMaxRetries":     option.WithMaxRetries(-1),
		"WithRequestTimeout": option.WithRequestTimeout(0),
		"WithMiddleware":     option.WithMiddleware(nil),
		"WithAttemptHook":    option.WithAttemptHook(nil),
		"WithResponseInto":   option.WithResponseInto(nil),
		"WithHeader(Host)":   option.WithHeader("Host", "x"),
		"WithBackoff":        option.WithBackoff(2*time.Second, time.Second),
	} {
		_, err = option.NewConfig(option.WithAPIKey(key), o)
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, name, ve.Field)
	}
}

// TestHandMadeConfig: Validate judges a Config built by hand by the same
// rules, naming its fields.
func TestHandMadeConfig(t *testing.T) {
	assert.ErrorIs(t, option.Config{}.Validate(), errs.ErrNoAPIKey)
	c := option.Config{BaseURL: "not a url at all://"}
	c.APIKey = mustConfig(t).APIKey
	var ve *errs.ValidationError
	require.ErrorAs(t, c.Validate(), &ve)
	assert.Equal(t, "Config.BaseURL", ve.Field)
	c.BaseURL = ""
	assert.NoError(t, c.Validate(), "empty fields mean the defaults")
	b, i, p := c.Hosts()
	assert.Equal(t, []string{option.DefaultBaseURL, option.DefaultInferenceURL, option.DefaultProxyHost}, []string{b, i, p})
}

// TestConfigNeverPrintsTheKey: fmt, JSON and slog show no key.
func TestConfigNeverPrintsTheKey(t *testing.T) {
	c := mustConfig(t)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		assert.NotContains(t, s, key)
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.NotContains(t, string(b), key)
	testkit.NoSecret(t, c, &c)
	log, lines := testkit.Logger()
	log.Info("cfg", slog.Any("config", c))
	assert.NotContains(t, lines.String(), key)
}

// TestOptionsDoNotShareSlices: a call's WithResponseInto or
// WithMiddleware never writes into the client's slice.
func TestOptionsDoNotShareSlices(t *testing.T) {
	var a, b, c option.ResponseInfo
	base := option.Config{ResponseInto: make([]*option.ResponseInfo, 1, 4)}
	base.ResponseInto[0] = &a
	one, two := base, base
	require.NoError(t, option.WithResponseInto(&b)(&one))
	require.NoError(t, option.WithResponseInto(&c)(&two))
	assert.Equal(t, []*option.ResponseInfo{&a, &b}, one.ResponseInto)
	assert.Equal(t, []*option.ResponseInfo{&a, &c}, two.ResponseInto)
	h := option.Config{Header: http.Header{"X-A": {"1"}}}
	cp := h
	require.NoError(t, option.WithHeader("X-A", "2")(&cp))
	assert.Equal(t, "1", h.Header.Get("X-A"), "the client's header map is not changed")
}

func mustConfig(t *testing.T) option.Config {
	t.Helper()
	c, err := option.NewConfig(option.WithAPIKey(key), option.WithBaseURL("https://api.example"))
	require.NoError(t, err)
	return c
}

// Two observers of one call: both see its response.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, err := srv.NewClient()
	if err != nil {
		panic(err)
	}
	defer rp.CloseIdleConnections()
	var mine, logged option.ResponseInfo
	_, err = rp.Pods.List(context.Background(), pods.ListPodsParams{},
		option.WithResponseInto(&mine), option.WithResponseInto(&logged))
	fmt.Println(err, mine.StatusCode, logged.StatusCode, mine.Attempts)
	// Output: <nil> 200 200 1
}

// TestForCall: a call's options apply on top of the Config; one that
// configures a client is refused by name, wherever it comes in the list,
// while the same option configures a client through NewConfig.
func TestForCall(t *testing.T) {
	cfg, err := option.NewConfig(option.WithAPIKey("rpa_x"), option.WithDialer(func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("not dialled")
	}))
	require.NoError(t, err)
	call, err := cfg.ForCall(option.WithMaxRetries(7), nil)
	require.NoError(t, err)
	require.Equal(t, 7, call.MaxRetries)
	require.NotEqual(t, 7, cfg.MaxRetries, "the client's Config is untouched")

	_, err = cfg.ForCall(option.WithMaxRetries(1), option.WithDialer(func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("not dialled")
	}), option.WithMaxRetries(2))
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "WithDialer", ve.Field)

	_, err = cfg.ForCall(option.WithMaxRetries(-1))
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "WithMaxRetries", ve.Field)
}
