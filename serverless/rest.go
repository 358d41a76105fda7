package serverless

import (
	"context"
	"iter"
	"time"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// The calls below look into an endpoint: its workers, its releases and a
// worker's log stream. Their types are generated from the REST v2 document
// (rest.gen.go).

// Workers returns the endpoint's active workers (workers scaled away are
// not listed), each with its id, status and the configuration version it
// runs, and a count of them by status. It reads every page of the
// listing: Workers holds them all, Summary and EndpointVersion are the
// first page's, and Pagination is nil. AllWorkers reads the workers a
// page at a time. An unknown endpoint is an error matching
// errs.ErrNotFound.
func (e *Endpoints) Workers(ctx context.Context, endpointID string, opts ...option.RequestOption) (*ListEndpointWorkersResponse, error) {
	r, err := rest.List(ctx, e.t, rest.At(routeWorkers, endpointIDRule.Of(endpointID)), opts, workerPage)
	r.Pagination = nil
	return unlessErr(&r, err)
}

// AllWorkers returns the workers Workers returns, one at a time, as All
// does.
func (e *Endpoints) AllWorkers(ctx context.Context, endpointID string, opts ...option.RequestOption) iter.Seq2[EndpointWorker, error] {
	return rest.All(ctx, e.t, rest.At(routeWorkers, endpointIDRule.Of(endpointID)), opts, workerPage)
}

// unlessErr returns v, or nil when err is not nil.
func unlessErr[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// workerPage tells where a page of the worker listing keeps them.
func workerPage(r *ListEndpointWorkersResponse) (*[]EndpointWorker, *rest.Pagination) {
	return &r.Workers, (*rest.Pagination)(r.Pagination)
}

// Releases returns the endpoint's release history, the newest first:
// each configuration version, what made it (a build or a change of
// settings) and what it changed, with how far the endpoint's workers have
// moved to the current version (Rollout). It reads every page of the
// listing: Releases holds them all, Rollout and EndpointVersion are the
// first page's, and Pagination is nil. AllReleases reads the releases a
// page at a time. An unknown endpoint is an error matching
// errs.ErrNotFound.
func (e *Endpoints) Releases(ctx context.Context, endpointID string, opts ...option.RequestOption) (*ListEndpointReleasesResponse, error) {
	r, err := rest.List(ctx, e.t, rest.At(routeReleases, endpointIDRule.Of(endpointID)), opts, releasePage)
	r.Pagination = nil
	return unlessErr(&r, err)
}

// AllReleases returns the releases Releases returns, newest first, one at
// a time, as All does.
func (e *Endpoints) AllReleases(ctx context.Context, endpointID string, opts ...option.RequestOption) iter.Seq2[EndpointRelease, error] {
	return rest.All(ctx, e.t, rest.At(routeReleases, endpointIDRule.Of(endpointID)), opts, releasePage)
}

// releasePage tells where a page of the release listing keeps them.
func releasePage(r *ListEndpointReleasesResponse) (*[]EndpointRelease, *rest.Pagination) {
	return &r.Releases, (*rest.Pagination)(r.Pagination)
}

// WorkerLogEvent is the data of one event of a worker's log stream. The
// REST v2 document types the stream only as text/event-stream; each
// event's data is this JSON object.
type WorkerLogEvent struct {
	// Line is the log line, without its line ending.
	Line string `json:"line"`
	// Source says who wrote it: LogSourceContainer (the worker's own
	// processes) or LogSourceSystem (the platform, as it runs the worker).
	Source LogSource `json:"source"`
	// Time is when the line was written (the event's "ts").
	Time time.Time `json:"ts"`
}

// WorkerLogLine is one line of a worker's log.
type WorkerLogLine struct {
	// ID is the event id as the stream sent it (the document's examples:
	// "<ts>/<seq>", the line's time and its place in that second). A
	// stream cut off resumes by itself after the last id received.
	ID string
	// WorkerLogEvent is the event's data: the line, its source and its
	// time.
	WorkerLogEvent
}

// WorkerLogs streams the log lines of one of the endpoint's workers (a
// worker id from Workers) as they come. p selects them; every field may be
// nil:
//
//   - Source: container or system; both when nil.
//   - Tail: how many lines of history come first (platform default 100,
//     at most 5000); 0 streams live only.
//   - Since: resume from this time; Tail is then ignored.
//   - LastEventID: start a new stream at this time (WorkerLogLine.Time of
//     an earlier stream), sent as the Last-Event-ID header, a date-time
//     in the document; it wins over Since and Tail. Lines of that same
//     second may come again.
//
// A connection cut after the stream began is resumed by the iteration
// itself, with Last-Event-ID set to the last event id received, as it was
// received, so no line is repeated or lost; after 3 cuts in a row with no
// line between them, the cut ends the loop as its last value.
//
// Nothing is sent until the loop starts. The iteration ends when the
// stream ends, when ctx is cancelled (without an error: that is how a
// caller stops following), or when the caller breaks out; the connection
// is closed in every case. An invalid argument or an HTTP error (an
// unknown endpoint or worker, 401, 403) is the first and only value.
func (e *Endpoints) WorkerLogs(ctx context.Context, endpointID, workerID string, p GetWorkerLogsParams, opts ...option.RequestOption) iter.Seq2[WorkerLogLine, error] {
	q := rest.LogQuery[LogSource]{Params: "GetWorkerLogsParams", Source: p.Source, Tail: p.Tail, Since: p.Since, LastEventID: p.LastEventID}
	return rest.Logs(ctx, e.t, rest.At(routeWorkerLogs, endpointIDRule.Of(endpointID), workerIDRule.Of(workerID)), q, opts,
		func(id string, ev WorkerLogEvent) WorkerLogLine { return WorkerLogLine{ID: id, WorkerLogEvent: ev} })
}
