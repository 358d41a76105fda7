package runpodtest

// statusSyncOp is where status-sync stands in the inference limits. The
// platform counts status-sync as a status request, and a held request is
// in progress until it is answered: each one counts against
// InferenceLimits.Status.Concurrent (400 by default, as documented) for
// its whole hold, in the same count as the /status reads in progress, and
// one over the limit is answered 429 with Retry-After 1 without being
// held. It does not count against Status.Rate: the documents give
// /status's rate and no rate of status-sync's own.
var statusSyncOp = inferenceOp{"/status", func(l *InferenceLimits) InferenceLimit {
	return InferenceLimit{Per: l.Status.Per, Concurrent: l.Status.Concurrent}
}}
