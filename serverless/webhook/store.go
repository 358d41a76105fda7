package webhook

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// SeenStore records the deliveries a Signer accepted, so that Verify can
// tell a duplicate: the platform's retry of a delivery whose 200 it did
// not get, or a replay of a body already accepted. Keys are at most a few
// hundred bytes of printable ASCII. A store shared by several receiving
// processes (behind a load balancer) makes them agree; with Redis, Seen
// is SET key 1 NX PXAT until (already when it did not set) and Forget is
// DEL key.
type SeenStore interface {
	// Seen records key until the time given (the expiry of the URL's
	// token: after it, the token is refused anyway, so the entry may be
	// dropped) and reports whether key was recorded already. Recording
	// and checking are one atomic step: of two concurrent calls with one
	// key, one reports false.
	Seen(ctx context.Context, key string, until time.Time) (already bool, err error)
	// Forget removes key, so that the next Seen of it reports false.
	// Forgetting a key that is not recorded is not an error.
	Forget(ctx context.Context, key string) error
}

// DefaultMaxSeen is how many deliveries the default MemoryStore holds.
// The platform retries a delivery within about 20 seconds of its first
// attempt, so what stops its retries is the last minute's deliveries;
// the rest extend replay detection up to each token's expiry. At about
// 200 bytes an entry, 10000 entries take about 2 MB.
const DefaultMaxSeen = 10000

// MemoryStore is a SeenStore in the process's memory, bounded in size
// and time: an entry is dropped once its time is up, and when the store
// is full the entry that expires soonest makes room for a new one. It is
// safe for concurrent use; the zero value is not usable (NewMemoryStore).
type MemoryStore struct {
	mu    sync.Mutex
	max   int
	now   func() time.Time
	byKey map[string]*seenEntry
	queue seenQueue // by expiry, soonest first
}

// NewMemoryStore returns a MemoryStore of at most maxEntries entries
// (DefaultMaxSeen when maxEntries is zero or less) whose entries expire
// on the clock now (time.Now when nil).
func NewMemoryStore(maxEntries int, now func() time.Time) *MemoryStore {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxSeen
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{max: maxEntries, now: now, byKey: map[string]*seenEntry{}}
}

// Seen records key until the time given and reports whether it was
// recorded already (and has not expired or been forgotten since).
func (m *MemoryStore) Seen(_ context.Context, key string, until time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for len(m.queue) > 0 && !m.queue[0].until.After(now) {
		delete(m.byKey, heap.Pop(&m.queue).(*seenEntry).key)
	}
	if _, ok := m.byKey[key]; ok {
		return true, nil
	}
	if len(m.queue) >= m.max {
		delete(m.byKey, heap.Pop(&m.queue).(*seenEntry).key)
	}
	e := &seenEntry{key: key, until: until}
	heap.Push(&m.queue, e)
	m.byKey[key] = e
	return false, nil
}

// Forget removes key.
func (m *MemoryStore) Forget(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byKey[key]; ok {
		heap.Remove(&m.queue, e.index)
		delete(m.byKey, key)
	}
	return nil
}

// Len returns how many entries the store holds, expired ones not yet
// dropped included.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queue)
}

// seenEntry is one recorded key, at index in the queue.
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
