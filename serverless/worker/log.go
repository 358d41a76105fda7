package worker

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

type level int

const (
	levelError level = iota
	levelWarn
	levelInfo
	levelDebug
)

func (l level) String() string { return [...]string{"ERROR", "WARN", "INFO", "DEBUG"}[l] }

func parseLevel(s string) (level, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ERROR":
		return levelError, true
	case "WARN":
		return levelWarn, true
	case "INFO":
		return levelInfo, true
	case "DEBUG":
		return levelDebug, true
	}
	return 0, false
}

// maxLogMessage is where long messages are cut (keeping both ends).
const maxLogMessage = 4096

// logger writes the runtime's log lines: "LEVEL  | job | message", or one
// JSON object per line ({"requestId", "message", "level"}) when the worker
// runs on the platform (RUNPOD_ENDPOINT_ID set), so that the platform can
// link lines to requests.
type logger struct {
	mu   sync.Mutex
	w    io.Writer
	max  level
	json bool
}

func newLogger(w io.Writer, max level, jsonLines bool) *logger {
	return &logger{w: w, max: max, json: jsonLines}
}

func (l *logger) log(lv level, jobID, msg string) {
	if lv > l.max {
		return
	}
	if len(msg) > maxLogMessage {
		half := maxLogMessage / 2
		msg = fmt.Sprintf("%s...TRUNCATED %d CHARACTERS...%s", msg[:half], len(msg)-2*half, msg[len(msg)-half:])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		var id any
		if jobID != "" {
			id = jobID
		}
		b, _ := json.Marshal(struct {
			RequestID any    `json:"requestId"`
			Message   string `json:"message"`
			Level     string `json:"level"`
		}{id, msg, lv.String()})
		fmt.Fprintf(l.w, "%s\n", b)
		return
	}
	prefix := fmt.Sprintf("%-7s| ", lv.String())
	if jobID != "" {
		prefix += jobID + " | "
	}
	fmt.Fprintf(l.w, "%s%s\n", prefix, msg)
}

func (l *logger) error(jobID, msg string) { l.log(levelError, jobID, msg) }
func (l *logger) warn(jobID, msg string)  { l.log(levelWarn, jobID, msg) }
func (l *logger) info(jobID, msg string)  { l.log(levelInfo, jobID, msg) }
func (l *logger) debug(jobID, msg string) { l.log(levelDebug, jobID, msg) }
