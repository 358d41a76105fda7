package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// jobShape is what a job (a /run or /runsync body, --test_input, a job
// the platform hands over) must be, in the platform's words.
const jobShape = `a JSON object with an "input" field`

// inputError is a job object whose "input" is missing or null.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// jobFields are the fields of a job object the worker reads, as JSON.
type jobFields struct {
	ID      json.RawMessage `json:"id"`
	Input   json.RawMessage `json:"input"`
	Webhook json.RawMessage `json:"webhook"`
	BatchID json.RawMessage `json:"batchId"`
}

// decodeJob reads a job object whose "input" is any JSON value but null;
// other keys are left to the caller. what names the whole in errors
// ("body", "the job"). Errors say what was expected and what came, in
// JSON's words (an array, a string, invalid JSON at byte n), never in Go's;
// a missing or null "input" is an *inputError.
func decodeJob(raw []byte, what string) (jobFields, error) {
	var f jobFields
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return f, fmt.Errorf("%s must be %s, got nothing", what, jobShape)
	}
	// Into a struct of raw fields, only invalid JSON or a value that is not
	// an object fails; null decodes to nothing, so the first byte tells.
	if err := json.Unmarshal(trimmed, &f); err != nil || trimmed[0] != '{' {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return jobFields{}, fmt.Errorf("%s must be %s, got invalid JSON: %s (at byte %d)", what, jobShape, syn.Error(), syn.Offset)
		}
		return jobFields{}, fmt.Errorf("%s must be %s, got %s", what, jobShape, jsonKind(trimmed))
	}
	switch {
	case len(f.Input) == 0:
		return f, &inputError{fmt.Sprintf(`%s must be %s, got an object without "input"`, what, jobShape)}
	case string(f.Input) == "null":
		return f, &inputError{fmt.Sprintf(`%s must be %s, got "input": null`, what, jobShape)}
	}
	return f, nil
}

// stringField decodes the job field name, which must be a JSON string
// (what it holds says what the string is, for the error) or absent or
// null ("").
func stringField(name, holds string, v json.RawMessage) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%q must be a string%s, got %s", name, holds, jsonKind(v))
	}
	return s, nil
}

// jsonKind names the kind of the valid JSON value b, for error messages.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "null"
	default:
		return "a JSON number"
	}
}
