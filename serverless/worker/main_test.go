package worker

import (
	"os"
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) {
	if side := os.Getenv(benchServeVar); side != "" {
		// This process is the server of BenchmarkLocalRunSyncProcess.
		os.Exit(benchServe(side))
	}
	testkit.Main(m)
}
