// Command sandbox runs commands in a sandbox, an isolated CPU environment
// for untrusted code: it creates one (leased, labelled), waits until it
// runs, runs a command and a failing one, prints its log lines, and
// terminates it, on every path.
//
//	go run ./examples/sandbox                         # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/sandbox -confirm -cmd 'python3 -c "print(6*7)"'
//
// On your account the sandbox is billed per second while it exists (under
// a minute, at its compute.costPerHr): the example runs there only with
// -confirm, and terminates the sandbox at the end, even after a failure
// or a Ctrl-C. Its name carries a lease (package lease) of -lease: if the
// program dies first, lease.Reap terminates it once the lease is over, and
// the platform itself ends it at its idle timeout (-idle).
//
// A create whose answer is lost (a connection reset after the platform
// made the sandbox) is not sent again: Create finds the sandbox by the
// token label it put on it and goes on with it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/sandboxes"
)

func main() { demo.Main(run) }

// run parses args and takes a sandbox from creation to termination.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	image := fs.String("image", "python:3.12-slim", "container image")
	cmd := fs.String("cmd", "echo hello from the sandbox", "command to run, with sh -c")
	idle := fs.Int("idle", 300, "idle timeout in seconds: the platform ends the sandbox after this long without activity")
	ttl := fs.Duration("lease", 30*time.Minute, "how long the sandbox may live if this program dies before terminating it")
	confirm := fs.Bool("confirm", false, "create a (billed) sandbox on your account")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	if demo.Online() && !*confirm {
		return demo.Usagef("this creates a billed sandbox on your account; run again with -confirm")
	}
	name, err := lease.NameFor("runpod-go-sandbox", *ttl)
	if err != nil {
		return demo.Usage(fmt.Errorf("-lease: %w", err))
	}
	req := sandboxes.CreateSandboxRequest{
		Name:               runpod.Ptr(name),
		ImageName:          image,
		IdleTimeoutSeconds: idle,
		Labels:             map[string]string{"example": "sandbox"},
	}
	if err := req.Validate(); err != nil { // a bad flag sends nothing
		return demo.FlagError(err)
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-sandbox-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	// 1. Create. A create whose outcome is unknown is found again by its
	// token label, never sent twice.
	sb, err := rp.Sandboxes.Create(ctx, req)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(w, "1. created sandbox %s (%s), leased: %s\n", sb.ID, sb.State, sb.Name)
	fmt.Fprintf(w, "   idle timeout %ds, maximum lifetime %ds, token %s=%s\n", sb.IdleTimeoutSeconds, sb.MaxLifetimeSeconds, sandboxes.TokenLabel, sb.Labels[sandboxes.TokenLabel])
	defer func() { // terminate it whatever happens, Ctrl-C included
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Sandboxes.Terminate(cleanup, sb.ID); err != nil {
			fmt.Fprintf(w, "   could not terminate sandbox %s (%v); lease.Reap terminates it after its lease\n", sb.ID, err)
		}
	}()

	// 2. Wait until it runs.
	last := sb.State
	sb, err = rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{Interval: 250 * time.Millisecond, OnCheck: func(c *sandboxes.Sandbox) {
		if c.State != last {
			fmt.Fprintf(w, "   %s -> %s\n", last, c.State)
			last = c.State
		}
	}})
	if err != nil {
		return fmt.Errorf("wait: %w", err)
	}
	if sb.Compute != nil {
		fmt.Fprintf(w, "2. running on %g vCPUs, %g GB, at $%.3f/h\n", sb.Compute.VcpuCount, sb.Compute.MemoryInGb, sb.Compute.CostPerHr)
	}

	// 3. Run a command. Its container may still be starting (409):
	// Exec waits for it.
	res, err := rp.Sandboxes.Exec(ctx, sb.ID, []string{"sh", "-c", *cmd})
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	fmt.Fprintf(w, "3. ran %q: %s", *cmd, res.Output)

	// 4. A command that fails: its output and an *ExecError.
	res, err = rp.Sandboxes.Exec(ctx, sb.ID, []string{"sh", "-c", "echo about to fail && exit 3"})
	var failed *sandboxes.ExecError
	if !errors.As(err, &failed) {
		return fmt.Errorf("exec exit 3: %v", err)
	}
	fmt.Fprintf(w, "4. exit 3 -> *sandboxes.ExecError %q, output %q\n", failed.Message, res.Output)

	// 5. The log: the platform's lifecycle lines and the main process's
	// output (not the commands').
	fmt.Fprintln(w, "5. log lines:")
	follow, stopFollowing := context.WithTimeout(ctx, 2*time.Second)
	defer stopFollowing()
	n := 0
	for line, err := range rp.Sandboxes.Logs(follow, sb.ID, sandboxes.GetSandboxLogsParams{Tail: runpod.Ptr(5)}) {
		if err != nil {
			return fmt.Errorf("logs: %w", err)
		}
		fmt.Fprintf(w, "   [%s] %s\n", line.Source, line.Line)
		if n++; n == 3 {
			break
		}
	}

	// 6. Terminate: billing stops; the record stays readable.
	if err := rp.Sandboxes.Terminate(ctx, sb.ID); err != nil {
		return fmt.Errorf("terminate: %w", err)
	}
	end, err := rp.Sandboxes.Get(ctx, sb.ID)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	reason := ""
	if end.TerminationReason != nil {
		reason = ": " + *end.TerminationReason
	}
	fmt.Fprintf(w, "6. %s%s\n", end.State, reason)
	return nil
}
