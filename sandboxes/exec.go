package sandboxes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// ExecResult is what a command run with Exec wrote, and how it ended.
type ExecResult struct {
	// Output is the command's stdout and stderr, combined, as the
	// platform returns them once the command has finished. A command that
	// failed or was killed still has what it wrote before it stopped.
	Output string
	// Error is the failure the host reported ("" when the command
	// succeeded): a non-zero exit, or the execution cap reached. The
	// platform gives no exit code yet, only this message.
	Error string
}

// ErrCommandFailed matches an *ExecError: the command ran and failed.
var ErrCommandFailed = errors.New("sandboxes: the command failed")

// ExecError reports a command that ran and failed: it exited with a
// non-zero status, or ran past the execution cap and was killed. It
// matches ErrCommandFailed. Exec returns its ExecResult too.
type ExecError struct {
	// SandboxID is the sandbox the command ran in.
	SandboxID string
	// Program is the command's first element (its arguments are not kept:
	// they may hold what the caller would not print).
	Program string
	// Message is the host's report, as ExecResult.Error.
	Message string
}

// Error names the sandbox, the program and the host's report.
func (e *ExecError) Error() string {
	return fmt.Sprintf("sandboxes: %s in sandbox %s: %s", e.Program, e.SandboxID, e.Message)
}

// Is reports whether target is ErrCommandFailed.
func (e *ExecError) Is(target error) bool { return target == ErrCommandFailed }

// Exec runs one command in the sandbox and returns its combined output
// once it has finished. argv is the program and its arguments, run
// without a shell: wrap shell syntax (pipes, redirects, &&) as
// []string{"sh", "-c", "…"}. argv must have a first element that is not
// empty, and no element may hold a NUL byte; otherwise Exec returns a
// *errs.ValidationError naming argv, before anything is sent.
//
// A command that ran and failed returns its ExecResult and an *ExecError
// (errors.Is ErrCommandFailed).
//
// The execution cap: each command may run for a short time only, after
// which the platform kills it and reports an error (ExecError). The
// platform documents the cap as "short" and does not publish its length
// yet. For longer work, start the process in the background and read its
// output with later calls:
//
//	rp.Sandboxes.Exec(ctx, id, []string{"sh", "-c", "setsid nohup python job.py > /tmp/job.log 2>&1 &"})
//	rp.Sandboxes.Exec(ctx, id, []string{"cat", "/tmp/job.log"})
//
// The container starts 10 to 30 seconds after the sandbox is RUNNING, and
// until then the platform answers 409. Exec retries such an answer within
// ctx, with a growing pause (from the client's poll interval), and after
// each checks that the sandbox has not ended: a sandbox that is
// TERMINATED or FAILED is an *EndedError (errors.Is ErrEnded). Exec may be
// called while the sandbox is still CREATING; it waits likewise.
//
// Any other failure is not retried once the request may have reached the
// platform (the command may have run): a reset or a 5xx matches
// errs.ErrOutcomeUnknown. A 503 means that command execution is
// unavailable for a while; the sandbox itself is unaffected.
func (s *Service) Exec(ctx context.Context, id string, argv []string, opts ...option.RequestOption) (*ExecResult, error) {
	if err := checkArgv(argv); err != nil {
		return nil, err
	}
	p := rest.At(execRoute, sandboxID.Of(id))
	lo := s.t.PollInterval(0)
	for attempt := 0; ; attempt++ {
		r, err := rest.Call[execSandboxResponse](ctx, s.t, http.MethodPost, p, execSandboxRequest{Command: argv}, opts)
		if err == nil {
			res := &ExecResult{Output: r.Output}
			if r.Error != nil && *r.Error != "" {
				res.Error = *r.Error
				return res, &ExecError{SandboxID: id, Program: argv[0], Message: res.Error}
			}
			return res, nil
		}
		if err := s.starting(ctx, id, err, lo, attempt, opts); err != nil {
			return nil, err
		}
	}
}

// starting decides what a failed call that waits for the container
// (Exec, Logs) does: nil to try again, after a pause, when err is the
// platform's 409 and the sandbox has not ended; otherwise the error to
// return.
func (s *Service) starting(ctx context.Context, id string, err error, lo time.Duration, attempt int, opts []option.RequestOption) error {
	var api *errs.APIError
	if !errors.As(err, &api) || api.StatusCode != http.StatusConflict {
		return err
	}
	sb, gerr := s.Get(ctx, id, opts...)
	if gerr != nil {
		return gerr
	}
	if e := ended(sb); e != nil {
		return e
	}
	if werr := wait.Sleep(ctx, lo+wait.Backoff(lo, 4*lo, attempt)); werr != nil {
		return fmt.Errorf("sandboxes: sandbox %s (%s) did not accept the request before the context ended: %w (last answer: %v)", id, sb.State, werr, err)
	}
	return nil
}

// checkArgv checks a command for Exec.
func checkArgv(argv []string) error {
	switch {
	case len(argv) == 0:
		return fail.Invalid("argv", "is empty: want the program and its arguments")
	case argv[0] == "":
		return fail.Invalid("argv[0]", "is empty: want the program to run")
	}
	for i, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return fail.Invalid(fmt.Sprintf("argv[%d]", i), "holds a NUL byte, which no argument can")
		}
	}
	return nil
}
