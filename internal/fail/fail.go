// Package fail builds the SDK's typed errors (package errs) for the
// packages of the module: a rejected argument, a non-2xx response, a body
// that cannot be used. The types are public; how they are built is not.
package fail

import (
	"fmt"

	"github.com/runpodkit/runpod-go/errs"
)

// Invalid returns a *errs.ValidationError for field with a formatted
// message.
func Invalid(field, format string, args ...any) *errs.ValidationError {
	return &errs.ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}
