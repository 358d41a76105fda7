package rest

import (
	"context"
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

// LogQuery selects the lines of a log stream (a pod's, a serverless
// worker's): every field may be nil.
type LogQuery struct {
	// Source is container or system; both when nil.
	Source *string
	// Tail is how many lines of history come first (0 to 5000).
	Tail *int
	// Since resumes from this time; LastEventID resumes after the line of
	// this time and wins over Since and Tail.
	Since, LastEventID *time.Time
}

// Check validates q; typ names the caller's parameters type in the error
// ("GetPodLogsParams"), and validSource says whether *q.Source is known.
func (q LogQuery) Check(typ string, validSource bool) error {
	switch {
	case q.Source != nil && !validSource:
		return errs.Invalid(typ+".Source", "want container or system, got %q", *q.Source)
	case q.Tail != nil && (*q.Tail < 0 || *q.Tail > 5000):
		return errs.Invalid(typ+".Tail", "must be 0 to 5000, got %d", *q.Tail)
	case q.Since != nil && q.Since.IsZero():
		return errs.Invalid(typ+".Since", "is the zero time")
	case q.LastEventID != nil && q.LastEventID.IsZero():
		return errs.Invalid(typ+".LastEventID", "is the zero time")
	}
	return nil
}

// maxLogEvent caps one log event (1 MiB).
const maxLogEvent = 1 << 20

// Logs streams the server-sent events of the log at u as the caller's
// lines: decode turns one event (its id and data) into a T. The iteration
// ends when the stream ends, when ctx is cancelled (without an error: that
// is how a caller stops following), or when the caller breaks out; the
// connection is closed in every case. An HTTP error is the first and only
// value; an event that does not decode is yielded as an error and the
// stream goes on.
func Logs[T any](ctx context.Context, t *transport.Transport, u *url.URL, q LogQuery, opts []option.CallOption,
	decode func(id string, data []byte) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		v := url.Values{}
		if q.Source != nil {
			v.Set("source", *q.Source)
		}
		if q.Tail != nil {
			v.Set("tail", strconv.Itoa(*q.Tail))
		}
		if q.Since != nil {
			v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
		}
		u := *u
		u.RawQuery = v.Encode()
		h := http.Header{"Accept": {"text/event-stream"}}
		if q.LastEventID != nil {
			h.Set("Last-Event-ID", q.LastEventID.UTC().Format(time.RFC3339Nano))
		}
		req := &transport.Request{Method: http.MethodGet, URL: &u, Header: h, Idempotent: true}
		resp, err := t.Do(ctx, req, opts...)
		if err != nil {
			if ctx.Err() == nil {
				yield(zero, err)
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
				yield(zero, t.StreamError(req, resp.StatusCode, maxLogEvent, err))
				return
			}
			line, err := decode(ev.ID, ev.Data)
			if err != nil {
				if !yield(zero, t.BadEvent(req, resp.StatusCode, ev.Data, fmt.Errorf("event %q is not a log line: %w", ev.ID, err))) {
					return
				}
				continue
			}
			if !yield(line, nil) {
				return
			}
		}
	}
}
