package serverless

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
)

// QueueCause is why a job waits in an endpoint's queue, as the endpoint's
// worker list (Endpoints.Workers) shows it. The job's status cannot tell:
// a job stays IN_QUEUE alike when no machine is free for the endpoint's
// workers and when its workers crash as they start. So when a wait (Wait,
// or RunSync past the platform's hold) has seen its job queued for
// WaitOptions.QueuedAfter, it reads the worker list and says which, in
// Job.Queued (for Poll.OnCheck) and in its *WaitError.
//
// The causes are the worker statuses the platform documents, in this
// order: no worker at all; UNHEALTHY workers; then, when no worker is
// ready (IDLE or RUNNING), THROTTLED ones, then INITIALIZING ones; then
// every ready worker RUNNING. When workers are IDLE and none is
// UNHEALTHY, the list shows no cause (QueueCauseUnknown).
type QueueCause string

// Queue causes.
const (
	// QueueCauseNoWorkers: the endpoint lists no worker. It is scaled to
	// zero (workers max 0), or has started none yet (as when no machine
	// is free for any it would start).
	QueueCauseNoWorkers QueueCause = "NO_WORKERS"
	// QueueCauseUnhealthy: workers fail their health checks (UNHEALTHY):
	// the container is likely crash-looping, and the job waits until it
	// is fixed, not for capacity. Their logs (Endpoints.WorkerLogs) say
	// why.
	QueueCauseUnhealthy QueueCause = "UNHEALTHY"
	// QueueCauseThrottled: no worker is ready and some wait for a machine
	// (THROTTLED): the platform has no capacity for the endpoint's GPU
	// types now. The job starts when a machine frees up.
	QueueCauseThrottled QueueCause = "THROTTLED"
	// QueueCauseStarting: no worker is ready and some are starting
	// (INITIALIZING): a cold start, pulling the image or loading the
	// model.
	QueueCauseStarting QueueCause = "STARTING"
	// QueueCauseBusy: every ready worker is running a job (RUNNING): the
	// job waits its turn, the endpoint being at its workers max or
	// scaling up.
	QueueCauseBusy QueueCause = "BUSY"
	// QueueCauseUnknown: workers are IDLE and none is UNHEALTHY, yet the
	// job waits: the worker list shows no cause. A container that fails
	// as it starts can loop while its worker still shows IDLE or
	// RUNNING; the workers' logs tell.
	QueueCauseUnknown QueueCause = "UNKNOWN"
)

// DefaultQueuedAfter is how long a wait sees a job IN_QUEUE before it
// reads the endpoint's worker list to say why (WaitOptions.QueuedAfter).
const DefaultQueuedAfter = 30 * time.Second

// How the waits of an endpoint share its worker list: at most one read
// every workerListEvery, whatever the number of jobs waited for (the
// waits that need it meanwhile take the last read's finding), each read
// given up after workerListTimeout.
const (
	workerListEvery   = 15 * time.Second
	workerListTimeout = 10 * time.Second
)

// QueueDiagnosis says why a job waited in the queue: the cause the
// endpoint's worker list shows, with the counts it was read from.
type QueueDiagnosis struct {
	// Cause is what the worker list shows.
	Cause QueueCause
	// For is how long the wait had seen the job IN_QUEUE, on the wait's
	// clock: from RunSync's submission, or from Wait's first status read
	// that found it queued.
	For time.Duration
	// Workers counts the endpoint's workers by status, as listed at
	// ReadAt.
	Workers EndpointWorkerSummary
	// WorkerIDs are the workers the cause is about, for
	// Endpoints.WorkerLogs: the UNHEALTHY, THROTTLED, INITIALIZING,
	// RUNNING or IDLE ones, by cause; none for QueueCauseNoWorkers.
	WorkerIDs []string
	// ReadAt is when the worker list was read. The waits on one endpoint
	// share its reads, so it may be up to 15 s before the status read
	// it goes with.
	ReadAt time.Time
}

// String says why the job waits, in words: for how long, the cause, and
// the worker counts that show it.
func (d *QueueDiagnosis) String() string {
	var b strings.Builder
	if d.For > 0 {
		fmt.Fprintf(&b, "queued %s: ", d.For.Round(time.Second))
	}
	w, n := d.Workers, d.Workers.Total
	switch d.Cause {
	case QueueCauseNoWorkers:
		b.WriteString("no workers: the endpoint lists none (scaled to zero, or none started yet)")
	case QueueCauseUnhealthy:
		fmt.Fprintf(&b, "workers unhealthy: %d of %d %s failing health checks, likely crash-looping; their logs (Endpoints.WorkerLogs) say why", w.Unhealthy, n, workers(n))
	case QueueCauseThrottled:
		fmt.Fprintf(&b, "no capacity: %d of %d %s throttled, waiting for a machine for the endpoint's GPU types", w.Throttled, n, workers(n))
	case QueueCauseStarting:
		fmt.Fprintf(&b, "workers starting: %d of %d %s initializing (a cold start)", w.Initializing, n, workers(n))
	case QueueCauseBusy:
		fmt.Fprintf(&b, "workers busy: %d of %d %s running other jobs, none idle", w.Running, n, workers(n))
	default:
		fmt.Fprintf(&b, "no cause shown: %d of %d %s idle and none unhealthy; a container failing as it starts can still show IDLE or RUNNING: read the workers' logs", w.Idle, n, workers(n))
	}
	return b.String()
}

func workers(n int) string {
	if n == 1 {
		return "worker"
	}
	return "workers"
}

// diagnose reads the cause of a queued job from an endpoint's worker
// list, read at now. The counts are the listed workers' (the summary's
// when no worker is listed).
func diagnose(list *ListEndpointWorkersResponse, now time.Time) *QueueDiagnosis {
	d := &QueueDiagnosis{Workers: list.Summary, ReadAt: now}
	if len(list.Workers) > 0 {
		d.Workers = EndpointWorkerSummary{Total: len(list.Workers)}
		for _, w := range list.Workers {
			switch w.Status {
			case EndpointWorkerStatusIdle:
				d.Workers.Idle++
			case EndpointWorkerStatusRunning:
				d.Workers.Running++
			case EndpointWorkerStatusInitializing:
				d.Workers.Initializing++
			case EndpointWorkerStatusThrottled:
				d.Workers.Throttled++
			case EndpointWorkerStatusUnhealthy:
				d.Workers.Unhealthy++
			}
		}
	}
	w := d.Workers
	var about EndpointWorkerStatus
	switch {
	case w.Total == 0:
		d.Cause = QueueCauseNoWorkers
	case w.Unhealthy > 0:
		d.Cause, about = QueueCauseUnhealthy, EndpointWorkerStatusUnhealthy
	case w.Idle == 0 && w.Running == 0 && w.Throttled > 0:
		d.Cause, about = QueueCauseThrottled, EndpointWorkerStatusThrottled
	case w.Idle == 0 && w.Running == 0 && w.Initializing > 0:
		d.Cause, about = QueueCauseStarting, EndpointWorkerStatusInitializing
	case w.Idle == 0 && w.Running > 0:
		d.Cause, about = QueueCauseBusy, EndpointWorkerStatusRunning
	default:
		d.Cause, about = QueueCauseUnknown, EndpointWorkerStatusIdle
	}
	for _, wk := range list.Workers {
		if wk.Status == about {
			d.WorkerIDs = append(d.WorkerIDs, wk.ID)
		}
	}
	return d
}

// workerList shares one endpoint's worker-list reads among the waits of a
// Service: a read begins at most every workerListEvery, and the waits that
// need the list meanwhile take the last read's finding, or wait for the
// read in progress.
type workerList struct {
	mu      sync.Mutex
	found   *QueueDiagnosis // the last read's; nil before it, or when it failed
	readAt  time.Time       // when the last read began; zero before the first
	reading chan struct{}   // closed when the read in progress ends; nil when none
	// none: the id has no worker list the key may read (404, 403, or not
	// an endpoint id: a public model, say); it is not read again.
	none bool
}

// queuedFor tracks how long a wait has seen its job IN_QUEUE, and when
// that calls for the endpoint's worker list.
type queuedFor struct {
	after time.Duration // WaitOptions.QueuedAfter, resolved; negative: never
	since time.Time     // when the job was first seen queued, in a row; zero while it is not
}

// saw records a status read at now (or the submission's answer).
func (c *queuedFor) saw(status JobStatus, now time.Time) {
	switch {
	case status != JobStatusInQueue:
		c.since = time.Time{}
	case c.since.IsZero():
		c.since = now
	}
}

// due reports whether the job, queued, has been for c.after at now.
func (c *queuedFor) due(now time.Time) bool {
	return c.after >= 0 && !c.since.IsZero() && now.Sub(c.since) >= c.after
}

// hold cuts the hold of a long poll of a queued job so that it is
// answered when the job has been queued for c.after (at least a hold the
// platform takes), for the wait to say why then.
func (c *queuedFor) hold(hold time.Duration, now time.Time) time.Duration {
	if c.after < 0 || c.since.IsZero() {
		return hold
	}
	if left := c.since.Add(c.after).Sub(now); left > 0 {
		return min(hold, max(left, minStatusSyncHold))
	}
	return hold
}

// whyQueued returns why the job of a wait, seen queued since c.since, is
// queued: the finding of the endpoint's last worker-list read when it
// began less than workerListEvery ago; else of the read in progress,
// waited for (until ctx ends); else of a read made now. nil when the list
// could not be read. opts are the caller's options, without the wait
// scheduler's hook: the worker list is not a status request.
func (r *Queue) whyQueued(ctx context.Context, l *workerList, c *queuedFor, opts []option.RequestOption) *QueueDiagnosis {
	l.mu.Lock()
	for l.reading != nil {
		ch := l.reading
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
		l.mu.Lock()
	}
	now := time.Now()
	found := l.found
	fresh := l.none || !l.readAt.IsZero() && now.Sub(l.readAt) < workerListEvery
	if !fresh {
		ch := make(chan struct{})
		l.reading, l.readAt = ch, now
		l.mu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, workerListTimeout)
		list, err := (&Endpoints{t: r.t}).Workers(rctx, r.id, opts...)
		cancel()
		l.mu.Lock()
		switch {
		case err == nil:
			found = diagnose(list, now)
		case ctx.Err() != nil:
			// This wait's context ended, not the read: another wait may
			// read at once.
			l.readAt = time.Time{}
		default:
			found = nil
			l.none = errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrForbidden) || errors.Is(err, errs.ErrValidation)
		}
		l.found, l.reading = found, nil
		close(ch)
	}
	l.mu.Unlock()
	if found == nil {
		return nil
	}
	d := *found
	d.For, d.WorkerIDs = now.Sub(c.since), slices.Clone(found.WorkerIDs)
	return &d
}
