package pods_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// The default catalog's stock the tests lean on: the RTX 4090 is offered
// in EU-SE-1 with none free; the L40S has stock in EU-SE-1 and US-TX-3;
// the RTX A6000 in US-KS-2; the L4's machines have CUDA 12.4 and 12.6.
const (
	rtx4090 = "NVIDIA GeForce RTX 4090"
	l40s    = "NVIDIA L40S"
	a6000   = "NVIDIA RTX A6000"
	l4      = "NVIDIA L4"
)

// roundTrip is an http.RoundTripper made of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// faulty returns a client of srv whose connection answers the pod creates
// whose number (from 1) is in which with a 500 the platform gives no
// reason in, instead of the fake, as a failing platform would; it counts
// every create in creates.
func faulty(t *testing.T, srv *runpodtest.Server, creates *atomic.Int32, status int, body string, which ...int32) *runpod.Client {
	base := srv.Client().Transport
	hc := &http.Client{Transport: roundTrip(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodPost || req.URL.Path != "/v2/pods" {
			return base.RoundTrip(req)
		}
		n := creates.Add(1)
		for _, w := range which {
			if n == w {
				if req.Body != nil {
					_ = req.Body.Close()
				}
				return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"text/plain"}},
					Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
			}
		}
		return base.RoundTrip(req)
	})}
	rp, err := srv.NewClient(option.WithHTTPClient(hc), option.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return rp
}

// TestStockOutIsNoCapacity: the platform's stock-out answer (500 and its
// message) is a *errs.CapacityError matching ErrNoCapacity and not
// ErrOutcomeUnknown, sent once, and the fake holds no pod.
func TestStockOutIsNoCapacity(t *testing.T) {
	srv, rp, _ := fake(t)
	req := newPod()
	req.DataCenterIDs = []string{"EU-SE-1"}
	_, err := rp.Pods.Create(t.Context(), req)
	require.Error(t, err)
	assert.ErrorIs(t, err, errs.ErrNoCapacity)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown, "a stock-out says nothing was created")
	var c *errs.CapacityError
	require.ErrorAs(t, err, &c)
	assert.Equal(t, errs.CapacityReasonOutOfStock, c.Reason)
	assert.Equal(t, http.StatusInternalServerError, c.APIError.StatusCode)
	assert.Contains(t, err.Error(), "nothing was created")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreatePod), "not retried")
	assert.Empty(t, srv.Pods())
}

// TestNoMatchingHostIsItsOwnReason: a request no machine can take (a CUDA
// version the type's machines lack) is ErrNoCapacity with the reason
// NoMatchingHost, told apart from a stock-out.
func TestNoMatchingHostIsItsOwnReason(t *testing.T) {
	srv, rp, _ := fake(t)
	req := newPod()
	req.GPU = &pods.CreateGPUConfig{ID: l4, AllowedCUDAVersions: []string{"12.8"}}
	_, err := rp.Pods.Create(t.Context(), req)
	var c *errs.CapacityError
	require.ErrorAs(t, err, &c)
	assert.Equal(t, errs.CapacityReasonNoMatchingHost, c.Reason)
	assert.Equal(t, "could not find any pods with required specifications", c.Wording)
	assert.Empty(t, srv.Pods())
}

// TestUnknown500StaysOutcomeUnknown: a 500 without a known wording, and a
// 502 even with one, leave the outcome unknown.
func TestUnknown500StaysOutcomeUnknown(t *testing.T) {
	srv, _, _ := fake(t)
	var creates atomic.Int32
	rp := faulty(t, srv, &creates, http.StatusInternalServerError, `create pod: internal error`, 1)
	_, err := rp.Pods.Create(t.Context(), newPod())
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, errs.ErrNoCapacity)
	assert.EqualValues(t, 1, creates.Load(), "not retried")

	rp = faulty(t, srv, &creates, http.StatusBadGateway, "There are no instances currently available", 2)
	_, err = rp.Pods.Create(t.Context(), newPod())
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown, "a gateway's 502 is not the platform's answer")
	assert.NotErrorIs(t, err, errs.ErrNoCapacity)
	assert.Empty(t, srv.Pods())
}

// TestFallbackCreatesOnePodWithThreeRequests: of three candidates, the
// first two out of stock, the third gets the pod, with one create each.
func TestFallbackCreatesOnePodWithThreeRequests(t *testing.T) {
	srv, rp, _ := fake(t)
	require.True(t, srv.SetGPUStock(l40s, "EU-SE-1", catalog.AvailabilityLevelNone))
	pod, err := rp.Pods.CreateWithFallback(t.Context(), newPod(), []pods.Candidate{
		{GPUTypeID: rtx4090, DataCenterIDs: []string{"EU-SE-1"}},
		{GPUTypeID: l40s, DataCenterIDs: []string{"EU-SE-1"}},
		{GPUTypeID: a6000, DataCenterIDs: []string{"US-KS-2"}, Cloud: pods.CloudCommunity},
	})
	require.NoError(t, err)
	assert.Equal(t, 3, srv.Count(runpodtest.RouteCreatePod))
	require.Len(t, srv.Pods(), 1)
	got := srv.Pods()[0]
	assert.Equal(t, pod.ID, got.ID)
	assert.Equal(t, a6000, got.GPU)
	assert.Equal(t, "US-KS-2", deref(pod.DataCenterID))
}

// TestFallbackStopsOnAnAmbiguousFailure: a 500 the platform gives no
// reason in stops the fallback at once: no third create, and the error
// matches ErrOutcomeUnknown, never ErrNoCapacity.
func TestFallbackStopsOnAnAmbiguousFailure(t *testing.T) {
	srv, _, _ := fake(t)
	var creates atomic.Int32
	rp := faulty(t, srv, &creates, http.StatusInternalServerError, `create pod: internal error`, 2)
	_, err := rp.Pods.CreateWithFallback(t.Context(), newPod(), []pods.Candidate{
		{DataCenterIDs: []string{"EU-SE-1"}},
		{DataCenterIDs: []string{"EU-RO-1"}},
		{DataCenterIDs: []string{"US-TX-3"}},
	})
	require.Error(t, err)
	assert.EqualValues(t, 2, creates.Load())
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreatePod), "the second never reached the fake")
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, errs.ErrNoCapacity, "the earlier stock-out must not say nothing was created")
	var p *errs.PlacementError
	require.ErrorAs(t, err, &p)
	assert.False(t, p.Exhausted)
	require.Len(t, p.Attempts, 2)
	assert.ErrorIs(t, p.Attempts[0].Err, errs.ErrNoCapacity)
	assert.Equal(t, []string{"EU-RO-1"}, p.Attempts[1].DataCenterIDs)
}

// TestFallbackStopsOnA4xx: a refusal another place would not fix (an
// unknown GPU type, 400) stops the fallback.
func TestFallbackStopsOnA4xx(t *testing.T) {
	srv, rp, _ := fake(t)
	_, err := rp.Pods.CreateWithFallback(t.Context(), newPod(), []pods.Candidate{
		{DataCenterIDs: []string{"EU-SE-1"}},
		{GPUTypeID: "NVIDIA GeForce GTX 480"},
		{GPUTypeID: a6000},
	})
	var api *errs.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, http.StatusBadRequest, api.StatusCode)
	assert.NotErrorIs(t, err, errs.ErrNoCapacity)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteCreatePod))
	assert.Empty(t, srv.Pods())
}

// TestFallbackExhaustionListsEveryAttempt: when every candidate is out of
// capacity the error lists each attempt and matches ErrNoCapacity.
func TestFallbackExhaustionListsEveryAttempt(t *testing.T) {
	srv, rp, _ := fake(t)
	for _, dc := range []string{"EU-RO-1", "US-TX-3", "CA-MTL-1"} {
		srv.SetGPUStock(rtx4090, dc, catalog.AvailabilityLevelNone)
	}
	// CUDA 12.8: the 4090's machines have it (and no stock), the L4's
	// (in stock) do not.
	req := newPod()
	req.GPU.AllowedCUDAVersions = []string{"12.8"}
	_, err := rp.Pods.CreateWithFallback(t.Context(), req, []pods.Candidate{
		{DataCenterIDs: []string{"EU-SE-1"}},
		{DataCenterIDs: []string{"EU-RO-1", "US-TX-3"}},
		{GPUTypeID: l4, DataCenterIDs: []string{"US-TX-3"}},
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, errs.ErrNoCapacity)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	var p *errs.PlacementError
	require.ErrorAs(t, err, &p)
	assert.True(t, p.Exhausted)
	require.Len(t, p.Attempts, 3)
	assert.False(t, p.AllNoMatchingHost(), "two were stock-outs")
	msg := err.Error()
	for _, want := range []string{"3 tried", "1. " + rtx4090 + " in EU-SE-1: out of stock", "2. " + rtx4090 + " in EU-RO-1|US-TX-3: out of stock", "3. " + l4 + " in US-TX-3: no matching host"} {
		assert.Contains(t, msg, want)
	}
	assert.Equal(t, 3, srv.Count(runpodtest.RouteCreatePod))
	assert.Empty(t, srv.Pods())
}

// TestFallbackFromTheCatalog: candidates from the catalog's offers,
// cheapest first; the cheapest ran out between the read and the create,
// so the pod lands on the next.
func TestFallbackFromTheCatalog(t *testing.T) {
	srv, rp, _ := fake(t)
	offers, err := rp.Catalog.FindGPUs(t.Context(), catalog.GPUQuery{MinMemoryGB: 40})
	require.NoError(t, err)
	candidates := pods.CandidatesFrom(offers)
	require.GreaterOrEqual(t, len(candidates), 2)
	first, second := candidates[0], candidates[1]
	assert.Equal(t, a6000, first.GPUTypeID, "the cheapest with 40 GB and stock")
	assert.Equal(t, []string{"US-KS-2"}, first.DataCenterIDs, "its most available data center first")
	srv.SetGPUStock(first.GPUTypeID, first.DataCenterIDs[0], catalog.AvailabilityLevelNone)

	pod, err := rp.Pods.CreateWithFallback(t.Context(), newPod(), candidates)
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteCreatePod))
	assert.Equal(t, second.GPUTypeID, srv.Pods()[0].GPU)
	assert.Equal(t, second.DataCenterIDs[0], deref(pod.DataCenterID))
}

// TestFallbackChecksEveryCandidateFirst: a bad candidate anywhere in the
// list is refused, naming it, before anything is sent.
func TestFallbackChecksEveryCandidateFirst(t *testing.T) {
	srv, rp, _ := fake(t)
	cpu := newPod()
	cpu.GPU, cpu.CPU = nil, &pods.CreateCPUConfig{ID: "cpu3c", VcpuCount: 2}
	for name, tc := range map[string]struct {
		req   pods.CreatePodRequest
		cands []pods.Candidate
		field string
	}{
		"none":        {newPod(), nil, "candidates"},
		"cloud":       {newPod(), []pods.Candidate{{}, {}, {Cloud: "MOON"}}, "candidates[2].Cloud"},
		"gpu on cpu":  {cpu, []pods.Candidate{{GPUTypeID: l4}}, "candidates[0].GPUTypeID"},
		"blank dc":    {newPod(), []pods.Candidate{{DataCenterIDs: []string{"EU-RO-1", " "}}}, "candidates[0].DataCenterIDs[1]"},
		"blank gpu":   {newPod(), []pods.Candidate{{GPUTypeID: "  "}}, "candidates[0].GPUTypeID"},
		"request bad": {pods.CreatePodRequest{Name: "x"}, []pods.Candidate{{}}, "CreatePodRequest.Image"},
	} {
		_, err := rp.Pods.CreateWithFallback(t.Context(), tc.req, tc.cands)
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v, name)
		assert.Equal(t, tc.field, v.Field, name)
	}
	assert.Zero(t, srv.Count(runpodtest.RouteCreatePod))
}

// TestFallbackStopsWhenTheContextEnds: a context that ends after a
// stock-out stops the fallback before the next create is sent; the error
// is the context's, with nothing ambiguous.
func TestFallbackStopsWhenTheContextEnds(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cancelAfterFirst := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		cancel()
		return resp, err
	}
	_, err := rp.Pods.CreateWithFallback(ctx, newPod(), []pods.Candidate{{DataCenterIDs: []string{"EU-SE-1"}}, {}},
		option.WithMiddleware(cancelAfterFirst))
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, errs.ErrNoCapacity)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreatePod))
}

// TestStartOnAFullHostIsNoCapacity: a stopped pod whose data center has
// no free GPU is refused with the platform's message, which is
// ErrNoCapacity; the pod stays stopped.
func TestStartOnAFullHostIsNoCapacity(t *testing.T) {
	srv, rp, c := fake(t)
	pod, err := rp.Pods.Create(t.Context(), newPod())
	require.NoError(t, err)
	c.Add(time.Minute)
	_, err = rp.Pods.Stop(t.Context(), pod.ID)
	require.NoError(t, err)
	srv.SetGPUStock(rtx4090, deref(pod.DataCenterID), catalog.AvailabilityLevelNone)
	_, err = rp.Pods.Start(t.Context(), pod.ID)
	assert.ErrorIs(t, err, errs.ErrNoCapacity)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	got, err := rp.Pods.Get(t.Context(), pod.ID)
	require.NoError(t, err)
	assert.Equal(t, pods.PodStatusExited, got.Status)
}

// l4OutOfStock starts, inside the test's synctest bubble, a fake on the
// memory network with the L4 out of stock everywhere, and a client.
func l4OutOfStock(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithMemoryNetwork())
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	for _, dc := range []string{"US-TX-3", "EU-RO-1"} {
		srv.SetGPUStock(l4, dc, catalog.AvailabilityLevelNone)
	}
	return srv, rp
}

// TestCreateWhenAvailableWaitsForStock: with the L4 out everywhere, the
// wait reads the catalog every interval (on the bubble's clock) and
// creates the pod the first time a data center has stock, there.
func TestCreateWhenAvailableWaitsForStock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, rp := l4OutOfStock(t)
		req := newPod()
		req.GPU = &pods.CreateGPUConfig{ID: l4}
		var seen [][]catalog.DataCenterAvailability
		type result struct {
			pod *pods.Pod
			err error
		}
		done := make(chan result, 1)
		start := time.Now()
		go func() {
			pod, err := rp.Pods.CreateWhenAvailable(t.Context(), req, option.Poll[[]catalog.DataCenterAvailability]{
				Interval: time.Minute,
				OnCheck:  func(d []catalog.DataCenterAvailability) { seen = append(seen, d) },
			})
			done <- result{pod, err}
		}()
		time.Sleep(5*time.Minute + 30*time.Second)
		synctest.Wait()
		assert.Zero(t, srv.Count(runpodtest.RouteCreatePod), "nothing to create on yet")
		srv.SetGPUStock(l4, "EU-RO-1", catalog.AvailabilityLevelLow)
		r := <-done
		require.NoError(t, r.err)
		assert.Equal(t, 6*time.Minute, time.Since(start), "created at the first read after the stock came")
		assert.Equal(t, "EU-RO-1", deref(r.pod.DataCenterID))
		assert.Equal(t, 1, srv.Count(runpodtest.RouteCreatePod))
		require.Len(t, seen, 7)
		assert.Empty(t, seen[0])
		assert.Equal(t, "EU-RO-1", seen[6][0].ID)
	})
}

// TestCreateWhenAvailableEndsWithTheContext: a wait that ends before any
// stock came returns the context's error, and nothing was created.
func TestCreateWhenAvailableEndsWithTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, rp := l4OutOfStock(t)
		req := newPod()
		req.GPU = &pods.CreateGPUConfig{ID: l4}
		ctx, cancel := context.WithTimeout(t.Context(), 9*time.Minute+45*time.Second)
		defer cancel()
		_, err := rp.Pods.CreateWhenAvailable(ctx, req, option.Poll[[]catalog.DataCenterAvailability]{})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 20, srv.Count(runpodtest.RouteGPUTypes), "a read every StockPollInterval (30 s) by default")
		assert.Contains(t, err.Error(), "(20 checks)")
		assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
		assert.Contains(t, err.Error(), "nothing was created")
		assert.Zero(t, srv.Count(runpodtest.RouteCreatePod))

		cpu := newPod()
		cpu.GPU, cpu.CPU = nil, &pods.CreateCPUConfig{ID: "cpu3c", VcpuCount: 2}
		_, err = rp.Pods.CreateWhenAvailable(t.Context(), cpu, option.Poll[[]catalog.DataCenterAvailability]{})
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v)
		assert.Equal(t, "CreatePodRequest.GPU", v.Field)
	})
}

// TestCapacityErrorKeepsNoSecret: the platform's message is kept, the key
// is not.
func TestCapacityErrorKeepsNoSecret(t *testing.T) {
	srv, rp, _ := fake(t)
	req := newPod()
	req.DataCenterIDs = []string{"EU-SE-1"}
	_, err := rp.Pods.Create(t.Context(), req)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), srv.APIKey)
	var buf bytes.Buffer
	buf.WriteString(err.Error())
	assert.Contains(t, buf.String(), "no longer any instances available")
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
