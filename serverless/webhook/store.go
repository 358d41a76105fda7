package webhook

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"
)

// DeliveryState is what a SeenStore holds for a delivery.
type DeliveryState int

// The states of a delivery in a SeenStore.
const (
	// DeliveryStateUnseen: the store held nothing for the delivery. Claim recorded it
	// as DeliveryStateHandling, and the caller now acts on it.
	DeliveryStateUnseen DeliveryState = iota
	// DeliveryStateHandling: a receiver claimed the delivery and has not yet said it
	// is done (Done) or failed (Forget). Handler answers 503 with
	// Retry-After, so the platform delivers again later.
	DeliveryStateHandling
	// DeliveryStateHandled: a receiver acted on the delivery. Handler answers 200
	// (ReasonDuplicate) without acting again.
	DeliveryStateHandled
)

// String returns "unseen", "handling" or "handled".
func (s DeliveryState) String() string {
	switch s {
	case DeliveryStateUnseen:
		return "unseen"
	case DeliveryStateHandling:
		return "handling"
	case DeliveryStateHandled:
		return "handled"
	}
	return fmt.Sprintf("DeliveryState(%d)", int(s))
}

// SeenStore records the deliveries a Signer accepted, and whether acting
// on each is under way or done, so that Verify can tell a delivery that
// is new, one that a receiver is still handling (the platform's retry of
// a delivery whose answer did not come in time), and one already handled
// (a retry whose 200 was lost, or a replay). Keys are at most a few
// hundred bytes of printable ASCII.
//
// A store shared by several receiving processes (behind a load balancer)
// makes them agree. With Redis: Claim is SET key handling NX PX 60000
// (GET key when it did not set), Done is SET key handled PXAT until, and
// Forget is DEL key. A shared store should let a DeliveryStateHandling claim lapse
// after a minute or so (longer than the platform goes on retrying), so
// that a delivery claimed by a process that then died is taken up by
// the platform's next attempt or a replay.
type SeenStore interface {
	// Claim records key as DeliveryStateHandling, until the time given (the expiry of
	// the URL's token: after it the token is refused anyway, so the entry
	// may be dropped), when the store holds nothing for it, and returns
	// what the store held: DeliveryStateUnseen when it recorded the claim. Recording
	// and checking are one atomic step: of two concurrent calls with one
	// key, one returns DeliveryStateUnseen.
	Claim(ctx context.Context, key string, until time.Time) (DeliveryState, error)
	// Done records key, claimed before, as DeliveryStateHandled until the time its
	// claim gave.
	Done(ctx context.Context, key string) error
	// Forget removes key, so that the next Claim of it returns DeliveryStateUnseen.
	// Forgetting a key that is not recorded is not an error.
	Forget(ctx context.Context, key string) error
}

// DefaultMaxSeen is how many handled deliveries the default MemoryStore
// remembers. The platform retries a delivery within about 20 seconds of
// its first attempt, so what stops its retries is the last minute's
// deliveries; the rest extend replay detection up to each token's
// expiry. At about 200 bytes an entry, 10000 entries take about 2 MB.
const DefaultMaxSeen = 10000

// MemoryStore is a SeenStore in the process's memory, bounded in size
// and time:
//
//   - an entry is dropped once its time is up (its token expired: a
//     replay is then refused as ReasonExpired anyway);
//   - at most maxEntries handled deliveries are remembered: when the
//     store is full, the one whose token expires soonest makes room for
//     the next, and from then on a replay of it (with the same body, to
//     the same URL, before its token expires) is taken as new and acted
//     on again;
//   - deliveries being handled are never dropped to make room (there are
//     as many as handlers running at once).
//
// It remembers nothing across restarts, and each process has its own:
// when a receiver must never act twice on a delivery across restarts, or
// runs in several processes, or receives more deliveries within a token's
// lifetime than it can remember, give the Signer a persistent SeenStore
// (WithSeenStore). It is safe for concurrent use; the zero value is not
// usable (NewMemoryStore).
type MemoryStore struct {
	mu       sync.Mutex
	max      int
	now      func() time.Time
	handled  map[string]*seenEntry
	queue    seenQueue // the handled entries, by expiry, soonest first
	handling map[string]time.Time
}

// NewMemoryStore returns a MemoryStore that remembers at most maxEntries
// handled deliveries (DefaultMaxSeen when maxEntries is zero or less),
// whose entries expire on the clock now (time.Now when nil).
func NewMemoryStore(maxEntries int, now func() time.Time) *MemoryStore {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxSeen
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{max: maxEntries, now: now, handled: map[string]*seenEntry{}, handling: map[string]time.Time{}}
}

// Claim records key as DeliveryStateHandling until the time given, unless the store
// holds it (and its time is not up), and returns what it held.
func (m *MemoryStore) Claim(_ context.Context, key string, until time.Time) (DeliveryState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for len(m.queue) > 0 && !m.queue[0].until.After(now) {
		delete(m.handled, heap.Pop(&m.queue).(*seenEntry).key)
	}
	if _, ok := m.handled[key]; ok {
		return DeliveryStateHandled, nil
	}
	if t, ok := m.handling[key]; ok && t.After(now) {
		return DeliveryStateHandling, nil
	}
	m.handling[key] = until
	return DeliveryStateUnseen, nil
}

// Done records key as DeliveryStateHandled, making room when the store is full.
func (m *MemoryStore) Done(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	until, ok := m.handling[key]
	if !ok {
		return nil
	}
	delete(m.handling, key)
	if _, ok := m.handled[key]; ok {
		return nil
	}
	if len(m.queue) >= m.max {
		delete(m.handled, heap.Pop(&m.queue).(*seenEntry).key)
	}
	e := &seenEntry{key: key, until: until}
	heap.Push(&m.queue, e)
	m.handled[key] = e
	return nil
}

// Forget removes key.
func (m *MemoryStore) Forget(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.handling, key)
	if e, ok := m.handled[key]; ok {
		heap.Remove(&m.queue, e.index)
		delete(m.handled, key)
	}
	return nil
}

// Len returns how many entries the store holds, handled and being
// handled, expired ones not yet dropped included.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queue) + len(m.handling)
}

// seenEntry is one handled key, at index in the queue.
type seenEntry struct {
	key   string
	until time.Time
	index int
}

// seenQueue is a min-heap of entries by expiry (container/heap).
type seenQueue []*seenEntry

func (q seenQueue) Len() int           { return len(q) }
func (q seenQueue) Less(i, j int) bool { return q[i].until.Before(q[j].until) }
func (q seenQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}

func (q *seenQueue) Push(x any) {
	e := x.(*seenEntry)
	e.index = len(*q)
	*q = append(*q, e)
}

func (q *seenQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}
