// Command endpoints walks through a serverless endpoint's life: create it,
// list it, change one setting (and see that the others survived the
// platform's full-replace save), look at the release that change made, at
// the endpoint's workers and at a worker's log, scale it to zero and
// delete it.
//
//	go run ./examples/endpoints                     # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/endpoints -template <template id>
//
// On your account it costs nothing as run by default: serverless bills
// running workers only, and this endpoint never has one. It is created and
// kept with workersMin 0 (no always-on worker), no job is ever sent to it
// (so none starts), and it is deleted at the end.
//
// With -workers-min N (1 to 3) step 3 also sets workersMin to N, so that
// it has workers to show (and a log to read, for -log-wait) and step 4
// has workers to wait for: then it is not free. N workers start,
// each billed per second at its GPU's active-worker price, from step 3
// until step 4 has drained them, usually a minute or two (and the cold
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
	s, err := demo.Connect(w, runpod.WithUserAgent("runpod-endpoints-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	if *template == "" {
		*template = demo.DemoTemplate
	}
	eps := s.Client.Serverless.Endpoints

	// 1. Create, with no always-on worker (workersMin 0: nothing is billed)
	// and settings worth keeping.
	ep, err := eps.Create(ctx, serverless.EndpointParams{
		Name:        *name,
		TemplateID:  *template,
		GPUs:        []serverless.GPUPool{serverless.Ada24, serverless.Ampere24},
		Locations:   []serverless.Location{serverless.US, serverless.RO},
		IdleTimeout: runpod.Ptr(30),
		FlashBoot:   serverless.FlashBootOn,
		ScalerType:  serverless.QueueDelay,
		ScalerValue: runpod.Ptr(2),
		WorkersMin:  runpod.Ptr(0),
		WorkersMax:  runpod.Ptr(2),
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(w, "1. created %s %q\n   %s\n", ep.ID, ep.Name, describe(ep))
	deleted := false
	defer func() {
		if !deleted { // clean up on the way out of a failure
			cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			_ = eps.ScaleDownAndDelete(cleanup, ep.ID, runpod.Poll[int]{})
		}
	}()

	// 2. List.
	list, err := eps.List(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "2. the account has %d endpoint(s)", len(list.Endpoints))
	if list.Discount != nil {
		fmt.Fprintf(w, " and a %s discount (factor %.2f)", list.Discount.Type, list.Discount.Factor)
	}
	fmt.Fprintln(w)

	// 3. Change a setting; Update sends back everything else. workersMin
	// changes only when asked: above 0 it keeps billed workers running.
	ep, err = eps.Update(ctx, ep.ID, func(spec *serverless.EndpointParams) {
		spec.WorkersMax = runpod.Ptr(3)
		spec.WorkersMin = runpod.Ptr(*workersMin)
	})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	changed := "workersMax to 3"
	if *workersMin > 0 {
		changed += fmt.Sprintf(" and workersMin to %d", *workersMin)
		if s.Fake == nil {
			changed += " (billed workers start now, until step 4 drains them)"
		}
	}
	fmt.Fprintf(w, "3. set %s; everything else survived:\n   %s\n", changed, describe(ep))
	if err := inspect(ctx, w, eps, ep.ID, *logWait); err != nil {
		return err
	}

	// 4. Scale to zero, wait for any worker to go, delete.
	err = eps.ScaleDownAndDelete(ctx, ep.ID, runpod.Poll[int]{
		Interval: 100 * time.Millisecond,
		OnCheck:  onChange(func(n int) { fmt.Fprintf(w, "4. scaled to zero: %d worker(s) left\n", n) }),
	})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	deleted = true
	fmt.Fprintf(w, "5. deleted %s\n", ep.ID)
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
	return fmt.Sprintf("gpus=%s locations=%s idleTimeout=%ds flashBoot=%s scaler=%s/%d workers=%d..%d",
		join(ep.GPUs), join(ep.Locations), deref(ep.IdleTimeout), ep.FlashBoot, ep.ScalerType, deref(ep.ScalerValue),
		deref(ep.WorkersMin), deref(ep.WorkersMax))
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
