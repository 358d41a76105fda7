package runpodtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// logLine is one line of a log the fake streams: a pod's or a serverless
// worker's.
type logLine struct {
	at     time.Time // unique within its log: the event id
	source string    // container or system
	line   string
}

// logEventJSON is the data of one log event, as the REST v2 document
// describes both log streams.
type logEventJSON struct {
	Line   string    `json:"line"`
	Source string    `json:"source"`
	Time   time.Time `json:"ts"`
}

// appendLogLine adds a line at now, or one nanosecond after the previous
// line when the clock has not moved, so that every line's time, which is
// also its event id, says where to resume.
func appendLogLine(lines []logLine, now time.Time, source, line string) []logLine {
	at := now.UTC()
	if n := len(lines); n > 0 && !at.After(lines[n-1].at) {
		at = lines[n-1].at.Add(time.Nanosecond)
	}
	return append(lines, logLine{at: at, source: source, line: line})
}

// logRequest is what a log stream was asked for. The document has
// checked the parameters (tail 0 to 5000, a known source, date-times).
type logRequest struct {
	source       string
	tail         int       // lines of history (100 when not given)
	since, after time.Time // since=…, and Last-Event-ID
}

func parseLogRequest(r *http.Request) logRequest {
	q := r.URL.Query()
	lr := logRequest{source: q.Get("source"), tail: 100}
	if v := q.Get("tail"); v != "" {
		lr.tail, _ = strconv.Atoi(v)
	}
	if v := q.Get("since"); v != "" {
		lr.since, _ = time.Parse(time.RFC3339Nano, v)
	}
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		lr.after, _ = time.Parse(time.RFC3339Nano, v)
	}
	return lr
}

// first returns the index of the first line of lines to send: after the
// Last-Event-ID's line, else from since, else the last tail lines.
func (lr logRequest) first(lines []logLine) int {
	switch {
	case !lr.after.IsZero():
		for i, l := range lines {
			if l.at.After(lr.after) {
				return i
			}
		}
		return len(lines)
	case !lr.since.IsZero():
		for i, l := range lines {
			if !l.at.Before(lr.since) {
				return i
			}
		}
		return len(lines)
	}
	return max(len(lines)-lr.tail, 0)
}

// streamLog answers with the log as Server-Sent Events, from line next on:
// history first, then new lines as they come, until the client goes away
// or the server closes. read returns, under the log owner's lock, the
// lines from next on and a channel closed when more are added (nil when
// none will be: the stream ends after those lines); wake, when
// not nil, also wakes the stream (to apply state that changes with time).
func (s *Server) streamLog(w http.ResponseWriter, r *http.Request, lr logRequest, next int,
	read func(next int) ([]logLine, <-chan struct{}), wake func() <-chan time.Time) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	for {
		pending, changed := read(next)
		next += len(pending)
		var buf bytes.Buffer
		for _, l := range pending {
			if lr.source != "" && l.source != lr.source {
				continue
			}
			data, _ := json.Marshal(logEventJSON{Line: l.line, Source: l.source, Time: l.at})
			fmt.Fprintf(&buf, "id: %s\ndata: %s\n\n", l.at.Format(time.RFC3339Nano), data)
		}
		if buf.Len() > 0 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			flush()
		}
		if changed == nil { // the log is closed: nothing more will come
			return
		}
		var woken <-chan time.Time
		if wake != nil {
			woken = wake()
		}
		select {
		case <-changed:
		case <-woken:
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}
