// Command endpoints walks through a serverless endpoint's life over the
// REST v2 API: make it match a spec with Apply (which creates it), list
// it, apply a changed spec (one PATCH carrying only what differs, and
// what changed, field by field), apply it again (nothing to do), look at
// the release the change made, at the endpoint's workers and at a
// worker's log, scale it to zero and delete it.
//
//	go run ./examples/endpoints                     # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/endpoints -template <template id>
//
// On your account it costs nothing as run by default: serverless bills
// running workers only, and this endpoint never has one. It is created and
// kept with workers.min 0 (no always-on worker), no job is ever sent to it
// (so none starts), and it is deleted at the end.
//
// With -workers-min N (1 to 3) step 3 also sets workers.min to N, so that
// it has workers to show (and a log to read, for -log-wait) and step 5
// has workers to wait for: then it is not free. N workers start,
// each billed per second at its GPU's active-worker price, from step 3
// until step 5 has drained them, usually a minute or two (and the cold
// start of a 24 GB GPU is billed too).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

func main() { demo.Main(run) }

// run parses args and takes an endpoint through its life.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("endpoints", flag.ContinueOnError)
	template := fs.String("template", "", "serverless template id (required with RUNPOD_API_KEY; offline, the demo template)")
	name := fs.String("name", "runpod-go-example", "endpoint name")
	workersMin := fs.Int("workers-min", 0, "workers kept running from step 3 to step 4, 0 to 3 (on your account, each one is billed while it runs)")
	logWait := fs.Duration("log-wait", time.Second, "how long step 3 follows a worker's log (with -workers-min)")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	if *workersMin < 0 || *workersMin > 3 {
		return demo.Usagef("-workers-min: want 0 to 3 (the endpoint's workersMax), got %d", *workersMin)
	}
	if *logWait <= 0 || *logWait > time.Minute {
		return demo.Usagef("-log-wait: want a duration above 0 and at most 1m, got %v", *logWait)
	}
	if *template == "" && demo.Online() {
		return demo.Usagef("-template is required with RUNPOD_API_KEY set")
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-endpoints-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	if *template == "" {
		*template = demo.DemoTemplate
	}
	eps := s.Client.Serverless.Endpoints

	// 1. Apply a spec: no endpoint has its name yet, so Apply creates it,
	// with no always-on worker (workers.min 0: nothing is billed).
	spec := serverless.CreateEndpointRequest{
		Name:          *name,
		Type:          serverless.EndpointTypeQueue,
		TemplateID:    template,
		GPU:           &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24, serverless.GPUPoolAmpere24}},
		DataCenterIDs: []string{"EU-RO-1", "US-KS-2"},
		FlashBoot:     runpod.Ptr(serverless.FlashBootOn),
		Scaling:       serverless.ScaleByQueueDelay(2),
		Workers:       &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(2), IdleTimeout: runpod.Ptr(30)},
	}
	res, err := eps.Apply(ctx, spec)
	if err != nil {
		return demo.FlagError(fmt.Errorf("apply: %w", err)) // -name, -template
	}
	ep := res.Endpoint
	fmt.Fprintf(w, "1. applied: created %s %q\n   %s\n", ep.ID, ep.Name, describe(ep))
	deleted := false
	defer func() {
		if !deleted { // clean up on the way out of a failure
			cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			_ = eps.ScaleDownAndDelete(cleanup, ep.ID, option.Poll[int]{})
		}
	}()

	// 2. List.
	list, err := eps.List(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "2. the account has %d endpoint(s)\n", len(list))

	// 3. Apply a changed spec: one PATCH with only what differs; every
	// other setting stays. workers.min changes only when asked: above 0
	// it keeps billed workers running.
	spec.Workers = &serverless.EndpointWorkers{Min: runpod.Ptr(*workersMin), Max: runpod.Ptr(3), IdleTimeout: runpod.Ptr(30)}
	if res, err = eps.Apply(ctx, spec); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	ep = res.Endpoint
	fmt.Fprintf(w, "3. applied a change:")
	for _, c := range res.Changes {
		fmt.Fprintf(w, " %s;", c)
	}
	if *workersMin > 0 && s.Fake == nil {
		fmt.Fprint(w, " (billed workers start now, until step 5 drains them)")
	}
	fmt.Fprintf(w, " everything else stayed:\n   %s\n", describe(ep))

	// 4. Apply the same spec again: nothing differs, nothing is sent.
	if res, err = eps.Apply(ctx, spec); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	fmt.Fprintf(w, "4. applied again: %d change(s)\n", len(res.Changes))
	if err := inspect(ctx, w, eps, ep.ID, *logWait); err != nil {
		return err
	}

	// 5. Scale to zero, wait for any worker to go, delete.
	err = eps.ScaleDownAndDelete(ctx, ep.ID, option.Poll[int]{
		Interval: 100 * time.Millisecond,
		OnCheck:  onChange(func(n int) { fmt.Fprintf(w, "5. scaled to zero: %d worker(s) left\n", n) }),
	})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	deleted = true
	fmt.Fprintf(w, "6. deleted %s\n", ep.ID)
	return nil
}

// inspect shows, over the REST API, the release the change made, the
// endpoint's workers, and the last lines of the first worker's log,
// followed for at most wait.
func inspect(ctx context.Context, w io.Writer, eps *serverless.Endpoints, id string, wait time.Duration) error {
	rel, err := eps.Releases(ctx, id)
	if err != nil {
		return fmt.Errorf("releases: %w", err)
	}
	if len(rel.Releases) > 0 {
		r := rel.Releases[0]
		var changes []string
		for _, d := range r.Diff {
			changes = append(changes, fmt.Sprintf("%s %s -> %s", d.Field, d.Old, d.New))
		}
		fmt.Fprintf(w, "   release %s (%s): %s\n", version(r.Version), r.Source, strings.Join(changes, ", "))
	}
	list, err := eps.Workers(ctx, id)
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	if len(list.Workers) == 0 {
		fmt.Fprintf(w, "   workers: none; the endpoint is at %s\n", version(rel.EndpointVersion))
		return nil
	}
	sum := list.Summary
	var by []string
	for _, c := range []struct {
		n    int
		what string
	}{{sum.Running, "running"}, {sum.Idle, "idle"}, {sum.Initializing, "initializing"}, {sum.Throttled, "throttled"}, {sum.Unhealthy, "unhealthy"}} {
		if c.n > 0 {
			by = append(by, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(w, "   workers: %d (%s), %d%% on %s\n", sum.Total, strings.Join(by, ", "), rel.Rollout.PercentOnLatest, version(rel.EndpointVersion))
	worker := list.Workers[0].ID
	fmt.Fprintf(w, "   log of worker %s (the last 5 lines, followed for %v):\n", worker, wait)
	follow, stop := context.WithTimeout(ctx, wait)
	defer stop()
	n := 0
	for line, err := range eps.WorkerLogs(follow, id, worker, serverless.GetWorkerLogsParams{Tail: runpod.Ptr(5)}) {
		if err != nil {
			return fmt.Errorf("log of worker %s: %w", worker, err)
		}
		fmt.Fprintf(w, "     %s [%s] %s\n", line.Time.Format(time.TimeOnly), line.Source, line.Line)
		n++
	}
	if n == 0 {
		fmt.Fprintln(w, "     (no lines yet)")
	}
	return ctx.Err()
}

// version shows a configuration version, which the platform may not know.
func version(v *int) string {
	if v == nil {
		return "version ?"
	}
	return fmt.Sprintf("version %d", *v)
}

// onChange returns a callback that calls f with each value that differs
// from the one before, so a wait's progress is shown once per change, not
// once per check.
func onChange[T comparable](f func(T)) func(T) {
	var last T
	seen := false
	return func(v T) {
		if !seen || v != last {
			f(v)
			last, seen = v, true
		}
	}
}

// describe shows the settings of ep that the example sets.
func describe(ep *serverless.Endpoint) string {
	gpus := "none"
	if ep.GPU != nil {
		gpus = join(ep.GPU.Pools)
	}
	return fmt.Sprintf("gpus=%s dataCenters=%s idleTimeout=%ds flashboot=%s scaling=%s workers=%d..%d",
		gpus, join(ep.DataCenterIDs), deref(ep.Workers.IdleTimeout), ep.FlashBoot, ep.Scaling,
		deref(ep.Workers.Min), deref(ep.Workers.Max))
}

// join lists ids, or says "any" for none.
func join[T ~string](ids []T) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = string(id)
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, ",")
}

// deref returns *p, or 0 for nil.
func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
