package pods_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

func TestLogsStream(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	p, err := rp.Pods.Create(ctx, newPod())
	require.NoError(t, err)
	for _, l := range []string{"one", "two", "three"} {
		srv.AppendPodLog(p.ID, pods.LogSourceContainer, l)
	}
	var got []string
	var lastID string
	var lastTime time.Time
	for line, err := range rp.Pods.Logs(ctx, p.ID, pods.GetPodLogsParams{Tail: runpod.Ptr(2), Source: runpod.Ptr(pods.LogSourceContainer)}) {
		require.NoError(t, err)
		got = append(got, line.Line)
		assert.Equal(t, pods.LogSourceContainer, line.Source)
		assert.False(t, line.Time.IsZero())
		lastID, lastTime = line.ID, line.Time
		if len(got) == 2 {
			srv.AppendPodLog(p.ID, pods.LogSourceSystem, "filtered out")
			srv.AppendPodLog(p.ID, pods.LogSourceContainer, "live")
		}
		if len(got) == 3 {
			break
		}
	}
	assert.Equal(t, []string{"two", "three", "live"}, got)
	r := last(srv)
	assert.Equal(t, "source=container&tail=2", r.RawQuery)
	assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))

	// Resume after the last event seen.
	srv.AppendPodLog(p.ID, pods.LogSourceContainer, "after")
	for line, err := range rp.Pods.Logs(ctx, p.ID, pods.GetPodLogsParams{LastEventID: &lastTime, Source: runpod.Ptr(pods.LogSourceContainer)}) {
		require.NoError(t, err)
		assert.Equal(t, "after", line.Line)
		break
	}
	assert.Equal(t, lastID, last(srv).Header.Get("Last-Event-ID"), "the line's time is sent as the stream gave it")
}

// TestLogsEndCleanlyOnCancel: cancelling ctx ends the iteration without an
// error, and the connection is closed (goleak checks at the end).
func TestLogsEndCleanlyOnCancel(t *testing.T) {
	_, rp, _ := fake(t)
	p, err := rp.Pods.Create(t.Context(), newPod())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	for _, err := range rp.Pods.Logs(ctx, p.ID, pods.GetPodLogsParams{}) {
		require.NoError(t, err)
		n++
		cancel() // after the first line, stop following
	}
	assert.Equal(t, 1, n)
}

func TestLogsErrors(t *testing.T) {
	srv, rp, _ := fake(t)
	var got []error
	for _, err := range rp.Pods.Logs(t.Context(), "nosuchpod", pods.GetPodLogsParams{}) {
		got = append(got, err)
	}
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0], errs.ErrNotFound)
	before := srv.Count("*")
	for _, o := range []pods.GetPodLogsParams{{Tail: runpod.Ptr(5001)}, {Source: runpod.Ptr[pods.LogSource]("kernel")}, {Since: &time.Time{}}} {
		for _, err := range rp.Pods.Logs(t.Context(), "abc", o) {
			require.ErrorIs(t, err, errs.ErrValidation)
		}
	}
	assert.Equal(t, before, srv.Count("*"))
}

// podScript answers GET /v2/pods/{id} from raw wire JSON, the pod running
// from the third call on.
type podScript struct {
	mu sync.Mutex
	at []time.Time
}

func (s *podScript) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = append(s.at, time.Now())
	body := `{"id":"p1","name":"n","status":"STARTING","actions":["stop","terminate"],"cloud":"SECURE","cost":0.69,"locked":false,
		"createdAt":"2026-06-01T12:00:00Z","globalNetworking":{"enabled":false},"ports":["22/tcp"],"runtime":null}`
	if len(s.at) >= 3 {
		body = strings.Replace(body, `"STARTING"`, `"RUNNING"`, 1)
		body = strings.Replace(body, `"runtime":null`, `"runtime":{"uptime":3,"ports":[{"private":22,"public":34446,"type":"tcp","ip":"195.26.233.3"}]}`, 1)
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

func TestWaitForTCPCadence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &podScript{}
		rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithHTTPClient(&http.Client{Transport: rt}))
		require.NoError(t, err)
		start := time.Now()
		addr, err := rp.Pods.WaitForTCP(t.Context(), "p1", 22, option.Poll[*pods.Pod]{})
		require.NoError(t, err)
		assert.Equal(t, "195.26.233.3:34446", addr.String())
		assert.Equal(t, 2*option.DefaultPollInterval, time.Since(start), "two waits of the default interval")
		assert.Equal(t, option.DefaultPollInterval, rt.at[1].Sub(rt.at[0]))
	})
}

// TestWaitForTCPClientInterval: a wait with a zero Poll.Interval takes
// the client's WithPollInterval; a Poll.Interval of its own wins.
func TestWaitForTCPClientInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &podScript{}
		rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithHTTPClient(&http.Client{Transport: rt}),
			option.WithPollInterval(100*time.Millisecond))
		require.NoError(t, err)
		start := time.Now()
		_, err = rp.Pods.WaitForTCP(t.Context(), "p1", 22, option.Poll[*pods.Pod]{})
		require.NoError(t, err)
		assert.Equal(t, 200*time.Millisecond, time.Since(start), "two waits of the client's interval")

		rt.at = nil
		start = time.Now()
		_, err = rp.Pods.WaitForTCP(t.Context(), "p1", 22, option.Poll[*pods.Pod]{Interval: time.Second})
		require.NoError(t, err)
		assert.Equal(t, 2*time.Second, time.Since(start), "two waits of the Poll's own interval")
	})
}
