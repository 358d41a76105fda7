package transport

import (
	"fmt"
	"log/slog"
)

const redacted = "[REDACTED]"

// Secret holds an API key. Every way of printing it (String, GoString, fmt
// verbs, slog, JSON) shows "[REDACTED]". The key sits behind a pointer so
// that fmt, which cannot call methods on unexported fields, prints an
// address rather than the key when a Secret is nested in another value.
type Secret struct{ p *string }

// NewSecret wraps key.
func NewSecret(key string) Secret { return Secret{p: &key} }

// Reveal returns the key, for the one place that puts it on the wire.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports whether no key is held.
func (s Secret) IsZero() bool { return s.Reveal() == "" }

// String returns "[REDACTED]".
func (s Secret) String() string { return redacted }

// GoString returns "[REDACTED]".
func (s Secret) GoString() string { return redacted }

// Format prints "[REDACTED]" for every verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// LogValue returns "[REDACTED]".
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON returns "[REDACTED]" as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText returns "[REDACTED]".
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
