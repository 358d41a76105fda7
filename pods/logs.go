package pods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/sse"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// LogOptions selects what Logs streams.
type LogOptions struct {
	// Source is container or system; both when empty.
	Source LogSource
	// Tail is how many lines of history come first (platform default 100,
	// at most 5000); nil leaves the default, a set 0 streams live only.
	Tail *int
	// Since resumes from this time; Tail is then ignored.
	Since time.Time
	// LastEventID resumes after an event (LogLine.ID of an earlier
	// stream: the event's time, in RFC 3339); it wins over Since and Tail.
	LastEventID string
}

// LogEvent is the data of one event of a pod's log stream. The REST v2
// document types the stream only as text/event-stream; each event's data is
// this JSON object.
type LogEvent struct {
	// Line is the log line, without its line ending.
	Line string `json:"line"`
	// Source says whether the container or the platform wrote it.
	Source LogSource `json:"source"`
	// Time is when the line was written.
	Time time.Time `json:"ts"`
}

// LogLine is one log line.
type LogLine struct {
	// ID is the event id (the line's time, in RFC 3339), to resume with
	// LogOptions.LastEventID.
	ID string
	LogEvent
}

// Logs streams the pod's log lines as they come. The iteration ends when
// the stream ends, when ctx is cancelled (without an error: that is how a
// caller stops following), or when the caller breaks out; the connection
// is closed in every case. An HTTP error (unknown pod, 401, 403) is the
// first and only value.
func (s *Service) Logs(ctx context.Context, podID string, o LogOptions, opts ...option.CallOption) iter.Seq2[LogLine, error] {
	return func(yield func(LogLine, error) bool) {
		u, err := s.podURL(podID, "/logs")
		if err == nil {
			err = o.validate()
		}
		if err != nil {
			yield(LogLine{}, err)
			return
		}
		q := url.Values{}
		if o.Source != "" {
			q.Set("source", string(o.Source))
		}
		if o.Tail != nil {
			q.Set("tail", strconv.Itoa(*o.Tail))
		}
		if !o.Since.IsZero() {
			q.Set("since", o.Since.UTC().Format(time.RFC3339Nano))
		}
		u.RawQuery = q.Encode()
		h := http.Header{"Accept": {"text/event-stream"}}
		if o.LastEventID != "" {
			h.Set("Last-Event-ID", o.LastEventID)
		}
		req := &transport.Request{Method: http.MethodGet, URL: u, Header: h, Idempotent: true}
		resp, err := s.t.Do(ctx, req, opts...)
		if err != nil {
			if ctx.Err() == nil {
				yield(LogLine{}, err)
			}
			return
		}
		defer resp.Body.Close()
		dec := sse.NewDecoder(resp.Body, maxLogEvent)
		for {
			ev, err := dec.Next()
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, io.EOF) {
					return
				}
				yield(LogLine{}, s.t.StreamError(req, resp.StatusCode, maxLogEvent, err))
				return
			}
			var line LogLine
			if err := json.Unmarshal(ev.Data, &line.LogEvent); err != nil {
				if !yield(LogLine{}, s.t.BadEvent(req, resp.StatusCode, ev.Data, fmt.Errorf("event %q is not a log line: %w", ev.ID, err))) {
					return
				}
				continue
			}
			line.ID = ev.ID
			if !yield(line, nil) {
				return
			}
		}
	}
}

// maxLogEvent caps one log event (1 MiB).
const maxLogEvent = 1 << 20

func (o LogOptions) validate() error {
	switch {
	case o.Source != "" && !o.Source.Valid():
		return errs.Invalid("LogOptions.Source", "want container or system, got %q", o.Source)
	case o.Tail != nil && (*o.Tail < 0 || *o.Tail > 5000):
		return errs.Invalid("LogOptions.Tail", "must be 0 to 5000, got %d", *o.Tail)
	}
	if o.LastEventID != "" {
		if _, err := time.Parse(time.RFC3339Nano, o.LastEventID); err != nil {
			return errs.Invalid("LogOptions.LastEventID", "want an event id as a stream gives it (an RFC 3339 time), got %q", o.LastEventID)
		}
	}
	return nil
}
