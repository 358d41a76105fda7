// Package sandboxes runs untrusted code (what an AI agent writes, what a
// user submits) in isolated, short-lived CPU environments over the REST
// v2 API (/v2/sandboxes), billed per second until they terminate.
//
//	sb, err := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{
//		ImageName: runpod.Ptr("python:3.12-slim"),
//		Labels:    map[string]string{"project": "agent"},
//	})
//	if err != nil {
//		return err
//	}
//	defer rp.Sandboxes.Terminate(context.WithoutCancel(ctx), sb.ID) // billing stops here
//	sb, err = rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{}) // RUNNING
//	res, err := rp.Sandboxes.Exec(ctx, sb.ID, []string{"python", "-c", "print(6*7)"})
//	fmt.Print(res.Output) // 42
//
// Service (runpod.Client.Sandboxes) creates (Create), reads (Get), lists
// (List, All, filtered by state and labels), waits for (Wait), runs
// commands in (Exec), streams the logs of (Logs) and terminates
// (Terminate) sandboxes. The types are generated from the platform's REST
// v2 document (as the repository's derived copy has them, from the docs
// pages of the sandbox operations) and keep its names: Sandbox,
// SandboxState, CreateSandboxRequest, ListSandboxesParams,
// GetSandboxLogsParams.
//
// # Life of a sandbox
//
// Create answers at once with the sandbox CREATING; Wait polls it until
// it is RUNNING, and fails with an *EndedError (errors.Is ErrEnded) when
// it is FAILED or TERMINATED instead. RUNNING means that its compute is
// allocated, not that its container has started: for 10 to 30 seconds
// more the platform answers commands and log streams with 409. Exec and
// Logs wait through that window within their context, checking that the
// sandbox has not ended meanwhile. A sandbox ends at the first of its
// idle timeout (IdleTimeoutSeconds: DefaultIdleTimeoutSeconds, at most
// MaxIdleTimeoutSeconds) and its maximum lifetime (MaxLifetimeSeconds:
// DefaultMaxLifetimeSeconds, at most MaxLifetimeSecondsLimit), or when
// Terminate ends it; a terminated sandbox cannot be restarted and stays
// readable by id.
//
// Terminate explicitly, on error paths too (a deferred Terminate with a
// context that is not cancelled, as above): a timeout ends the billing
// only when it runs out. Terminate is idempotent.
//
// # Creates are never paid twice
//
// The platform has no idempotency key for creates yet; its docs say to
// list the sandboxes by a label before retrying a create that failed at
// the network layer. Create does that itself: it puts a label of its own,
// TokenLabel, holding a random token on every sandbox it creates, and
// when the create's outcome is unknown (a connection reset after the
// request was sent, a 5xx: errs.ErrOutcomeUnknown) it lists the
// sandboxes carrying that token and returns the one it finds, as if the
// create had answered. It never sends the create again. When none
// carries the token, the error stays ErrOutcomeUnknown and names the token
// (see Create); FindByToken looks again later. A program that must
// survive being killed mid-create records a token of its own first
// (NewToken, in Labels[TokenLabel]) and looks it up when it restarts.
//
// # Errors
//
// A request is validated before anything is sent (a *errs.ValidationError
// naming the field, such as "CreateSandboxRequest.ImageName"). A create
// the account's balance cannot pay for matches errs.ErrPaymentRequired
// (402); one with no capacity for it is an *errs.CapacityError
// (errs.ErrNoCapacity, 503): nothing was created in either case. A
// command that fails is an *ExecError (errors.Is ErrCommandFailed) with
// its output.
//
// # Leases
//
// A sandbox is a leased resource like a pod (package lease): a name made
// by lease.Name puts a deadline on it, and lease.Reap terminates it once
// the deadline has passed, well before the platform's own maximum
// lifetime when that is long.
package sandboxes
