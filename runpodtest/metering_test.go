package runpodtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// meteringStart is when the metering tests' clocks start: a Monday, in
// the middle of a day bucket.
var meteringStart = time.Date(2026, 6, 1, 10, 30, 0, 0, time.UTC)

// meteredServer returns a fake on a clock the test moves, from
// meteringStart, and a client of it.
func meteredServer(t *testing.T, opts ...runpodtest.Option) (*testkit.Clock, *runpodtest.Server, *runpod.Client) {
	t.Helper()
	c := testkit.NewClock(meteringStart)
	srv := newServer(t, append([]runpodtest.Option{runpodtest.WithClock(c.Now)}, opts...)...)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	return c, srv, rp
}

// podTotals returns the pods report's amounts for the window, by pod,
// summed over the window's buckets.
func podTotals(t *testing.T, rp *runpod.Client, p billing.Params) map[string]billing.PodBillingAmounts {
	t.Helper()
	rep, err := rp.Billing.Pods(t.Context(), p)
	require.NoError(t, err)
	require.NoError(t, rep.Reconcile())
	out := map[string]billing.PodBillingAmounts{}
	for _, r := range rep.Records {
		a := out[r.PodID]
		a.GPUAmount += r.GPUAmount
		a.CPUAmount += r.CPUAmount
		a.DiskAmount += r.DiskAmount
		a.TotalAmount += r.TotalAmount
		out[r.PodID] = a
	}
	return out
}

// TestPodsBill: a pod bills the catalog's price of its GPUs times the time
// it ran, from its create (PROVISIONING and STARTING included, as the
// document's Pod.cost says) until it stops, split across the buckets it
// ran in; its disks at the pricing page's rates, the volume disk alone
// (at the stopped rate) once stopped; a CPU pod bills its vCPUs as CPU
// amount; a stopped pod stops accruing compute; a deleted pod's usage
// stays; usage a test adds adds to it. All on the fake's clock.
func TestPodsBill(t *testing.T) {
	c, srv, rp := meteredServer(t)
	ctx := t.Context()

	gpuType, err := rp.Catalog.GPUType(ctx, "NVIDIA GeForce RTX 4090", catalog.GetGPUTypeParams{})
	require.NoError(t, err)
	require.Equal(t, 0.69, gpuType.Price.Secure, "the default catalog's secure price")
	gpuPod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name: "trainer", Image: runpod.Ptr("runpod/pytorch:2.4.0"), Disk: runpod.Ptr(16),
		GPU:    &pods.CreateGPUConfig{ID: gpuType.ID, Count: runpod.Ptr(2)},
		Mounts: &pods.Mounts{Persistent: &pods.PersistentMount{Size: 20, Path: "/workspace"}},
	})
	require.NoError(t, err)
	assert.Equal(t, pods.PodStatusProvisioning, gpuPod.Status)
	cpuPod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
		Name: "cpu", Image: runpod.Ptr("ubuntu:24.04"), Disk: runpod.Ptr(20),
		CPU: &pods.CreateCPUConfig{ID: "cpu3c", VcpuCount: 4},
	})
	require.NoError(t, err)

	// Two hours later (10:30 to 12:30) the GPU pod stops; the CPU pod is
	// deleted an hour after that.
	c.Add(2 * time.Hour)
	_, err = rp.Pods.Stop(ctx, gpuPod.ID)
	require.NoError(t, err)
	c.Add(time.Hour)
	require.NoError(t, rp.Pods.Delete(ctx, cpuPod.ID))

	day := billing.Params{Start: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)}
	got := podTotals(t, rp, day)
	// 2 GPUs at $0.69 for 2 h.
	assert.Equal(t, billing.Dollars(2*0.69*2), got[gpuPod.ID].GPUAmount)
	// 16 + 20 GB at $0.10 per GB-month (30 days) for 2 h: $0.01; then
	// the 20 GB volume at $0.20 per GB-month for 1 h.
	assert.InDelta(t, 0.01+20*0.20/720, got[gpuPod.ID].DiskAmount.Float64(), 1e-9, "disk, to the nano-dollar")
	// 4 vCPUs at $0.05 for 3 h, and its container disk.
	assert.Equal(t, billing.Dollars(4*0.05*3), got[cpuPod.ID].CPUAmount, "a deleted pod's usage stays")
	assert.Zero(t, got[cpuPod.ID].GPUAmount)
	assert.InDelta(t, 20*0.10/720*3, got[cpuPod.ID].DiskAmount.Float64(), 1e-9)

	// In hour buckets, the GPU pod's two hours fall in three buckets.
	hours, err := rp.Billing.Pods(ctx, billing.Params{Bucket: billing.BillingBucketSizeHour, ID: gpuPod.ID,
		Start: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC), End: time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	require.Len(t, hours.Records, 3)
	for i, want := range []float64{0.69, 1.38, 0.69} {
		assert.Equal(t, billing.Dollars(want), hours.Records[i].GPUAmount, "hour %d", i)
	}

	// Stopped, the GPU pod accrues no compute, only its volume disk.
	c.Add(5 * time.Hour)
	later := podTotals(t, rp, day)
	assert.Equal(t, got[gpuPod.ID].GPUAmount, later[gpuPod.ID].GPUAmount)
	assert.InDelta(t, (got[gpuPod.ID].DiskAmount + billing.Dollars(5*20*0.20/720)).Float64(), later[gpuPod.ID].DiskAmount.Float64(), 1e-8)
	assert.Equal(t, got[cpuPod.ID], later[cpuPod.ID], "a deleted pod bills nothing more")

	// Usage a test adds adds to what the pod used.
	srv.AddPodUsage(runpodtest.PodUsage{At: meteringStart, PodID: gpuPod.ID, GPU: 1.5})
	added := podTotals(t, rp, day)
	assert.Equal(t, later[gpuPod.ID].GPUAmount+billing.Dollars(1.5), added[gpuPod.ID].GPUAmount)

	// The account summary has the same spend.
	sum, err := rp.Billing.Summary(ctx, day)
	require.NoError(t, err)
	assert.Equal(t, added[gpuPod.ID].GPUAmount, sum.Metadata.Totals.PodGPUAmount)
	assert.Equal(t, added[cpuPod.ID].CPUAmount, sum.Metadata.Totals.PodCPUAmount)
}

// TestPodBillsOnlyWhileNotStopped: a pod started again bills again; the
// billing history of a pod made with AddPod is the catalog's secure price
// of its GPUs from the time it was added.
func TestPodBillsOnlyWhileNotStopped(t *testing.T) {
	c, srv, rp := meteredServer(t, runpodtest.WithPodBoot(time.Minute, time.Minute))
	ctx := t.Context()
	id := srv.AddPod(runpodtest.Pod{Name: "box", GPU: "NVIDIA L4", GPUCount: 1, Disk: 1})

	c.Add(time.Hour)
	_, err := rp.Pods.Stop(ctx, id)
	require.NoError(t, err)
	c.Add(10 * time.Hour) // stopped: no compute
	_, err = rp.Pods.Start(ctx, id)
	require.NoError(t, err)
	c.Add(30 * time.Minute) // PROVISIONING, STARTING, then RUNNING: all bill
	pod, err := rp.Pods.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, pods.PodStatusRunning, pod.Status)

	got := podTotals(t, rp, billing.Params{LastN: 1, Bucket: billing.BillingBucketSizeDay})
	assert.Equal(t, billing.Dollars(0.43*1.5), got[id].GPUAmount, "$0.43 an hour, for 1.5 h")
}

// sleepOn is a handler that moves the test's clock by the duration its
// input names, as a job that runs that long.
func sleepOn(c *testkit.Clock) worker.Handler {
	return func(_ context.Context, job *worker.Job) (any, error) {
		var d string
		if err := job.Decode(&d); err != nil {
			return nil, err
		}
		dur, err := time.ParseDuration(d)
		if err != nil {
			return nil, err
		}
		c.Add(dur)
		return "ok", nil
	}
}

// TestEndpointsBill: an endpoint scaled to zero bills each job's run,
// rounded up to the second, at the catalog's serverless price of its pool
// times its GPU count; an endpoint with workers.min 1 bills its kept
// worker from its start until it is scaled away, and a job running on
// that worker adds nothing; a deleted endpoint's usage stays; usage a test
// adds adds to it.
func TestEndpointsBill(t *testing.T) {
	c, srv, rp := meteredServer(t, runpodtest.WithWorkerDrain(0))
	ctx := t.Context()
	srv.AddGPUType(runpodtest.GPUType{ID: "NVIDIA RTX A4000", Pool: string(serverless.GPUPoolAmpere16), MemoryGB: 16,
		SecurePrice: 0.25, ServerlessPrice: 0.72})

	flex := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "flex", TemplateID: "t-flex",
		GPUs: []serverless.GPUPool{serverless.GPUPoolAmpere16}, GPUCount: 2}, sleepOn(c))
	kept := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "kept", TemplateID: "t-kept",
		GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 1}, sleepOn(c))

	for _, run := range []struct{ endpoint, d string }{{flex, "90s"}, {flex, "29200ms"}, {kept, "60s"}} {
		job, err := rp.Serverless.Queue(run.endpoint).RunSync(ctx, serverless.RunParams{Input: run.d}, serverless.WaitOptions{})
		require.NoError(t, err)
		require.Equal(t, serverless.JobStatusCompleted, job.Status, run)
	}
	// Two hours after it was made, the kept endpoint is scaled to zero,
	// and an hour after that deleted.
	c.Add(2*time.Hour - 179200*time.Millisecond)
	_, err := rp.Serverless.Endpoints.Update(ctx, kept, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(0)}})
	require.NoError(t, err)
	c.Add(time.Hour)
	require.NoError(t, rp.Serverless.Endpoints.DeleteNow(ctx, kept))
	c.Add(time.Hour)

	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 1, Bucket: billing.BillingBucketSizeDay})
	require.NoError(t, err)
	require.NoError(t, rep.Reconcile())
	got := map[string]billing.ServerlessBillingRecord{}
	for _, r := range rep.Records {
		got[r.ServerlessID] = r
	}
	// 90 s and 30 s (29.2 s rounded up) of a worker of 2 GPUs at $0.72.
	assert.Equal(t, billing.Dollars(0.72*2*120/3600), got[flex].GPUAmount)
	// The kept worker's 2 h at the RTX 4090's pool price, $1.10; its job
	// ran on it.
	assert.Equal(t, billing.Dollars(1.10*2), got[kept].GPUAmount, "a deleted endpoint's usage stays")
	for _, r := range got {
		assert.Zero(t, r.CPUAmount+r.DiskAmount+r.FeeAmount)
	}

	srv.AddServerlessUsage(runpodtest.ServerlessUsage{At: meteringStart, ServerlessID: flex, GPU: 1, Fee: 0.25})
	rep, err = rp.Billing.Serverless(ctx, billing.Params{LastN: 1, Bucket: billing.BillingBucketSizeDay, ID: flex})
	require.NoError(t, err)
	require.Len(t, rep.Records, 1)
	assert.Equal(t, billing.Dollars(0.048+1), rep.Records[0].GPUAmount, "usage a test adds adds to the endpoint's")
	assert.Equal(t, billing.Dollars(0.25), rep.Records[0].FeeAmount)
}

// TestBusyEndpointBillsEachJob: jobs beyond an endpoint's kept workers
// each bill a worker of their own while they run; a CPU endpoint bills
// its vCPUs as CPU amount.
func TestBusyEndpointBillsEachJob(t *testing.T) {
	c, srv, rp := meteredServer(t)
	ctx := t.Context()
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	id := srv.AddQueueEndpoint(runpodtest.Endpoint{Name: "cpu", TemplateID: "t-cpu", InstanceIDs: []string{"cpu3c-4-8"}},
		func(ctx context.Context, _ *worker.Job) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "ok", nil
		}, runpodtest.WithWorkers(2))

	var jobs []string
	for range 2 {
		job, err := rp.Serverless.Queue(id).Run(ctx, serverless.RunParams{Input: 1})
		require.NoError(t, err)
		jobs = append(jobs, job.ID)
	}
	<-started
	<-started
	c.Add(9 * time.Minute) // within the default execution timeout
	close(release)
	for _, j := range jobs {
		job, err := rp.Serverless.Queue(id).Wait(ctx, j, serverless.WaitOptions{})
		require.NoError(t, err)
		require.Equal(t, serverless.JobStatusCompleted, job.Status)
	}

	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 1, Bucket: billing.BillingBucketSizeDay, ID: id})
	require.NoError(t, err)
	require.Len(t, rep.Records, 1)
	// Two workers of 4 vCPUs at cpu3c's serverless $0.04, for 9 minutes.
	assert.Equal(t, billing.Dollars(2*4*0.04*0.15), rep.Records[0].CPUAmount)
	assert.Zero(t, rep.Records[0].GPUAmount)
}
