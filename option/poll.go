package option

import "time"

// Poll tunes a call that waits by checking again and again: a job
// (serverless Wait, and RunSync past the platform's hold), a video
// generation, an endpoint's drain, a pod's TCP port, a load balancer's
// readiness. It says how long to pause between checks and what to tell
// the caller after each; every wait of the SDK takes one, with the same
// default.
type Poll[T any] struct {
	// Interval is the pause between checks; zero means the client's
	// (WithPollInterval), else DefaultPollInterval. (A job's wait mostly
	// long-polls, and pauses only where the platform does not hold its
	// status requests.)
	Interval time.Duration
	// OnCheck, when set, is called with what each check found, in order.
	OnCheck func(T)
}
