package lease

import "time"

// SetLocalClock makes now this machine's clock for Reap's check of the
// platform's, until the test ends.
func SetLocalClock(t interface{ Cleanup(func()) }, now func() time.Time) {
	old := localClock
	localClock = now
	t.Cleanup(func() { localClock = old })
}
