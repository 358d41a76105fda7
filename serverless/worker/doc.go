// Package worker is a Go runtime for the handlers that run inside RunPod
// serverless workers, in the three modes the platform's runtime has:
//
//   - local test mode: run the handler once on --test_input or
//     test_input.json, print the result, exit 0 (or 1 on failure);
//   - the local API server (--rp_serve_api): /runsync, /run, /status,
//     /status-sync, /stream, /cancel, /purge-queue and /health on
//     http://localhost:8000, each also under /v2/{endpoint id}/ as the
//     platform serves them, for trying a handler with curl or with the
//     SDK pointed at it by option.WithInferenceURL (see below);
//   - the production loop, selected by RUNPOD_WEBHOOK_GET_JOB: take jobs
//     from the platform, run them, post results and stream chunks, send
//     heartbeats, honour stop signals, drain on SIGTERM.
//
// A main is one line:
//
//	func main() { worker.Start(handle) }
//
//	func handle(ctx context.Context, job *worker.Job) (any, error) {
//		var in struct{ Prompt string }
//		if err := job.Decode(&in); err != nil {
//			return nil, err
//		}
//		job.Stream("thinking…")          // streaming handlers emit chunks
//		return map[string]string{"echo": in.Prompt}, nil
//	}
//
// It keeps the wire behaviour the platform relies on and fixes the known
// defects of the Python runtime: streaming handlers run in every mode, a
// handler that panics fails its job and nothing else, --rp_api_concurrency
// runs N handlers at once in one process, results are retried until
// delivered, progress never overtakes a result, and a stop signal cancels
// the handler's context.
//
// Typed wraps a handler of a typed input: the job's input is decoded into
// it and checked (ValidateInput: unknown fields, fields tagged
// required:"true", a Validate method) before the handler runs. The jobs come from the platform's queue, whose client side is
// package serverless (serverless.Queue); package runpodtest runs a handler
// the way this runtime does (runpodtest.Server.HandleQueue), and serves
// the platform's worker side (HandleWorkerQueue: job-take, job-done,
// job-stream, ping, job-stop), so a worker can be tested end to end.
// Example: examples/worker.
//
// # Flags
//
// --rp_serve_api (the local API server), --rp_api_port (8000),
// --rp_api_host (localhost), --rp_api_concurrency (1: handlers run at
// once), --rp_log_level (ERROR, WARN, INFO, DEBUG; anything else exits 2),
// --rp_debugger and --test_input (a job's JSON, else test_input.json in the
// working directory). Hyphenated spellings work too. Flags outside the rp_
// namespace are left for your program (AppArgs); a flag in it that the
// worker does not know (--rp_serve_apii) exits 2 naming it, instead of
// running another mode.
//
// # The local API server and the SDK
//
// The local API server answers the platform's job routes under
// /v2/{endpoint id}/ as well as at its root, for any endpoint id, and
// ignores the API key, so the SDK's serverless.Queue runs jobs on it
// unchanged once the client's inference URL points at it (plain http is
// fine for a loopback host such as localhost):
//
//	// go run . --rp_serve_api   (in the handler's directory)
//	rp, err := runpod.NewClient(
//		option.WithInferenceURL("http://localhost:8000"),
//		option.WithAPIKey("local"), // any key: the local server does not check it
//	)
//	if err != nil {
//		return err
//	}
//	job, err := rp.Serverless.Queue("local").RunSync(ctx,
//		serverless.RunParams{Input: map[string]string{"prompt": "hi"}}, serverless.WaitOptions{})
//
// RunSync, Run, Status, Wait, Stream, Cancel, Purge and Health work as on
// the platform, with one difference kept from the curl routes: a job Run
// submits waits until Status, Wait or Stream asks for it (WithBackgroundRun
// starts it at once). Retry is answered 501: the local server forgets a
// job's input once it has run. As on the platform, a /runsync that asks for
// a hold (?wait=, which the SDK sends when ctx's deadline is near) answers
// with the job still running once the hold has passed, and keeps the job's
// result for Status and Wait.
//
// The local server keeps jobs as the platform keeps results: a job's input
// is dropped once it has run, a finished job holds only its result, and
// stays readable for 30 minutes (WithResultRetention); queued inputs are
// bounded at 512 MiB (a /run past it is a 429). It does not cut a handler
// off: jobs have no execution timeout there.
package worker
