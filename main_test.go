package runpod_test

import (
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// TestMain runs the suite under testkit (goroutine leaks, key scan, and no
// RUNPOD_* variable from the user's shell).
func TestMain(m *testing.M) { testkit.Main(m) }
