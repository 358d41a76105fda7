package tracker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The file store's format: a header line, then one line per change, each
// a JSON object written whole and synced before the change is reported
// done:
//
//	{"format":"runpod-go/tracker","version":1}
//	{"put":{"endpointId":"ep","jobId":"j1","submittedAt":"2026-06-01T12:00:00Z"}}
//	{"delete":{"endpointId":"ep","jobId":"j1"}}
//
// A crash can only cut the last line short (changes are appended one at a
// time, each synced before the next): a last line without its newline is
// ignored. Any other line that does not decode is damage from outside, and
// the file is refused rather than have records dropped silently.
const (
	logFormat  = "runpod-go/tracker"
	logVersion = 1
)

type logHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// logLine is one change: exactly one of Put and Delete.
type logLine struct {
	Put    *Record  `json:"put,omitempty"`
	Delete *lineKey `json:"delete,omitempty"`
}

type lineKey struct {
	EndpointID string `json:"endpointId"`
	JobID      string `json:"jobId"`
}

// decodedLog is what a file holds.
type decodedLog struct {
	records map[key]Record
	changes int  // change lines, dead ones included
	torn    bool // the last line was cut short and ignored
}

// decodeLog reads a file store's contents. An empty file holds nothing.
func decodeLog(data []byte) (decodedLog, error) {
	d := decodedLog{records: map[key]Record{}}
	if len(data) == 0 {
		return d, nil
	}
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return d, errors.New("not a tracker file: no header line")
	}
	d.torn = end < len(data)-1
	lines := bytes.Split(data[:end], []byte{'\n'})
	if err := checkHeader(lines[0]); err != nil {
		return d, err
	}
	for i, line := range lines[1:] {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l, err := decodeLine(line)
		if err != nil {
			return d, fmt.Errorf("line %d: %w", i+2, err)
		}
		d.changes++
		if l.Put != nil {
			d.records[l.Put.key()] = *l.Put
		} else {
			delete(d.records, key{l.Delete.EndpointID, l.Delete.JobID})
		}
	}
	return d, nil
}

func checkHeader(line []byte) error {
	var h logHeader
	if json.Unmarshal(line, &h) != nil || h.Format != logFormat {
		return errors.New("not a tracker file: its first line is not the tracker's header")
	}
	if h.Version != logVersion {
		return fmt.Errorf("format version %d, this version reads %d", h.Version, logVersion)
	}
	return nil
}

// decodeLine reads one change line: exactly one change, with both ids.
func decodeLine(line []byte) (logLine, error) {
	var l logLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, fmt.Errorf("not a change: %v", err)
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		return l, errors.New("not a change: data after the object")
	}
	switch {
	case (l.Put == nil) == (l.Delete == nil):
		return l, errors.New("a change is one put or one delete")
	case l.Put != nil:
		return l, l.Put.validate()
	default:
		return l, Record{EndpointID: l.Delete.EndpointID, JobID: l.Delete.JobID}.validate()
	}
}

// encodeHeader returns the header line.
func encodeHeader() []byte {
	b, _ := json.Marshal(logHeader{Format: logFormat, Version: logVersion})
	return append(b, '\n')
}

// encodeLine returns the line of a change.
func encodeLine(l logLine) ([]byte, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// encodeLog returns a whole file holding records.
func encodeLog(records []Record) ([]byte, error) {
	out := encodeHeader()
	for _, r := range records {
		line, err := encodeLine(logLine{Put: &r})
		if err != nil {
			return nil, err
		}
		out = append(out, line...)
	}
	return out, nil
}
