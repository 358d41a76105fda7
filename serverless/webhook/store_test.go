package webhook_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/serverless/webhook"
)

func TestMemoryStoreRecordsAndForgets(t *testing.T) {
	clk := newClock()
	m := webhook.NewMemoryStore(10, clk.Now)
	ctx := t.Context()
	already, err := m.Seen(ctx, "a", start.Add(time.Hour))
	require.NoError(t, err)
	assert.False(t, already)
	already, _ = m.Seen(ctx, "a", start.Add(time.Hour))
	assert.True(t, already)
	require.NoError(t, m.Forget(ctx, "a"))
	require.NoError(t, m.Forget(ctx, "never-seen"))
	already, _ = m.Seen(ctx, "a", start.Add(time.Hour))
	assert.False(t, already, "forgotten")
	assert.Equal(t, 1, m.Len())
}

// An entry is dropped once its time is up, on the store's clock.
func TestMemoryStoreDropsExpiredEntries(t *testing.T) {
	clk := newClock()
	m := webhook.NewMemoryStore(10, clk.Now)
	ctx := t.Context()
	_, _ = m.Seen(ctx, "short", start.Add(time.Minute))
	_, _ = m.Seen(ctx, "long", start.Add(time.Hour))
	clk.Add(time.Minute)
	already, _ := m.Seen(ctx, "long", start.Add(time.Hour))
	assert.True(t, already)
	assert.Equal(t, 1, m.Len(), "short is gone")
	already, _ = m.Seen(ctx, "short", start.Add(2*time.Minute))
	assert.False(t, already)
}

// A full store drops the entry that expires soonest to make room.
func TestMemoryStoreIsBounded(t *testing.T) {
	clk := newClock()
	m := webhook.NewMemoryStore(3, clk.Now)
	ctx := t.Context()
	for i, ttl := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour, 4 * time.Hour} {
		already, err := m.Seen(ctx, fmt.Sprint("k", i), start.Add(ttl))
		require.NoError(t, err)
		require.False(t, already)
		assert.LessOrEqual(t, m.Len(), 3)
	}
	for key, kept := range map[string]bool{"k0": true, "k2": true, "k3": true} {
		already, _ := m.Seen(ctx, key, start.Add(time.Hour))
		assert.Equal(t, kept, already, key)
	}
	already, _ := m.Seen(ctx, "k1", start.Add(time.Hour))
	assert.False(t, already, "k1 expired soonest and was dropped")

	// Forgetting from the middle of the heap keeps the order right.
	m = webhook.NewMemoryStore(100, clk.Now)
	for i := range 50 {
		_, _ = m.Seen(ctx, fmt.Sprint(i), start.Add(time.Duration(50-i)*time.Minute))
	}
	for i := 0; i < 50; i += 3 {
		require.NoError(t, m.Forget(ctx, fmt.Sprint(i)))
	}
	clk.Add(25 * time.Minute)
	for i := range 50 {
		already, _ := m.Seen(ctx, fmt.Sprint(i), start.Add(time.Hour))
		assert.Equal(t, i%3 != 0 && 50-i > 25, already, i)
	}
}

func TestMemoryStoreDefaults(t *testing.T) {
	m := webhook.NewMemoryStore(0, nil)
	ctx := t.Context()
	for i := range webhook.DefaultMaxSeen + 5 {
		_, _ = m.Seen(ctx, fmt.Sprint(i), time.Now().Add(time.Hour))
	}
	assert.Equal(t, webhook.DefaultMaxSeen, m.Len())
}

// Of concurrent Seen calls with one key, exactly one reports it new.
func TestMemoryStoreIsAtomic(t *testing.T) {
	m := webhook.NewMemoryStore(10, newClock().Now)
	var fresh atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			already, err := m.Seen(t.Context(), "k", start.Add(time.Hour))
			assert.NoError(t, err)
			if !already {
				fresh.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), fresh.Load())
}

// A replay is a duplicate while its token is valid, and refused as expired
// after: the store need not keep an entry past its token's expiry.
func TestReplayIsRefusedForGoodOnceExpired(t *testing.T) {
	signer, clk := newSigner(t, webhook.WithExpiry(time.Minute))
	hook := mustURL(t, signer, base)
	_, err := signer.Verify(delivery(t, hook, completed("job-1")))
	require.NoError(t, err)
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	require.ErrorIs(t, err, webhook.ErrDuplicate)
	clk.Add(time.Minute + time.Second)
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	assert.ErrorIs(t, err, webhook.ErrExpired, "an expired token is refused before the store is asked")
}
