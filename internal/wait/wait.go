// Package wait holds the one context-aware pause that every polling loop
// of the SDK uses (job status, stream pages, endpoint drain, pod ports,
// load-balancer readiness, the worker's loops), and the one backoff every
// retry loop uses (the client's transport, the worker's result posts).
package wait

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/runpodkit/runpod-go/option"
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

// Backoff returns the wait before retry number attempt (0 for the first):
// exponential backoff with full jitter, a uniformly random wait in
// [0, min(hi, lo·2^attempt)].
func Backoff(lo, hi time.Duration, attempt int) time.Duration {
	ceiling := hi
	if attempt < 62 {
		if d := lo << attempt; d > 0 && d < hi {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// AnswerMargin is the time a long poll (a request the server holds, such
// as /runsync?wait=) leaves for its answer to travel when it must end
// within left: a fifth of it, at least 250 ms and at most 2 s. A hold is
// asked for as left less this margin.
func AnswerMargin(left time.Duration) time.Duration {
	return min(max(left/5, 250*time.Millisecond), 2*time.Second)
}

// Saw passes what a check found to p.OnCheck, when it is set.
func Saw[T any](p option.Poll[T], v T) {
	if p.OnCheck != nil {
		p.OnCheck(v)
	}
}
