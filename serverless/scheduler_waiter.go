package serverless

import (
	"container/heap"
	"context"
	"slices"
	"time"

	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// waiter is one wait's place in its endpoint's scheduler. The wait asks
// for a grant (next) before each status request, reports the request's
// end (done), and leaves when it returns.
type waiter struct {
	s   *waitScheduler
	seq uint64 // order of arrival: the oldest first among equals
	// running: the job was IN_PROGRESS when last read, so it is likelier
	// to end soon than a queued one.
	running bool
	due     time.Time     // the earliest next /status read
	gap     time.Duration // the last pause between its reads
	index   [2]int        // in s.holds and s.polls, -1 when not there
	granted chan grant
	grant   grant // the grant in use, between next and done
	// asking: the wait is queued for its next grant, or the grant waits
	// in granted for next to take it.
	asking bool
	// deadline is when the wait's context ends (zero: never); last says
	// a read was already brought forward to it (dueAt).
	deadline time.Time
	last     bool
}

// join adds a wait for a job whose status is known ("" when it is not
// yet) and whose context ends at deadline (zero: never): the first
// /status read of an unknown job is due at once, that of a job just read
// one interval later, or earlier when the deadline comes first (dueAt).
func (s *waitScheduler) join(status JobStatus, interval time.Duration, deadline time.Time) *waiter {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.members++
	w := &waiter{s: s, seq: s.seq, running: status == JobStatusInProgress, due: now, deadline: deadline, index: [2]int{-1, -1}, granted: make(chan grant, 1)}
	if status != "" {
		w.gap = interval
		w.due = w.dueAt(now, interval)
	}
	return w
}

// dueAt returns when the wait's next /status read falls due, gap after
// now; but when that is too late for the read to be answered before the
// wait's context ends, its last chance instead: the deadline less the
// answer's margin (wait.AnswerMargin), or now when that has passed. So no
// wait sleeps through its deadline without a last read, whatever time it
// had left. One read per wait is brought forward so: the next one would
// fall past the deadline.
func (w *waiter) dueAt(now time.Time, gap time.Duration) time.Time {
	due := now.Add(gap)
	if w.deadline.IsZero() || w.last {
		return due
	}
	last := w.deadline.Add(-wait.AnswerMargin(w.deadline.Sub(now)))
	if !due.After(last) {
		return due
	}
	w.last = true
	return later(last, now)
}

// pause is how long a wait that paces itself (a long poll answered early)
// pauses before it asks again: interval, or less when its next read was
// brought forward to its deadline (dueAt).
func (w *waiter) pause(interval time.Duration) time.Duration {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return min(interval, max(time.Until(w.due), 0))
}

// options returns opts with the scheduler's attempt hook, which counts
// the platform's 429s and pauses the endpoint after one.
func (w *waiter) options(opts []option.RequestOption) []option.RequestOption {
	return append(slices.Clip(opts), w.s.observe)
}

// next waits for the wait's next grant, or for ctx to end (its error).
// canHold says the wait may long-poll now (its status is known, its
// context leaves time for a hold, the platform serves status-sync).
// A wait that done already queued (again) is not queued twice.
func (w *waiter) next(ctx context.Context, canHold bool) (grant, error) {
	s := w.s
	s.mu.Lock()
	if !w.asking {
		s.askLocked(w, canHold)
		s.pumpLocked(time.Now())
	}
	s.mu.Unlock()
	select {
	case g := <-w.granted:
		w.grant, w.asking = g, false
		return g, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unqueueLocked(w)
	select {
	case g := <-w.granted: // granted as ctx ended: give it back unused
		s.endLocked(g, false)
	default:
	}
	w.asking = false
	s.pumpLocked(time.Now())
	return grant{}, ctx.Err()
}

// askLocked queues w for its next grant.
func (s *waitScheduler) askLocked(w *waiter, canHold bool) {
	if canHold {
		heap.Push(&s.holds, w)
	}
	heap.Push(&s.polls, w)
	w.asking = true
}

// done reports that the granted request ended, with the job's status
// ("" when it could not be read); its next /status read is due after
// interval, or, while the endpoint has more waits than long polls, after
// twice the last pause (up to queuedGap) for a job still queued, which
// cannot end before it starts; earlier when the wait's deadline comes
// first (dueAt). again says the wait asks for its next
// grant at once (with canHold, as next would): it is queued here, before
// the slot it frees is given, so that it keeps the slot when it ranks
// first, and next then only waits for the grant.
func (w *waiter) done(status JobStatus, interval time.Duration, again, canHold bool) {
	s := w.s
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	gap := interval
	if status == JobStatusInQueue && s.members > s.holdable {
		gap = max(min(2*w.gap, queuedGap), interval)
	}
	w.running, w.gap, w.due = status == JobStatusInProgress, gap, w.dueAt(now, gap)
	s.endLocked(w.grant, true)
	w.grant = grant{}
	if again {
		s.askLocked(w, canHold)
	}
	s.pumpLocked(now)
}

// leave ends the wait's use of the scheduler, giving back a grant it was
// sent and did not take.
func (w *waiter) leave() {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unqueueLocked(w)
	select {
	case g := <-w.granted:
		s.endLocked(g, false)
	default:
	}
	s.members--
	s.pumpLocked(time.Now())
}

// holdsFirst orders the long polls: running jobs before queued ones, then
// the oldest wait first.
func holdsFirst(a, b *waiter) bool {
	if a.running != b.running {
		return a.running
	}
	return a.seq < b.seq
}

// pollsFirst orders the /status reads: the first due first, then the
// oldest wait.
func pollsFirst(a, b *waiter) bool {
	if !a.due.Equal(b.due) {
		return a.due.Before(b.due)
	}
	return a.seq < b.seq
}

// waiterQueue is a heap of waiters ordered by before; slot is the index
// of waiter.index it keeps up to date.
type waiterQueue struct {
	ws     []*waiter
	before func(a, b *waiter) bool
	slot   int
}

func (q *waiterQueue) Len() int           { return len(q.ws) }
func (q *waiterQueue) Less(i, j int) bool { return q.before(q.ws[i], q.ws[j]) }
func (q *waiterQueue) top() *waiter       { return q.ws[0] }

func (q *waiterQueue) Swap(i, j int) {
	q.ws[i], q.ws[j] = q.ws[j], q.ws[i]
	q.ws[i].index[q.slot] = i
	q.ws[j].index[q.slot] = j
}

func (q *waiterQueue) Push(x any) {
	w := x.(*waiter)
	w.index[q.slot] = len(q.ws)
	q.ws = append(q.ws, w)
}

func (q *waiterQueue) Pop() any {
	n := len(q.ws) - 1
	w := q.ws[n]
	q.ws[n] = nil
	q.ws = q.ws[:n]
	w.index[q.slot] = -1
	return w
}

// charge takes a token for a /status read the wait makes beyond its
// grant (after a long poll it gave up on, or the platform's answer that
// it has no status-sync route); the bucket may go below zero, and the
// next grants wait the longer.
func (w *waiter) charge() {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refillLocked(time.Now())
	s.tokens--
}
