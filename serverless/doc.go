// Package serverless is RunPod serverless: managing endpoints, running
// jobs on queue-based endpoints and public models (one at a time or in
// batches), sending requests to load-balancing endpoints, and reading job
// webhooks. Get its Service as runpod.Client.Serverless, or alone with
// NewFromConfig:
//
//	cfg, err := option.NewConfig() // RUNPOD_API_KEY from the environment
//	sl := serverless.NewFromConfig(cfg)
//
// Its sibling packages do what a program around the job API needs:
//
//   - [github.com/runpodkit/runpod-go/serverless/webhook] signs the URL a
//     job's result is posted to and verifies the deliveries: the package to
//     receive webhooks with (see Webhooks below).
//   - [github.com/runpodkit/runpod-go/serverless/tracker] records the jobs a
//     program submits, so that one that restarts finds them again.
//   - [github.com/runpodkit/runpod-go/serverless/worker] is the other side:
//     the runtime that runs your handler inside a worker.
//   - Batches (Queue.Batches, below) runs up to 5,000 requests as one batch
//     job, apart from the endpoint's /run traffic.
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
//		GPU:        &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
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
// Reads, Update, Delete and DeleteNow are retried like any idempotent call;
// Create is never repeated once it may have reached the platform
// (errs.ErrOutcomeUnknown). Builds and Build read an endpoint's GitHub
// builds. Example: examples/endpoints.
//
// # The GraphQL API, retired in early 2027
//
// The platform retired its REST v1 API on 2026-11-15 and retires its
// GraphQL API in early 2027; retired APIs answer 410 Gone. Endpoint
// management moved to REST v2:
//
//   - Create took an EndpointParams (now graphqlendpoints.EndpointParams,
//     in package serverless/graphqlendpoints); it takes a
//     CreateEndpointRequest.
//   - Update read the endpoint, let a function edit it, and saved it whole;
//     it takes an UpdateEndpointRequest and sends a PATCH of what is set.
//   - List returned an *EndpointList carrying the account's discount; it
//     returns []Endpoint.
//   - GPUs, Locations, ScalerType and ScalerValue, WorkersMin and
//     WorkersMax, IdleTimeout are GPU.Pools, DataCenterIDs, Scaling and
//     Workers{Min, Max, IdleTimeout}.
//
// Package [github.com/runpodkit/runpod-go/serverless/graphqlendpoints]
// (graphqlendpoints.NewFromConfig(rp.Config()): Create, Get, List, Update,
// ScaleToZero, Delete, ScaleDownAndDelete, SetTemplate) keeps the GraphQL
// operations until then, for what only GraphQL has (the account's
// serverless discount, in List) and for code not yet moved; this package
// links no GraphQL client. Its selections use only the fields the
// platform's own clients select (it keeps that list, with its sources), its Update reads
// back every setting it sends, and its Delete keeps GraphQL's own rule
// (workers 0/0, refused before sending). option.WithGraphQLQueryKey sends
// the key as ?api_key=, the form of the platform's GraphQL documentation,
// instead of a Bearer header. Once the platform answers 410, every
// GraphQL call fails with an error matching errs.ErrGraphQLRetired that
// names the REST call to use instead.
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
// Job status is a typed string (JobStatus: IN_QUEUE, IN_PROGRESS,
// COMPLETED, FAILED, CANCELLED, TIMED_OUT; unknown values still decode);
// delay and execution times are time.Duration; the output is
// json.RawMessage, read with Job.Decode or Output[T].
//
// A job that ends FAILED, CANCELLED or TIMED_OUT is a *JobError, whose
// Message is the handler's own message; a wait
// that ends first (the context ended, a status read failed) is a
// *WaitError carrying the job's id, so the job is never lost. Run and
// RunSync are never sent twice after an ambiguous failure
// (errs.ErrOutcomeUnknown).
//
// A RunSync or Wait cancelled while the platform holds a /runsync cannot
// learn the job's id (the answer never comes), though the job runs and is
// billed: WaitOptions.IDFirst submits with /run first, so that any
// cancellation after the submission is a *WaitError carrying the id, at
// the cost of one more round trip. The video models always work this way.
//
// Every wait on one endpoint goes through the endpoint's wait scheduler,
// which keeps the Service's waits within the platform's limit on status
// requests, however many goroutines wait: 10,000 jobs waited for at once
// get no 429 (WaitBudget says how; Service.SetWaitBudget changes it).
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
// # Batch jobs
//
// Queue.Batches is an endpoint's batch API (beta on the platform): up to
// 5,000 requests (MaxBatchRequests) that the platform runs asynchronously
// on batch workers, apart from the endpoint's /run traffic, for work that
// can wait hours. A batch is built as a DRAFT (Create, Add), locked and
// started with Finalize, waited for with Wait and read with Results; see
// Batches for its states, limits and errors, and examples/batch.
//
// # Webhooks
//
// The platform POSTs a finished job's status JSON to RunParams.Webhook,
// and signs nothing: anyone who learns the URL can post a fake result, and
// a retry delivers the same job twice. To receive webhooks, use package
// [github.com/runpodkit/runpod-go/serverless/webhook]: it mints the URL
// with an HMAC token and verifies, deduplicates and answers each delivery.
// ReadWebhook here only reads and decodes a delivery, unauthenticated, for
// a receiver that authenticates it some other way.
//
// # Testing
//
// runpodtest serves all of this with the platform's rules: endpoints made
// over REST run jobs on a handler of yours (HandleTemplate, HandleImage,
// HandleQueue, AddQueueEndpoint), with the /run, /runsync and status-sync
// holds, streams, cancels, TTLs, webhooks, batches and the per-endpoint
// rate limits; HandleWorkerQueue serves your worker's production loop, and
// HandleLoadBalancer a load-balancing endpoint.
//
// # Workers
//
// The code that runs inside a worker (your handler, and the runtime that
// takes jobs from the queue and posts their results) is package
// serverless/worker.
package serverless
