package lease_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/lease/leasetest"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/volumes"
)

// fakeTB is a testing.TB whose failures do not fail the test that runs
// it: it records them, and runs its cleanups when run ends, newest first,
// as package testing does, after a panic or FailNow too.
type fakeTB struct {
	testing.TB // the real test, for what is not overridden

	mu       sync.Mutex
	cleanups []func()
	errors   []string
	failed   bool
}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors, f.failed = append(f.errors, fmt.Sprintf(format, args...)), true
}

func (f *fakeTB) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

func (f *fakeTB) FailNow() { f.Fail(); runtime.Goexit() }

func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...); runtime.Goexit() }

func (f *fakeTB) Fatal(args ...any) { f.Error(args...); runtime.Goexit() }

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) Helper() {}

// run runs body on its own goroutine, as a test runs, and returns what
// it panicked with.
func (f *fakeTB) run(body func(tb testing.TB)) (panicked any) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		body(f)
	}()
	<-done
	return panicked
}

// cleanup runs the cleanups, newest first, as package testing does when
// a test has ended.
func (f *fakeTB) cleanup() {
	f.mu.Lock()
	cleanups := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

// createAll creates through rp a network volume, a pod mounting it, a
// sandbox without a name, an endpoint with a worker always on, a cluster
// and a template, as a test's setup would.
func createAll(tb testing.TB, rp *runpod.Client) {
	ctx := context.Background()
	v, err := rp.Volumes.Create(ctx, volumeRequest("data"))
	if !assert.NoError(tb, err) {
		return
	}
	_, err = rp.Pods.Create(ctx, podRequest("trainer", v.ID))
	assert.NoError(tb, err)
	unnamed := sandboxRequest("x")
	unnamed.Name = nil // Track names it "sandbox", leased
	_, err = rp.Sandboxes.Create(ctx, unnamed)
	assert.NoError(tb, err)
	_, err = rp.Serverless.Endpoints.Create(ctx, endpointRequest("inference"))
	assert.NoError(tb, err)
	_, err = rp.Clusters.Create(ctx, clusterRequest("fleet"))
	assert.NoError(tb, err)
	_, err = rp.Templates.Create(ctx, templateRequest("image"))
	assert.NoError(tb, err)
}

// TestTrackCleansUpAfterAFailure: a test that creates one resource of
// each kind through a tracked client and then fails (FailNow) or panics
// leaves nothing behind: its cleanup deletes the pod before the volume it
// mounts and scales the endpoint to zero before deleting it (the fake
// refuses the other orders). The names went out leased.
func TestTrackCleansUpAfterAFailure(t *testing.T) {
	for _, how := range []string{"FailNow", "panic"} {
		t.Run(how, func(t *testing.T) {
			srv, rp, _ := fake(t)
			tb := &fakeTB{TB: t}
			tracked, err := srv.NewClient(leasetest.Track(tb, rp, leasetest.TrackOptions{TTL: 30 * time.Minute, Now: func() time.Time { return t0 }}))
			require.NoError(t, err)
			t.Cleanup(tracked.CloseIdleConnections)
			panicked := tb.run(func(tb testing.TB) {
				createAll(tb, tracked)
				if how == "panic" {
					panic("the test broke")
				}
				tb.FailNow()
			})
			assert.Equal(t, how == "panic", panicked != nil)
			assert.True(t, tb.Failed() || panicked != nil)
			during := left(t, rp)
			tb.cleanup()
			require.Empty(t, tb.errors, "the cleanup reported nothing")
			suffix := "~lease-20900101T1230Z"
			assert.Equal(t, map[lease.Kind][]string{
				lease.KindPod: {"trainer" + suffix}, lease.KindSandbox: {"sandbox" + suffix}, lease.KindEndpoint: {"inference" + suffix}, lease.KindCluster: {"fleet" + suffix},
				lease.KindNetworkVolume: {"data" + suffix}, lease.KindTemplate: {"image" + suffix},
			}, during)
			assert.Empty(t, left(t, rp), "nothing left")
		})
	}
}

// TestTrackInARealSubtest: with the real testing.T of a sub-test, what it
// created is gone once the sub-test has returned.
func TestTrackInARealSubtest(t *testing.T) {
	srv, rp, _ := fake(t)
	t.Run("creates", func(t *testing.T) {
		tracked, err := srv.NewClient(leasetest.Track(t, rp, leasetest.TrackOptions{}))
		require.NoError(t, err)
		t.Cleanup(tracked.CloseIdleConnections)
		createAll(t, tracked)
		require.NotEmpty(t, left(t, rp))
	})
	assert.Empty(t, left(t, rp))
}

// TestTrackThenReap: when the test process dies before its cleanup runs,
// the leases Track put on the names let a later Reap delete everything
// once the TTL has passed, and not before.
func TestTrackThenReap(t *testing.T) {
	srv, rp, clk := fake(t)
	tb := &fakeTB{TB: t}
	tracked, err := srv.NewClient(leasetest.Track(tb, rp, leasetest.TrackOptions{TTL: time.Hour, Now: clk.Now}))
	require.NoError(t, err)
	t.Cleanup(tracked.CloseIdleConnections)
	tb.run(func(tb testing.TB) { createAll(tb, tracked) }) // killed: its cleanup never runs
	require.Empty(t, tb.errors)

	report, err := lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Empty(t, report.Deleted, "the leases have not ended")
	assert.Len(t, report.Found, 6)
	clk.Add(time.Hour)
	report, err = lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Len(t, report.Deleted, 6)
	assert.Empty(t, left(t, rp))
}

// TestTrackKeepsALease: a name leased by the caller is sent as it is;
// what the test deleted itself is no failure of the cleanup; calls that
// create nothing are not touched.
func TestTrackKeepsALease(t *testing.T) {
	srv, rp, _ := fake(t)
	tb := &fakeTB{TB: t}
	tracked, err := srv.NewClient(leasetest.Track(tb, rp, leasetest.TrackOptions{}))
	require.NoError(t, err)
	t.Cleanup(tracked.CloseIdleConnections)
	name := leased(t, "mine", 3*time.Hour)
	tb.run(func(tb testing.TB) {
		v, err := tracked.Volumes.Create(context.Background(), volumeRequest(name))
		require.NoError(tb, err)
		assert.Equal(tb, name, v.Name)
		v, err = tracked.Volumes.Update(context.Background(), v.ID, volumes.UpdateNetworkVolumeRequest{Name: runpod.Ptr("renamed")})
		require.NoError(tb, err)
		assert.Equal(tb, "renamed", v.Name)
		require.NoError(tb, tracked.Volumes.Delete(context.Background(), v.ID))
	})
	tb.cleanup()
	assert.Empty(t, tb.errors, "deleted by the test: no failure")
	assert.Empty(t, left(t, rp))
}

// TestTrackReportsCleanupFailures: a delete that fails in the cleanup is
// reported with Errorf, naming the resource, and the others still go.
func TestTrackReportsCleanupFailures(t *testing.T) {
	srv, rp, _ := fake(t)
	tb := &fakeTB{TB: t}
	tracked, err := srv.NewClient(leasetest.Track(tb, rp, leasetest.TrackOptions{}))
	require.NoError(t, err)
	t.Cleanup(tracked.CloseIdleConnections)
	var volumeID string
	tb.run(func(tb testing.TB) {
		v, err := tracked.Volumes.Create(context.Background(), volumeRequest("a"))
		require.NoError(tb, err)
		volumeID = v.ID
		_, err = tracked.Templates.Create(context.Background(), templateRequest("b"))
		require.NoError(tb, err)
		srv.FailNext(runpodtest.RouteDeleteNetworkVolume, 1, runpodtest.Fault{Status: 403})
	})
	tb.cleanup()
	require.Len(t, tb.errors, 1)
	assert.Contains(t, tb.errors[0], "delete network volume "+volumeID)
	assert.Contains(t, tb.errors[0], "403")
	still := left(t, rp)
	assert.Len(t, still[lease.KindNetworkVolume], 1)
	assert.Empty(t, still[lease.KindTemplate])
}

// TestTrackRefusesBadInput: a nil client or a negative duration fails
// every call given the option with a *errs.ValidationError naming it,
// before anything is sent; so does a name Name cannot lease.
func TestTrackRefusesBadInput(t *testing.T) {
	srv, rp, _ := fake(t)
	for field, o := range map[string]func(tb testing.TB) option.RequestOption{
		"rp": func(tb testing.TB) option.RequestOption { return leasetest.Track(tb, nil, leasetest.TrackOptions{}) },
		"TrackOptions.TTL": func(tb testing.TB) option.RequestOption {
			return leasetest.Track(tb, rp, leasetest.TrackOptions{TTL: -1})
		},
		"TrackOptions.CleanupTimeout": func(tb testing.TB) option.RequestOption {
			return leasetest.Track(tb, rp, leasetest.TrackOptions{CleanupTimeout: -1})
		},
	} {
		from := srv.Count("*")
		_, err := rp.Volumes.Create(t.Context(), volumeRequest("x"), o(&fakeTB{TB: t}))
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v, field)
		assert.Equal(t, field, v.Field)
		assert.Equal(t, from, srv.Count("*"), field)
	}
	from := srv.Count("*")
	_, err := rp.Volumes.Create(t.Context(), volumeRequest("bad\x01name"), leasetest.Track(&fakeTB{TB: t}, rp, leasetest.TrackOptions{}))
	var v *errs.ValidationError
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "CreateNetworkVolumeRequest.Name", v.Field)
	assert.Equal(t, from, srv.Count("*"))
}
