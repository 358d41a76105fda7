package jobqueue

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopCtxAnswersAsWithCancel holds a job's Stopped context, which
// makes its channel only when asked, to what context.WithCancel(parent)
// answers, in every order of the events that end it: the job stopped,
// its parent cancelled (with a cause) or past its deadline, the channel
// asked for before, between or after them, and a context derived from it.
func TestStopCtxAnswersAsWithCancel(t *testing.T) {
	parentCause := errors.New("client left")
	// Each makes two parents alike (one for WithCancel, one for the job)
	// and what ends both.
	parents := map[string]func() (p1, p2 context.Context, end func()){
		"cancel": func() (context.Context, context.Context, func()) {
			p1, c1 := context.WithCancelCause(context.Background())
			p2, c2 := context.WithCancelCause(context.Background())
			return p1, p2, func() { c1(parentCause); c2(parentCause) }
		},
		"deadline": func() (context.Context, context.Context, func()) {
			// In the bubble's clock: ending is a sleep past the deadline.
			p1, c1 := context.WithTimeout(context.Background(), time.Second)
			p2, c2 := context.WithTimeout(context.Background(), time.Second)
			return p1, p2, func() { time.Sleep(2 * time.Second); c1(); c2() }
		},
	}
	// steps: s = stop the job, p = end the parent, d = ask for Done, c =
	// derive a child (WithTimeout), each at most once, in this order.
	orders := []string{"", "s", "p", "d", "sp", "ps", "ds", "dp", "sd", "pd", "dsp", "dps", "sdp", "spd", "psd", "pds",
		"cs", "cp", "csp", "cps", "scp", "pcs", "dcs", "cdp"}
	for name, parent := range parents {
		for _, order := range orders {
			t.Run(name+"/"+order, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					p1, p2, end := parent()
					ended := false
					want, stopWant := context.WithCancel(p1)
					got := newStopCtx(p2)
					var childWant, childGot context.Context
					for _, step := range order {
						switch step {
						case 's':
							stopWant()
							got.stop()
						case 'p':
							end()
							ended = true
						case 'd':
							want.Done()
							got.Done()
						case 'c':
							var c1, c2 context.CancelFunc
							childWant, c1 = context.WithTimeout(want, time.Hour)
							childGot, c2 = context.WithTimeout(got, time.Hour)
							t.Cleanup(c1)
							t.Cleanup(c2)
						}
						require.Equal(t, errKind(want.Err()), errKind(got.Err()), "Err after %q", step)
						require.Equal(t, errKind(context.Cause(want)), errKind(context.Cause(got)), "Cause after %q", step)
						if childWant != nil {
							require.Equal(t, errKind(childWant.Err()), errKind(childGot.Err()), "child's Err after %q", step)
							require.Equal(t, errKind(context.Cause(childWant)), errKind(context.Cause(childGot)), "child's Cause after %q", step)
						}
					}
					synctest.Wait()
					assert.Equal(t, closed(want.Done()), closed(got.Done()))
					stopWant()
					got.stop()
					got.stop() // again: a no-op
					if !ended {
						end()
					}
					<-got.Done()
					if childGot != nil {
						<-childGot.Done()
					}
				})
			})
		}
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// errKind names an error for comparison ("" for none).
func errKind(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestStopCtxValues: parent's values and deadline show through, before
// and after Done was asked for and after a stop.
func TestStopCtxValues(t *testing.T) {
	type key struct{}
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), key{}, "v"), deadline)
	defer cancel()
	for _, steps := range []string{"", "d", "s", "ds", "sd"} {
		c := newStopCtx(parent)
		for _, s := range steps {
			if s == 'd' {
				c.Done()
			} else {
				c.stop()
			}
		}
		assert.Equal(t, "v", c.Value(key{}), steps)
		d, ok := c.Deadline()
		assert.True(t, ok, steps)
		assert.Equal(t, deadline, d, steps)
		c.stop()
	}
	assert.Contains(t, newStopCtx(parent).String(), "WithCancel")
}

// TestStopCtxNoRegistrationUntilAsked: a job whose context nobody
// watched leaves its parent with no child to remove, and one whose
// handler watched it is removed from its parent when the job stops.
func TestStopCtxNoRegistrationUntilAsked(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	allocs := testing.AllocsPerRun(100, func() {
		c := newStopCtx(parent)
		_ = c.Err()
		c.stop()
	})
	assert.LessOrEqual(t, allocs, 2.0, "a stop with no Done makes no child context")
	c := newStopCtx(parent)
	done := c.Done()
	c.stop()
	<-done
	assert.Equal(t, context.Canceled, c.Err())
	assert.NoError(t, parent.Err())
}
