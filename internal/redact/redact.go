// Package redact removes secrets (an API key, a registry password, the
// values of environment variables) from text and errors before they reach
// a caller: every spelling a server or a library may echo a secret in, and
// every piece of it of 8 bytes or more.
package redact

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/secret"
)

// fragment is the length, in bytes, of the shortest piece of a secret that
// Bytes removes on its own: any run of fragment bytes or more that also
// occurs in a secret is replaced, whether the whole secret is there or not.
const fragment = 8

// Bytes returns text with every occurrence of each secret replaced by
// "[REDACTED]". It finds a secret as given, with its white space folded,
// and in the spellings a server or a library may echo it in: JSON and Go
// string escapes (\uXXXX, \xXX, \/, \n, …), URL escapes (%XX, upper or
// lower case, and '+' for a space) and one of these inside another. A
// secret of 8 bytes or more is also found in part: every run of 8 bytes or
// more of text that is a piece of a secret is replaced, so a secret cut by
// an excerpt or a size limit leaves nothing longer than 7 bytes. Shorter
// secrets are replaced where they occur whole. Empty secrets are ignored.
// text itself is returned when it holds no secret; otherwise a new slice.
func Bytes(text []byte, secrets ...string) []byte {
	m := newMatcher(secrets)
	if m.empty() || len(text) == 0 {
		return text
	}
	var marks []span
	seen := [][]byte{text}
	views := []view{{b: text}}
	for depth := 0; len(views) > 0; depth++ {
		var next []view
		for _, v := range views {
			marks = m.find(v, marks)
			if depth == maxDepth {
				continue
			}
			for _, dec := range decoders {
				w, ok := dec(v)
				if !ok || slices.ContainsFunc(seen, func(s []byte) bool { return bytes.Equal(s, w.b) }) {
					continue
				}
				seen = append(seen, w.b)
				next = append(next, w)
			}
		}
		views = next
	}
	if len(marks) == 0 {
		return text
	}
	return replace(text, marks)
}

// maxDepth is how many decodings deep Bytes looks: a secret escaped
// inside an escaped string (JSON in a JSON string, a URL in JSON).
const maxDepth = 2

// span is a range of bytes of the original text.
type span struct{ lo, hi int }

// view is the text decoded some way: b, and for each byte of b the range
// of the original text it came from (nil for the text itself).
type view struct {
	b  []byte
	sp []span
}

func (v view) at(i int) span {
	if v.sp == nil {
		return span{i, i + 1}
	}
	return v.sp[i]
}

// orig is the range of the original text that b[i:j] came from.
func (v view) orig(i, j int) span { return span{v.at(i).lo, v.at(j - 1).hi} }

// matcher finds secrets: short ones whole, longer ones by their 8-byte
// pieces.
type matcher struct {
	whole [][]byte
	grams map[uint64]struct{}
}

func newMatcher(secrets []string) matcher {
	var m matcher
	for _, s := range secrets {
		// As given, with white space folded, and with invalid UTF-8
		// replaced as encoding/json does (each byte by U+FFFD) or dropped
		// as an excerpt does.
		for _, f := range []string{s, fold(s), replaceInvalid(s), strings.ToValidUTF8(s, "")} {
			switch {
			case f == "":
			case len(f) < fragment:
				m.whole = append(m.whole, []byte(f))
			default:
				if m.grams == nil {
					m.grams = make(map[uint64]struct{})
				}
				for i := 0; i+fragment <= len(f); i++ {
					m.grams[binary.LittleEndian.Uint64([]byte(f[i:]))] = struct{}{}
				}
			}
		}
	}
	return m
}

func (m matcher) empty() bool { return len(m.whole) == 0 && len(m.grams) == 0 }

// find appends the ranges of the original text where v shows a secret.
func (m matcher) find(v view, marks []span) []span {
	for _, w := range m.whole {
		for off := 0; ; {
			i := bytes.Index(v.b[off:], w)
			if i < 0 {
				break
			}
			marks = append(marks, v.orig(off+i, off+i+len(w)))
			off += i + 1
		}
	}
	if len(m.grams) == 0 {
		return marks
	}
	start, end := -1, -1 // the run of matched bytes being built
	for i := 0; i+fragment <= len(v.b); i++ {
		if _, ok := m.grams[binary.LittleEndian.Uint64(v.b[i:])]; !ok {
			continue
		}
		if i > end {
			if start >= 0 {
				marks = append(marks, v.orig(start, end))
			}
			start = i
		}
		end = i + fragment
	}
	if start >= 0 {
		marks = append(marks, v.orig(start, end))
	}
	return marks
}

// replace puts "[REDACTED]" in place of each marked range of text,
// widened to whole UTF-8 sequences; overlapping or touching ranges become
// one.
func replace(text []byte, marks []span) []byte {
	slices.SortFunc(marks, func(a, b span) int { return a.lo - b.lo })
	out := make([]byte, 0, len(text))
	last := 0
	for i := 0; i < len(marks); {
		lo, hi := marks[i].lo, marks[i].hi
		for i++; i < len(marks) && marks[i].lo <= hi; i++ {
			hi = max(hi, marks[i].hi)
		}
		for lo > last && lo > 0 && !utf8.RuneStart(text[lo]) {
			lo--
		}
		for hi < len(text) && !utf8.RuneStart(text[hi]) {
			hi++
		}
		if lo < last {
			// Widened into the previous range: join them.
			out = out[:len(out)-len(secret.Redacted)]
			lo = last
		} else {
			out = append(out, text[last:lo]...)
		}
		out = append(out, secret.Redacted...)
		last = hi
	}
	return append(out, text[last:]...)
}

// decoders are the ways a secret may have been escaped on its way back;
// each returns ok false when it changes nothing.
var decoders = []func(view) (view, bool){
	unescapeBackslash,
	func(v view) (view, bool) { return unescapePercent(v, false) },
	func(v view) (view, bool) { return unescapePercent(v, true) },
	foldView,
}

// builder makes a view from another, byte by byte.
type builder struct {
	src view
	out view
}

// emit appends b as coming from src.b[i:j].
func (d *builder) emit(i, j int, b ...byte) {
	s := d.src.orig(i, j)
	for _, c := range b {
		d.out.b = append(d.out.b, c)
		d.out.sp = append(d.out.sp, s)
	}
}

func hexVal(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unescapeBackslash decodes the escapes of JSON and Go strings: \uXXXX
// (surrogate pairs joined), \UXXXXXXXX, \xXX, \n and the other one-letter
// escapes, and a backslash before any other character.
func unescapeBackslash(v view) (view, bool) {
	if bytes.IndexByte(v.b, '\\') < 0 {
		return view{}, false
	}
	d := builder{src: v}
	b := v.b
	for i := 0; i < len(b); {
		if b[i] != '\\' || i+1 == len(b) {
			d.emit(i, i+1, b[i])
			i++
			continue
		}
		c := b[i+1]
		switch c {
		case 'u', 'U':
			n := 4
			if c == 'U' {
				n = 8
			}
			r, ok := rune(0), i+2+n <= len(b)
			if ok {
				r, ok = hexVal(b[i+2 : i+2+n])
			}
			if !ok {
				d.emit(i, i+1, '\\')
				i++
				continue
			}
			j := i + 2 + n
			if utf16IsHigh(r) && j+6 <= len(b) && b[j] == '\\' && b[j+1] == 'u' {
				if lo, ok := hexVal(b[j+2 : j+6]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
					j += 6
				}
			}
			d.emit(i, j, utf8.AppendRune(nil, r)...)
			i = j
		case 'x':
			if i+4 <= len(b) {
				if r, ok := hexVal(b[i+2 : i+4]); ok {
					d.emit(i, i+4, byte(r))
					i += 4
					continue
				}
			}
			d.emit(i, i+1, '\\')
			i++
		default:
			d.emit(i, i+2, unescapeByte(c))
			i += 2
		}
	}
	return d.out, true
}

// unescapeByte is the byte a one-letter escape stands for: \n, \t, …,
// or c itself (\", \\, \/).
func unescapeByte(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'v':
		return '\v'
	case 'a':
		return '\a'
	case '0':
		return 0
	}
	return c
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

// unescapePercent decodes %XX escapes, and '+' as a space when plus is
// set.
func unescapePercent(v view, plus bool) (view, bool) {
	if bytes.IndexByte(v.b, '%') < 0 && (!plus || bytes.IndexByte(v.b, '+') < 0) {
		return view{}, false
	}
	d := builder{src: v}
	b := v.b
	for i := 0; i < len(b); {
		switch {
		case b[i] == '%' && i+3 <= len(b):
			if r, ok := hexVal(b[i+1 : i+3]); ok {
				d.emit(i, i+3, byte(r))
				i += 3
				continue
			}
		case b[i] == '+' && plus:
			d.emit(i, i+1, ' ')
			i++
			continue
		}
		d.emit(i, i+1, b[i])
		i++
	}
	return d.out, true
}

// foldView drops invalid UTF-8 and folds runs of white space and control
// characters into one space, as an excerpt does.
func foldView(v view) (view, bool) {
	d := builder{src: v}
	b := v.b
	space := -1 // start of a pending run of white space
	changed := false
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			changed = true
		case unicode.IsSpace(r) || unicode.IsControl(r):
			if space < 0 {
				space = i
			}
			if r != ' ' || (i > 0 && space < i) {
				changed = true
			}
		default:
			if space >= 0 {
				d.emit(space, i, ' ')
				space = -1
			}
			d.emit(i, i+n, b[i:i+n]...)
		}
		i += n
	}
	if space >= 0 {
		d.emit(space, len(b), ' ')
	}
	return d.out, changed
}

// replaceInvalid replaces each byte of s that is not valid UTF-8 with
// U+FFFD, as encoding/json writes it.
func replaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // utf8.RuneError for an invalid byte
		i += n
	}
	return b.String()
}

// fold is foldView for a secret.
func fold(s string) string {
	v, ok := foldView(view{b: []byte(s)})
	if !ok {
		return s
	}
	return string(v.b)
}
