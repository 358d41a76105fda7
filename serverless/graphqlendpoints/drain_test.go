package graphqlendpoints_test

import (
	"context"
	"encoding/json"
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
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
	"github.com/runpodkit/runpod-go/serverless"
)

// endpointJSON is endpoint ep1 as ListEndpoints reads it, raw wire JSON:
// the fields the list selects, with workers pods.
func endpointJSON(min, maxW, workers int) string {
	pods := make([]string, workers)
	for i := range pods {
		pods[i] = `{"desiredStatus":"EXITED"}`
	}
	return `{"id":"ep1","name":"drain-me","templateId":"t","gpuIds":"ADA_24","type":"QB","idleTimeout":5,"locations":null,
		"scalerType":"QUEUE_DELAY","scalerValue":4,"workersMin":` + itoa(min) + `,"workersMax":` + itoa(maxW) + `,
		"networkVolumeId":null,"gpuCount":1,"pods":[` + strings.Join(pods, ",") + `]}`
}

// settingsJSON is endpoint ep1 as EndpointSettings reads it.
const settingsJSON = `{"id":"ep1","flashBootType":"OFF","allowedCudaVersions":"12.4","instanceIds":[],"networkVolumeIds":[],
	"executionTimeoutMs":600000,"minCudaVersion":null,"modelReferences":[]}`

// savedJSON is endpoint ep1 as saveEndpoint answers it.
func savedJSON(min, maxW int) string {
	return `{"id":"ep1","name":"drain-me","templateId":"t","gpuIds":"ADA_24","idleTimeout":5,"locations":null,
		"flashBootType":"OFF","scalerType":"QUEUE_DELAY","scalerValue":4,"workersMin":` + itoa(min) + `,"workersMax":` + itoa(maxW) + `,
		"networkVolumeId":null,"networkVolumeIds":[],"gpuCount":1,"instanceIds":[],"executionTimeoutMs":600000,"minCudaVersion":null,
		"allowedCudaVersions":"12.4","modelReferences":[]}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// opAnswer is a scripted answer: a status and a raw JSON body.
type opAnswer struct {
	status int
	body   string
}

// opServer answers each GraphQL operation, by name, from raw wire JSON,
// and records the operations in order; an operation it has no answer for
// gets a GraphQL error.
type opServer struct {
	mu      sync.Mutex
	answers map[string]opAnswer
	ops     []string
}

func (s *opServer) RoundTrip(r *http.Request) (*http.Response, error) {
	var body struct{ OperationName string }
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, body.OperationName)
	a, ok := s.answers[body.OperationName]
	if !ok {
		a = opAnswer{200, `{"errors":[{"message":"no answer scripted for ` + body.OperationName + `"}]}`}
	}
	return &http.Response{StatusCode: a.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(a.body)), Request: r}, nil
}

func (s *opServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ops...)
}

// scripted answers GraphQL operations from raw wire JSON, in a synctest
// bubble where the clock is fake: before the save, the endpoint is at
// workersMin 1; after it, each ListEndpoints answer reports one worker
// fewer, down to none.
type scripted struct {
	mu      sync.Mutex
	workers int
	saved   bool
	ops     []string
	at      []time.Time
}

func (s *scripted) RoundTrip(r *http.Request) (*http.Response, error) {
	var body struct{ OperationName string }
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, body.OperationName)
	s.at = append(s.at, time.Now())
	var out string
	switch body.OperationName {
	case "ListEndpoints":
		lo := 1
		if s.saved {
			lo = 0
		}
		out = `{"data":{"myself":{"endpoints":[` + endpointJSON(lo, lo, s.workers) + `],"serverlessDiscount":null}}}`
		if s.saved && s.workers > 0 {
			s.workers--
		}
	case "EndpointSettings":
		out = `{"data":{"myself":{"endpoints":[` + settingsJSON + `]}}}`
	case "SaveEndpoint":
		s.saved = true
		out = `{"data":{"saveEndpoint":` + savedJSON(0, 0) + `}}`
	case "DeleteEndpoint":
		out = `{"data":{"deleteEndpoint":null}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(out)), Request: r}, nil
}

func scriptedClient(t *testing.T, rt http.RoundTripper) *runpod.Client {
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"),
		option.WithBaseURL("https://api.example.test"), option.WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	return rp
}

// TestDrainPolling: the wait checks every Interval until no worker is
// left, then deletes.
func TestDrainPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &scripted{workers: 3}
		rp := scriptedClient(t, rt)
		start := time.Now()
		var progress []int
		err := gq(rp).ScaleDownAndDelete(t.Context(), "ep1", option.Poll[int]{
			Interval: 5 * time.Second, OnCheck: func(n int) { progress = append(progress, n) }})
		require.NoError(t, err)
		// Update's two reads and its save, four polls (3, 2, 1, 0
		// workers), the read Delete makes to check 0/0, and the delete.
		assert.Equal(t, []string{"ListEndpoints", "EndpointSettings", "SaveEndpoint",
			"ListEndpoints", "ListEndpoints", "ListEndpoints", "ListEndpoints",
			"ListEndpoints", "DeleteEndpoint"}, rt.ops)
		assert.Equal(t, []int{3, 2, 1, 0}, progress)
		for i := 4; i < 7; i++ {
			assert.Equal(t, 5*time.Second, rt.at[i].Sub(rt.at[i-1]), "poll %d", i)
		}
		assert.Equal(t, 15*time.Second, time.Since(start))
	})
}

// TestDrainBoundedByContext: the wait ends with the context, naming how
// many workers were left, and nothing is deleted.
func TestDrainBoundedByContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &scripted{workers: 100}
		rp := scriptedClient(t, rt)
		ctx, cancel := context.WithTimeout(t.Context(), 12*time.Second)
		defer cancel()
		start := time.Now()
		err := gq(rp).ScaleDownAndDelete(ctx, "ep1", option.Poll[int]{Interval: 5 * time.Second})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "workers of endpoint ep1 to stop")
		assert.Equal(t, 12*time.Second, time.Since(start))
		assert.NotContains(t, rt.ops, "DeleteEndpoint")
	})
}

// TestGraphQLListsDrainingPods: workers scaled away are no longer listed
// by REST, but GraphQL still lists them as pods while they drain.
func TestGraphQLListsDrainingPods(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { return at }), runpodtest.WithWorkerDrain(time.Minute), fakegraphql.Serve())
	t.Cleanup(srv.Close)
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "vol-1", DataCenter: "US-KS-2"})
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "sdxl", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, GPUCount: 2, WorkersMin: 2})
	ctx := t.Context()
	_, err = rp.Serverless.Endpoints.ScaleToZero(ctx, id)
	require.NoError(t, err)
	list, err := rp.Serverless.Endpoints.Workers(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, list.Workers)
	ep, err := gq(rp).Get(ctx, id)
	require.NoError(t, err)
	assert.Len(t, ep.Workers, 2, "GraphQL lists the draining pods")
}
