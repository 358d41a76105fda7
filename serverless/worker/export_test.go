package worker

import (
	"bytes"
	"context"
	"os"
	"sync"
)

// SyncBuffer is an output buffer the tests share between a running worker
// and the test goroutine.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

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
