package runpod_test

import (
	"os"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// TestMain clears every RUNPOD_* variable the user's shell may set, so the
// tests see only what they set themselves (with t.Setenv).
func TestMain(m *testing.M) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "RUNPOD_") {
			_ = os.Unsetenv(name)
		}
	}
	testkit.Main(m)
}
