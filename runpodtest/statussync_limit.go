package runpodtest

// statusSyncOp is where status-sync stands in the inference limits. The
// platform counts status-sync as a status request, and a held request is
// in progress until it is answered: each one counts against
// InferenceLimits.Status.Concurrent (400 by default, as documented) for
// its whole hold, in the same count as the /status reads in progress, and
// one over the limit is answered 429 without being held. It counts
// against Status.Rate too (2,000 per 10 s), in the same window as the
// /status reads: the documents give no limit of status-sync's own, and a
// waiting job's status-sync is the status check it replaces.
var statusSyncOp = inferenceOp{"/status", func(l *InferenceLimits) InferenceLimit { return l.Status }}
