package podtask

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// Printing. A Task holds what may be secret: the values of Pod.Env (a
// token, a password) and Command (which may carry one on its command
// line). It prints (String, GoString, every fmt verb through Format),
// logs (LogValue) and marshals to JSON as one line that names the pod,
// its GPU candidates, the names of its environment variables (never
// their values), the copies and the budget, and gives the command's
// length only.

// String describes the task without the values of Pod.Env and without
// Command.
func (t Task) String() string {
	var b strings.Builder
	b.WriteString("podtask.Task{Pod: ")
	b.WriteString(t.request().Name)
	if t.Pod.Image != nil {
		fmt.Fprintf(&b, ", Image: %s", *t.Pod.Image)
	}
	if t.Pod.GPU != nil && t.Pod.GPU.ID != "" {
		fmt.Fprintf(&b, ", GPU: %s", t.Pod.GPU.ID)
	}
	if len(t.Pod.Env) > 0 {
		names := make([]string, 0, len(t.Pod.Env))
		for k := range t.Pod.Env {
			names = append(names, k)
		}
		slices.Sort(names)
		fmt.Fprintf(&b, ", Env: %s=[REDACTED]", strings.Join(names, "=[REDACTED] "))
	}
	if len(t.Candidates) > 0 {
		ids := make([]string, len(t.Candidates))
		for i, c := range t.Candidates {
			ids[i] = c.GPUTypeID
		}
		fmt.Fprintf(&b, ", Candidates: [%s]", strings.Join(ids, ", "))
	}
	fmt.Fprintf(&b, ", Timeout: %s, Inputs: %d, Command: [%d bytes], Outputs: %d}", t.Timeout, len(t.Inputs), len(t.Command), len(t.Outputs))
	return b.String()
}

// GoString is String, for %#v.
func (t Task) GoString() string { return t.String() }

// Format prints String for every verb.
func (t Task) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(t.String())) }

// LogValue logs String.
func (t Task) LogValue() slog.Value { return slog.StringValue(t.String()) }

// MarshalJSON encodes String, as a JSON string: a Task is not a request
// body, and its secrets must not reach a log through encoding/json.
func (t Task) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }
