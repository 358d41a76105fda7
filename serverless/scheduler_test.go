package serverless_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/serverless"
)

// TestWaitBudgetIsKept: 300 waits on an endpoint whose status limit is 40
// requests in progress and 200 per 10 s, the jobs ending over five
// minutes: the server never sees more than 40 at once nor 200 in any
// 10 s (the waits keep a twentieth back: 190), refuses none, and at most
// 35 (seven eighths) are long polls. Every wait returns its own job once,
// never before the job ended, and within the budget's bound of it: the
// jobs not long-polled are read in turn, 265 at 18 reads a second.
func TestWaitBudgetIsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget := serverless.WaitBudget{Concurrent: 40, Per10s: 200}
		f := newFleet(budget)
		ids := jobIDs(300)
		for i, id := range ids {
			end := time.Duration(1+(i*97)%300) * time.Second
			f.add(id, end/2, end)
		}
		rp := fleetClient(t, f, budget)
		start := time.Now()
		out := waitAll(t, rp.Serverless.Queue("ep"), ids, nil)

		require.Len(t, out, len(ids))
		var worst time.Duration
		for _, id := range ids {
			r := out[id]
			require.NoError(t, r.err, id)
			out, err := serverless.Output[map[string]string](r.job)
			require.NoError(t, err)
			assert.Equal(t, id, out["id"], "each wait returns its own job")
			late := r.at.Sub(f.ends[id])
			assert.GreaterOrEqual(t, late, time.Duration(0), id)
			worst = max(worst, late)
		}
		assert.Zero(t, f.refused, "no 429")
		assert.LessOrEqual(t, f.maxOpen, 40)
		assert.LessOrEqual(t, f.maxHeld, 35)
		assert.LessOrEqual(t, f.maxIn(10*time.Second), 190)
		bound := (300-35)*time.Second/18 + 2*time.Second
		assert.LessOrEqual(t, worst, bound, "every result seen within one round of reads")
		t.Logf("%d requests for %d jobs over %s; worst latency %s (bound %s); at most %d at once, %d held, %d in 10 s",
			len(f.requests()), len(ids), time.Since(start), worst, bound, f.maxOpen, f.maxHeld, f.maxIn(10*time.Second))
	})
}

// TestWaitHoldsTheLikeliestToEnd: with room for seven long polls and
// twelve waits arriving in order, the first seven are long-polled after
// their first read (for 90 s: the endpoint was not yet crowded). When
// three of them end, their slots go to the running jobs, the oldest
// first, for at most 30 s each while waits outnumber the slots; when the
// first holds end, the last running job takes the slot of the youngest
// queued one. A running job not long-polled is read with /status every
// poll interval (2 s) while the budget allows; one still queued less and
// less often, since it cannot end before it starts.
func TestWaitHoldsTheLikeliestToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget := serverless.WaitBudget{Concurrent: 8, Per10s: 2000}
		f := newFleet(budget)
		ids := jobIDs(12)
		for i, id := range ids {
			switch {
			case i < 3:
				f.add(id, 0, 5*time.Second)
			case i < 8:
				f.add(id, time.Hour, 2*time.Hour) // queued
			default:
				f.add(id, 0, 2*time.Hour) // running
			}
		}
		rp := fleetClient(t, f, budget)
		q := rp.Serverless.Queue("ep")
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		var wg sync.WaitGroup
		for _, id := range ids {
			if id == "job-008" {
				// The running jobs' reads fall between the seconds, apart from
				// the instant the first holds end (a read then in progress
				// would miss the slots freed at that instant).
				time.Sleep(500 * time.Millisecond)
			}
			wg.Go(func() {
				// The schedule pinned here is the budget's alone: no hold is
				// cut short to say why a job is queued (QueuedAfter; see
				// TestWaitSaysWhyQueued).
				_, err := q.Wait(ctx, id, serverless.WaitOptions{QueuedAfter: -1})
				if id > "job-002" {
					assert.ErrorIs(t, err, context.Canceled)
				}
			})
			synctest.Wait() // the waits arrive in order
		}
		time.Sleep(105 * time.Second)
		cancel()
		wg.Wait()

		assert.Equal(t, ids[:7], heldAt(f, 4*time.Second), "the first seven")
		assert.Equal(t, []string{"job-003", "job-004", "job-005", "job-006", "job-008", "job-009", "job-010"}, heldAt(f, 10*time.Second),
			"freed slots to the running jobs, the oldest first")
		assert.Equal(t, []string{"job-003", "job-004", "job-005", "job-006", "job-008", "job-009", "job-010"}, heldAt(f, 80*time.Second),
			"the running jobs long-polled again as their holds end")
		assert.Equal(t, []string{"job-003", "job-004", "job-005", "job-008", "job-009", "job-010", "job-011"}, heldAt(f, 100*time.Second),
			"after the first holds: the running jobs, then the oldest queued")
		reads := func(id string, before time.Duration) []time.Duration {
			var at []time.Duration
			for _, r := range f.requests() {
				if d := r.at.Sub(start); r.id == id && d < before {
					assert.False(t, r.sync, "%s is not long-polled before %s", id, before)
					at = append(at, d)
				}
			}
			return at
		}
		var every2s []time.Duration
		for d := 500 * time.Millisecond; d < 89*time.Second; d += 2 * time.Second {
			every2s = append(every2s, d)
		}
		assert.Equal(t, every2s, reads("job-011", 89*time.Second), "running: read every 2 s until long-polled")
		assert.Equal(t, []time.Duration{0, 2 * time.Second, 6 * time.Second, 14 * time.Second, 30 * time.Second, time.Minute, 90 * time.Second},
			reads("job-007", time.Hour), "queued: read after 2, 4, 8, 16 s, then every 30 s")
		assert.LessOrEqual(t, f.maxOpen, 8)
		assert.Zero(t, f.refused)
	})
}

// heldAt returns the jobs long-polled at instant at (from the bubble's
// start), as the last request before it saw them.
func heldAt(f *fleet, at time.Duration) []string {
	reqs := f.requests()
	start := reqs[0].at
	var held []string
	for _, r := range reqs {
		if r.at.Sub(start) > at {
			break
		}
		held = r.held
	}
	return held
}

// TestThousandWaitsStartAndEndTogether: 1,000 waits begin at the same
// instant and their jobs all end at the same instant a minute later. The
// first reads go out as the token bucket allows: at most its burst (a
// twentieth of the budget, 100) and a second's refill (180) in any
// second, spread over seven seconds (the first 350 jobs read are
// long-polled at once, which spends tokens too) rather than sent at once; no 10 s sees
// more than 1,900; nothing is refused; and when the jobs end together,
// the long-polled ones are seen at once and the rest within a round of
// reads, without a burst.
func TestThousandWaitsStartAndEndTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(serverless.DefaultWaitBudget())
		ids := jobIDs(1000)
		for _, id := range ids {
			f.add(id, 0, time.Minute)
		}
		rp := scriptedClient(t, f) // the default budget
		start := time.Now()
		out := waitAll(t, rp.Serverless.Queue("ep"), ids, nil)

		firstRead := map[string]time.Duration{}
		perSecond := map[int]int{}
		for _, r := range f.requests() {
			if _, ok := firstRead[r.id]; !ok {
				firstRead[r.id] = r.at.Sub(start)
			}
			perSecond[int(r.at.Sub(start)/time.Second)]++
		}
		var lastFirst time.Duration
		for _, d := range firstRead {
			lastFirst = max(lastFirst, d)
		}
		assert.GreaterOrEqual(t, lastFirst, 5*time.Second, "the first reads are spread out")
		assert.LessOrEqual(t, lastFirst, 7*time.Second,
			"at the budget's rate: 1,000 reads and 350 holds, less the burst of 100, at 180 a second")
		for s, n := range perSecond {
			assert.LessOrEqual(t, n, 100+180, "second %d", s)
		}
		assert.LessOrEqual(t, f.maxIn(10*time.Second), 1900)
		assert.Zero(t, f.refused)
		assert.LessOrEqual(t, f.maxOpen, 400)
		var seenAtOnce int
		for _, id := range ids {
			r := out[id]
			require.NoError(t, r.err)
			if r.at.Sub(start) <= time.Minute+time.Second {
				seenAtOnce++ // long-polled, or the next to be (a hold ending then waits for a token)
			}
			assert.LessOrEqual(t, r.at.Sub(start), time.Minute+(1000-350)*time.Second/180+time.Second, id)
		}
		assert.GreaterOrEqual(t, seenAtOnce, 350, "the long-polled jobs are seen as they end")
	})
}

// TestIdleSchedulerStops: once its waits are over, an endpoint's
// scheduler sends nothing and runs nothing (the bubble would not end with
// a goroutine of it left), and the next wait finds it ready.
func TestIdleSchedulerStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(serverless.DefaultWaitBudget())
		f.add("job-a", 0, 3*time.Second)
		rp := scriptedClient(t, f)
		q := rp.Serverless.Queue("ep")
		_, err := q.Wait(t.Context(), "job-a", serverless.WaitOptions{})
		require.NoError(t, err)
		n := len(f.requests())
		time.Sleep(time.Hour)
		assert.Len(t, f.requests(), n, "nothing sent while no one waits")

		f.add("job-b", 0, 3*time.Second)
		start := time.Now()
		job, err := rp.Serverless.Queue("ep").Wait(t.Context(), "job-b", serverless.WaitOptions{})
		require.NoError(t, err)
		assert.Equal(t, "job-b", job.ID)
		assert.Equal(t, 3*time.Second, time.Since(start), "long-polled as before")
	})
}

// TestCancelledWaitLeavesTheOthers: one wait's context ends while it is
// long-polled; it returns at once with the job's id and last status, and
// the other waits go on: its slot goes to another job, each of them
// returns its own job, and the budget holds.
func TestCancelledWaitLeavesTheOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget := serverless.WaitBudget{Concurrent: 10, Per10s: 400}
		f := newFleet(budget)
		ids := jobIDs(20)
		for i, id := range ids {
			f.add(id, 0, time.Duration(30+i)*time.Second)
		}
		rp := fleetClient(t, f, budget)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(5 * time.Second)
			cancel()
		}()
		start := time.Now()
		out := waitAll(t, rp.Serverless.Queue("ep"), ids, map[string]context.Context{"job-000": ctx})

		var we *serverless.WaitError
		require.ErrorAs(t, out["job-000"].err, &we)
		assert.Equal(t, "job-000", we.JobID)
		assert.Equal(t, serverless.JobStatusInProgress, we.LastStatus)
		assert.ErrorIs(t, we, context.Canceled)
		assert.Equal(t, 5*time.Second, out["job-000"].at.Sub(start), "at once")
		assert.Contains(t, heldAt(f, 4*time.Second), "job-000")
		assert.Len(t, heldAt(f, 6*time.Second), 9, "its slot went to another")
		for _, id := range ids[1:] {
			require.NoError(t, out[id].err, id)
			assert.Equal(t, id, out[id].job.ID)
		}
		assert.Zero(t, f.refused)
		assert.LessOrEqual(t, f.maxOpen, 10)
	})
}

// TestRefusedStatusPausesTheEndpoint: a status request refused with 429
// is retried after the platform's Retry-After, and meanwhile the other
// waits of the endpoint send nothing for a second.
func TestRefusedStatusPausesTheEndpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(serverless.DefaultWaitBudget())
		f.add("job-a", 0, time.Minute)
		f.add("job-b", 0, time.Minute)
		f.refuse["job-a"] = 1
		rp := scriptedClient(t, f)
		q := rp.Serverless.Queue("ep")
		start := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() {
			_, err := q.Wait(t.Context(), "job-a", serverless.WaitOptions{})
			assert.NoError(t, err)
		})
		time.Sleep(500 * time.Millisecond)
		wg.Go(func() {
			_, err := q.Wait(t.Context(), "job-b", serverless.WaitOptions{})
			assert.NoError(t, err)
		})
		wg.Wait()
		var at []string
		for _, r := range f.requests() {
			kind := "status"
			if r.sync {
				kind = "sync"
			}
			at = append(at, fmt.Sprintf("%s %s %s", r.at.Sub(start).Round(100*time.Millisecond), r.id, kind))
		}
		assert.Equal(t, []string{
			"0s job-a status", "0s job-a sync", // refused: Retry-After 2
			"1s job-b status", "1s job-b sync", // the endpoint paused a second
			"2s job-a sync", // the retry
		}, at)
		assert.Equal(t, 1, f.refused)
	})
}

// TestSetWaitBudget: a budget below one request is refused, naming the
// field, and changes nothing.
func TestSetWaitBudget(t *testing.T) {
	rp := scriptedClient(t, newFleet(serverless.DefaultWaitBudget()))
	for _, tc := range []struct {
		b     serverless.WaitBudget
		field string
	}{
		{serverless.WaitBudget{Concurrent: 0, Per10s: 10}, "WaitBudget.Concurrent"},
		{serverless.WaitBudget{Concurrent: 10, Per10s: -1}, "WaitBudget.Per10s"},
	} {
		err := rp.Serverless.SetWaitBudget(tc.b)
		var ve *errs.ValidationError
		require.True(t, errors.As(err, &ve), "%v", err)
		assert.Equal(t, tc.field, ve.Field)
	}
	assert.NoError(t, rp.Serverless.SetWaitBudget(serverless.WaitBudget{Concurrent: 1, Per10s: 1}))
}
