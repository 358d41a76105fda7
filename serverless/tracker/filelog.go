package tracker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The file store's format: a header line, then one line per change, each
// a JSON object written whole and synced before the change is reported
// done:
//
//	{"format":"runpod-go/tracker","version":2}
//	{"put":{"endpointId":"ep","submission":"N4…","submittedAt":"2026-06-01T12:00:00Z","webhookUntil":"2026-06-02T12:40:20Z"}}
//	{"put":{"endpointId":"ep","jobId":"j1","submission":"N4…","submittedAt":"2026-06-01T12:00:00Z","webhookUntil":"2026-06-02T12:40:20Z"}}
//	{"delete":{"endpointId":"ep","key":"submission/N4…"}}
//
// A delete names the record by its Key (Record.Key). Version 1, written
// before submissions were recorded ahead of /run, named it by "jobId";
// this version reads both, and rewrites a version 1 file as version 2
// when it opens it.
//
// A crash can only cut the last line short (changes are appended one at a
// time, each synced before the next): a last line without its newline is
// ignored. Any other line that does not decode is damage from outside, and
// the file is refused rather than have records dropped silently.
const (
	logFormat  = "runpod-go/tracker"
	logVersion = 2
	// logVersionJobKeys is the first version: records keyed by job id.
	logVersionJobKeys = 1
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

// lineKey names the record a delete removes: by Key, or (version 1) by
// JobID.
type lineKey struct {
	EndpointID string `json:"endpointId"`
	Key        string `json:"key,omitempty"`
	JobID      string `json:"jobId,omitempty"`
}

// id is the Key of the record a delete removes.
func (k lineKey) id() string {
	if k.Key != "" {
		return k.Key
	}
	return k.JobID
}

// decodedLog is what a file holds.
type decodedLog struct {
	records map[key]Record
	changes int  // change lines, dead ones included
	torn    bool // the last line was cut short and ignored
	old     bool // the file is of an older version, to be rewritten
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
	version, err := checkHeader(lines[0])
	if err != nil {
		return d, err
	}
	d.old = version != logVersion
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
			delete(d.records, key{l.Delete.EndpointID, l.Delete.id()})
		}
	}
	return d, nil
}

// checkHeader reads the header line and returns the file's version.
func checkHeader(line []byte) (int, error) {
	var h logHeader
	if json.Unmarshal(line, &h) != nil || h.Format != logFormat {
		return 0, errors.New("not a tracker file: its first line is not the tracker's header")
	}
	if h.Version != logVersion && h.Version != logVersionJobKeys {
		return 0, fmt.Errorf("format version %d, this version reads %d and %d", h.Version, logVersionJobKeys, logVersion)
	}
	return h.Version, nil
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
	case (l.Delete.Key == "") == (l.Delete.JobID == ""):
		return l, errors.New("a delete names one key")
	case strings.TrimSpace(l.Delete.EndpointID) == "" || strings.TrimSpace(l.Delete.id()) == "":
		return l, errors.New("a delete names an endpoint and a key")
	}
	return l, nil
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
