package runpodtest_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// get sends a raw request, so the tests see exactly what the fake answers.
func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	require.NoError(t, err)
	for i := 0; i < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// newServer starts a fake with every split-out server attached (GraphQL,
// S3, SSH), as these tests judge them all.
func newServer(t *testing.T, opts ...runpodtest.Option) *runpodtest.Server {
	srv := runpodtest.NewServer(append(attachAll(), opts...)...)
	t.Cleanup(func() {
		srv.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return srv
}

// attachAll returns the options that attach every split-out server, and
// the REST v2 document's checks.
func attachAll() []runpodtest.Option {
	return []runpodtest.Option{fakegraphql.Serve(), fakessh.Serve(), fakes3.Serve(), contract.Check()}
}

func TestAuthentication(t *testing.T) {
	srv := newServer(t)
	cases := []struct {
		name, header, detail string
	}{
		{"missing", "", "missing bearer token"},
		{"malformed scheme", "Basic abc", "malformed bearer token"},
		{"empty bearer", "Bearer ", "malformed bearer token"},
		{"unknown", "Bearer rpa_UNKNOWN", "invalid or expired api key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hdr []string
			if c.header != "" {
				hdr = []string{"Authorization", c.header}
			}
			resp, body := get(t, srv.URL+"/v2/account/ssh-keys", hdr...)
			assert.Equal(t, 401, resp.StatusCode)
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
			assert.JSONEq(t, `{"title":"Unauthorized","status":401,"detail":"`+c.detail+`"}`, body)
			assert.Empty(t, resp.Header.Get("RateLimit"))
		})
	}
	resp, body := get(t, srv.URL+"/v2/account/ssh-keys", "Authorization", "Bearer "+srv.APIKey)
	assert.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{"keys":[]}`, body)
	resp, _ = get(t, srv.URL+"/v2/account/ssh-keys?api_key="+srv.APIKey)
	assert.Equal(t, 401, resp.StatusCode, "REST routes take no api_key query parameter")
	assert.Zero(t, srv.Acted(runpodtest.RouteSSHKeys)-1)
}

func TestQueryKeyRoutes(t *testing.T) {
	srv := newServer(t)
	post := func(url string, header ...string) int {
		req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(`{"query":"{ myself { id } }"}`))
		require.NoError(t, err)
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, post(srv.URL+"/graphql?api_key="+srv.APIKey))
	assert.Equal(t, 200, post(srv.URL+"/graphql", "Authorization", "Bearer "+srv.APIKey))
	assert.Equal(t, 401, post(srv.URL+"/graphql"))
	assert.Equal(t, 401, post(srv.URL+"/graphql?api_key=rpa_BAD"))
	reqs := srv.Requests()
	assert.Equal(t, "[REDACTED]", reqs[0].Query.Get("api_key"))
	assert.Equal(t, "api_key", reqs[0].Auth)
	assert.Equal(t, "[REDACTED]", reqs[1].Header.Get("Authorization"))
	assert.Equal(t, "bearer", reqs[1].Auth)
	assert.JSONEq(t, `{"query":"{ myself { id } }"}`, string(reqs[1].Body))
	testkit.NoSecret(t, reqs)
}

func TestPermissions(t *testing.T) {
	srv := newServer(t)
	key := srv.NewKey(runpodtest.PermissionBillingRead)
	resp, body := get(t, srv.URL+"/v2/account/ssh-keys", "Authorization", "Bearer "+key)
	assert.Equal(t, 403, resp.StatusCode)
	assert.JSONEq(t, `{"title":"Forbidden","status":403,"detail":"access denied"}`, body)
	assert.NotEmpty(t, resp.Header.Get("RateLimit"), "403 carries RateLimit")
	assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
}

// TestRateLimitWindows drives the windows with a fake clock: headers on
// every response, 429 with Retry-After when a window is spent, and reset at
// the window's end.
func TestRateLimitWindows(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 12, 0, 10, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := newServer(t, runpodtest.WithClock(clock), runpodtest.WithQuota(runpodtest.Quota{Minute: 2, Hour: 3, Day: 100}))
	auth := []string{"Authorization", "Bearer " + srv.APIKey}

	resp, _ := get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, `"minute";r=1;t=50, "hour";r=2;t=3590, "day";r=99;t=43190`, resp.Header.Get("RateLimit"))
	assert.Equal(t, `"minute";q=2;w=60, "hour";q=3;w=3600, "day";q=100;w=86400`, resp.Header.Get("RateLimit-Policy"))
	resp, _ = get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 200, resp.StatusCode)
	resp, body := get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "50", resp.Header.Get("Retry-After"))
	assert.Equal(t, `"minute";r=0;t=50, "hour";r=1;t=3590, "day";r=98;t=43190`, resp.Header.Get("RateLimit"))
	assert.JSONEq(t, `{"title":"Too Many Requests","status":429,"detail":"rate limit exceeded for the minute window"}`, body)

	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	resp, _ = get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 200, resp.StatusCode, "the minute window reset")
	resp, body = get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Contains(t, body, "hour window")
	assert.Equal(t, "3530", resp.Header.Get("Retry-After"))
	assert.Equal(t, 3, srv.Acted(runpodtest.RouteSSHKeys))
	assert.Equal(t, 5, srv.Count(runpodtest.RouteSSHKeys))

	other := srv.NewKey(runpodtest.PermissionAccountRead)
	resp, _ = get(t, srv.URL+"/v2/account/ssh-keys", "Authorization", "Bearer "+other)
	assert.Equal(t, 200, resp.StatusCode, "limits are per key")
}

func TestFaults(t *testing.T) {
	srv := newServer(t)
	auth := []string{"Authorization", "Bearer " + srv.APIKey}
	srv.FailNext(runpodtest.RouteSSHKeys, 1, runpodtest.Fault{Status: 502, Header: http.Header{"Retry-After": {"3"}}, Body: "<html>bad gateway</html>"})
	srv.FailNext("*", 1, runpodtest.Fault{Status: 500})
	resp, body := get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 502, resp.StatusCode)
	assert.Equal(t, "3", resp.Header.Get("Retry-After"))
	assert.Equal(t, "<html>bad gateway</html>", body)
	resp, body = get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 500, resp.StatusCode)
	assert.JSONEq(t, `{"title":"Internal Server Error","status":500,"detail":"injected fault"}`, body)
	resp, _ = get(t, srv.URL+"/v2/account/ssh-keys", auth...)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, 1, srv.Acted(runpodtest.RouteSSHKeys))

	srv.FailNext(runpodtest.RouteSSHKeys, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v2/account/ssh-keys", nil)
	req.Header.Set(auth[0], auth[1])
	fresh := &http.Transport{} // a fresh connection: net/http does not replay it
	defer fresh.CloseIdleConnections()
	_, err := fresh.RoundTrip(req)
	require.Error(t, err, "the connection is closed without an answer")
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteSSHKeys), "but the handler acted")
	reqs := srv.Requests()
	assert.Zero(t, reqs[len(reqs)-1].Status)
}

func TestLatency(t *testing.T) {
	srv := newServer(t)
	srv.SetLatency("*", time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v2/account/ssh-keys", nil)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	_, err := http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the response is held back")
	srv.SetLatency("*", 0)
	resp, _ := get(t, srv.URL+"/v2/account/ssh-keys", "Authorization", "Bearer "+srv.APIKey)
	assert.Equal(t, 200, resp.StatusCode)
}

func TestUnknownRoute(t *testing.T) {
	srv := newServer(t)
	resp, body := get(t, srv.URL+"/v2/nope")
	assert.Equal(t, 404, resp.StatusCode)
	assert.JSONEq(t, `{"title":"Not Found","status":404,"detail":"resource not found"}`, body)
	assert.Equal(t, 1, srv.Count("*"))
}

// TestPackageDocListsTheSurface: every method of Server is named in the
// package doc's list of what the fake serves, so the list stays whole.
func TestPackageDocListsTheSurface(t *testing.T) {
	src, err := os.ReadFile("server.go")
	require.NoError(t, err)
	doc, _, ok := strings.Cut(string(src), "package runpodtest")
	require.True(t, ok)
	typ := reflect.TypeFor[*runpodtest.Server]()
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		assert.Regexp(t, `\b`+name+`\b`, doc, "the package doc does not list Server.%s", name)
	}
}

// TestReadmeSnippetsAreExamples: every Go snippet of the README that uses
// runpodtest is the body of a runnable Example of this package (compared
// line by line, ignoring indentation and end-of-line comments), so the
// README's snippets run as written.
func TestReadmeSnippetsAreExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	examples, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	norm := func(src string) []string {
		var out []string
		for line := range strings.Lines(src) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "// Output:") {
				if i := strings.Index(line, " // "); i >= 0 {
					line = strings.TrimSpace(line[:i])
				}
			}
			if line != "" && !strings.HasPrefix(line, "//") || strings.HasPrefix(line, "// Output:") {
				out = append(out, line)
			}
		}
		return out
	}
	body := strings.Join(norm(string(examples)), "\n")
	n := 0
	for _, block := range strings.Split(string(readme), "```go\n")[1:] {
		snippet, _, _ := strings.Cut(block, "```")
		if !strings.Contains(snippet, "srv.") || !strings.Contains(snippet, "// Output:") {
			continue
		}
		n++
		assert.Contains(t, body, strings.Join(norm(snippet), "\n"), "README snippet is not an Example of runpodtest:\n%s", snippet)
	}
	assert.GreaterOrEqual(t, n, 4, "the README's runpodtest snippets were found")
}
