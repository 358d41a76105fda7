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

// claim claims key on m until start+ttl and returns what m held.
func claim(t *testing.T, m *webhook.MemoryStore, key string, ttl time.Duration) webhook.DeliveryState {
	t.Helper()
	state, err := m.Claim(t.Context(), key, start.Add(ttl))
	require.NoError(t, err)
	return state
}

// handle claims key and marks it done, as Handler does for a delivery
// its function acted on.
func handle(t *testing.T, m *webhook.MemoryStore, key string, ttl time.Duration) {
	t.Helper()
	require.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, key, ttl), key)
	require.NoError(t, m.Done(t.Context(), key))
}

func TestMemoryStoreClaimsFinishesAndForgets(t *testing.T) {
	m := webhook.NewMemoryStore(10, newClock().Now)
	ctx := t.Context()
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "a", time.Hour))
	assert.Equal(t, webhook.DeliveryStateHandling, claim(t, m, "a", time.Hour))
	require.NoError(t, m.Done(ctx, "a"))
	assert.Equal(t, webhook.DeliveryStateHandled, claim(t, m, "a", time.Hour))
	require.NoError(t, m.Forget(ctx, "a"))
	require.NoError(t, m.Forget(ctx, "never-seen"))
	require.NoError(t, m.Done(ctx, "never-claimed"))
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "a", time.Hour), "forgotten")
	require.NoError(t, m.Forget(ctx, "a"))
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "a", time.Hour), "a claim is forgotten too")
	assert.Equal(t, 1, m.Len())
	assert.Equal(t, []string{"unseen", "handling", "handled", "DeliveryState(7)"},
		[]string{webhook.DeliveryStateUnseen.String(), webhook.DeliveryStateHandling.String(), webhook.DeliveryStateHandled.String(), webhook.DeliveryState(7).String()})
}

// An entry is dropped once its time is up, on the store's clock.
func TestMemoryStoreDropsExpiredEntries(t *testing.T) {
	clk := newClock()
	m := webhook.NewMemoryStore(10, clk.Now)
	handle(t, m, "short", time.Minute)
	handle(t, m, "long", time.Hour)
	claim(t, m, "claimed", time.Minute)
	clk.Add(time.Minute)
	assert.Equal(t, webhook.DeliveryStateHandled, claim(t, m, "long", time.Hour))
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "short", 2*time.Minute))
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "claimed", 2*time.Minute), "a claim past its token's expiry is stale")
}

// A full store drops the handled entry that expires soonest to make room:
// the bound MemoryStore documents. A delivery being handled is never
// dropped.
func TestMemoryStoreIsBounded(t *testing.T) {
	clk := newClock()
	m := webhook.NewMemoryStore(3, clk.Now)
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "running", time.Minute))
	for i, ttl := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour, 4 * time.Hour} {
		handle(t, m, fmt.Sprint("k", i), ttl)
		assert.LessOrEqual(t, m.Len(), 3+1)
	}
	for key, kept := range map[string]bool{"k0": true, "k2": true, "k3": true} {
		assert.Equal(t, kept, claim(t, m, key, time.Hour) == webhook.DeliveryStateHandled, key)
	}
	assert.Equal(t, webhook.DeliveryStateUnseen, claim(t, m, "k1", time.Hour), "k1 expired soonest and was dropped")
	assert.Equal(t, webhook.DeliveryStateHandling, claim(t, m, "running", time.Minute), "a claim is never dropped for room")

	// Forgetting from the middle of the heap keeps the order right.
	m = webhook.NewMemoryStore(100, clk.Now)
	for i := range 50 {
		handle(t, m, fmt.Sprint(i), time.Minute+time.Duration(50-i)*time.Minute)
	}
	for i := 0; i < 50; i += 3 {
		require.NoError(t, m.Forget(t.Context(), fmt.Sprint(i)))
	}
	clk.Add(26 * time.Minute)
	for i := range 50 {
		assert.Equal(t, i%3 != 0 && 50-i > 25, claim(t, m, fmt.Sprint(i), 2*time.Hour) == webhook.DeliveryStateHandled, i)
	}
}

func TestMemoryStoreDefaults(t *testing.T) {
	m := webhook.NewMemoryStore(0, nil)
	ctx := t.Context()
	for i := range webhook.DefaultMaxSeen + 5 {
		_, _ = m.Claim(ctx, fmt.Sprint(i), time.Now().Add(time.Hour))
		_ = m.Done(ctx, fmt.Sprint(i))
	}
	assert.Equal(t, webhook.DefaultMaxSeen, m.Len())
}

// Of concurrent claims of one key, exactly one gets it.
func TestMemoryStoreIsAtomic(t *testing.T) {
	m := webhook.NewMemoryStore(10, newClock().Now)
	var fresh atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			state, err := m.Claim(t.Context(), "k", start.Add(time.Hour))
			assert.NoError(t, err)
			if state == webhook.DeliveryStateUnseen {
				fresh.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), fresh.Load())
}

// The bound as a receiver sees it: with a store of two, the replay of a
// delivery that was pushed out runs the function again, while a replay
// of one still remembered is a duplicate.
func TestHandlerRunsOncePerDeliveryWithinTheStoresBound(t *testing.T) {
	clk := newClock()
	signer, _ := newSigner(t, webhook.WithSeenStore(webhook.NewMemoryStore(2, clk.Now)))
	hook := mustURL(t, signer, base)
	rc := &recorder{}
	h := signer.Handler(rc.handle)
	for _, id := range []string{"job-1", "job-2", "job-3"} {
		code, text := serve(h, delivery(t, hook, completed(id)))
		require.Equal(t, []any{200, "accepted"}, []any{code, text}, id)
	}
	code, text := serve(h, delivery(t, hook, completed("job-3")))
	assert.Equal(t, []any{200, "duplicate"}, []any{code, text}, "remembered")
	code, text = serve(h, delivery(t, hook, completed("job-1")))
	assert.Equal(t, []any{200, "accepted"}, []any{code, text}, "pushed out of a store of two: acted on again")
	assert.Len(t, rc.calls(), 4)
}

// A replay is a duplicate while its token is valid, and refused as expired
// after: the store need not keep an entry past its token's expiry.
func TestReplayIsRefusedForGoodOnceExpired(t *testing.T) {
	signer, clk := newSigner(t, webhook.WithExpiry(time.Minute))
	hook := mustURL(t, signer, base)
	r := delivery(t, hook, completed("job-1"))
	job, err := signer.Verify(r)
	require.NoError(t, err)
	require.NoError(t, signer.Done(t.Context(), r, job))
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	require.ErrorIs(t, err, webhook.ErrDuplicate)
	clk.Add(time.Minute + time.Second)
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	assert.ErrorIs(t, err, webhook.ErrExpired, "an expired token is refused before the store is asked")
}
