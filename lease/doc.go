// Package lease puts a deadline on what a program or a test suite creates
// on the platform, and deletes what is past it, so that nothing is left
// billing when the program dies, a test fails or a script forgets.
//
//	name, err := lease.Name("nightly-eval", time.Now().Add(2*time.Hour))
//	// "nightly-eval~lease-20261128T0130Z"
//	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{Name: name, …})
//
//	// Later, from a cron job or at the start of the next run:
//	report, err := lease.Reap(ctx, rp, lease.ReapOptions{})
//
// # The tag: a suffix of the name
//
// The lease lives in the resource's name, as a suffix: Marker ("~lease-")
// and the deadline in UTC, to the minute (Layout, such as
// 20261128T0130Z). The name is the one field every kind has and the
// platform keeps: network volumes and clusters have no environment, and
// changing an endpoint's environment rolls out a new release of its
// workers, while a rename changes nothing that runs. The platform's document bounds
// these names only by "not empty" (minLength 1; no maximum length, no
// alphabet), so the 21 bytes fit every kind. The deadline reads as a
// date in the console, sorts as text, and cannot be read in another time
// zone: the "Z" says UTC. The tilde is unusual in a name, so a name that
// happens to contain a date is not taken for a lease.
//
// runpodctl appended " -fb" to the name of the FlashBoot endpoints it made;
// Parse reads the lease before that suffix. Parse is otherwise strict: a
// name is leased only when it is exactly what Name makes (a real minute
// of the years 2000 to 9999, nothing else after it, one lease only).
//
// # Reap
//
// Reap lists pods, sandboxes, serverless endpoints, clusters, network
// volumes and templates, and deletes (a sandbox: terminates) those whose
// lease has ended, in that order: pods, sandboxes
// and endpoints before the network volumes they mount and the templates
// they are made from. An endpoint is scaled to zero workers (workersMin
// and workersMax 0) before its delete, as serverless.Endpoints.Delete
// deletes only such endpoints; the delete does not wait for its jobs,
// which the platform cancels. A resource without a lease is never
// touched, nor one whose name carries the marker but whose lease does not
// parse (Report lists it as Unreadable). A resource already gone counts
// as deleted; any other failure is reported for that resource, and the
// others are still reaped. DryRun reports what would be deleted.
//
// The clock: deadlines are compared with the platform's clock, the Date
// header of the last page of Reap's first listing, unless ReapOptions.Now
// is set. A machine whose clock runs ahead would otherwise delete
// resources before their time. Without a Date header and without Now,
// Reap deletes nothing (ErrNoPlatformClock); nor when the Date header is
// more than a day (MaxClockSkew) from the machine's clock, since a proxy
// or server answering a wrong date would make every lease look expired
// (*ClockSkewError, naming both clocks). ReapOptions.Grace adds a margin.
//
// # Tests
//
// leasetest.Track (package lease/leasetest, which imports testing) makes
// a request option for integration tests against the real platform: it
// records what the test creates through it and deletes it in t.Cleanup,
// after a failure or a panic too, and leases each create's name, so that
// a later Reap deletes what a killed test process could not.
package lease
