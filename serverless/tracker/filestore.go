package tracker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// ErrLocked is returned by NewFileStore when another FileStore holds the
// file: one in another process, or another in this one.
var ErrLocked = errors.New("runpod: the tracker file is in use by another store")

// errClosed is the error of a FileStore's methods after Close.
var errClosed = errors.New("runpod: the tracker file store is closed")

// compactSlack is how many dead change lines a file may hold beyond its
// live records before it is rewritten (a variable for the tests).
var compactSlack = 1024

// FileStore is a Store in one file of JSON lines: a header, then one line
// per change (a put or a delete), appended and synced to disk (fsync)
// before the change returns. Its records are also held in memory.
//
// It survives a crash at any point without losing a change it reported
// done: a change cut short by a crash is the file's last line, and is
// ignored when the file is opened again. The file is rewritten without
// its dead lines when it is opened and when they outnumber the live
// records by more than a thousand: into a temporary file beside it
// (path + ".tmp-…"), synced, renamed over it, and the directory synced;
// a temporary file left by a crash is never read, and is removed at the
// next open. A line that does not decode anywhere but at the end can only
// be damage from outside: NewFileStore refuses the file, naming the line,
// and leaves it as it is.
//
// It is safe for concurrent use within one process. Two processes may not
// share the file: NewFileStore locks it (a lock file, path + ".lock", held
// while the store is open and released when the process ends, even by a
// crash), and returns ErrLocked while another store holds it. Where the
// platform offers no file lock to the standard library (Windows, Plan 9,
// WebAssembly), the lock file is created but not locked, and keeping to
// one process is up to you.
type FileStore struct {
	path string
	lock *os.File

	mu      sync.Mutex
	f       *os.File // the file, open for appending
	records map[key]Record
	changes int   // change lines in the file
	err     error // set once the store refuses writes: closed, or a file it could not repair
}

// NewFileStore opens the file store at path, creating it when it does not
// exist. Close it when done.
func NewFileStore(path string) (*FileStore, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fail.Invalid("path", "is empty")
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("runpod: tracker file %s: %w", path, err)
	}
	s := &FileStore{path: path, lock: lock}
	if err := s.open(); err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("runpod: tracker file %s: %w", path, err)
	}
	return s, nil
}

// open reads the file and readies it for appending, rewriting it first
// when it is missing, ends in a cut line or holds dead lines.
func (s *FileStore) open() error {
	s.removeTemps()
	data, err := os.ReadFile(s.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	d, err := decodeLog(data)
	if err != nil {
		return err
	}
	s.records = d.records
	if len(data) == 0 || d.torn || d.old || d.changes != len(d.records) {
		return s.compactLocked()
	}
	s.f, err = os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0)
	s.changes = d.changes
	return err
}

// removeTemps removes the temporary files a rewrite cut short by a crash
// left beside the file.
func (s *FileStore) removeTemps() {
	dir, base := filepath.Split(s.path)
	entries, _ := os.ReadDir(cleanDir(dir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base+".tmp-") && !e.IsDir() {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// cleanDir is dir, or "." for the current one.
func cleanDir(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// compactLocked rewrites the file to hold the records alone. A failure
// before the rename leaves the file and the store as they were; one after
// it leaves the store refusing writes.
func (s *FileStore) compactLocked() error {
	data, err := encodeLog(listAll(s.records))
	if err != nil {
		return err
	}
	dir, base := filepath.Split(s.path)
	dir = cleanDir(dir)
	tmp, err := os.CreateTemp(dir, base+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	// The file is closed for the rename (which some systems refuse over
	// an open file), then reopened: the new file, or the old one when the
	// rename failed.
	if s.f != nil {
		_ = s.f.Close()
		s.f = nil
	}
	renamed := os.Rename(tmp.Name(), s.path)
	if renamed != nil {
		_ = os.Remove(tmp.Name())
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil && renamed == nil {
		// The rename must be on disk before a change appended to the new
		// file is reported done.
		err = syncDir(dir)
	}
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		s.err = fmt.Errorf("runpod: tracker file %s could not be reopened after a rewrite: %w", s.path, err)
		return err
	}
	s.f = f
	if renamed != nil {
		return renamed
	}
	s.changes = len(s.records)
	return nil
}

// listAll returns every record, in a stable order: by endpoint, then as
// List orders them.
func listAll(records map[key]Record) []Record {
	out := slices.Collect(maps.Values(records))
	slices.SortFunc(out, func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.EndpointID, b.EndpointID), a.SubmittedAt.Compare(b.SubmittedAt), cmp.Compare(a.Key(), b.Key()))
	})
	return out
}

// Put inserts r, or replaces the record with the same EndpointID and
// Key, and returns once the change is on disk. A record without an
// endpoint, or with neither a job id nor a submission id, is a
// *errs.ValidationError. The file is not interrupted by ctx.
func (s *FileStore) Put(_ context.Context, r Record) error {
	if err := r.validate(); err != nil {
		return err
	}
	return s.change(logLine{Put: &r}, func() { s.records[r.key()] = r })
}

// Delete removes the record whose Key is id on endpointID, and returns
// once the change is on disk.
func (s *FileStore) Delete(_ context.Context, endpointID, id string) error {
	s.mu.Lock()
	_, ok := s.records[key{endpointID, id}]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return s.change(logLine{Delete: &lineKey{EndpointID: endpointID, Key: id}}, func() { delete(s.records, key{endpointID, id}) })
}

// change appends the line of a change and syncs it, then applies it to
// the records in memory.
func (s *FileStore) change(l logLine, apply func()) error {
	line, err := encodeLine(l)
	if err != nil {
		return fmt.Errorf("runpod: tracker file %s: %w", s.path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	_, err = s.f.Write(line)
	if err == nil {
		err = s.f.Sync()
	}
	if err != nil {
		// Part of the line may be on disk, and a change appended after it
		// would be unreadable: rewrite the file from the records known to
		// be stored, without this change.
		if cerr := s.compactLocked(); cerr != nil && s.err == nil {
			s.err = fmt.Errorf("runpod: tracker file %s could not be repaired after a failed write: %w", s.path, cerr)
		}
		return fmt.Errorf("runpod: tracker file %s: %w", s.path, err)
	}
	apply()
	s.changes++
	if s.changes > 2*len(s.records)+compactSlack {
		// A failure here leaves the file as it was (or, past the rename,
		// the store refusing further writes); this change is on disk
		// either way.
		_ = s.compactLocked()
	}
	return nil
}

// List returns the records of endpointID, oldest submission first.
func (s *FileStore) List(_ context.Context, endpointID string) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(s.err, errClosed) {
		return nil, s.err
	}
	return listOf(s.records, endpointID), nil
}

// Close closes the file and releases its lock. The store's methods fail
// afterwards.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(s.err, errClosed) {
		return nil
	}
	s.err = errClosed
	var err error
	if s.f != nil {
		err = s.f.Close()
		s.f = nil
	}
	return errors.Join(err, s.lock.Close())
}
