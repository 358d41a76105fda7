package runpodotel

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func TestJobEndpoint(t *testing.T) {
	for path, want := range map[string]string{
		"/v2/ep1/runsync":                 "ep1",
		"/v2/ep1/run":                     "ep1",
		"/v2/ep1/status/job-1":            "ep1",
		"/v2/ep1/status-sync/job-1":       "ep1",
		"/gateway/v2/ep%2F1/status/job-1": "ep/1",
		"/v2/ep1/stream/job-1":            "",
		"/v2/ep1/cancel/job-1":            "",
		"/v2/ep1/health":                  "",
		"/v2/serverless/ep1":              "",
		"/v2/pods/pod1":                   "",
		"/v2/ep1/status/":                 "",
		"/v2//runsync":                    "",
		"/runsync":                        "",
		"/graphql":                        "",
		"":                                "",
	} {
		got, ok := jobEndpoint(path)
		assert.Equal(t, want, got, path)
		assert.Equal(t, want != "", ok, path)
	}
}

func TestParseJob(t *testing.T) {
	j, ok := parseJob([]byte(`{"id":"a","status":"TIMED_OUT","executionTime":600000.5}`))
	require.True(t, ok)
	assert.Nil(t, j.DelayTime)
	assert.Equal(t, 600000.5, *j.ExecutionTime)
	for _, body := range []string{
		`{"id":"a","status":"IN_PROGRESS","delayTime":1}`,
		`{"id":"a","status":"COMPLETED"}`,
		`{"status":"COMPLETED","delayTime":1}`,
		`{"id":"a","status":"COMPLETED","delayTime":"1"}`,
		`[{"id":"a","status":"COMPLETED","delayTime":1}]`,
		`not json`,
	} {
		_, ok := parseJob([]byte(body))
		assert.False(t, ok, body)
	}
}

func TestJobSetForgetsTheOldest(t *testing.T) {
	s := newJobSet(2)
	assert.True(t, s.add("a"))
	assert.True(t, s.add("b"))
	assert.False(t, s.add("a"))
	assert.True(t, s.add("c")) // forgets a
	assert.True(t, s.add("a")) // forgets b
	assert.False(t, s.add("c"))
	assert.Len(t, s.seen, 2)
}

// recorded returns the job delay points the meter has.
func recorded(t *testing.T, rd *sdkmetric.ManualReader) int {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, rd.Collect(context.Background(), &rm))
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "runpod.job.delay_time" {
				for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
					n += int(dp.Count)
				}
			}
		}
	}
	return n
}

// A body over the limit, or not JSON, is not read as a job, and the call
// reads it whole all the same.
func TestRecordJobLeavesTheBody(t *testing.T) {
	rd := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd))
	defer func() { require.NoError(t, mp.Shutdown(context.Background())) }()
	tel := newTelemetry(config{mp: mp})
	tel.maxJobBody = 100
	ctx := context.Background()
	job := func(id string) string {
		return `{"id":"` + id + `","status":"COMPLETED","delayTime":1000,"executionTime":5}`
	}
	for _, tc := range []struct {
		name, contentType, body string
		length                  int64
		want                    int
	}{
		{"small", "application/json; charset=utf-8", job("a"), -1, 1},
		{"no content type", "", job("b"), -1, 1},
		{"problem+json", "application/problem+json", job("c"), -1, 1},
		{"same job again", "application/json", job("a"), -1, 0},
		{"too long", "application/json", job("d") + strings.Repeat(" ", 100), -1, 0},
		{"declared too long", "application/json", job("e"), 101, 0},
		{"not json", "text/plain", job("f"), -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := recorded(t, rd)
			orig := &closeCounter{Reader: bytes.NewReader([]byte(tc.body))}
			resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: orig, ContentLength: tc.length}
			if tc.contentType != "" {
				resp.Header.Set("Content-Type", tc.contentType)
			}
			tel.recordJob(ctx, resp, "ep")
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.body, string(b))
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, 1, orig.closed, "closing the body closes the original")
			assert.Equal(t, tc.want, recorded(t, rd)-before)
		})
	}
}

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func FuzzJobEndpoint(f *testing.F) {
	for _, s := range []string{"/v2/ep1/runsync", "/v2/ep1/status/j", "/x/v2/%zz/run", "v2/a/status-sync/b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		ep, ok := jobEndpoint(path)
		if ok != (ep != "") {
			t.Fatalf("jobEndpoint(%q) = %q, %v", path, ep, ok)
		}
		if ok && !strings.Contains(path, "/v2/") && !strings.HasPrefix(path, "v2/") {
			t.Fatalf("jobEndpoint(%q) took a path outside the job API", path)
		}
	})
}

func FuzzParseJob(f *testing.F) {
	f.Add([]byte(`{"id":"a","status":"COMPLETED","delayTime":1,"executionTime":2}`))
	f.Add([]byte(`{"id":"a","status":"FAILED","delayTime":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		j, ok := parseJob(b)
		if ok && (j.ID == "" || !final(j.Status) || (j.DelayTime == nil && j.ExecutionTime == nil)) {
			t.Fatalf("parseJob(%q) = %+v", b, j)
		}
	})
}
