package podssh

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testMarker = markerPrefix + "0123456789abcdef0123456789abcdef="

// feed writes chunks to a scanner for testMarker and returns what it
// passed on and the id it found.
func feed(t *testing.T, chunks ...string) (string, int, bool) {
	t.Helper()
	var out bytes.Buffer
	s := newPGIDScannerFor(&out, testMarker)
	for _, c := range chunks {
		n, err := s.Write([]byte(c))
		require.NoError(t, err)
		require.Equal(t, len(c), n)
	}
	s.finish()
	id, ok := s.pgid()
	return out.String(), id, ok
}

// TestPGIDScanner: the marker's line is stripped wherever it starts in
// the first bytes (after what start-up files print, a line or not) and
// however the writes cut it; everything else passes through; a line
// without a valid id is passed on as it came.
func TestPGIDScanner(t *testing.T) {
	line := testMarker + "4242\n"
	for name, chunks := range map[string][]string{
		"alone":         {line},
		"after noise":   {"motd\nwelcome ", line},
		"byte by byte":  strings.Split("warn: x\n"+line+"err\n", ""),
		"with the rest": {"p", "o", "d" + line[3:] + "then stderr"},
	} {
		out, id, ok := feed(t, chunks...)
		whole := strings.Join(chunks, "")
		assert.True(t, ok, name)
		assert.Equal(t, 4242, id, name)
		assert.Equal(t, strings.Replace(whole, line, "", 1), out, name)
	}
	for name, in := range map[string]string{
		"no marker":       "plain stderr, podssh-pgid- lookalike\n",
		"init's group":    testMarker + "1\n",
		"not a number":    testMarker + "12x4\n",
		"too long":        testMarker + "123456789012\n",
		"leading zero":    testMarker + "0042\n",
		"past the search": strings.Repeat("x", maxMarkerSearch+1) + testMarker + "77\n",
		"unfinished":      "a" + testMarker + "12",
	} {
		out, _, ok := feed(t, in)
		assert.False(t, ok, name)
		assert.Equal(t, in, out, name)
	}
	// Bytes that cannot start the marker are passed on at once.
	var out bytes.Buffer
	s := newPGIDScannerFor(&out, testMarker)
	_, _ = s.Write([]byte("progress 10%\rprogress 20%"))
	assert.Equal(t, "progress 10%\rprogress 20%", out.String())
	_, _ = s.Write([]byte("\npod"))
	assert.Equal(t, "progress 10%\rprogress 20%\n", out.String(), "a marker's first bytes wait")
}

// TestPGIDScannerWriteError: the writer's error is the scanner's.
func TestPGIDScannerWriteError(t *testing.T) {
	boom := errors.New("boom")
	s := newPGIDScannerFor(failWriter{boom}, testMarker)
	_, err := s.Write([]byte("x"))
	assert.ErrorIs(t, err, boom)
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// FuzzPGIDScanner: whatever stderr holds and however it is cut, the
// scanner passes on stderr itself, or stderr less the first marker line
// whose id it reports; a valid line in the first bytes after marker-free
// output is always found.
func FuzzPGIDScanner(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), uint16(0), int64(4242), uint16(3), uint16(7))
	f.Add([]byte("rc noise"), uint16(8), int64(77), uint16(0), uint16(60))
	f.Add([]byte(testMarker+"9\n"), uint16(3), int64(1), uint16(1), uint16(2))
	f.Add([]byte("pod"), uint16(3), int64(-5), uint16(2), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, at uint16, pid int64, cut1, cut2 uint16) {
		k := int(at) % (len(data) + 1)
		line := testMarker + strconv.FormatInt(pid, 10) + "\n"
		in := append(append(append([]byte{}, data[:k]...), line...), data[k:]...)
		a, b := int(cut1)%(len(in)+1), int(cut2)%(len(in)+1)
		a, b = min(a, b), max(a, b)
		var out bytes.Buffer
		s := newPGIDScannerFor(&out, testMarker)
		for _, c := range [][]byte{in[:a], in[a:b], in[b:]} {
			if n, err := s.Write(c); err != nil || n != len(c) {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		s.finish()
		id, ok := s.pgid()
		if !ok {
			if !bytes.Equal(out.Bytes(), in) {
				t.Fatalf("no id, yet the output is not the input")
			}
		} else {
			i := bytes.Index(in, []byte(testMarker))
			strip := len(testMarker) + len(strconv.Itoa(id)) + 1
			want := append(append([]byte{}, in[:i]...), in[i+strip:]...)
			if !bytes.Equal(out.Bytes(), want) || string(in[i+len(testMarker):i+strip]) != strconv.Itoa(id)+"\n" {
				t.Fatalf("id %d, but the output is not the input less its line", id)
			}
		}
		_, valid := parsePGID([]byte(strconv.FormatInt(pid, 10)))
		if valid && !bytes.Contains(data, []byte(testMarker[:1])) && k+len(line) <= maxMarkerSearch && (!ok || id != int(pid)) {
			t.Fatalf("the line of %d was not found", pid)
		}
	})
}

// TestWrap: the command goes through eval, quoted as one word.
func TestWrap(t *testing.T) {
	s := newPGIDScannerFor(nil, testMarker)
	assert.Equal(t, `printf '%s%d\n' `+testMarker+` "$$" >&2; eval 'echo '\''hi'\'''`, s.wrap("echo 'hi'"))
}

// FuzzParseNames: any SSH_FXP_NAME body is parsed or refused without
// panic, and never yields more entries than it has room for.
func FuzzParseNames(f *testing.F) {
	entry := func(name string, flags uint32, attrs ...byte) []byte {
		b := appendString(nil, []byte(name))
		b = appendString(b, []byte("-rw-r--r-- 1 root root 5 "+name))
		b = append(b, byte(flags>>24), byte(flags>>16), byte(flags>>8), byte(flags))
		return append(b, attrs...)
	}
	body := append([]byte{0, 0, 0, 2}, entry("x/..", attrPerm, 0, 0, 0o40, 0o355)...)
	body = append(body, entry("ok", attrSize|attrExtend, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 1, 'k', 0, 0, 0, 0)...)
	f.Add(body)
	f.Add([]byte{0, 0, 0, 9})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parseNames(b)
		if err == nil && len(entries)*12 > len(b) {
			t.Fatalf("%d entries from %d bytes", len(entries), len(b))
		}
	})
}
