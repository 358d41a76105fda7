package tracker

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
)

// Store keeps the tracker's records, in your database or in one of the
// module's stores (NewMemoryStore, NewFileStore). The tracker calls it
// from several goroutines at once; a record written by Put must survive
// whatever the store is meant to survive (a restart, a crash) before Put
// returns.
type Store interface {
	// Put inserts r, or replaces the record with the same EndpointID and
	// Key (Record.Key: the job's id, or the submission's for a record
	// Submit wrote).
	Put(ctx context.Context, r Record) error
	// Delete removes the record whose Key is key on endpointID; a record
	// that is not there is not an error.
	Delete(ctx context.Context, endpointID, key string) error
	// List returns the records of endpointID, in any order.
	List(ctx context.Context, endpointID string) ([]Record, error)
}

// MemoryStore is a Store in memory, for tests and for programs that only
// need the tracker's bookkeeping within one run. It is safe for
// concurrent use.
type MemoryStore struct {
	mu      sync.Mutex
	records map[key]Record
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{records: map[key]Record{}} }

// Put inserts r, or replaces the record with the same EndpointID and
// Key. A record without an endpoint, or with neither a job id nor a
// submission id, is a *errs.ValidationError.
func (s *MemoryStore) Put(_ context.Context, r Record) error {
	if err := r.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[r.key()] = r
	return nil
}

// Delete removes the record whose Key is id on endpointID.
func (s *MemoryStore) Delete(_ context.Context, endpointID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, key{endpointID, id})
	return nil
}

// List returns the records of endpointID, oldest submission first.
func (s *MemoryStore) List(_ context.Context, endpointID string) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return listOf(s.records, endpointID), nil
}

// listOf returns the records of endpointID in records, oldest submission
// first, then by job id.
func listOf(records map[key]Record, endpointID string) []Record {
	out := slices.Collect(maps.Values(records))
	out = slices.DeleteFunc(out, func(r Record) bool { return r.EndpointID != endpointID })
	slices.SortFunc(out, func(a, b Record) int {
		return cmp.Or(a.SubmittedAt.Compare(b.SubmittedAt), cmp.Compare(a.Key(), b.Key()))
	})
	return out
}
