package transport

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/secret"
)

// redactor replaces the API key in what a server or a library may echo
// back with "[REDACTED]": every spelling redact.Bytes finds (as sent,
// query- or path-escaped with upper- or lower-case escapes, JSON-escaped,
// one escape inside another) and every piece of it of 8 bytes or more, so
// that a key cut by an excerpt leaves nothing behind. The key is held as a
// secret.String, so printing a value that holds a redactor shows "[REDACTED]".
type redactor struct{ key secret.String }

func newRedactor(key string) redactor {
	if key == "" {
		return redactor{}
	}
	return redactor{key: secret.NewString(key)}
}

// in reports whether s holds the key in any spelling.
func (r redactor) in(s string) bool { return r.string(s) != s }

// string returns s with every spelling of the key redacted.
func (r redactor) string(s string) string {
	if r.key.IsZero() || s == "" {
		return s
	}
	return string(r.bytes([]byte(s)))
}

// bytes returns b with every spelling of the key redacted; b itself is
// returned when it holds none.
func (r redactor) bytes(b []byte) []byte {
	if r.key.IsZero() {
		return b
	}
	return redact.Bytes(b, r.key.Reveal())
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

// authHeader is the Authorization header's value, built once. Printing it
// shows "[REDACTED]"; the value sits behind a pointer, so that fmt, which
// follows one pointer of a field it cannot format, prints an address.
type authHeader struct{ v *[]string }

func (authHeader) String() string               { return secret.Redacted }
func (authHeader) GoString() string             { return secret.Redacted }
func (authHeader) Format(f fmt.State, _ rune)   { _, _ = f.Write([]byte(secret.Redacted)) }
func (authHeader) LogValue() slog.Value         { return slog.StringValue(secret.Redacted) }
func (authHeader) MarshalJSON() ([]byte, error) { return []byte(`"` + secret.Redacted + `"`), nil }
