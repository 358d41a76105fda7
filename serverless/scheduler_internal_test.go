package serverless

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
)

// TestRefusalsTogetherPauseOnce: 429s that come together (requests that
// were in progress when the first was refused) stop the endpoint's grants
// for one pause after the last, not one pause each; each is counted.
func TestRefusalsTogetherPauseOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newWaitScheduler(DefaultWaitBudget())
		start := time.Now()
		for range 100 {
			s.attempted(t.Context(), option.Attempt{StatusCode: http.StatusTooManyRequests})
		}
		s.attempted(t.Context(), option.Attempt{StatusCode: http.StatusOK})
		w := s.join("", time.Second, time.Time{})
		defer w.leave()
		_, err := w.next(t.Context(), false)
		require.NoError(t, err)
		assert.Equal(t, refusedPause, time.Since(start))
		w.done(JobStatusInProgress, time.Second, false, false)
		assert.Equal(t, 100, s.refused)
	})
}
