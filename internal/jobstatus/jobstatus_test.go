package jobstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTerminal(t *testing.T) {
	for _, s := range []Status{Completed, Failed, Cancelled, TimedOut} {
		assert.True(t, s.Terminal(), s)
	}
	for _, s := range []Status{InQueue, InProgress, "", "RUNNING"} {
		assert.False(t, s.Terminal(), s)
	}
}
