package placement_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/placement"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var noRoom = &errs.CapacityError{Reason: errs.CapacityReasonOutOfStock}

// TestTry: the creates run in order until one succeeds; a failure other
// than no capacity stops them; a context that ends stops them before the
// next is sent; exhaustion lists every attempt.
func TestTry(t *testing.T) {
	run := func(ctx context.Context, answers ...error) (int, []int, error) {
		var sent []int
		v, err := placement.Try(ctx, make([]errs.PlacementAttempt, len(answers)), func(_ context.Context, i int) (int, error) {
			sent = append(sent, i)
			return i, answers[i]
		})
		return v, sent, err
	}
	v, sent, err := run(t.Context(), noRoom, noRoom, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, v)
	assert.Equal(t, []int{0, 1, 2}, sent)

	ambiguous := &errs.APIError{StatusCode: 500, OutcomeUnknown: true}
	_, sent, err = run(t.Context(), noRoom, ambiguous, nil)
	assert.Equal(t, []int{0, 1}, sent)
	assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, errs.ErrNoCapacity)

	_, sent, err = run(t.Context(), noRoom, noRoom)
	assert.Len(t, sent, 2)
	var p *errs.PlacementError
	require.ErrorAs(t, err, &p)
	assert.True(t, p.Exhausted)
	assert.Len(t, p.Attempts, 2)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, sent, err = run(ctx, nil)
	assert.Empty(t, sent)
	assert.True(t, errors.Is(err, context.Canceled))
}
