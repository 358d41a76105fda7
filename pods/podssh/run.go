package podssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// RunParams is a command to run on the pod and its streams.
type RunParams struct {
	// Command is the command line the pod's shell runs, as ssh(1) sends
	// it. Required.
	Command string
	// Stdin is what the command reads; nil means nothing (end of file at
	// once). It is read by a goroutine, which a reader that never
	// returns keeps alive after Run returned (as with exec.Cmd).
	Stdin io.Reader
	// Stdout and Stderr receive the command's output as it comes; nil
	// discards it. When they are the same writer, their writes are not
	// interleaved within one write.
	Stdout, Stderr io.Writer
}

// ExitError reports that the command ran and exited with a status other
// than 0.
type ExitError struct {
	// PodID is the pod the command ran on.
	PodID string
	// ExitStatus is the command's exit status (127: command not found).
	ExitStatus int
}

// Error names the pod and the status; it never quotes the command, which
// may hold a secret.
func (e *ExitError) Error() string {
	return fmt.Sprintf("podssh: command on pod %s exited with status %d", e.PodID, e.ExitStatus)
}

// InterruptedError reports that the command ended without an exit
// status: killed by a signal (Signal names it, such as "KILL"), or its
// session or connection was lost first (Signal is empty, Err says why).
// Whether the command finished its work is unknown.
type InterruptedError struct {
	// PodID is the pod the command ran on.
	PodID string
	// Signal is the signal that killed the command, without "SIG";
	// empty when the connection or session was lost.
	Signal string
	// Err is why there is no exit status, when it is not a signal.
	Err error
}

// Error names the pod and the signal or the loss.
func (e *InterruptedError) Error() string {
	if e.Signal != "" {
		return fmt.Sprintf("podssh: command on pod %s was killed by signal %s", e.PodID, e.Signal)
	}
	return fmt.Sprintf("podssh: command on pod %s ended without an exit status: %v", e.PodID, e.Err)
}

// Unwrap returns Err.
func (e *InterruptedError) Unwrap() error { return e.Err }

// Run runs p.Command on the pod and waits for it: nil when it exits 0, a
// *ExitError for another status, a *InterruptedError when there is no
// status. When ctx ends first, Run sends the command SIGTERM, closes its
// session and returns at once with an error matching ctx.Err().
func (c *Conn) Run(ctx context.Context, p RunParams) error {
	if strings.TrimSpace(p.Command) == "" {
		return fail.Invalid("RunParams.Command", "is empty")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("podssh: command on pod %s: %w", c.podID, err)
	}
	sess, err := c.client.NewSession()
	if err != nil {
		return &InterruptedError{PodID: c.podID, Err: fmt.Errorf("open session: %w", err)}
	}
	defer sess.Close()
	// The session copies the output from goroutines of its own; the
	// gates make sure none writes after Run returned.
	stdout, stderr := newGate(p.Stdout), newGate(p.Stderr)
	if p.Stdout != nil && p.Stdout == p.Stderr {
		stderr = stdout
	}
	defer stdout.shut()
	defer stderr.shut()
	sess.Stdout, sess.Stderr = stdout, stderr
	// Stdin is copied here rather than by the session, whose Wait would
	// wait for a reader that never ends.
	var stdin io.WriteCloser
	if p.Stdin != nil {
		if stdin, err = sess.StdinPipe(); err != nil {
			return &InterruptedError{PodID: c.podID, Err: fmt.Errorf("open stdin: %w", err)}
		}
	}
	if err := sess.Start(p.Command); err != nil {
		return &InterruptedError{PodID: c.podID, Err: fmt.Errorf("start command: %w", err)}
	}
	if stdin != nil {
		go func() {
			_, _ = io.Copy(stdin, p.Stdin)
			_ = stdin.Close()
		}()
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err := <-done:
		return c.exitError(err)
	case <-ctx.Done():
		// The pod is asked to end the command, and the session is closed
		// without waiting for the pod to agree (Wait's goroutine ends
		// when it does, or with the connection).
		_ = sess.Signal(ssh.SIGTERM)
		_ = sess.Close()
		return fmt.Errorf("podssh: command on pod %s: %w", c.podID, ctx.Err())
	}
}

// exitError turns what Session.Wait returned into the package's errors.
func (c *Conn) exitError(err error) error {
	var exit *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.Signal() != "":
		return &InterruptedError{PodID: c.podID, Signal: strings.TrimPrefix(exit.Signal(), "SIG")}
	case errors.As(err, &exit):
		return &ExitError{PodID: c.podID, ExitStatus: exit.ExitStatus()}
	case errors.As(err, &missing):
		return &InterruptedError{PodID: c.podID, Err: errors.New("the session closed without an exit status")}
	}
	return &InterruptedError{PodID: c.podID, Err: err}
}

// gate passes writes to w until shut, and drops them after.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func newGate(w io.Writer) *gate {
	if w == nil {
		w = io.Discard
	}
	return &gate{w: w}
}

// Write writes p to w, or fails once the gate is shut.
func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, io.ErrClosedPipe
	}
	return g.w.Write(p)
}

// shut waits for a write under way and lets no more through.
func (g *gate) shut() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
