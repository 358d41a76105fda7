package serverless

import (
	"container/heap"
	"context"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/option"
)

// waitScheduler shares one endpoint's status budget among the waits of a
// Service. It sends nothing itself: each wait asks it for a grant before
// each status request and sends the request on its own goroutine, so the
// request is as few calls deep as any other and carries the wait's own
// context. A grant is a long poll (status-sync) or a plain /status read.
//
// It decides who goes next whenever something changes (a wait asks, a
// request ends, a wait leaves) and, when only time can change that (a
// token to come, a poll not yet due), on a timer set for that moment. So
// it holds no goroutine of its own, and nothing runs while no wait is
// waiting.
type waitScheduler struct {
	mu sync.Mutex

	// The budget: slots for requests in progress, of which holdable may
	// be long polls (the rest keep room for /status reads), and a token
	// bucket that refills rate tokens a second up to burst.
	slots, holdable int
	rate, burst     float64

	tokens  float64
	counted time.Time // when tokens was last brought up to date

	open, held int // requests in progress, and how many of them are long polls
	members    int // waits that use the scheduler
	seq        uint64

	holds waiterQueue // waits that may be long-polled, the likeliest to end first on top
	polls waiterQueue // waits that may be read with /status, the first due on top

	timer   *time.Timer
	timerAt time.Time // zero while the timer is not set

	refused int // status requests the platform answered 429
	observe option.RequestOption

	// workers shares the endpoint's worker-list reads among the waits
	// whose job stays queued (its own lock).
	workers workerList
}

// Tuning of the schedule.
const (
	// rotateHold is the longest hold asked for while more waits share the
	// endpoint than it may long-poll at once, so that the held jobs change
	// to the likeliest to end first; each is cut by up to a tenth at
	// random, so that holds begun together do not end together.
	rotateHold = 30 * time.Second
	// refusedPause is how long a 429 on a status request stops every
	// grant of the endpoint (the transport retries that request after the
	// wait the platform asked for).
	refusedPause = time.Second
	// queuedGap is the longest pause between the /status reads of a job
	// seen queued, while more waits share the endpoint than it may
	// long-poll at once: the pause doubles from the poll interval at each
	// read that finds the job still queued.
	queuedGap = 30 * time.Second
	// budgetWindow is the platform's rate window.
	budgetWindow = 10 * time.Second
)

func newWaitScheduler(b WaitBudget) *waitScheduler {
	s := &waitScheduler{holds: waiterQueue{before: holdsFirst, slot: 0}, polls: waiterQueue{before: pollsFirst, slot: 1}}
	s.observe = option.WithAttemptHook(s.attempted)
	s.setBudget(b)
	s.tokens = s.burst
	return s
}

// setBudget turns b into slots and a token bucket. Of Per10s, a twentieth
// is the burst and another is kept back for the spread of arrival times,
// and the bucket refills the rest over the window: any 10 s then sees at
// most burst + 10 s × rate = Per10s less a twentieth sent.
func (s *waitScheduler) setBudget(b WaitBudget) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots = b.Concurrent
	s.holdable = max(b.Concurrent-b.Concurrent/8, 1)
	twentieth := b.Per10s / 20
	s.burst = float64(max(twentieth, 1))
	s.rate = float64(max(b.Per10s-twentieth-int(s.burst), 1)) / budgetWindow.Seconds()
	s.tokens = min(s.tokens, s.burst)
	s.pumpLocked(time.Now())
}

// grant is what a wait may send next: a long poll (hold, for at most
// maxHold when that is not zero) or a /status read.
type grant struct {
	hold    bool
	maxHold time.Duration
}

// refillLocked brings the token bucket up to now.
func (s *waitScheduler) refillLocked(now time.Time) {
	if !s.counted.IsZero() && now.After(s.counted) {
		s.tokens = min(s.tokens+now.Sub(s.counted).Seconds()*s.rate, s.burst)
	}
	s.counted = now
}

// pumpLocked grants what the budget allows now: long polls first, to the
// waits likeliest to end soon, while slots for them are free; then /status
// reads, to the waits whose read is due, the longest overdue first. It then
// sets the timer for the moment the next grant becomes possible, if only
// time stands in the way.
func (s *waitScheduler) pumpLocked(now time.Time) {
	s.refillLocked(now)
	for s.tokens >= 1 && s.open < s.slots {
		var w *waiter
		var g grant
		switch {
		case s.held < s.holdable && s.holds.Len() > 0:
			w = s.holds.top()
			g.hold = true
			if s.members > s.holdable {
				g.maxHold = rotateHold - rand.N(rotateHold/10)
			}
		case s.polls.Len() > 0 && !s.polls.top().due.After(now):
			w = s.polls.top()
		default:
			s.armLocked(now)
			return
		}
		s.unqueueLocked(w)
		s.tokens--
		s.open++
		if g.hold {
			s.held++
		}
		w.granted <- g // never blocks: a wait asks once, and is granted once
	}
	s.armLocked(now)
}

// armLocked sets the timer for the next moment a grant may become
// possible: the next token, or the next /status read that falls due. A
// grant that waits for a slot needs no timer: the request that frees the
// slot pumps.
func (s *waitScheduler) armLocked(now time.Time) {
	var at time.Time
	if s.open < s.slots {
		canHold := s.held < s.holdable && s.holds.Len() > 0
		switch {
		case s.tokens < 1 && (canHold || s.polls.Len() > 0):
			wait := time.Duration((1 - s.tokens) / s.rate * float64(time.Second))
			at = now.Add(max(wait, time.Millisecond))
			if !canHold {
				at = later(at, s.polls.top().due)
			}
		case !canHold && s.polls.Len() > 0:
			at = s.polls.top().due
		}
	}
	switch {
	case at.IsZero():
		if !s.timerAt.IsZero() {
			s.timer.Stop()
			s.timerAt = time.Time{}
		}
	case at.Equal(s.timerAt):
	case s.timer == nil:
		s.timer = time.AfterFunc(at.Sub(now), s.wake)
		s.timerAt = at
	default:
		s.timer.Reset(at.Sub(now))
		s.timerAt = at
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// wake is the timer's: the moment it was set for has come.
func (s *waitScheduler) wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timerAt = time.Time{}
	if s.members > 0 {
		s.pumpLocked(time.Now())
	}
}

// endLocked gives back the slot of a grant whose request has ended; a
// grant whose request was never sent gives its token back too.
func (s *waitScheduler) endLocked(g grant, sent bool) {
	s.open--
	if g.hold {
		s.held--
	}
	if !sent {
		s.tokens = min(s.tokens+1, s.burst)
	}
}

// attempted is the attempt hook of the waits' requests: it counts a 429,
// and stops every grant of the endpoint until refusedPause after it (by
// emptying the token bucket that far below zero), so that the other waits
// do not run into the same limit meanwhile. 429s that come together stop
// it once, not once each.
func (s *waitScheduler) attempted(_ context.Context, a option.Attempt) {
	if a.StatusCode != http.StatusTooManyRequests {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused++
	s.refillLocked(time.Now())
	s.tokens = min(s.tokens, 1-refusedPause.Seconds()*s.rate)
}

// unqueueLocked takes w off both queues.
func (s *waitScheduler) unqueueLocked(w *waiter) {
	if w.index[0] >= 0 {
		heap.Remove(&s.holds, w.index[0])
	}
	if w.index[1] >= 0 {
		heap.Remove(&s.polls, w.index[1])
	}
}
