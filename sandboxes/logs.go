package sandboxes

import (
	"context"
	"iter"
	"time"

	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// LogEvent is the data of one event of a sandbox's log stream: a JSON
// object, as the stream's docs page shows it.
type LogEvent struct {
	// Line is the log line, without its line ending.
	Line string `json:"line"`
	// Source says who wrote it: LogSourceContainer (the sandbox's main
	// process) or LogSourceSystem (the platform: image pulls, container
	// starts).
	Source LogSource `json:"source"`
	// Time is when the line was logged (the event's "ts", also its id).
	Time time.Time `json:"ts"`
}

// LogLine is one log line.
type LogLine struct {
	// ID is the event id as the stream sent it (the line's time). A
	// stream cut off resumes by itself after the last id received.
	ID string
	// LogEvent is the event's data: the line, its source and its time.
	LogEvent
}

// Logs streams the sandbox's log lines as they come: the stdout of its
// main process and the platform's lifecycle lines. The output of Exec's
// commands is not in it. p selects them; every field may be nil:
//
//   - Source: container or system; both when nil.
//   - Tail: how many lines of history come first (platform default 100,
//     at most 5000); 0 streams live only.
//   - Since: resume from this time; Tail is then ignored.
//   - LastEventID: start a new stream at this time (LogLine.Time of an
//     earlier stream), sent as the Last-Event-ID header; it wins over
//     Since and Tail.
//
// A connection cut after the stream began is resumed by the iteration
// itself, with Last-Event-ID set to the last event id received, so no line
// is repeated or lost; after 3 cuts in a row with no line between them,
// the cut ends the loop as its last value.
//
// The platform serves the stream once the sandbox's container exists
// (which can lag RUNNING by 10 to 30 seconds) and answers 409 before:
// Logs waits through that window within ctx, as Exec does, and ends with
// an *EndedError (errors.Is ErrEnded) when the sandbox has ended, since an
// ended sandbox has no stream. The iteration ends when the stream ends,
// when ctx is cancelled (without an error: that is how a caller stops
// following), or when the caller breaks out; the connection is closed in
// every case. Any other HTTP error (an unknown sandbox, 401, 403) is the
// first and only value.
func (s *Service) Logs(ctx context.Context, id string, p GetSandboxLogsParams, opts ...option.RequestOption) iter.Seq2[LogLine, error] {
	q := rest.LogQuery[LogSource]{Params: "GetSandboxLogsParams", Source: p.Source, Tail: p.Tail, Since: p.Since, LastEventID: p.LastEventID}
	stream := rest.Logs(ctx, s.t, rest.At(logsRoute, sandboxID.Of(id)), q, opts, func(id string, e LogEvent) LogLine { return LogLine{ID: id, LogEvent: e} })
	return func(yield func(LogLine, error) bool) {
		lo := s.t.PollInterval(0)
		for attempt := 0; ; attempt++ {
			again := false
			first := true
			for l, err := range stream {
				if first && err != nil {
					if werr := s.starting(ctx, id, err, lo, attempt, opts); werr == nil {
						again = true
						break
					} else if ctx.Err() == nil {
						yield(LogLine{}, werr)
					}
					return
				}
				first = false
				if !yield(l, err) {
					return
				}
			}
			if !again {
				return
			}
		}
	}
}
