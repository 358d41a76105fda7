package worker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
)

// runTaken runs h on a job taken from q under ctx, for the local API
// server, which keeps its jobs in process: the worker runtime owns what a
// handler's return means (output, error objects, refresh requests,
// streamed chunks), the module's job engine the job's state. (In
// production the job's state is the platform's, and the loop posts to it
// what runTaken records here.) ctx must end when the job stops being this
// worker's (cancelled, timed out): t.Stopped itself when the job was
// taken under the caller's context (TakeID), else a context joined with
// it. Its stream chunks and progress go to q as they come. It returns the
// result to report and the job as the handler saw it.
func runTaken(ctx context.Context, h Handler, c *config, debugger bool, q *jobqueue.Queue, t jobqueue.Taken) (jobqueue.Result, *Job) {
	qj := &queuedJob{Job: Job{ID: t.ID, Input: t.Input, Webhook: t.Webhook, Raw: t.Raw}, q: q, id: t.ID}
	job := &qj.Job
	job.out = qj
	var t0 time.Time
	if debugger { // the handler's time is reported only then
		t0 = time.Now()
	}
	out, err := execute(ctx, h, job)
	job.finish()
	var took time.Duration
	if debugger {
		took = time.Since(t0)
	}
	r := normalize(out, err, job, c, debugger, took)
	return jobqueue.Result{Output: r.Output, Error: r.Error, StopPod: r.StopPod}, job
}

// queuedJob is a job run from a jobqueue.Queue, and its outlet: its
// chunks and progress go to the queue as they come (one allocation for
// the job and where its output goes).
type queuedJob struct {
	Job
	q  *jobqueue.Queue
	id string // the job's id as taken (a handler may change Job.ID)
}

func (j *queuedJob) stream(chunk json.RawMessage) error { return j.q.Stream(j.id, chunk) }

func (j *queuedJob) progress(progress json.RawMessage) error { return j.q.Progress(j.id, progress) }
