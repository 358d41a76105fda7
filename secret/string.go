package secret

import (
	"fmt"
	"log/slog"
)

// String is a secret text, such as an API key: it prints as "[REDACTED]"
// with fmt (every verb), log/slog (every handler) and encoding/json, and
// gives its value only to Reveal. The zero String is empty. The text sits
// behind a pointer, so that fmt, which cannot call the methods of a value
// held in an unexported field, prints an address rather than the text
// even then.
type String struct{ p *string }

// NewString returns a String holding s.
func NewString(s string) String { return String{p: &s} }

// Reveal returns the text itself.
func (s String) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports whether the text is empty.
func (s String) IsZero() bool { return s.Reveal() == "" }

// String returns "[REDACTED]".
func (s String) String() string { return Redacted }

// GoString returns "[REDACTED]".
func (s String) GoString() string { return Redacted }

// Format writes "[REDACTED]" whatever the verb.
func (s String) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(Redacted)) }

// LogValue logs "[REDACTED]".
func (s String) LogValue() slog.Value { return slog.StringValue(Redacted) }

// MarshalJSON encodes "[REDACTED]".
func (s String) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText encodes "[REDACTED]" (for map keys and text encoders).
func (s String) MarshalText() ([]byte, error) { return []byte(Redacted), nil }
