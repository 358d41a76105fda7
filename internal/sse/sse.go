// Package sse decodes a text/event-stream (Server-Sent Events, as the
// WHATWG HTML standard defines it): the pod and worker log streams and
// OpenAI-compatible chat streams use it.
//
// The decoder reads with a bufio.Reader and an explicit cap on the size of
// one event (no bufio.Scanner "token too long"), accepts LF, CRLF and lone
// CR line endings, joins multi-line data with "\n", strips exactly one
// leading space from a field value, ignores comment lines (keep-alives),
// and keeps the last event id.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// DefaultMaxEventSize caps one event's data when no other cap is given.
const DefaultMaxEventSize = 4 << 20

// ErrEventTooLarge is returned when an event exceeds the decoder's cap.
var ErrEventTooLarge = errors.New("sse: event exceeds the size limit")

// Event is one dispatched event.
type Event struct {
	// ID is the last event id seen on the stream (it persists across
	// events, as the standard says).
	ID string
	// Type is the event type ("message" when the stream named none).
	Type string
	// Data is the event's data lines joined with "\n".
	Data []byte
	// Retry is the reconnection time the stream asked for, if any.
	Retry time.Duration
}

// Decoder reads events from a stream.
type Decoder struct {
	r       *bufio.Reader
	max     int
	lastID  string
	pending bool // a lone CR ended the previous line; skip a following LF
	line    []byte
}

// NewDecoder returns a decoder of r whose events may hold at most
// maxEvent bytes of data (DefaultMaxEventSize when maxEvent <= 0).
func NewDecoder(r io.Reader, maxEvent int) *Decoder {
	if maxEvent <= 0 {
		maxEvent = DefaultMaxEventSize
	}
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), max: maxEvent}
}

// Next returns the next event. It returns io.EOF at a clean end of the
// stream; an event that was not terminated by a blank line is dropped, as
// the standard says.
func (d *Decoder) Next() (Event, error) {
	var (
		data    bytes.Buffer
		typ     string
		retry   time.Duration
		hasData bool
	)
	for {
		line, err := d.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		if len(line) == 0 { // blank line: dispatch
			if !hasData {
				typ, retry = "", 0
				continue
			}
			if typ == "" {
				typ = "message"
			}
			return Event{ID: d.lastID, Type: typ, Data: data.Bytes(), Retry: retry}, nil
		}
		if line[0] == ':' {
			continue // comment
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			if data.Len()+len(value) > d.max {
				return Event{}, ErrEventTooLarge
			}
			data.Write(value)
			hasData = true
		case "event":
			typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				d.lastID = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
				retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

// LastEventID returns the last id the stream set, for resuming.
func (d *Decoder) LastEventID() string { return d.lastID }

// readLine returns one line without its ending (LF, CRLF or CR). Lines
// longer than the event cap are an error.
func (d *Decoder) readLine() ([]byte, error) {
	d.line = d.line[:0]
	for {
		b, err := d.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(d.line) > 0 {
				return nil, fmt.Errorf("sse: stream ended inside a line: %w", io.ErrUnexpectedEOF)
			}
			return nil, err
		}
		if d.pending {
			d.pending = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return d.line, nil
		case '\r':
			d.pending = true
			return d.line, nil
		}
		if len(d.line) >= d.max+len("data: ") {
			return nil, ErrEventTooLarge
		}
		d.line = append(d.line, b)
	}
}
