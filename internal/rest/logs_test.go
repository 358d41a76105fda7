package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sseLine writes one log event as the document's example does: the id is
// "<ts>/<seq>", so lines of one second have ids of their own.
func sseLine(w http.ResponseWriter, seq int) {
	_, _ = fmt.Fprintf(w, "id: 2026-06-01T12:02:03Z/%012d\ndata: {\"ts\":\"2026-06-01T12:02:03Z\",\"source\":\"container\",\"line\":\"line %d\"}\n\n", seq, seq)
}

type logLine struct{ id, data string }

func decodeLine(id string, data json.RawMessage) logLine { return logLine{id, string(data)} }

// source is a log source enum, as the surfaces' are.
type source string

func (s source) Valid() bool { return s == "container" || s == "system" }

// TestLogsResumeByEventID: a log stream cut after three lines of the same
// second resumes with Last-Event-ID set to the last event id received, as
// received, and every line comes once (item 10: resuming by the line's
// time repeated or lost lines of that second).
func TestLogsResumeByEventID(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch conns.Add(1) {
		case 1:
			assert.Empty(t, r.Header.Get("Last-Event-ID"))
			assert.Equal(t, "2", r.URL.Query().Get("tail"))
			for seq := 1; seq <= 3; seq++ {
				sseLine(w, seq)
			}
			// Half of a fourth event: its id arrives, its data never does.
			_, _ = fmt.Fprint(w, "id: 2026-06-01T12:02:03Z/000000000004\n")
			_ = http.NewResponseController(w).Flush()
			panic(http.ErrAbortHandler) // the connection is cut
		case 2:
			assert.Equal(t, "2026-06-01T12:02:03Z/000000000003", r.Header.Get("Last-Event-ID"))
			for seq := 4; seq <= 5; seq++ {
				sseLine(w, seq)
			}
		default:
			assert.Fail(t, "a stream that ended is not resumed")
		}
	}))
	defer srv.Close()
	tr := newTransport(t, srv)
	defer tr.CloseIdleConnections()
	tail := 2
	var got []string
	for line, err := range Logs(t.Context(), tr, At("/v2/pods/{podId}/logs", podID.Of("p1")), LogQuery[source]{Tail: &tail}, nil, decodeLine) {
		require.NoError(t, err)
		got = append(got, line.id)
	}
	want := []string{}
	for seq := 1; seq <= 5; seq++ {
		want = append(want, fmt.Sprintf("2026-06-01T12:02:03Z/%012d", seq))
	}
	require.Equal(t, want, got)
	require.EqualValues(t, 2, conns.Load())
}

// TestLogsLastEventIDTime: the caller's LastEventID (a time, as the
// document types the header) starts the stream.
func TestLogsLastEventIDTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "2026-06-01T12:02:03Z", r.Header.Get("Last-Event-ID"))
		w.Header().Set("Content-Type", "text/event-stream")
		sseLine(w, 7)
	}))
	defer srv.Close()
	tr := newTransport(t, srv)
	defer tr.CloseIdleConnections()
	at := time.Date(2026, 6, 1, 12, 2, 3, 0, time.UTC)
	n := 0
	for _, err := range Logs(t.Context(), tr, At("/v2/pods/{podId}/logs", podID.Of("p1")), LogQuery[source]{LastEventID: &at}, nil, decodeLine) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 1, n)
}

// TestLogsCutsWithoutProgress: a stream cut again and again with no event
// in between ends with the error after maxResumes resumes.
func TestLogsCutsWithoutProgress(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if conns.Add(1) == 1 {
			sseLine(w, 1)
		} else {
			assert.Equal(t, "2026-06-01T12:02:03Z/000000000001", r.Header.Get("Last-Event-ID"))
		}
		_, _ = fmt.Fprint(w, "data: {\"line\":")
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	tr := newTransport(t, srv)
	defer tr.CloseIdleConnections()
	var lines, errors int
	for _, err := range Logs(t.Context(), tr, At("/v2/pods/{podId}/logs", podID.Of("p1")), LogQuery[source]{}, nil, decodeLine) {
		if err != nil {
			errors++
			continue
		}
		lines++
	}
	require.Equal(t, 1, lines)
	require.Equal(t, 1, errors)
	require.EqualValues(t, 1+maxResumes, conns.Load())
}
