package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// InputError lists everything wrong with a job's input. A handler that
// returns it fails the job with the list.
type InputError struct {
	// Errors lists every problem found, each naming its field.
	Errors []string
}

// Error joins the problems.
func (e *InputError) Error() string { return "invalid input: " + strings.Join(e.Errors, "; ") }

// Validator is implemented by input types with rules of their own.
type Validator interface {
	// Validate checks the decoded input against the type's own rules
	// (ranges, fields that go together), after ValidateInput has refused
	// unknown fields and found the required ones. A non-nil error fails
	// the job; its message is one of the InputError's Errors.
	Validate() error
}

// ValidateInput decodes a job's input into dst (a pointer to a struct),
// refusing fields dst does not have, then checks fields tagged
// `required:"true"` are present, then calls dst's Validate method when it
// has one. Values already in dst are defaults: fields the input leaves out
// keep them. Every problem found is reported in one *InputError.
func ValidateInput(input json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(input)) == 0 || bytes.Equal(bytes.TrimSpace(input), []byte("null")) {
		return &InputError{Errors: []string{"the job has no input"}}
	}
	var problems []string
	var present map[string]json.RawMessage
	if err := json.Unmarshal(input, &present); err != nil {
		return &InputError{Errors: []string{"the input must be a JSON object"}}
	}
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("worker: ValidateInput needs a pointer to a struct, got %T", dst)
	}
	fields := map[string]reflect.StructField{}
	st := rv.Elem().Type()
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == "-" {
			continue
		} else if tag != "" {
			name = tag
		}
		fields[name] = f
	}
	for key := range present {
		if _, ok := fields[key]; !ok && !hasFold(fields, key) {
			problems = append(problems, fmt.Sprintf("%s is not a valid input option", key))
		}
	}
	for name, f := range fields {
		if f.Tag.Get("required") == "true" {
			if v, ok := present[name]; !ok || bytes.Equal(v, []byte("null")) {
				problems = append(problems, fmt.Sprintf("%s is a required input", name))
			}
		}
	}
	if len(problems) == 0 {
		if err := json.Unmarshal(input, dst); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				problems = append(problems, fmt.Sprintf("%s should be %s, not %s", te.Field, te.Type, te.Value))
			} else {
				problems = append(problems, err.Error())
			}
		}
	}
	if len(problems) == 0 {
		if v, ok := dst.(Validator); ok {
			if err := v.Validate(); err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return &InputError{Errors: problems}
	}
	return nil
}

func hasFold(fields map[string]reflect.StructField, key string) bool {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return true
		}
	}
	return false
}
