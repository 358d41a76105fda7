package redact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/secret"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// redacted is the marker; the tests name their secrets "secret".
const redacted = secret.Redacted

// fragmentOf returns the first 8-byte piece of secret found in out, or "".
func fragmentOf(out, secret string) string {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+8]) {
			return secret[i : i+8]
		}
	}
	return ""
}

// shown is every way an error reaches a person: Error(), %v, %+v, and
// log/slog's text and JSON handlers (as a value and nested).
func shown(err error) []string {
	var text, js bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&text, nil), slog.NewJSONHandler(&js, nil)} {
		slog.New(h).Error("call failed", "err", err, "nested", []any{err}, slog.Any("m", map[string]any{"e": err}))
	}
	return []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%s", err), text.String(), js.String()}
}

// escapes are the spellings a server may echo a secret in.
var escapes = []func(string) string{
	func(s string) string { return s },
	func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) },
	func(s string) string { // every rune as \uXXXX, surrogate pairs for the rest
		var b strings.Builder
		for _, r := range s {
			if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
				continue
			}
			fmt.Fprintf(&b, `\u%04X`, r)
		}
		return b.String()
	},
	url.QueryEscape,
	url.PathEscape,
	func(s string) string { // every byte as a lower-case percent escape
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%%02x", s[i])
		}
		return b.String()
	},
	func(s string) string { // a JSON string inside a JSON string
		b, _ := json.Marshal(s)
		b, _ = json.Marshal(string(b))
		return string(b[2 : len(b)-2])
	},
	func(s string) string { q := strconv.Quote(s); return q[1 : len(q)-1] },
	func(s string) string { b, _ := json.Marshal(url.QueryEscape(s)); return string(b[1 : len(b)-1]) },
}

// secretAlphabet is what fuzzed secrets are made of: characters that no
// fixed word of an error or a log line, and no escape, writes (so a piece
// of a secret in the output can only come from the body), with several
// that JSON and URLs escape.
const secretAlphabet = "GHJKLMNQVWXYZ#$&*<=>?@^_`{|}~!'é€漢ж😀"

func makeSecret(seed []byte) string {
	alpha := []rune(secretAlphabet)
	var b strings.Builder
	for _, c := range seed {
		b.WriteRune(alpha[int(c)%len(alpha)])
	}
	return b.String()
}

// checkNoFragment fails when any output of err shows 8 bytes of secret.
func checkNoFragment(t *testing.T, err error, secret string) {
	t.Helper()
	for _, out := range shown(err) {
		if f := fragmentOf(out, secret); f != "" {
			t.Fatalf("%q of the secret shows in %q", f, out)
		}
	}
}

// FuzzRedactErrorBody: whatever a non-2xx body holds, however long, with
// the secret (whole or cut, raw or escaped) at any offset around the
// 512-byte excerpt cap, no 8 bytes of the secret reach Error(), %v, %+v
// or slog output once the error is redacted.
func FuzzRedactErrorBody(f *testing.F) {
	f.Add([]byte("registry login failed for user me with password "), []byte("secret-password-0123456789-abcdefghij"), uint16(482), uint8(0), false)
	f.Add([]byte(`{"title":"Bad Request","detail":"bad password `), []byte("hf_0123456789abcdefghijklmnop"), uint16(500), uint8(2), true)
	f.Add([]byte(strings.Repeat("x ", 300)), []byte("0123456789"), uint16(505), uint8(3), false)
	f.Add([]byte("\xff\xfe\t\n"), []byte("😀😀😀😀😀"), uint16(511), uint8(5), false)
	f.Add([]byte(""), []byte("aaaaaaaaaaaaaaaaaaaaaa"), uint16(0), uint8(6), true)
	f.Fuzz(func(t *testing.T, body, seed []byte, offset uint16, mode uint8, problem bool) {
		secret := makeSecret(seed)
		if len(secret) < 8 {
			return
		}
		echoed := secret
		if mode&0x80 != 0 { // the server echoes only the secret's start
			echoed = secret[:8+int(offset)%(len(secret)-7)]
		}
		echoed = escapes[int(mode&0x7f)%len(escapes)](echoed)
		// The secret lands at offset 440 to 567, around the excerpt cap,
		// or anywhere in the body (offset ≥ 32768).
		pos := 440 + int(offset)%128
		if offset >= 1<<15 {
			pos = int(offset) % (len(body) + 1)
		}
		var b []byte
		for len(b) < pos && len(body) > 0 {
			b = append(b, body[:min(len(body), pos-len(b))]...)
		}
		b = append(b, echoed...)
		b = append(b, body...)
		h := http.Header{"Content-Type": {"text/plain"}}
		if problem {
			h.Set("Content-Type", "application/problem+json")
			b, _ = json.Marshal(map[string]any{"title": "Bad Request", "detail": string(b), "errors": []string{string(b)}})
		}
		e := fail.APIError(400, h, b, now)
		e.Method, e.Path = "POST", "/v2/registries"
		err := redact.Error(e, secret)
		checkNoFragment(t, err, secret)
		checkNoFragment(t, fmt.Errorf("creating: %w", err), secret)
		if f := fragmentOf(string(e.Body), secret); f != "" {
			t.Fatalf("%q of the secret is left in Body", f)
		}

		r := fail.ResponseError("POST", "/v2/templates", 200, "text/html", b, fmt.Errorf("bad: %s", echoed))
		r.OutcomeUnknown = true
		checkNoFragment(t, redact.Error(r, secret), secret)
	})
}

// TestRedactExcerptCutInsideSecret: a text/plain 400 whose body holds a
// secret at byte 470 to 520, so that the 512-byte excerpt would be cut
// inside it, leaves no 8 bytes of it in the error.
func TestRedactExcerptCutInsideSecret(t *testing.T) {
	const secret = "pw-0123456789abcdefghijklmnopqrstuvwxyz-SECRET"
	for off := 470; off <= 520; off++ {
		for i, esc := range escapes {
			body := strings.Repeat("e", off) + esc(secret) + " was refused"
			e := fail.APIError(400, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, []byte(body), now)
			e.Method, e.Path = "POST", "/v2/registries"
			err := redact.Error(e, secret)
			for _, out := range shown(err) {
				require.Empty(t, fragmentOf(out, secret), "offset %d, escape %d: %s", off, i, out)
			}
			if off < 500 {
				assert.Contains(t, err.Error(), redacted, "offset %d, escape %d", off, i)
			}
		}
	}
}

// TestRedactKeepsTheRest: redaction removes the secret and only it, and
// re-reads a problem's fields from the redacted body.
func TestRedactKeepsTheRest(t *testing.T) {
	const secret = "hunter2-hunter2-hunter2"
	body := `{"title":"Bad Request","detail":"password \"hunter2-hun` + `\u0074er2-hunter2\" is weak","errors":["pass=hunter2-h"]}`
	e := fail.APIError(400, http.Header{"Content-Type": {"application/problem+json"}}, []byte(body), now)
	require.NoError(t, nil)
	err := redact.Error(e, secret)
	assert.Same(t, e, err, "an APIError is redacted in place")
	assert.Equal(t, "Bad Request", e.Title)
	assert.Equal(t, `password "[REDACTED]" is weak`, e.Detail)
	assert.Equal(t, []string{"pass=[REDACTED]"}, e.Errors)
	assert.NotContains(t, string(e.Body), "hunter2-h")

	assert.Equal(t, "a [REDACTED] b", string(redact.Bytes([]byte("a hunter2-hunter2-hunter2 b"), secret)))
	assert.Equal(t, "no secret here", string(redact.Bytes([]byte("no secret here"), secret)))
	assert.Equal(t, "x=[REDACTED]&y=1", string(redact.Bytes([]byte("x=hunter2%2Dhunter2-hunter2&y=1"), secret)))
	assert.Equal(t, "short: [REDACTED].", string(redact.Bytes([]byte("short: abc."), "abc")))
}

// TestRedactErrorOtherTypes: an error of another type quoting a secret is
// replaced by one that still matches it, without unwrapping to it.
func TestRedactErrorOtherTypes(t *testing.T) {
	const secret = "0123456789abcdef"
	base := fmt.Errorf("wrapped: %w", errs.ErrOutcomeUnknown)
	err := redact.Error(fmt.Errorf("echo %s: %w", secret, base), secret)
	assert.NotContains(t, err.Error(), "01234567")
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Nil(t, errorsUnwrap(err))
	assert.NoError(t, redact.Error(nil, secret))
}

// TestRedactErrorSeesThrough: the error standing in for one whose
// message held a secret still finds the SDK's types with errors.As, and a
// secret-free error, or no secret at all, leaves err as it is.
func TestRedactErrorSeesThrough(t *testing.T) {
	const secret = "0123456789abcdef"
	api := &errs.APIError{StatusCode: 404}
	err := redact.Error(fmt.Errorf("echo %s: %w", secret, api), secret)
	assert.NotContains(t, err.Error(), "01234567")
	var got *errs.APIError
	require.ErrorAs(t, err, &got)
	assert.Same(t, api, got)
	assert.ErrorIs(t, err, errs.ErrNotFound)

	plain := errors.New("nothing to hide")
	assert.Same(t, plain, redact.Error(plain, secret))
	withSecret := fmt.Errorf("echo %s", secret)
	assert.Same(t, withSecret, redact.Error(withSecret), "no secret given")
	assert.Same(t, withSecret, redact.Error(withSecret, ""), "only an empty secret")
}

// TestRedactResponseError: a *errs.ResponseError keeps its type and
// fields, with the secret gone from its excerpt and from its cause's
// message, the cause still matched with errors.Is.
func TestRedactResponseError(t *testing.T) {
	const secret = "tok-0123456789abcdef"
	cause := fmt.Errorf("bad value %q: %w", secret, errs.ErrResponseTooLarge)
	r := fail.ResponseError("POST", "/v2/templates", 200, "text/html", []byte("<p>token="+secret+"</p>"), cause)
	err := redact.Error(r, secret)
	assert.Same(t, r, err, "a ResponseError is redacted in place")
	assert.Equal(t, "<p>token="+redacted+"</p>", r.Excerpt)
	assert.NotContains(t, r.Err.Error(), "01234567")
	assert.Contains(t, r.Err.Error(), redacted)
	assert.ErrorIs(t, err, errs.ErrResponseTooLarge)
	assert.Nil(t, errorsUnwrap(r.Err))
	checkNoFragment(t, err, secret)
}

// TestRedactAPIErrorByHand: an *errs.APIError built without fail.APIError
// (no ContentType) has its fields read again from its redacted Body; one
// without a Body keeps its fields, redacted.
func TestRedactAPIErrorByHand(t *testing.T) {
	const secret = "pw-0123456789abcdef"
	e := &errs.APIError{StatusCode: 400, Title: "t " + secret, Body: []byte("body " + secret), RequestID: "id-" + secret}
	_ = redact.Error(e, secret)
	assert.Empty(t, e.Title)
	assert.Equal(t, "body "+redacted, e.Excerpt)
	assert.Equal(t, "body "+redacted, string(e.Body))
	assert.Equal(t, "id-"+redacted, e.RequestID)

	e = &errs.APIError{StatusCode: 400, Title: "t " + secret, Detail: secret, Errors: []string{secret}}
	_ = redact.Error(e, secret)
	assert.Equal(t, "t "+redacted, e.Title)
	assert.Equal(t, redacted, e.Detail)
	assert.Equal(t, []string{redacted}, e.Errors)
}

func errorsUnwrap(err error) error {
	u, ok := err.(interface{ Unwrap() error })
	if !ok {
		return nil
	}
	return u.Unwrap()
}
