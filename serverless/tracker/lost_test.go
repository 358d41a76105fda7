package tracker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/tracker"
)

// lostSetup is a fake platform and a tracker of endpoint "echo" on one
// fake clock, which alone moves the results' retention.
func lostSetup(t *testing.T, store tracker.Store) (*testkit.Clock, *runpodtest.Server, *serverless.Queue, *tracker.Tracker) {
	t.Helper()
	clock := newFakeClock()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(clock.Now))
	t.Cleanup(srv.Close)
	srv.HandleQueue("echo", echo)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	q := rp.Serverless.Queue("echo")
	tr, err := tracker.New(q, store, tracker.WithClock(clock.Now))
	require.NoError(t, err)
	return clock, srv, q, tr
}

// requireLost checks that err is a *LostJobError for jobID with reason,
// matching its sentinel and errs.ErrNotFound, and showing no secret.
func requireLost(t *testing.T, err error, jobID string, reason tracker.Reason) *tracker.LostJobError {
	t.Helper()
	var lost *tracker.LostJobError
	require.ErrorAs(t, err, &lost)
	require.Equal(t, jobID, lost.JobID)
	require.Equal(t, reason, lost.Reason, lost.Error())
	require.ErrorIs(t, err, errs.ErrNotFound)
	want, other := tracker.ErrExpired, tracker.ErrUnknownJob
	if reason == tracker.ReasonUnknown {
		want, other = other, want
	}
	require.ErrorIs(t, err, want)
	require.NotErrorIs(t, err, other)
	require.Contains(t, err.Error(), jobID)
	testkit.NoSecret(t, err, lost)
	return lost
}

// TestCompletedJobPastRetentionIsExpired: a /run job completes unseen by
// the tracker; 29 minutes later (on the fake's clock) its result is still
// there, 31 minutes later the platform answers 404 and the tracker calls
// it ReasonExpired (it may have expired: submitted longer ago than the
// retention), then forgets it.
func TestCompletedJobPastRetentionIsExpired(t *testing.T) {
	store := tracker.NewMemoryStore()
	clock, _, q, tr := lostSetup(t, store)
	ctx := context.Background()

	job, err := tr.Submit(ctx, "", serverless.RunParams{Input: "hi"})
	require.NoError(t, err)
	done, err := q.Wait(ctx, job.ID, serverless.WaitOptions{})
	require.NoError(t, err)
	require.Equal(t, serverless.JobStatusCompleted, done.Status)

	clock.Add(29 * time.Minute)
	_, err = q.Status(ctx, job.ID)
	require.NoError(t, err, "the result is kept 30 minutes")

	clock.Add(2 * time.Minute)
	got, err := tr.Wait(ctx, job.ID)
	require.Nil(t, got)
	lost := requireLost(t, err, job.ID, tracker.ReasonExpired)
	require.Contains(t, lost.Error(), "may have expired")
	require.Equal(t, job.ID, lost.Record.JobID)
	require.True(t, lost.Record.CompletedAt.IsZero())

	left, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, left, "a lost job's record goes once reported")
}

// TestJobSeenEndedPastRetentionHasExpired: the tracker saw a job end (its
// record's CompletedAt is stored before the delivery) but the record
// could not be removed; after a restart 31 minutes later the platform
// answers 404, and Results reports the job as certainly expired.
func TestJobSeenEndedPastRetentionHasExpired(t *testing.T) {
	store := &flakyStore{Store: tracker.NewMemoryStore()}
	clock, srv, _, tr := lostSetup(t, store)
	ctx := context.Background()

	job, err := tr.Submit(ctx, "kept", serverless.RunParams{Input: "hi"})
	require.NoError(t, err)
	store.failDelete.Store(true)
	got, err := tr.Wait(ctx, job.ID)
	require.NotNil(t, got)
	require.Equal(t, serverless.JobStatusCompleted, got.Status, "the result is delivered")
	var storeErr *tracker.StoreError
	require.ErrorAs(t, err, &storeErr)
	require.Equal(t, "delete", storeErr.Op)
	require.Equal(t, job.ID, storeErr.Record.JobID)
	require.ErrorIs(t, err, errStoreDown)
	testkit.NoSecret(t, err)
	store.failDelete.Store(false)

	recs, err := store.List(ctx, "echo")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Equal(t, clock.Now(), recs[0].CompletedAt, "the end was recorded before the delivery")

	// The restart.
	clock.Add(31 * time.Minute)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	tr2, err := tracker.New(rp.Serverless.Queue("echo"), store, tracker.WithClock(clock.Now))
	require.NoError(t, err)
	resumed, err := tr2.Resume(ctx)
	require.NoError(t, err)
	require.Len(t, resumed, 1)
	n := 0
	for res, err := range tr2.Results(ctx) {
		n++
		require.Nil(t, res.Job)
		require.Equal(t, "kept", res.Record.Label)
		lost := requireLost(t, err, job.ID, tracker.ReasonExpired)
		require.Contains(t, lost.Error(), "has expired")
	}
	require.Equal(t, 1, n)
	recs, err = store.List(ctx, "echo")
	require.NoError(t, err)
	require.Empty(t, recs)
}

// TestRunSyncRecordExpiresAfterAMinute: a job submitted with /runsync and
// tracked is still delivered 30 seconds after it ended; another, waited
// for 61 seconds after it ended, is ReasonExpired: /runsync results are kept a
// minute.
func TestRunSyncRecordExpiresAfterAMinute(t *testing.T) {
	clock, _, q, tr := lostSetup(t, tracker.NewMemoryStore())
	ctx := context.Background()
	runSync := func() *serverless.Job {
		t.Helper()
		at := clock.Now()
		job, err := q.RunSync(ctx, serverless.RunParams{Input: "hi"}, serverless.WaitOptions{})
		require.NoError(t, err)
		require.NoError(t, tr.Track(ctx, tracker.Record{JobID: job.ID, Sync: true, SubmittedAt: at}))
		return job
	}

	kept := runSync()
	clock.Add(30 * time.Second)
	got, err := tr.Wait(ctx, kept.ID)
	require.NoError(t, err)
	require.Equal(t, serverless.JobStatusCompleted, got.Status)

	gone := runSync()
	clock.Add(61 * time.Second)
	_, err = tr.Wait(ctx, gone.ID)
	lost := requireLost(t, err, gone.ID, tracker.ReasonExpired)
	require.True(t, lost.Record.Sync)
	require.Contains(t, lost.Error(), "/runsync")
}

// TestUnknownJobs: a 404 for an id the tracker has no record of, for a
// job of another endpoint, and for an endpoint that does not exist, each
// while the record is younger than any expiry, is ReasonUnknown.
func TestUnknownJobs(t *testing.T) {
	clock, srv, _, tr := lostSetup(t, tracker.NewMemoryStore())
	ctx := context.Background()
	srv.HandleQueue("other", echo)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	other, err := tracker.New(rp.Serverless.Queue("other"), tracker.NewMemoryStore(), tracker.WithClock(clock.Now))
	require.NoError(t, err)

	t.Run("never submitted", func(t *testing.T) {
		_, err := tr.Wait(ctx, "no-such-job")
		lost := requireLost(t, err, "no-such-job", tracker.ReasonUnknown)
		require.Empty(t, lost.Record.JobID, "not tracked")
		require.Contains(t, lost.Error(), "not tracked")
	})
	t.Run("submitted on another endpoint", func(t *testing.T) {
		job, err := other.Submit(ctx, "", serverless.RunParams{Input: "hi"})
		require.NoError(t, err)
		_, err = rp.Serverless.Queue("other").Wait(ctx, job.ID, serverless.WaitOptions{})
		require.NoError(t, err, "the job ends before the clock moves")
		// Tracked here by mistake: the platform never had it on "echo".
		require.NoError(t, tr.Track(ctx, tracker.Record{JobID: job.ID, SubmittedAt: clock.Now()}))
		clock.Add(29 * time.Minute)
		_, err = tr.Wait(ctx, job.ID)
		lost := requireLost(t, err, job.ID, tracker.ReasonUnknown)
		require.Contains(t, lost.Error(), "never had this job on this endpoint")
		// Untracked, it is as unknown.
		_, err = tr.Wait(ctx, job.ID)
		requireLost(t, err, job.ID, tracker.ReasonUnknown)
		// And its own tracker still has it, 29 minutes on.
		got, err := other.Wait(ctx, job.ID)
		require.NoError(t, err)
		require.Equal(t, serverless.JobStatusCompleted, got.Status)
	})
	t.Run("no such endpoint", func(t *testing.T) {
		nowhere, err := tracker.New(rp.Serverless.Queue("nowhere"), tracker.NewMemoryStore(), tracker.WithClock(clock.Now))
		require.NoError(t, err)
		require.NoError(t, nowhere.Track(ctx, tracker.Record{JobID: "j1", SubmittedAt: clock.Now()}))
		_, err = nowhere.Wait(ctx, "j1")
		requireLost(t, err, "j1", tracker.ReasonUnknown)
	})
}

// TestClassificationBoundaries: a 404 for a tracked record is ReasonUnknown
// until SubmittedAt + the shorter of the shortest retention and the TTL,
// and ReasonExpired from then on; a record whose end the tracker saw is always
// ReasonExpired. The platform knows none of these ids.
func TestClassificationBoundaries(t *testing.T) {
	clock, _, _, tr := lostSetup(t, tracker.NewMemoryStore())
	ctx := context.Background()
	for _, c := range []struct {
		name string
		age  time.Duration
		rec  tracker.Record
		want tracker.Reason
	}{
		{"run just younger than its retention", 30*time.Minute - time.Second, tracker.Record{}, tracker.ReasonUnknown},
		{"run as old as its retention", 30 * time.Minute, tracker.Record{}, tracker.ReasonExpired},
		{"runsync just younger than its retention", 59 * time.Second, tracker.Record{Sync: true}, tracker.ReasonUnknown},
		{"runsync as old as its retention", time.Minute, tracker.Record{Sync: true}, tracker.ReasonExpired},
		{"short TTL passed", 10 * time.Second, tracker.Record{TTL: 10 * time.Second}, tracker.ReasonExpired},
		{"short TTL not passed", 9 * time.Second, tracker.Record{TTL: 10 * time.Second}, tracker.ReasonUnknown},
		{"seen ended a second ago", time.Second, tracker.Record{CompletedAt: clock.Now()}, tracker.ReasonExpired},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := c.rec
			rec.JobID = "missing-" + c.name
			rec.SubmittedAt = clock.Now().Add(-c.age)
			if !rec.CompletedAt.IsZero() {
				rec.CompletedAt = clock.Now().Add(-c.age)
			}
			require.NoError(t, tr.Track(ctx, rec))
			_, err := tr.Wait(ctx, rec.JobID)
			requireLost(t, err, rec.JobID, c.want)
		})
	}
}
