// Package tracker keeps the jobs a program submits to a queue-based
// serverless endpoint in a Store (your database, or the module's
// NewMemoryStore and NewFileStore), so that a program that restarts finds
// them again instead of losing the results it paid for.
//
// Submit records each submission before it sends /run, and the job's id
// once the platform has answered with it; Results (or Wait) waits for the tracked jobs and
// yields each outcome once, removing the job's record once it has been
// delivered; after a restart, Resume takes up the jobs the store still
// holds:
//
//	store, err := tracker.NewFileStore("jobs.jsonl")
//	if err != nil {
//		return err
//	}
//	defer store.Close()
//	t, err := tracker.New(rp.Serverless.Queue("my-endpoint-id"), store)
//	if err != nil {
//		return err
//	}
//	if _, err := t.Resume(ctx); err != nil { // the jobs of the last run
//		return err
//	}
//	if _, err := t.Submit(ctx, "report-42", serverless.RunParams{Input: input}); err != nil {
//		return err // a *tracker.StoreError still holds the job's id
//	}
//	for res, err := range t.Results(ctx) {
//		// res.Record.Label says which job; err is the job's own outcome
//	}
//
// The platform answers 404 both for a job whose result has expired (it
// keeps a result RunRetention after the job ends, RunSyncRetention for
// /runsync) and for an id it never had on the endpoint. The tracker tells
// the two apart from the job's record, on its clock: a *LostJobError with
// Reason ReasonExpired or ReasonUnknown (see LostJobError for the rules).
//
// # A /run that was never answered
//
// When /run fails in a way that leaves its outcome unknown (a connection
// reset after the request was sent, a 502 or 503, ctx ending mid-request:
// errs.ErrOutcomeUnknown), the platform may have accepted the job, and
// the queue API lists no jobs to look it up by. The submission's record
// stays, and Submit returns a *SubmissionError. With WithWebhooks, each
// submission carries its own signed webhook URL: if the platform accepted
// the job, it POSTs the finished job there, the Tracker's Handler binds
// the job's id to the submission, and Results delivers the job once,
// across restarts and the platform's retries. When no delivery can come
// any more (WebhookWindow after the submission: the job's TTL in the
// queue, its execution timeout, the platform's webhook retries and
// DeliveryGrace), Results reports the submission
// SubmissionStateNotAccepted, and submitting it again pays once. Without
// webhooks it is SubmissionStateUnknowable: nothing can tell.
//
//	signer, err := webhook.NewSigner(secretBytes) // 32 bytes or more
//	t, err := tracker.New(q, store, tracker.WithWebhooks(signer, "https://example.com/runpod/done"))
//	http.Handle("POST /runpod/done", t.Handler())
//
// Delivery is at least once across crashes and exactly once within a run:
// a crash between a result and the end of your loop body delivers it again
// after Resume (or reports it ReasonExpired once its retention has passed). Track
// adopts a job submitted otherwise, such as a RunSync whose wait ended
// early. Records hold no input and no secret.
//
// The tracker uses only the public API of package serverless: each job is
// waited for with Queue.Wait. For results pushed to you instead of waited
// for, see package serverless/webhook.
//
// Tests run it against runpodtest with runpodtest.WithClock and
// tracker.WithClock: the fake keeps results by its clock, so moving the
// clock 31 minutes expires them without sleeping.
package tracker
