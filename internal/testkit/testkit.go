// Package testkit holds the checks every test package of the SDK shares:
// goroutine leaks (goleak) and the API key's absence from every error,
// printed value and log line the suite produced.
//
// Each package's TestMain calls Main. Tests log through Logger, and pass
// the values and errors they get back to NoSecret; Main then scans every
// captured log line once more after the whole suite ran.
package testkit

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// keyShape matches every key runpodtest mints, so leaks are found even for
// keys a test never registered.
var keyShape = regexp.MustCompile(`rpa_[0-9A-F]{32}`)

var (
	mu      sync.Mutex
	secrets = map[string]bool{}
	sink    bytes.Buffer // every line every Logger wrote
)

// RegisterSecret adds s, and its URL-escaped spellings, to the values that
// must never appear.
func RegisterSecret(s string) {
	if s == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	secrets[s] = true
	secrets[url.QueryEscape(s)] = true
	secrets[url.PathEscape(s)] = true
}

// Leak returns the first secret (or runpodtest-shaped key) found in text,
// and "" when there is none.
func Leak(text string) string {
	if k := keyShape.FindString(text); k != "" {
		return k
	}
	mu.Lock()
	defer mu.Unlock()
	for s := range secrets {
		if strings.Contains(text, s) {
			return s
		}
	}
	return ""
}

// NoSecret fails t if any value, printed with %v, %+v, %#v and %s (and
// Error() for errors), contains a secret.
func NoSecret(t testing.TB, values ...any) {
	t.Helper()
	for i, v := range values {
		forms := []string{fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), fmt.Sprintf("%s", v)}
		if err, ok := v.(error); ok && err != nil {
			forms = append(forms, err.Error())
		}
		for _, f := range forms {
			if s := Leak(f); s != "" {
				t.Errorf("value %d (%T) shows an API key when printed: %q", i, v, f)
				break
			}
		}
	}
}

// Logger returns a Debug-level logger whose lines go to the suite-wide
// capture that Main scans. The returned buffer holds this logger's lines
// alone.
func Logger() (*slog.Logger, *Lines) {
	w := &Lines{}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), w
}

// Captured returns every line every Logger has written so far.
func Captured() string {
	mu.Lock()
	defer mu.Unlock()
	return sink.String()
}

// Lines collects one logger's output.
type Lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write records p here and in the suite-wide capture.
func (w *Lines) Write(p []byte) (int, error) {
	mu.Lock()
	sink.Write(p)
	mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// String returns the lines written so far.
func (w *Lines) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// Main runs the package's tests, then fails the run if a goroutine leaked
// or any captured log line contains an API key. Before the tests it clears
// every RUNPOD_* and AWS_* variable the user's shell may set, so a test sees only
// the ones it sets itself (with t.Setenv).
func Main(m *testing.M) {
	ClearEnv()
	cleanup := isolateHome()
	code := m.Run()
	cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "testkit: leaked goroutines:", err)
			code = 1
		}
		if s := Leak(Captured()); s != "" {
			fmt.Fprintln(os.Stderr, "testkit: a captured log line contains an API key")
			code = 1
		}
	}
	os.Exit(code)
}

// isolateHome points HOME (and USERPROFILE) at a new empty directory for
// the tests, so that none reads the user's own files: option.NewConfig
// reads the rp CLI's profile file, ~/.runpod/config.toml, for a key. The
// go command's directories, which default to places under the home
// directory, are pinned first (GOCACHE, GOPATH, GOENV, when not set), so
// a test that runs it finds the same cache. It returns the function that
// removes the directory.
func isolateHome() (cleanup func()) {
	pin := func(name string, value func() (string, error)) {
		if os.Getenv(name) != "" {
			return
		}
		if v, err := value(); err == nil && v != "" {
			_ = os.Setenv(name, v)
		}
	}
	pin("GOCACHE", func() (string, error) {
		dir, err := os.UserCacheDir()
		return filepath.Join(dir, "go-build"), err
	})
	pin("GOPATH", func() (string, error) {
		dir, err := os.UserHomeDir()
		return filepath.Join(dir, "go"), err
	})
	pin("GOENV", func() (string, error) {
		dir, err := os.UserConfigDir()
		return filepath.Join(dir, "go", "env"), err
	})
	home, err := os.MkdirTemp("", "runpod-test-home-")
	if err != nil {
		return func() {}
	}
	_ = os.Setenv("HOME", home)
	_ = os.Setenv("USERPROFILE", home)
	return func() { _ = os.RemoveAll(home) }
}

// ClearEnv unsets every RUNPOD_* and AWS_* environment variable (the
// S3 API key of network volumes' files may come from either).
func ClearEnv() {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "RUNPOD_") || strings.HasPrefix(name, "AWS_") {
			_ = os.Unsetenv(name)
		}
	}
}
