package rest

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
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/sse"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// LogQuery selects the lines of a log stream (a pod's, a serverless
// worker's): every field but Params may be nil. S is the caller's source
// enum.
type LogQuery[S interface {
	~string
	Valid() bool
}] struct {
	// Params names the caller's parameters type in errors
	// ("GetPodLogsParams").
	Params string
	// Source is container or system; both when nil.
	Source *S
	// Tail is how many lines of history come first (0 to 5000).
	Tail *int
	// Since resumes from this time; LastEventID resumes after the line of
	// this time and wins over Since and Tail.
	Since, LastEventID *time.Time
}

// Check validates q: a *errs.ValidationError names the field as
// q.Params.Field.
func (q LogQuery[S]) Check() error {
	switch {
	case q.Source != nil && !(*q.Source).Valid():
		return fail.Invalid(q.Params+".Source", "want container or system, got %q", string(*q.Source))
	case q.Tail != nil && (*q.Tail < 0 || *q.Tail > 5000):
		return fail.Invalid(q.Params+".Tail", "must be 0 to 5000, got %d", *q.Tail)
	case q.Since != nil && q.Since.IsZero():
		return fail.Invalid(q.Params+".Since", "is the zero time")
	case q.LastEventID != nil && q.LastEventID.IsZero():
		return fail.Invalid(q.Params+".LastEventID", "is the zero time")
	}
	return nil
}

// maxLogEvent caps one log event (1 MiB).
const maxLogEvent = 1 << 20

// maxResumes is how many times in a row a log stream cut off is resumed
// without an event arriving in between; the next cut ends it with the
// error.
const maxResumes = 3

// Logs streams the server-sent events of the log at p as the caller's
// lines: each event's data is decoded into an E (JSON), and line makes the
// T of it and the event's id. p and q are checked first: when either is
// invalid, the error is the first and only value, and nothing is sent.
// The iteration ends when the stream ends, when ctx is cancelled (without
// an error: that is how a caller stops following), or when the caller
// breaks out; the connection is closed in every case. An HTTP error is
// the first and only value; an event that does not decode is yielded as
// an error and the stream goes on.
//
// A connection cut after the stream began is resumed as EventSource
// resumes it: a new request whose Last-Event-ID header is the last event
// id received, exactly as the stream sent it (the document's examples:
// "<ts>/<seq>"), so lines that share a second are neither repeated nor
// lost. q.LastEventID, a time, is only the caller's way to start a new
// stream. After maxResumes cuts in a row with no event between them, the
// cut is yielded as the last value.
func Logs[S interface {
	~string
	Valid() bool
}, E, T any](ctx context.Context, t *transport.Transport, p Path, q LogQuery[S], opts []option.RequestOption,
	line func(id string, e E) T) iter.Seq2[T, error] {
	u, err := p.URL(t)
	if err == nil {
		err = q.Check()
	}
	if err == nil {
		v := url.Values{}
		if q.Source != nil {
			v.Set("source", string(*q.Source))
		}
		if q.Tail != nil {
			v.Set("tail", strconv.Itoa(*q.Tail))
		}
		if q.Since != nil {
			v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
		}
		u.RawQuery = v.Encode()
	}
	return func(yield func(T, error) bool) {
		var zero T
		if err != nil {
			yield(zero, err)
			return
		}
		lastID := ""
		if q.LastEventID != nil {
			lastID = q.LastEventID.UTC().Format(time.RFC3339Nano)
		}
		for resumes := 0; ; {
			h := http.Header{"Accept": {"text/event-stream"}}
			if lastID != "" {
				h.Set("Last-Event-ID", lastID)
			}
			req := &transport.Request{Method: http.MethodGet, URL: u, Route: p.route, Header: h, Idempotent: true}
			resp, err := t.Do(ctx, req, opts...)
			if err != nil {
				if ctx.Err() == nil {
					yield(zero, err)
				}
				return
			}
			got, cut, more := logEvents(ctx, t, req, resp, line, yield, &lastID)
			if !more {
				return
			}
			if got {
				resumes = 0
			}
			if resumes++; resumes > maxResumes {
				yield(zero, cut)
				return
			}
		}
	}
}

// logEvents yields the events of one response of a log stream, and
// closes it. It keeps *lastID the last event id received. It returns
// whether any event arrived, and more when the stream was cut and should
// be resumed (cut is the error that ended it).
func logEvents[E, T any](ctx context.Context, t *transport.Transport, req *transport.Request, resp *http.Response,
	line func(id string, e E) T, yield func(T, error) bool, lastID *string) (got bool, cut error, more bool) {
	var zero T
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, maxLogEvent)
	for {
		ev, err := dec.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return got, nil, false
			}
			err = t.StreamError(req, resp.StatusCode, maxLogEvent, err)
			if errors.Is(err, errs.ErrResponseTooLarge) {
				yield(zero, err)
				return got, nil, false
			}
			return got, err, true
		}
		// The id of an event received whole (not of one cut off after its
		// id line): resuming after it neither repeats nor skips a line.
		if ev.ID != "" {
			*lastID = ev.ID
		}
		got = true
		var e E
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			if !yield(zero, t.BadEvent(req, resp.StatusCode, ev.Data, fmt.Errorf("event %q is not a log line: %w", ev.ID, err))) {
				return got, nil, false
			}
			continue
		}
		if !yield(line(ev.ID, e), nil) {
			return got, nil, false
		}
	}
}
