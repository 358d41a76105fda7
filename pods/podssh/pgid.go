package podssh

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Run sends a command behind a first shell line that prints the login
// shell's process id, which is the id of the session's process group, on
// stderr: marker, the id, a newline. The marker holds 128 random bits,
// so neither the pod nor the command's output can forge the line; Run
// looks for it in the first maxMarkerSearch bytes of stderr only (the
// shell's start-up files may print before it), strips it, and passes
// every other byte through as it came.

// markerPrefix starts every marker; 32 random hex digits and "=" follow.
const markerPrefix = "podssh-pgid-"

// maxMarkerSearch is how many bytes of stderr are searched for the marker
// before the search gives up.
const maxMarkerSearch = 64 << 10

// maxPGIDDigits bounds the id after the marker.
const maxPGIDDigits = 10

// pgidScanner is the command's stderr writer: it passes the bytes on to
// w, but the marker's line, whose id it keeps.
type pgidScanner struct {
	mu     sync.Mutex
	w      io.Writer
	marker []byte
	held   []byte // bytes not yet passed on: maybe the marker's start
	start  int    // where held begins in the stream
	over   bool   // the search is over
	id     int
	found  chan struct{} // closed when the search is over
}

// newPGIDScanner returns a scanner for a new random marker, writing to w.
func newPGIDScanner(w io.Writer) *pgidScanner {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return newPGIDScannerFor(w, markerPrefix+hex.EncodeToString(b[:])+"=")
}

func newPGIDScannerFor(w io.Writer, marker string) *pgidScanner {
	return &pgidScanner{w: w, marker: []byte(marker), found: make(chan struct{})}
}

// wrap returns the command line that runs cmd in the login shell behind
// the line reporting the shell's id: eval runs cmd as the shell would
// have, its exit status the shell's.
func (s *pgidScanner) wrap(cmd string) string {
	return "printf '%s%d\\n' " + string(s.marker) + ` "$$" >&2; eval ` + shellQuote(cmd)
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Write passes p on, less the marker's line.
func (s *pgidScanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over {
		if _, err := s.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	s.held = append(s.held, p...)
	if err := s.scan(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// scan looks for the marker's line in held, passing on what cannot be
// part of it. Only a marker that starts in the first maxMarkerSearch
// bytes of the stream counts, however the writes cut it.
func (s *pgidScanner) scan() error {
	i := bytes.Index(s.held, s.marker)
	if i < 0 || s.start+i >= maxMarkerSearch {
		pass := len(s.held) - overlap(s.held, s.marker)
		if i >= 0 || s.start+pass >= maxMarkerSearch {
			return s.giveUp()
		}
		return s.emit(pass)
	}
	after := s.held[i+len(s.marker):]
	j := bytes.IndexByte(after, '\n')
	if j < 0 {
		if len(after) > maxPGIDDigits {
			return s.giveUp()
		}
		return s.emit(i)
	}
	id, ok := parsePGID(after[:j])
	if !ok {
		return s.giveUp()
	}
	s.id = id
	rest := after[j+1:]
	err := s.write(s.held[:i])
	if err == nil {
		err = s.write(rest)
	}
	s.end()
	return err
}

// overlap is the length of the longest end of b that begins marker.
func overlap(b, marker []byte) int {
	for k := min(len(b), len(marker)-1); k > 0; k-- {
		if bytes.HasSuffix(b, marker[:k]) {
			return k
		}
	}
	return 0
}

// parsePGID reads a process group id: decimal digits, above 1 (kill
// reads -1 as every process, and 1 is init's).
func parsePGID(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > maxPGIDDigits || b[0] == '0' {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil || n <= 1 {
		return 0, false
	}
	return int(n), true
}

// emit passes on the first n held bytes.
func (s *pgidScanner) emit(n int) error {
	err := s.write(s.held[:n])
	s.held = append(s.held[:0], s.held[n:]...)
	s.start += n
	return err
}

// giveUp passes on everything held and ends the search.
func (s *pgidScanner) giveUp() error {
	err := s.write(s.held)
	s.end()
	return err
}

func (s *pgidScanner) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := s.w.Write(b)
	return err
}

// end ends the search.
func (s *pgidScanner) end() {
	s.held, s.over = nil, true
	close(s.found)
}

// finish passes on what is held, once stderr has ended; a nil scanner
// does nothing.
func (s *pgidScanner) finish() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.over {
		_ = s.giveUp()
	}
}

// pgid returns the id the shell reported, if it did.
func (s *pgidScanner) pgid() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id, s.id > 0
}
