package worker

import (
	"context"
	"os"
)

// Guard bounds every wait of the tests; reaching it is a failure.
const Guard = guard

// LineWatch is a worker's output a test can wait on.
type LineWatch = lineWatch

// WaitLine waits until the worker wrote text.
var WaitLine = waitLine

// RunWithSignals runs the worker with sig as its process signals.
func RunWithSignals(ctx context.Context, h Handler, sig <-chan os.Signal, opts []Option) error {
	return run(ctx, h, sig, opts)
}

// Echo is the tests' typed echo handler.
var Echo = echo
