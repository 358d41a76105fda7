package transport

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
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

// redactor replaces every spelling of the API key a server or a library
// may echo back (as sent, query-escaped, path-escaped, with lower-case
// percent escapes) with "[REDACTED]".
// The spellings are held as Secrets, so printing a value that holds a
// redactor shows "[REDACTED]", never the key.
type redactor struct{ forms []Secret }

func newRedactor(key string) redactor {
	if key == "" {
		return redactor{}
	}
	var forms []Secret
	add := func(s string) {
		if s != "" && !slices.ContainsFunc(forms, func(f Secret) bool { return f.Reveal() == s }) {
			forms = append(forms, NewSecret(s))
		}
	}
	for _, s := range []string{key, url.QueryEscape(key), url.PathEscape(key)} {
		add(s)
		add(lowerEscapes(s))
	}
	// JSON encoders may escape "/" as "\/" and other characters as
	// \u00XX (upper or lower hex): a key echoed inside a JSON body.
	for _, hex := range []string{"\\u%04x", "\\u%04X"} {
		for _, slash := range []string{"", `\/`} {
			var b strings.Builder
			for _, r := range key {
				switch {
				case r == '/' && slash != "":
					b.WriteString(slash)
				case r == '+' || r == '=' || r == '<' || r == '>' || r == '&' || r == '/':
					fmt.Fprintf(&b, hex, r)
				default:
					b.WriteRune(r)
				}
			}
			add(b.String())
		}
	}
	add(strings.ReplaceAll(key, "/", `\/`))
	return redactor{forms: forms}
}

// lowerEscapes returns s with the hex digits of its percent escapes in
// lower case.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// in reports whether s holds the key in any spelling.
func (r redactor) in(s string) bool {
	for _, sf := range r.forms {
		f := sf.Reveal()
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// string returns s with every spelling of the key redacted.
func (r redactor) string(s string) string {
	for _, sf := range r.forms {
		f := sf.Reveal()
		s = strings.ReplaceAll(s, f, redacted)
	}
	return s
}

// bytes returns b with every spelling of the key redacted; b itself is
// returned when it holds none.
func (r redactor) bytes(b []byte) []byte {
	for _, sf := range r.forms {
		f := sf.Reveal()
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
		}
	}
	return b
}

// error returns err, or, when its message holds the key, an error with the
// key redacted that still matches what err matched with errors.Is.
func (r redactor) error(err error) error {
	if err == nil || !r.in(err.Error()) {
		return err
	}
	return &redactedError{msg: r.string(err.Error()), orig: err}
}

// redactedError stands for an error whose message held the API key. It
// does not unwrap to that error (whose message would print the key), but
// errors.Is and net.Error's Timeout still see through it.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

// Is reports whether the original error matches target.
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

// Timeout reports whether the original error was a timeout.
func (e *redactedError) Timeout() bool {
	var t interface{ Timeout() bool }
	return errors.As(e.orig, &t) && t.Timeout()
}
