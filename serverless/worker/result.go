package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/version"
)

// result is a finished job, normalised as the platform expects it.
type result struct {
	Output  json.RawMessage `json:"output,omitempty"`
	Error   string          `json:"error,omitempty"`
	StopPod bool            `json:"stopPod,omitempty"`
}

// execute runs the handler, turning a panic into a failure.
func execute(ctx context.Context, h Handler, job *Job) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: string(debug.Stack())}
		}
	}()
	return h(ctx, job)
}

type panicError struct {
	value any
	stack string
}

func (e *panicError) Error() string { return fmt.Sprintf("handler panicked: %v", e.value) }

// normalize turns a handler's return into the platform's result:
//   - an error becomes "error", a string holding JSON (error_type,
//     error_message, hostname, worker_id, runpod_version), as the platform
//     expects a string;
//   - an output object with a truthy "error" fails the job with it, and a
//     truthy "refresh_worker" sets stopPod; both keys are removed, and an
//     object left empty is no output;
//   - a streaming handler that returned nothing has its chunks as output.
func normalize(out any, herr error, job *Job, c *config, debugger bool, took time.Duration) result {
	var r result
	job.mu.Lock()
	r.StopPod = job.refresh || c.refresh
	chunks := append([]json.RawMessage(nil), job.chunks...)
	job.mu.Unlock()
	if herr != nil {
		r.Error = errorString(herr, c)
		return r
	}
	b, err := json.Marshal(out)
	if err != nil {
		r.Error = errorString(fmt.Errorf("the handler's output is not JSON: %w", err), c)
		return r
	}
	if bytes.Equal(b, []byte("null")) && len(chunks) > 0 {
		b, _ = json.Marshal(chunks)
	}
	if len(b) > 0 && b[0] == '{' && (debugger || bytes.Contains(b, []byte(`"error"`)) || bytes.Contains(b, []byte(`"refresh_worker"`))) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) == nil {
			changed := false
			if e, ok := obj["error"]; ok {
				delete(obj, "error")
				changed = true
				if truthy(e) {
					var s string
					if json.Unmarshal(e, &s) != nil {
						s = string(e)
					}
					r.Error = s
				}
			}
			if rw, ok := obj["refresh_worker"]; ok {
				delete(obj, "refresh_worker")
				changed = true
				r.StopPod = r.StopPod || truthy(rw)
			}
			if debugger {
				obj["rp_debugger"], _ = json.Marshal(map[string]any{"handler_ms": took.Milliseconds(), "runtime": "runpod-go/" + version.Version})
				changed = true
			}
			if changed {
				if len(obj) == 0 {
					return r
				}
				b, _ = json.Marshal(obj)
			}
		}
	}
	r.Output = b
	return r
}

// truthy follows the platform's reading of a JSON value.
func truthy(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	switch s {
	case "", "null", "false", "0", `""`, "[]", "{}":
		return false
	}
	return true
}

// errorString is the platform's error text: a JSON object in a string.
func errorString(err error, c *config) string {
	var ie *InputError
	typ := fmt.Sprintf("%T", err)
	var pe *panicError
	switch {
	case errors.As(err, &ie):
		typ = "InputError"
	case errors.As(err, &pe):
		typ = "panic"
	}
	fields := map[string]any{
		"error_type":     typ,
		"error_message":  err.Error(),
		"hostname":       orUnknown(c.env("RUNPOD_POD_HOSTNAME")),
		"worker_id":      orUnknown(c.env("RUNPOD_POD_ID")),
		"runpod_version": "runpod-go/" + version.Version,
	}
	if ie != nil {
		fields["errors"] = ie.Errors
	}
	if pe != nil {
		fields["error_traceback"] = pe.stack
	}
	b, _ := json.Marshal(fields)
	return string(b)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
