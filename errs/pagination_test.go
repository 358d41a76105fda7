package errs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPaginationError: it matches ErrPagination and its cause, names the
// list and the page, and never the cursor.
func TestPaginationError(t *testing.T) {
	for _, cause := range []error{ErrRepeatedCursor, ErrEmptyPage, ErrMissingCursor, ErrTooManyPages} {
		var err error = &PaginationError{Method: "GET", Path: "/v2/pods", Page: 3, Items: 200, Cursor: "secret-ish", Err: cause}
		err = fmt.Errorf("listing: %w", err)
		require.ErrorIs(t, err, ErrPagination)
		require.ErrorIs(t, err, cause)
		var pe *PaginationError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "listing: runpod: GET /v2/pods: page 3 (200 items so far): "+cause.Error(), err.Error())
		assert.NotContains(t, err.Error(), "secret-ish")
		assert.False(t, errors.Is(err, ErrOutcomeUnknown))
	}
}
