package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/runpodkit/runpod-go/internal/version"
)

// Handler runs one job. It returns the job's output (any JSON-encodable
// value) or an error that fails the job. ctx ends when the platform stops
// the job, or on a forced shutdown.
type Handler func(ctx context.Context, job *Job) (any, error)

// Typed adapts a function of a typed input: the job's input is decoded
// and checked with ValidateInput first (an invalid input fails the job
// with the list of problems, without calling f).
func Typed[In, Out any](f func(ctx context.Context, in In, job *Job) (Out, error)) Handler {
	return func(ctx context.Context, job *Job) (any, error) {
		var in In
		if err := ValidateInput(job.Input, &in); err != nil {
			return nil, err
		}
		return f(ctx, in, job)
	}
}

// Job is one job as the handler sees it.
type Job struct {
	// ID is the job's id.
	ID string
	// Input is the job's "input", as JSON. It may share memory with Raw:
	// a handler reads both and changes neither.
	Input json.RawMessage
	// Webhook is the job's webhook URL, when it has one.
	Webhook string
	// BatchID tags jobs of a batch.
	BatchID string
	// Raw is the whole job object as received.
	Raw json.RawMessage

	mu      sync.Mutex
	chunks  []json.RawMessage
	refresh bool
	done    bool
	out     outlet // where chunks and progress go (nil: chunks are only collected)
}

// outlet is where a running job's stream chunks and progress updates go
// as its handler makes them: the local server's job store, the platform
// (in production), the log (in test mode).
type outlet interface {
	stream(chunk json.RawMessage) error
	progress(progress json.RawMessage) error
}

// Decode unmarshals the job's input into v.
func (j *Job) Decode(v any) error {
	if len(j.Input) == 0 {
		return errors.New("job has no input")
	}
	if err := json.Unmarshal(j.Input, v); err != nil {
		return fmt.Errorf("decoding the job's input: %w", err)
	}
	return nil
}

// Stream emits a chunk of a streaming handler's output: posted to the
// platform at once in production (read through /stream), collected by the
// local server, printed in test mode. It returns an error when the chunk
// cannot be encoded or delivered.
func (j *Job) Stream(chunk any) error {
	return j.deliver(chunk, "a stream chunk", true)
}

// Progress reports progress (any JSON value) while the job runs. In
// production it is posted before Progress returns, so it can never
// overtake the job's result.
func (j *Job) Progress(v any) error {
	return j.deliver(v, "progress", false)
}

// deliver encodes v (what names it in the error) and, unless the job has
// finished, collects it when it is a stream chunk, then hands it to the
// job's outlet (after the lock).
func (j *Job) deliver(v any, what string, chunk bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", what, err)
	}
	j.mu.Lock()
	if j.done {
		j.mu.Unlock()
		return errors.New("the job has already finished")
	}
	if chunk {
		j.chunks = append(j.chunks, b)
	}
	out := j.out
	j.mu.Unlock()
	switch {
	case out == nil:
		return nil
	case chunk:
		return out.stream(b)
	default:
		return out.progress(b)
	}
}

// RefreshWorker asks the platform to replace this worker after the job
// (the result carries "stopPod": true).
func (j *Job) RefreshWorker() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refresh = true
}

// Chunks returns the chunks streamed so far.
func (j *Job) Chunks() []json.RawMessage {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]json.RawMessage(nil), j.chunks...)
}

func (j *Job) finish() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done = true
}

// Option configures Start and Run.
type Option func(*config)

type config struct {
	args        []string
	env         func(string) string
	stdout      io.Writer
	concurrency func(current int) int
	aggregate   bool
	refresh     bool
	background  bool
	listener    net.Listener
	workDir     string
	testFile    string
	maxBody     int64
	// The local server's store of /run jobs (see DefaultResultRetention).
	retention      time.Duration
	maxKeptJobs    int
	maxKeptBytes   int64
	maxQueuedBytes int64
	clock          func() time.Time
	client         *http.Client // the production loop's (nil: its own)
	// handlerGrace is how long a handler may take to return once the hard
	// stop cancelled it, before its job is reported without it.
	handlerGrace time.Duration
	hooks        *hooks // nil outside the package's tests
}

// hooks let the package's tests wait for events they would otherwise have
// to poll for.
type hooks struct {
	server   func(*localServer)              // the local server, once built
	handler  func(http.Handler) http.Handler // wraps the local server's routes
	jobEnded func(id string)                 // the local server recorded a /run job's end
}

// WithArgs sets the command-line arguments to read the rp_ flags from
// (default os.Args[1:]). Arguments the worker does not own are left for the
// application: see Args.
func WithArgs(args []string) Option { return func(c *config) { c.args = args } }

// WithEnv sets how environment variables are read (default os.Getenv).
func WithEnv(getenv func(string) string) Option { return func(c *config) { c.env = getenv } }

// WithOutput sets where results and log lines go (default os.Stdout).
func WithOutput(w io.Writer) Option { return func(c *config) { c.stdout = w } }

// WithConcurrency runs up to n jobs at once in the production loop (the
// local server takes --rp_api_concurrency).
func WithConcurrency(n int) Option {
	return func(c *config) { c.concurrency = func(int) int { return n } }
}

// WithConcurrencyModifier lets the production loop ask, before taking
// jobs, how many it may run at once; a new answer applies at once.
func WithConcurrencyModifier(f func(current int) int) Option {
	return func(c *config) { c.concurrency = f }
}

// WithHTTPClient sets the HTTP client the production loop reaches the
// platform with: its job-take, job-done, job-stream, ping and job-stop
// requests. The default is a client of its own, on a clone of
// http.DefaultTransport (so proxies come from the environment). The loop
// bounds each request itself and holds job-take and job-stop open for up
// to 90 s, so the client should have no Timeout. The loop leaves the
// client's connections as they are when it ends.
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.client = client } }

// WithAggregateStream makes a streaming job's final result carry every
// chunk (return_aggregate_stream), as well as streaming them.
func WithAggregateStream() Option { return func(c *config) { c.aggregate = true } }

// WithRefreshWorker asks the platform to replace the worker after its
// first job: every result carries "stopPod": true, and the production
// loop ends after that job.
func WithRefreshWorker() Option { return func(c *config) { c.refresh = true } }

// WithBackgroundRun makes the local server's POST /run start the job in
// the background, so /status and /stream report it as it runs. By default
// /run only queues the job, as the platform's local server does, and
// /status or /stream runs it.
func WithBackgroundRun() Option { return func(c *config) { c.background = true } }

// WithListener serves the local API on l instead of --rp_api_host and
// --rp_api_port (tests use a port chosen by the system). The SDK reaches
// it with option.WithInferenceURL("http://" + l.Addr().String()).
func WithListener(l net.Listener) Option { return func(c *config) { c.listener = l } }

// WithWorkDir sets where local test mode looks for test_input.json
// (default the working directory).
func WithWorkDir(dir string) Option { return func(c *config) { c.workDir = dir } }

// WithTestInputFile makes local test mode read its job from path when
// --test_input is not given, instead of test_input.json in the working
// directory.
func WithTestInputFile(path string) Option { return func(c *config) { c.testFile = path } }

// WithMaxBodySize caps the local server's request bodies (default 20 MiB,
// the platform's runsync limit).
func WithMaxBodySize(n int64) Option { return func(c *config) { c.maxBody = n } }

// WithResultRetention sets how long the local server keeps a finished /run
// job's result readable by /status and /stream (default 30 minutes, as the
// platform keeps /run results), and how many finished jobs it keeps at
// most (default 1000; 0 keeps the default). Past either bound the oldest
// is forgotten and answers 404 like an unknown id; results also never hold
// more than 256 MiB together.
func WithResultRetention(d time.Duration, maxJobs int) Option {
	return func(c *config) {
		if d > 0 {
			c.retention = d
		}
		if maxJobs > 0 {
			c.maxKeptJobs = maxJobs
		}
	}
}

func newConfig(opts []Option) *config {
	c := &config{args: os.Args[1:], env: os.Getenv, stdout: os.Stdout, maxBody: 20 << 20, clock: time.Now,
		retention: DefaultResultRetention, maxKeptJobs: DefaultMaxKeptJobs, maxKeptBytes: DefaultMaxKeptBytes, maxQueuedBytes: DefaultMaxQueuedBytes,
		handlerGrace: handlerGrace}
	for _, o := range opts {
		o(c)
	}
	return c
}

// ExitError is a worker run that should end the process with Code.
type ExitError struct {
	// Code is the process exit status the failure calls for.
	Code int
	// Err is the cause.
	Err error
}

// Error returns the cause.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ExitError) Unwrap() error { return e.Err }

// Start runs handler in the mode the flags and environment select, and
// exits the process when done: 0 on success, 1 when local test mode's job
// fails or input is missing, 2 on bad flags, including a flag in the
// worker's rp_ namespace that it does not know (such as a misspelt
// --rp_serve_apii), named on stderr.
//
// SIGINT and SIGTERM stop the local server, or drain the production loop:
// it takes no more jobs, runs the ones the platform has handed over (a
// take it is answering is read whole; one still silent is given up after
// 2 s) and posts their results. A second signal cancels the jobs still
// running and posts each one's result, an error saying the worker shut
// down, within 10 s; a handler that has not returned 5 s after being
// cancelled is left behind and its job reported without it. Either way
// the process then exits 0.
func Start(handler Handler, opts ...Option) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	os.Exit(exitCode(run(context.Background(), handler, sig, opts)))
}

// Run runs handler like Start but returns instead of exiting, for tests
// and for programs with their own main loop. Cancelling ctx stops the
// server, or makes the production loop stop taking jobs and drain the
// running ones.
func Run(ctx context.Context, handler Handler, opts ...Option) error {
	return run(ctx, handler, nil, opts)
}

func exitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		fmt.Fprintln(os.Stderr, ee.Err)
		return ee.Code
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
}

// run selects the mode. The first signal (or ctx) ends the run gracefully;
// a second cancels running jobs.
func run(ctx context.Context, handler Handler, sig <-chan os.Signal, opts []Option) error {
	if handler == nil {
		return &ExitError{Code: 2, Err: errors.New("worker: handler is nil")}
	}
	c := newConfig(opts)
	if sig != nil { // a process run by Start: announce it, through the worker's writer
		fmt.Fprintf(c.stdout, "--- Starting Serverless Worker |  Version %s (runpod-go) ---\n", version.Version)
	}
	f, err := parseFlags(c.args)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	log := newLogger(c.stdout, f.logLevel, c.env("RUNPOD_ENDPOINT_ID") != "")
	if f.logLevelSet {
		log.info("", "Log level set to "+f.logLevel.String())
	}

	graceful, stop := context.WithCancel(ctx)
	defer stop()
	hard, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	if sig != nil {
		go func() {
			select {
			case <-sig:
				// Stop first: once the line is out, the loop takes no more
				// jobs (a reader of the log may act on it at once).
				stop()
				log.info("", "Signal received, shutting down.")
			case <-graceful.Done():
				return
			}
			select {
			case <-sig:
				kill()
				log.warn("", "Second signal: cancelling the jobs still running.")
			case <-hard.Done():
			}
		}()
	}

	switch {
	case f.serveAPI:
		return serveLocal(graceful, handler, c, f, log)
	case f.testInput != nil || c.env("RUNPOD_WEBHOOK_GET_JOB") == "":
		return runTestInput(graceful, handler, c, f, log)
	default:
		return runProduction(graceful, hard, handler, c, f, log)
	}
}
