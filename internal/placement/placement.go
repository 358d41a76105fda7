// Package placement runs a create over candidates in turn, for pods and
// clusters: it moves to the next candidate only after an answer that says
// nothing was created (errs.ErrNoCapacity), and stops at once on anything
// else, so a create whose outcome is unknown is never followed by another.
package placement

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// NeedCandidates refuses an empty list of candidates.
func NeedCandidates(n int) error {
	if n == 0 {
		return fail.Invalid("candidates", "is empty: give at least one place to try")
	}
	return nil
}

// Field names candidate i's field, such as "candidates[2].Cloud".
func Field(i int, name string) string { return fmt.Sprintf("candidates[%d].%s", i, name) }

// InCandidate says in err, a request's validation error, that it is the
// request as candidate i changed it; err is returned.
func InCandidate(i int, err error) error {
	var v *errs.ValidationError
	if errors.As(err, &v) {
		v.Message = fmt.Sprintf("with candidates[%d]: %s", i, v.Message)
	}
	return err
}

// Try calls create for each attempt in order, until one succeeds. The
// attempts describe the candidates; Try fills in each one's error. It
// returns a *errs.PlacementError listing every attempt when none
// succeeds: Exhausted when each answered with no capacity, else stopped at
// the first other failure. A context that ends between two creates stops
// the placement before the next is sent, with the context's error as that
// attempt's (it was not sent, so its outcome is known).
func Try[T any](ctx context.Context, attempts []errs.PlacementAttempt, create func(ctx context.Context, i int) (T, error)) (T, error) {
	var zero T
	for i := range attempts {
		if err := ctx.Err(); err != nil {
			attempts[i].Err = fmt.Errorf("not sent: %w", err)
			return zero, &errs.PlacementError{Attempts: attempts[:i+1]}
		}
		v, err := create(ctx, i)
		if err == nil {
			return v, nil
		}
		attempts[i].Err = err
		if !errors.Is(err, errs.ErrNoCapacity) {
			return zero, &errs.PlacementError{Attempts: attempts[:i+1]}
		}
	}
	return zero, &errs.PlacementError{Attempts: attempts, Exhausted: true}
}
