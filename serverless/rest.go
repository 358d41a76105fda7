package serverless

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// The calls below look into an endpoint: its workers, its releases and a
// worker's log stream. Their types are generated from the REST v2 document
// (rest.gen.go).

// Workers returns the endpoint's active workers (workers scaled away are
// not listed), each with its id, status and the configuration version it
// runs, and a count of them by status. An unknown endpoint is an error
// matching errs.ErrNotFound.
func (e *Endpoints) Workers(ctx context.Context, endpointID string, opts ...option.RequestOption) (*ListEndpointWorkersResponse, error) {
	return rest.Call[ListEndpointWorkersResponse](ctx, e.t, http.MethodGet, rest.At(routeWorkers, endpointIDRule.Of(endpointID)), nil, opts)
}

// Releases returns the endpoint's release history, the newest first:
// each configuration version, what made it (a build or a change of
// settings) and what it changed, with how far the endpoint's workers have
// moved to the current version (Rollout). An unknown endpoint is an error
// matching errs.ErrNotFound.
func (e *Endpoints) Releases(ctx context.Context, endpointID string, opts ...option.RequestOption) (*ListEndpointReleasesResponse, error) {
	return rest.Call[ListEndpointReleasesResponse](ctx, e.t, http.MethodGet, rest.At(routeReleases, endpointIDRule.Of(endpointID)), nil, opts)
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
