package serverless

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestDiagnose (issue 37, item 6): the cause of a queued job, from the
// worker statuses the platform documents, in the order QueueCause gives,
// with the workers it is about; the summary counts when no worker is
// listed.
func TestDiagnose(t *testing.T) {
	list := func(statuses ...EndpointWorkerStatus) *ListEndpointWorkersResponse {
		l := &ListEndpointWorkersResponse{}
		for i, st := range statuses {
			l.Workers = append(l.Workers, EndpointWorker{ID: string(rune('a' + i)), Status: st})
		}
		return l
	}
	const (
		idle  = EndpointWorkerStatusIdle
		run   = EndpointWorkerStatusRunning
		start = EndpointWorkerStatusInitializing
		thr   = EndpointWorkerStatusThrottled
		unhlt = EndpointWorkerStatusUnhealthy
	)
	for _, tc := range []struct {
		list  *ListEndpointWorkersResponse
		cause QueueCause
		ids   []string
		words string
	}{
		{list(), QueueCauseNoWorkers, nil, "no workers: the endpoint lists none (scaled to zero, or none started yet)"},
		{list(unhlt, unhlt), QueueCauseUnhealthy, []string{"a", "b"}, "workers unhealthy: 2 of 2 workers failing health checks, likely crash-looping"},
		{list(idle, idle, unhlt), QueueCauseUnhealthy, []string{"c"}, "workers unhealthy: 1 of 3 workers"},
		{list(thr, start), QueueCauseThrottled, []string{"a"}, "no capacity: 1 of 2 workers throttled, waiting for a machine for the endpoint's GPU types"},
		{list(start, start), QueueCauseStarting, []string{"a", "b"}, "workers starting: 2 of 2 workers initializing (a cold start)"},
		{list(run, thr), QueueCauseBusy, []string{"a"}, "workers busy: 1 of 2 workers running other jobs, none idle"},
		{list(run, run), QueueCauseBusy, []string{"a", "b"}, "workers busy: 2 of 2 workers running other jobs"},
		{list(run, idle, thr), QueueCauseUnknown, []string{"b"}, "no cause shown: 1 of 3 workers idle and none unhealthy"},
		// A status the SDK does not know counts in the total only.
		{list("SUSPENDED"), QueueCauseUnknown, nil, "no cause shown: 0 of 1 worker idle"},
		{&ListEndpointWorkersResponse{Summary: EndpointWorkerSummary{Throttled: 2, Total: 2}}, QueueCauseThrottled, nil, "no capacity: 2 of 2 workers"},
	} {
		now := time.Unix(1e9, 0)
		d := diagnose(tc.list, now)
		assert.Equal(t, tc.cause, d.Cause, tc.words)
		assert.Equal(t, tc.ids, d.WorkerIDs, tc.words)
		assert.Equal(t, now, d.ReadAt)
		assert.Contains(t, d.String(), tc.words)
		assert.NotContains(t, d.String(), "queued", "no time: For is the wait's")
	}
	d := &QueueDiagnosis{Cause: QueueCauseNoWorkers, For: 42400 * time.Millisecond}
	assert.Equal(t, "queued 42s: no workers: the endpoint lists none (scaled to zero, or none started yet)", d.String())
}

// TestDueAt (issue 37, item 7): a read due past the wait's deadline is
// brought forward to its last chance, the deadline less the answer's
// margin, or to now when that has passed; once per wait.
func TestDueAt(t *testing.T) {
	now := time.Unix(1e9, 0)
	for _, tc := range []struct {
		left, gap, want time.Duration
	}{
		{0, 2 * time.Second, 2 * time.Second}, // no deadline
		{10 * time.Second, 2 * time.Second, 2 * time.Second},
		{900 * time.Millisecond, 2 * time.Second, 650 * time.Millisecond},
		{3 * time.Second, 2 * time.Second, 2 * time.Second},
		{2 * time.Second, 2 * time.Second, 1600 * time.Millisecond},
		{100 * time.Millisecond, 2 * time.Second, 0},
	} {
		w := &waiter{}
		if tc.left > 0 {
			w.deadline = now.Add(tc.left)
		}
		assert.Equal(t, now.Add(tc.want), w.dueAt(now, tc.gap), "%s left", tc.left)
		if tc.want < tc.gap {
			assert.Equal(t, now.Add(time.Minute), w.dueAt(now, time.Minute), "once per wait")
		}
	}
}

// TestQueuedHoldIsCut: a long poll of a job seen queued is held only
// until the job has been queued for QueuedAfter (at least the 1 s the
// platform takes), so the wait can say why then; a job not seen queued,
// or a wait that never diagnoses, keeps its hold.
func TestQueuedHoldIsCut(t *testing.T) {
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	c := queuedFor{after: 30 * time.Second}
	assert.Equal(t, 90*time.Second, c.hold(90*time.Second, t0), "not seen queued")
	c.saw(JobStatusInQueue, t0)
	assert.Equal(t, 20*time.Second, c.hold(90*time.Second, t0.Add(10*time.Second)))
	assert.Equal(t, 5*time.Second, c.hold(5*time.Second, t0.Add(10*time.Second)), "a shorter hold stays")
	assert.Equal(t, time.Second, c.hold(90*time.Second, t0.Add(29500*time.Millisecond)), "at least a hold the platform takes")
	assert.Equal(t, 90*time.Second, c.hold(90*time.Second, t0.Add(31*time.Second)), "past QueuedAfter: diagnosed already")
	c.saw(JobStatusInProgress, t0.Add(40*time.Second))
	assert.Equal(t, 90*time.Second, c.hold(90*time.Second, t0.Add(41*time.Second)), "taken")
	never := queuedFor{after: -1}
	never.saw(JobStatusInQueue, t0)
	assert.Equal(t, 90*time.Second, never.hold(90*time.Second, t0.Add(time.Second)), "QueuedAfter < 0")
}
