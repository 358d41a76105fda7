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

// jobFields are the fields of a job object the worker reads, as JSON:
// each the raw value of the member of that exact name (the last one when
// a name repeats, as JSON decoders do), or nil when there is none.
type jobFields struct {
	ID, Input, Webhook, BatchID json.RawMessage
}

// decodeJob reads a job object whose "input" is any JSON value but null;
// other keys are left to the caller. what names the whole in errors
// ("body", "the job"). Errors say what was expected and what came, in
// JSON's words (an array, a string, invalid JSON at byte n), never in Go's;
// a missing or null "input" is an *inputError. Keys match exactly, as the
// platform's Python worker reads them (job["input"]), and the fields are
// slices of raw, not copies.
func decodeJob(raw []byte, what string) (jobFields, error) {
	var f jobFields
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return f, fmt.Errorf("%s must be %s, got nothing", what, jobShape)
	}
	if !json.Valid(trimmed) {
		// Decoding reports where the JSON goes wrong, as Valid does not.
		var syn *json.SyntaxError
		if err := json.Unmarshal(trimmed, new(json.RawMessage)); errors.As(err, &syn) {
			return f, fmt.Errorf("%s must be %s, got invalid JSON: %s (at byte %d)", what, jobShape, syn.Error(), syn.Offset)
		}
		return f, fmt.Errorf("%s must be %s, got invalid JSON", what, jobShape)
	}
	if trimmed[0] != '{' {
		return f, fmt.Errorf("%s must be %s, got %s", what, jobShape, jsonKind(trimmed))
	}
	eachMember(trimmed, func(key, value []byte) {
		switch string(key) {
		case "id":
			f.ID = value
		case "input":
			f.Input = value
		case "webhook":
			f.Webhook = value
		case "batchId":
			f.BatchID = value
		}
	})
	switch {
	case len(f.Input) == 0:
		return f, &inputError{fmt.Sprintf(`%s must be %s, got an object without "input"`, what, jobShape)}
	case string(f.Input) == "null":
		return f, &inputError{fmt.Sprintf(`%s must be %s, got "input": null`, what, jobShape)}
	}
	return f, nil
}

// eachMember calls f with the key (unescaped) and the raw value of each
// member of obj, a valid JSON object, in order. It reads obj once and
// allocates only for a key written with escapes.
func eachMember(obj []byte, f func(key, value []byte)) {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		end := skipValue(obj, i)
		key := obj[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var name string
			_ = json.Unmarshal(obj[i:end], &name)
			key = []byte(name)
		}
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = skipValue(obj, i)
		f(key, obj[i:end])
		i = skipSpace(obj, end)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// skipSpace returns the index of the first byte of b at or after i that
// is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the valid JSON value starting at
// b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 { // the end of the enclosing value
				return i
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
		}
	}
	return i
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
