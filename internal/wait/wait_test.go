package wait

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		assert.NoError(t, Sleep(t.Context(), 3*time.Second))
		assert.Equal(t, 3*time.Second, time.Since(start))

		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start = time.Now()
		assert.ErrorIs(t, Sleep(ctx, time.Hour), context.DeadlineExceeded)
		assert.Equal(t, time.Second, time.Since(start), "ends with the context")
	})
}

func TestAnswerMargin(t *testing.T) {
	for left, want := range map[time.Duration]time.Duration{
		time.Second: 250 * time.Millisecond, 5 * time.Second: time.Second, time.Minute: 2 * time.Second,
	} {
		if got := AnswerMargin(left); got != want {
			t.Errorf("AnswerMargin(%s) = %s, want %s", left, got, want)
		}
	}
}
