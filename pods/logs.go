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
	// ID is the event id as the stream sent it: the line's time, in RFC
	// 3339. To resume after this line, set GetPodLogsParams.LastEventID
	// to &line.Time.
	ID string
	// LogEvent is the line itself: its text, source and time.
	LogEvent
}

// Logs streams the pod's log lines as they come. p selects them; every
// field may be nil:
//
//   - Source: container or system; both when nil.
//   - Tail: how many lines of history come first (platform default 100,
//     at most 5000); 0 streams live only.
//   - Since: resume from this time; Tail is then ignored.
//   - LastEventID: resume after the line of this time (LogLine.Time of an
//     earlier stream); it wins over Since and Tail.
//
// The iteration ends when the stream ends, when ctx is cancelled (without
// an error: that is how a caller stops following), or when the caller
// breaks out; the connection is closed in every case. An HTTP error (unknown pod, 401, 403) is the
// first and only value.
func (s *Service) Logs(ctx context.Context, podID string, p GetPodLogsParams, opts ...option.CallOption) iter.Seq2[LogLine, error] {
	return func(yield func(LogLine, error) bool) {
		u, err := s.podURL(podID, "/logs")
		if err == nil {
			err = validLogParams(p)
		}
		if err != nil {
			yield(LogLine{}, err)
			return
		}
		q := url.Values{}
		if p.Source != nil {
			q.Set("source", string(*p.Source))
		}
		if p.Tail != nil {
			q.Set("tail", strconv.Itoa(*p.Tail))
		}
		if p.Since != nil {
			q.Set("since", p.Since.UTC().Format(time.RFC3339Nano))
		}
		u.RawQuery = q.Encode()
		h := http.Header{"Accept": {"text/event-stream"}}
		if p.LastEventID != nil {
			h.Set("Last-Event-ID", p.LastEventID.UTC().Format(time.RFC3339Nano))
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

func validLogParams(p GetPodLogsParams) error {
	switch {
	case p.Source != nil && !p.Source.Valid():
		return errs.Invalid("GetPodLogsParams.Source", "want container or system, got %q", *p.Source)
	case p.Tail != nil && (*p.Tail < 0 || *p.Tail > 5000):
		return errs.Invalid("GetPodLogsParams.Tail", "must be 0 to 5000, got %d", *p.Tail)
	case p.Since != nil && p.Since.IsZero():
		return errs.Invalid("GetPodLogsParams.Since", "is the zero time")
	case p.LastEventID != nil && p.LastEventID.IsZero():
		return errs.Invalid("GetPodLogsParams.LastEventID", "is the zero time")
	}
	return nil
}
