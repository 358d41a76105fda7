package podssh_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// homePrefix starts the name of each test process's home directory.
const homePrefix = "podssh-test-home-"

// TestMain runs the tests with HOME and XDG_CONFIG_HOME in a temporary
// directory: the examples keep host keys in the default known_hosts
// file, which must never be the user's own. (Tests that rely on the
// default set their own with t.Setenv.) testkit.Main exits without
// returning, so each run removes the homes of earlier runs whose
// process is gone.
func TestMain(m *testing.M) {
	removeStaleHomes()
	home, err := os.MkdirTemp("", homePrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	testkit.Main(m)
}

// removeStaleHomes removes the home directories of test processes that
// have ended.
func removeStaleHomes() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), homePrefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(d), homePrefix), "-", 2)[0])
		if err != nil {
			continue
		}
		if p, err := os.FindProcess(pid); err == nil && !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			continue // still running
		}
		_ = os.RemoveAll(d)
	}
}
