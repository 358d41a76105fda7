package pods

import (
	"context"
	"iter"
	"time"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// LogEvent is the data of one event of a pod's log stream. The REST v2
// document types the stream only as text/event-stream; each event's data is
// this JSON object.
type LogEvent struct {
	// Line is the log line, without its line ending.
	Line string `json:"line"`
	// Source says who wrote it: LogSourceContainer (the pod's own
	// processes) or LogSourceSystem (the platform, as it runs the pod).
	Source LogSource `json:"source"`
	// Time is when the line was written (the event's "ts").
	Time time.Time `json:"ts"`
}

// LogLine is one log line.
type LogLine struct {
	// ID is the event id as the stream sent it (the document's examples:
	// "<ts>/<seq>", the line's time and its place in that second). A
	// stream cut off resumes by itself after the last id received.
	ID string
	// LogEvent is the event's data: the line, its source and its time.
	LogEvent
}

// Logs streams the pod's log lines as they come. p selects them; every
// field may be nil:
//
//   - Source: container or system; both when nil.
//   - Tail: how many lines of history come first (platform default 100,
//     at most 5000); 0 streams live only.
//   - Since: resume from this time; Tail is then ignored.
//   - LastEventID: start a new stream at this time (LogLine.Time of
//     an earlier stream), sent as the Last-Event-ID header, a date-time
//     in the document; it wins over Since and Tail. Lines of that same
//     second may come again.
//
// A connection cut after the stream began is resumed by the iteration
// itself, with Last-Event-ID set to the last event id received, as it was
// received, so no line is repeated or lost; after 3 cuts in a row with no
// line between them, the cut ends the loop as its last value.
//
// The iteration ends when the stream ends, when ctx is cancelled (without
// an error: that is how a caller stops following), or when the caller
// breaks out; the connection is closed in every case. An HTTP error
// (unknown pod, 401, 403) is the first and only value.
func (s *Service) Logs(ctx context.Context, podID string, p GetPodLogsParams, opts ...option.RequestOption) iter.Seq2[LogLine, error] {
	q := rest.LogQuery[LogSource]{Params: "GetPodLogsParams", Source: p.Source, Tail: p.Tail, Since: p.Since, LastEventID: p.LastEventID}
	return rest.Logs(ctx, s.t, rest.At(logsRoute, podIDRule.Of(podID)), q, opts, func(id string, e LogEvent) LogLine { return LogLine{ID: id, LogEvent: e} })
}
