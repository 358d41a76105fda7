package errs

import (
	"fmt"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail/oneline"
)

// GraphQLError is a GraphQL response whose errors array was not empty. It
// keeps every error the server sent, with its path, locations and
// extensions.
type GraphQLError struct {
	// Operation is the name of the GraphQL operation that failed.
	Operation string
	// Errors holds every entry of the response's errors array.
	Errors []GraphQLErrorDetail
}

// GraphQLErrorDetail is one entry of a GraphQL errors array.
type GraphQLErrorDetail struct {
	// Message is the error's description, as the server wrote it.
	Message string `json:"message"`
	// Path is the response path of the field that failed; elements are
	// strings (field names) and float64 (list indexes). Empty for an error
	// not tied to a field, such as a syntax error.
	Path []any `json:"path,omitempty"`
	// Locations are the places in the sent GraphQL document the error
	// refers to, when the server gives them.
	Locations []GraphQLLocation `json:"locations,omitempty"`
	// Extensions is the server's extra information, decoded from JSON;
	// its "code" entry (see Code) classifies the error, for example
	// UNAUTHENTICATED or NOT_FOUND.
	Extensions map[string]any `json:"extensions,omitempty"`
}

// GraphQLLocation is a position in the GraphQL document.
type GraphQLLocation struct {
	// Line is the line in the document, counted from 1.
	Line int `json:"line"`
	// Column is the column in the line, counted from 1.
	Column int `json:"column"`
}

// Code returns the error's extensions.code, when it is a string.
func (d GraphQLErrorDetail) Code() string {
	c, _ := d.Extensions["code"].(string)
	return c
}

// String returns the message with its path and code.
func (d GraphQLErrorDetail) String() string {
	s := d.Message
	if s == "" {
		s = "unknown error"
	}
	if len(d.Path) > 0 {
		parts := make([]string, len(d.Path))
		for i, p := range d.Path {
			parts[i] = fmt.Sprint(p)
		}
		s += " (at " + strings.Join(parts, ".") + ")"
	}
	if c := d.Code(); c != "" {
		s += " [" + c + "]"
	}
	return s
}

// Error lists every message of the errors array.
func (e *GraphQLError) Error() string {
	var b strings.Builder
	b.WriteString("runpod: graphql")
	if e.Operation != "" {
		b.WriteString(" " + e.Operation)
	}
	b.WriteString(": ")
	if len(e.Errors) == 0 {
		b.WriteString("unknown error")
	}
	for i, d := range e.Errors {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(oneline.Clean(d.String(), 4*oneline.MaxExcerpt))
	}
	return b.String()
}

// Is matches ErrUnauthorized, ErrForbidden and ErrNotFound when an error's
// extensions.code says so (UNAUTHENTICATED, FORBIDDEN, NOT_FOUND).
func (e *GraphQLError) Is(target error) bool {
	var want string
	switch target {
	case ErrUnauthorized:
		want = "UNAUTHENTICATED"
	case ErrForbidden:
		want = "FORBIDDEN"
	case ErrNotFound:
		want = "NOT_FOUND"
	default:
		return false
	}
	for _, d := range e.Errors {
		if strings.EqualFold(d.Code(), want) {
			return true
		}
	}
	return false
}
