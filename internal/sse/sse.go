// Package sse decodes a text/event-stream (Server-Sent Events, as the
// WHATWG HTML standard defines it): the pod and worker log streams and
// OpenAI-compatible chat streams use it.
//
// The decoder reads into its own buffer with an explicit cap on the size
// of one event (no bufio.Scanner "token too long"), flushes nothing it has
// not read (each event is returned as soon as its blank line arrives),
// accepts LF, CRLF and lone CR line endings, joins multi-line data with "\n", strips exactly one
// leading space from a field value, ignores comment lines (keep-alives),
// and keeps the last event id.
package sse

import (
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
	// Data is the event's data lines joined with "\n". It is valid until
	// the next call to Next, or for good on a decoder made with
	// NewKeepingDecoder.
	Data []byte
	// Retry is the reconnection time the stream asked for, if any.
	Retry time.Duration
}

// Decoder reads events from a stream.
type Decoder struct {
	r      io.Reader
	buf    []byte
	pos    int  // start of unread bytes in buf
	end    int  // end of valid bytes in buf
	skipLF bool // a lone CR ended the last line; a following LF belongs to it
	eof    error
	max    int
	lastID string
	data   []byte // the current event's data, reused unless keep
	// keep makes every event's data its own: events are written into
	// blocks that are never reused (see NewKeepingDecoder).
	keep  bool
	block []byte // the current block of kept data
}

// keepBlock is the size of the blocks a keeping decoder writes events'
// data into; an event that outgrows the rest of a block gets an
// allocation of its own.
const keepBlock = 16 << 10

// NewKeepingDecoder is NewDecoder for a caller that keeps events' data
// after the next call to Next (a stream's chunks that carry their JSON as
// received). Each event's data is written once, straight from the read
// buffer, into 16 KiB blocks shared by consecutive events, so keeping it
// costs neither a copy nor an allocation per event; keeping one event's
// data keeps its block.
func NewKeepingDecoder(r io.Reader, maxEvent int) *Decoder {
	d := NewDecoder(r, maxEvent)
	d.keep = true
	return d
}

// NewDecoder returns a decoder of r whose events may hold at most
// maxEvent bytes of data (DefaultMaxEventSize when maxEvent <= 0).
func NewDecoder(r io.Reader, maxEvent int) *Decoder {
	if maxEvent <= 0 {
		maxEvent = DefaultMaxEventSize
	}
	return &Decoder{r: r, buf: make([]byte, 16<<10), max: maxEvent}
}

// Next returns the next event. It returns io.EOF at a clean end of the
// stream; an event that was not terminated by a blank line is dropped, as
// the standard says.
func (d *Decoder) Next() (Event, error) {
	var (
		typ     string
		retry   time.Duration
		hasData bool
	)
	d.data = d.data[:0]
	if d.keep {
		if cap(d.block)-len(d.block) < 256 {
			d.block = make([]byte, 0, keepBlock)
		}
		d.data = d.block[len(d.block):len(d.block)]
	}
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
			return Event{ID: d.lastID, Type: typ, Data: d.dispatched(), Retry: retry}, nil
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
				d.data = append(d.data, '\n')
			}
			if len(d.data)+len(value) > d.max {
				return Event{}, ErrEventTooLarge
			}
			d.data = append(d.data, value...)
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

// dispatched returns the data of the event being dispatched. A keeping
// decoder's data stays where it was written: the block moves past it when
// it fits (an append that outgrew the block moved it to memory of its own,
// with a larger capacity), and its capacity ends with it so that an append
// to it cannot reach the next event's.
func (d *Decoder) dispatched() []byte {
	if !d.keep {
		return d.data
	}
	if cap(d.data) == cap(d.block)-len(d.block) {
		d.block = d.block[:len(d.block)+len(d.data)]
	}
	return d.data[:len(d.data):len(d.data)]
}

// LastEventID returns the last id the stream set, for resuming.
func (d *Decoder) LastEventID() string { return d.lastID }

// readLine returns one line without its ending (LF, CRLF or CR); the
// slice is valid until the next call. Lines longer than the event cap are
// an error.
func (d *Decoder) readLine() ([]byte, error) {
	scanned := 0 // bytes of buf[pos:end] already searched for an ending
	for {
		if d.skipLF && d.pos < d.end {
			d.skipLF = false
			if d.buf[d.pos] == '\n' {
				d.pos++
			}
		}
		rest := d.buf[d.pos:d.end]
		if i := lineEnd(rest, scanned); i >= 0 {
			line := rest[:i]
			d.pos += i + 1
			if rest[i] == '\r' {
				d.skipLF = true
			}
			return line, nil
		}
		scanned = len(rest)
		if d.eof != nil {
			if len(rest) > 0 {
				d.pos = d.end
				return nil, fmt.Errorf("sse: stream ended inside a line: %w", io.ErrUnexpectedEOF)
			}
			return nil, d.eof
		}
		if len(rest) > d.max+len("data: ") {
			return nil, ErrEventTooLarge
		}
		d.fill()
	}
}

// lineEnd returns the index of the first CR or LF in b at or after from,
// or -1.
func lineEnd(b []byte, from int) int {
	b2 := b[from:]
	n := bytes.IndexByte(b2, '\n')
	search := b2
	if n >= 0 {
		search = b2[:n]
	}
	if c := bytes.IndexByte(search, '\r'); c >= 0 {
		return from + c
	}
	if n >= 0 {
		return from + n
	}
	return -1
}

// fill reads more bytes, first moving the unread ones to the front (or
// growing the buffer when they fill it).
func (d *Decoder) fill() {
	if d.pos > 0 {
		copy(d.buf, d.buf[d.pos:d.end])
		d.end -= d.pos
		d.pos = 0
	}
	if d.end == len(d.buf) {
		// Double, but never past what the longest allowed line needs: a
		// stream that sends one endless line costs about the cap, not
		// twice it.
		grown := make([]byte, max(min(2*len(d.buf), d.max+len("data: ")+2), len(d.buf)+1))
		copy(grown, d.buf[:d.end])
		d.buf = grown
	}
	for {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.eof = err
			return
		}
		if n > 0 {
			return
		}
	}
}
