package files

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/confine"
)

// TestIsDownloadFile: Sync leaves alone the files a download keeps
// beside its destination, named now or by earlier versions, and nothing
// else.
func TestIsDownloadFile(t *testing.T) {
	for _, name := range []string{
		".a.bin.runpod-download-0123456789abcdef", ".a.bin.runpod-journal-0123456789abcdef",
		confine.TempName("x y.txt", downloadTag), confine.TempName("..", journalTag),
		".a.bin.runpod-download", ".a.bin.runpod-download.json", ".a.bin.runpod-download.json.tmp",
	} {
		assert.True(t, isDownloadFile(name), name)
	}
	for _, name := range []string{
		"a.bin", ".a.bin", "a.bin.runpod-download-0123456789abcdef", ".a.bin.runpod-download-0123456789ABCDEF",
		".a.bin.runpod-download-0123456789abcde", ".a.bin.runpod-journal-0123456789abcdef0", ".runpod-download-0123456789abcdef",
	} {
		assert.False(t, isDownloadFile(name), name)
	}
}

// TestParseJournal: a journal is trusted only for the file, version and
// part size it was written for, naming a temporary file of the same
// destination, with every run of ranges in bounds.
func TestParseJournal(t *testing.T) {
	want := journal{Key: "k", ETag: "e", Size: 10, PartSize: 4}
	temp := confine.TempName("a.bin", downloadTag)
	good := journal{Key: "k", ETag: "e", Size: 10, PartSize: 4, Temp: temp, Done: [][2]int{{0, 0}, {2, 2}}}
	b, err := json.Marshal(good)
	require.NoError(t, err)
	done, got, ok := parseJournal(b, want, "a.bin", 3)
	require.True(t, ok)
	assert.Equal(t, []bool{true, false, true}, done)
	assert.Equal(t, temp, got)

	for name, change := range map[string]func(*journal){
		"key":         func(j *journal) { j.Key = "other" },
		"etag":        func(j *journal) { j.ETag = "other" },
		"size":        func(j *journal) { j.Size = 11 },
		"part size":   func(j *journal) { j.PartSize = 5 },
		"temp of b":   func(j *journal) { j.Temp = confine.TempName("b.bin", downloadTag) },
		"journal":     func(j *journal) { j.Temp = confine.TempName("a.bin", journalTag) },
		"path":        func(j *journal) { j.Temp = "../" + temp },
		"range past":  func(j *journal) { j.Done = [][2]int{{0, 3}} },
		"negative":    func(j *journal) { j.Done = [][2]int{{-1, 0}} },
		"upside down": func(j *journal) { j.Done = [][2]int{{2, 1}} },
	} {
		j := good
		change(&j)
		b, err := json.Marshal(j)
		require.NoError(t, err)
		_, _, ok := parseJournal(b, want, "a.bin", 3)
		assert.False(t, ok, name)
	}
	_, _, ok = parseJournal([]byte("{"), want, "a.bin", 3)
	assert.False(t, ok)
}

// FuzzParseJournal: whatever a journal found on disk holds, what
// parseJournal accepts names a temporary file of the destination, in its
// directory, and marks done only ranges that exist.
func FuzzParseJournal(f *testing.F) {
	temp := confine.TempName("a.bin", downloadTag)
	for _, s := range []string{
		`{"key":"k","etag":"e","size":10,"partSize":4,"temp":"` + temp + `","done":[[0,2]]}`,
		`{"key":"k","etag":"e","size":10,"partSize":4,"temp":"../x","done":[[0,9]]}`,
		`{"key":"k","etag":"e","size":10,"partSize":4,"temp":"` + temp + `","done":[[2,0],[-5,1]]}`,
		`null`, `{"done":[[0]]}`,
	} {
		f.Add([]byte(s), 3)
	}
	want := journal{Key: "k", ETag: "e", Size: 10, PartSize: 4}
	f.Fuzz(func(t *testing.T, b []byte, ranges int) {
		ranges = ranges%16 + 1
		if ranges < 1 {
			ranges += 16
		}
		done, got, ok := parseJournal(b, want, "a.bin", ranges)
		if !ok {
			return
		}
		if len(done) != ranges {
			t.Fatalf("%d ranges marked, of %d", len(done), ranges)
		}
		if base, isTemp := confine.TempBase(got, downloadTag); !isTemp || base != "a.bin" {
			t.Fatalf("accepted temporary file %q", got)
		}
		if _, err := confine.RelUnder("/d", got); err != nil {
			t.Fatalf("accepted temporary file %q: %v", got, err)
		}
	})
}

// TestCheckRemoteNamesTheKey: for DirectionFromVolume, a key whose path under the
// prefix is not a plain relative path (a NUL, which no XML listing can
// carry, included) is an *errs.UnsafePathError naming the whole key.
func TestCheckRemoteNamesTheKey(t *testing.T) {
	s := &syncRun{dir: DirectionFromVolume, localDir: "/local", prefix: "p/"}
	for _, rel := range []string{"a\x00b", "../x", "a/../../b", "/abs", "a//b", "."} {
		err := s.checkRemote("p/"+rel, rel)
		var unsafe *errs.UnsafePathError
		require.True(t, errors.As(err, &unsafe), rel)
		assert.Equal(t, "p/"+rel, unsafe.Name)
		assert.Equal(t, "/local", unsafe.Dir)
	}
	require.NoError(t, s.checkRemote("p/a/b", "a/b"))
	s.dir = DirectionToVolume
	require.NoError(t, s.checkRemote("p/../x", "../x"), "ToVolume writes nothing locally")
}
