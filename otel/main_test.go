package runpodotel_test

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain clears the RUNPOD_* variables of the user's shell, so every
// test configures the SDK itself, and checks that no goroutine is left.
func TestMain(m *testing.M) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "RUNPOD_") {
			_ = os.Unsetenv(k)
		}
	}
	goleak.VerifyTestMain(m)
}
