// Package oneline turns text from a server (an error body, a decoding
// error's message, a header) into one line fit for an error message. It
// imports nothing of the module, so that package errs, whose Error methods
// use it, and the internal packages that build errs' types share it.
package oneline

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxExcerpt is the length, in bytes, of the start of a body an error
// keeps as its excerpt (a final "…" when cut not counted).
const MaxExcerpt = 512

// Excerpt returns the start of body as one line of valid UTF-8, of at
// most MaxExcerpt bytes and a final "…" when cut.
func Excerpt(body []byte) string {
	return Clean(string(bytes.TrimSpace(body)), MaxExcerpt)
}

// Clean folds control characters and runs of white space into single
// spaces, drops invalid UTF-8 and cuts s to at most n bytes, followed by
// "…" when cut.
func Clean(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > n {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
