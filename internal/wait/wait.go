// Package wait holds the one context-aware pause that every polling loop
// of the SDK uses (job status, stream pages, endpoint drain, pod ports,
// load-balancer readiness, the worker's loops).
package wait

import (
	"context"
	"time"
)

// Sleep pauses for d, or until ctx ends, whichever comes first; it returns
// ctx.Err() when ctx ended. The timer is stopped either way, so no timer
// outlives the call.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
