package sandboxes

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"slices"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// Routes of the REST v2 document.
const (
	sandboxesRoute = "/v2/sandboxes"
	sandboxRoute   = "/v2/sandboxes/{sandboxId}"
	execRoute      = "/v2/sandboxes/{sandboxId}/exec"
	logsRoute      = "/v2/sandboxes/{sandboxId}/logs"
)

// sandboxID is the rule of sandbox ids: letters, digits, '-' and '_', so
// that an id is one path segment no server or proxy rewrites.
var sandboxID = rest.ID{Field: "sandboxID", Extra: "-_"}

// The timeouts of the platform's sandbox policy, from its docs
// (sandboxes/overview, "Timeouts"). The platform applies the default to a
// value left out and clamps a value above the maximum to the maximum;
// Sandbox.IdleTimeoutSeconds and MaxLifetimeSeconds report what it
// applied. The SDK sends what the request asks for and clamps nothing:
// the maximum is the account's policy ("after any clamping to the account
// maximum"), which may differ from these published figures.
const (
	// DefaultIdleTimeoutSeconds is the idle timeout of a sandbox whose
	// create leaves it out: 10 minutes.
	DefaultIdleTimeoutSeconds = 600
	// MaxIdleTimeoutSeconds is the most idle timeout the platform
	// applies: 2 hours.
	MaxIdleTimeoutSeconds = 7200
	// DefaultMaxLifetimeSeconds is the maximum lifetime of a sandbox whose
	// create leaves it out: 1 hour.
	DefaultMaxLifetimeSeconds = 3600
	// MaxLifetimeSecondsLimit is the most maximum lifetime the platform
	// applies: 24 hours.
	MaxLifetimeSecondsLimit = 86400
)

// Final reports whether the state is one a sandbox never leaves:
// TERMINATED or FAILED.
func (s SandboxState) Final() bool {
	return s == SandboxStateTerminated || s == SandboxStateFailed
}

// ErrEnded matches an *EndedError: the sandbox is TERMINATED or FAILED,
// for good.
var ErrEnded = errors.New("sandboxes: the sandbox has ended")

// EndedError reports that a sandbox a call needed alive (Wait, Exec, Logs)
// is TERMINATED or FAILED. It matches ErrEnded.
type EndedError struct {
	// ID is the sandbox's id.
	ID string
	// State is SandboxStateTerminated or SandboxStateFailed.
	State SandboxState
	// Reason is the platform's TerminationReason, "" when it gave none.
	Reason string
}

// Error names the sandbox, its state and the platform's reason.
func (e *EndedError) Error() string {
	msg := fmt.Sprintf("sandboxes: sandbox %s is %s", e.ID, e.State)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is reports whether target is ErrEnded.
func (e *EndedError) Is(target error) bool { return target == ErrEnded }

// ended returns the *EndedError of a sandbox in a final state, else nil.
func ended(sb *Sandbox) error {
	if !sb.State.Final() {
		return nil
	}
	e := &EndedError{ID: sb.ID, State: sb.State}
	if sb.TerminationReason != nil {
		e.Reason = *sb.TerminationReason
	}
	return e
}

// Label returns the "key=value" form of a label that
// ListSandboxesParams.Labels takes.
func Label(key, value string) string { return key + "=" + value }

// List returns the account's sandboxes that p selects, every page of them
// (All reads them a page at a time). Without p.State, terminated
// sandboxes are left out, as the platform lists them; with several
// filters a sandbox matches all of them. A label is "key=value" (Label):
// keys and values match exactly.
func (s *Service) List(ctx context.Context, p ListSandboxesParams, opts ...option.RequestOption) ([]Sandbox, error) {
	r, err := rest.List(ctx, s.t, sandboxesAt(p), opts, sandboxPage)
	return r.Sandboxes, err
}

// All returns the sandboxes List returns, one at a time, holding one page
// of them: the first page is asked for when the loop starts, a failure
// ends the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, p ListSandboxesParams, opts ...option.RequestOption) iter.Seq2[Sandbox, error] {
	return rest.All(ctx, s.t, sandboxesAt(p), opts, sandboxPage)
}

// sandboxesAt is the Path of the listing p asks for.
func sandboxesAt(p ListSandboxesParams) rest.Path {
	return rest.At(sandboxesRoute).Query(p.query()).Check(p.check())
}

// sandboxPage tells where a page of the listing keeps its sandboxes.
func sandboxPage(r *listSandboxesResponse) (*[]Sandbox, *rest.Pagination) {
	return &r.Sandboxes, (*rest.Pagination)(r.Pagination)
}

// query encodes p: state once, each label as its own labels=key=value.
func (p ListSandboxesParams) query() string {
	v := url.Values{}
	if p.State != nil {
		v.Set("state", string(*p.State))
	}
	for _, l := range p.Labels {
		v.Add("labels", l)
	}
	return v.Encode()
}

// Get returns one sandbox, terminated ones included; an unknown id is an
// error matching errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Sandbox, error) {
	return rest.Call[Sandbox](ctx, s.t, http.MethodGet, rest.At(sandboxRoute, sandboxID.Of(id)), nil, opts)
}

// Wait polls the sandbox every o.Interval (the client's poll interval when
// zero) until it is RUNNING, for as long as ctx allows, and returns it. It
// passes the sandbox to o.OnCheck after each check. A sandbox that is
// FAILED or TERMINATED instead is an *EndedError (errors.Is ErrEnded)
// with the platform's reason.
//
// RUNNING means that the sandbox's compute is allocated; its container may
// take 10 to 30 seconds more to start, during which the platform refuses
// commands and log streams (409). Exec and Logs wait through that window
// themselves.
func (s *Service) Wait(ctx context.Context, id string, o option.Poll[*Sandbox], opts ...option.RequestOption) (*Sandbox, error) {
	interval := s.t.PollInterval(o.Interval)
	for {
		sb, err := s.Get(ctx, id, opts...)
		if err != nil {
			return nil, err
		}
		wait.Saw(o, sb)
		if sb.State == SandboxStateRunning {
			return sb, nil
		}
		if err := ended(sb); err != nil {
			return sb, err
		}
		if err := wait.Sleep(ctx, interval); err != nil {
			return sb, fmt.Errorf("sandboxes: waiting for sandbox %s to run (%s): %w", id, sb.State, err)
		}
	}
}

// Terminate terminates the sandbox and releases its compute: its billing
// stops. Termination is final. It is idempotent: a sandbox already
// terminated, or one the platform does not know (404: nothing of that id
// bills on the account), is success, so it is safe to call again, and from
// a deferred cleanup. It is retried like a read.
func (s *Service) Terminate(ctx context.Context, id string, opts ...option.RequestOption) error {
	err := rest.Delete(ctx, s.t, rest.At(sandboxRoute, sandboxID.Of(id)), opts)
	if errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	return err
}

// hasLabels reports whether sb carries every label of want.
func hasLabels(sb Sandbox, want map[string]string) bool {
	for k, v := range want {
		if got, ok := sb.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// oldest returns the sandbox created first (the lowest id among equals).
func oldest(list []Sandbox) Sandbox {
	return slices.MinFunc(list, func(a, b Sandbox) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}
