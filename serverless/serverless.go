// Package serverless is RunPod serverless: managing endpoints, running
// jobs on queue-based endpoints and public models, sending requests to
// load-balancing endpoints, and reading job webhooks. Get its Service as
// runpod.Client.Serverless, or alone with NewFromConfig:
//
//	cfg, err := option.NewConfig() // RUNPOD_API_KEY from the environment
//	sl := serverless.NewFromConfig(cfg)
//
// # Endpoints
//
// Service.Endpoints creates, reads, changes and deletes endpoints over the
// platform's REST v2 API (Create, Get, List, Update, Apply, ScaleToZero,
// Delete, ScaleDownAndDelete, DeleteNow), and looks into their workers,
// releases and worker logs (see below). The request and endpoint types are generated
// from the platform's REST v2 document:
//
//	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.CreateEndpointRequest{
//		Name:       "my-endpoint",
//		Type:       serverless.EndpointTypeQueue,
//		TemplateID: runpod.Ptr("tmpl123"),
//		GPU:        &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.Ada24}},
//		Scaling:    serverless.ScaleByQueueDelay(4),
//		Workers:    &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(3)},
//	})
//
// Update is a PATCH: only the fields set are sent, and every other setting
// stays (a pointer to an empty list clears a list). Apply makes the
// endpoint of a spec's name match the spec, creating it or changing only
// what differs, and says what it changed. Requests are validated before
// sending; a create is never sent twice.
//
// The platform's delete is irreversible and does not wait: it terminates
// the endpoint's workers and cancels its queued and running jobs. Three
// calls delete:
//
//   - ScaleDownAndDelete scales to zero, waits until no worker is left (a
//     worker running a job stays until the job ends), then deletes: the
//     drain.
//   - Delete deletes an endpoint already scaled to zero, and refuses any
//     other with ErrNotScaledDown, sending nothing: a guard of the SDK's
//     against deleting a serving endpoint by mistake.
//   - DeleteNow deletes at once, whatever the endpoint is doing: its
//     queued and running jobs are cancelled.
//
// The platform's GraphQL endpoint operations, kept until the platform
// retires its GraphQL API in early 2027, are package
// serverless/graphqlendpoints, built from the same Config
// (graphqlendpoints.NewFromConfig(rp.Config())): this package does not
// link a GraphQL client.
//
// # An endpoint's workers, releases and logs
//
// Three calls of Endpoints look into a running endpoint over the REST v2
// API; their types are generated from the platform's REST v2 document:
//
//   - Workers lists the endpoint's active workers (EndpointWorker): id,
//     status (running a job, idle, initializing, throttled, unhealthy),
//     the configuration version each runs and whether that is stale, where
//     it is placed, with a count by status.
//   - Releases lists the endpoint's configuration history (EndpointRelease,
//     newest first: a build or a change of settings, and what it
//     changed), with how far the workers have moved to the current
//     version (RolloutSummary).
//   - WorkerLogs streams one worker's log lines (WorkerLogLine) as an
//     iter.Seq2, as pods.Service.Logs streams a pod's: history first
//     (GetWorkerLogsParams.Tail, Since), then live lines; resume after a
//     line with LastEventID. Cancelling ctx or breaking out ends it
//     without an error; an HTTP error is the first and only value.
//
// The ids are checked before anything is sent (letters, digits, '-' and
// '_'), and the reads are retried like every read:
//
//	list, err := rp.Serverless.Endpoints.Workers(ctx, ep.ID)
//	for line, err := range rp.Serverless.Endpoints.WorkerLogs(ctx, ep.ID, list.Workers[0].ID, serverless.GetWorkerLogsParams{}) {
//		…
//	}
//
// # Jobs on queue-based endpoints
//
// Service.Queue(id) is the job API of a queue-based endpoint or a public
// model:
//
//	q := rp.Serverless.Queue(ep.ID)
//	job, err := q.RunSync(ctx, serverless.RunParams{Input: in}, serverless.WaitOptions{})
//	out, err := serverless.Output[Result](job)
//
// A job's input and its optional parts (webhook, execution policy, S3
// storage) are RunParams; how a call waits is WaitOptions (Hold, how long
// the platform holds each request, and Poll). The calls:
//
//   - Run submits a job and returns its id at once; RunSync submits it and
//     waits for its end, past the platform's hold if need be.
//   - Wait waits for a job submitted earlier, long-polling status-sync;
//     Status reads its state once. The waits on one endpoint share its
//     status limit (WaitBudget, Service.SetWaitBudget), however many run.
//   - Stream yields a streaming handler's output as it comes.
//   - Cancel stops a job, Retry queues a FAILED or TIMED_OUT job again,
//     Purge drops the queued jobs, and Health counts jobs and workers.
//
// A job that ends FAILED, CANCELLED or TIMED_OUT is a *JobError; a wait
// that ends first (the context ended, a status read failed) is a
// *WaitError carrying the job's id, so the job is never lost. Run and
// RunSync are never sent twice after an ambiguous failure
// (errs.ErrOutcomeUnknown).
//
// A job stuck IN_QUEUE has causes its status cannot tell apart. A wait
// that sees its job queued for WaitOptions.QueuedAfter (30 s by default)
// reads the endpoint's worker list, at most once every 15 s for all the
// waits on the endpoint, and says which it shows: workers unhealthy
// (crash-looping), no capacity (throttled), no workers, starting, busy
// (QueueCause), in Job.Queued for Poll.OnCheck and in the *WaitError:
//
//	var we *serverless.WaitError
//	if errors.As(err, &we) && we.Queued != nil && we.Queued.Cause == serverless.QueueCauseUnhealthy {
//		// read the logs of we.Queued.WorkerIDs with Endpoints.WorkerLogs
//	}
//
// # Load-balancing endpoints
//
// Service.LoadBalancer(id) sends HTTP requests to the routes a
// load-balancing endpoint's workers serve: Do sends an LBParams (method,
// path, body, headers, worker Affinity) and returns the LBResponse; Ping
// reads /ping once; WaitReady waits until a worker serves.
//
// # Webhooks
//
// ReadWebhook reads, in your HTTP handler, the job status the platform
// POSTs to RunParams.Webhook when a job ends.
//
// # Workers
//
// The code that runs inside a worker (your handler, and the runtime that
// takes jobs from the queue and posts their results) is package
// serverless/worker.
package serverless

import (
	"sync/atomic"

	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the serverless surface of the platform. Get it as
// runpod.Client.Serverless, or build one with NewFromConfig.
type Service struct {
	// Endpoints creates, changes, lists and deletes endpoints over the
	// REST v2 API, and looks into their workers, releases and logs.
	Endpoints *Endpoints

	t *transport.Transport
	// noStatusSync is set once the platform answered 404 or 405 for the
	// status-sync route (an older or other deployment of the job API): the
	// service's waits poll /status from then on.
	noStatusSync *atomic.Bool
	// waits shares each endpoint's status budget among the service's
	// waits (SetWaitBudget).
	waits *waitSchedulers
}

// NewFromConfig returns the serverless service built from cfg (see
// option.NewConfig), for a program that uses serverless alone;
// runpod.NewClient builds one for Client.Serverless. Services built from
// one Config share its connection pool and rate-limit Tracker. A cfg that
// does not validate gives a service whose every call fails with the
// validation error, before anything is sent.
func NewFromConfig(cfg option.Config) *Service {
	t := transport.New(cfg)
	return &Service{Endpoints: &Endpoints{t: t}, t: t, noStatusSync: new(atomic.Bool), waits: newWaitSchedulers()}
}
