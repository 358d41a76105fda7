package podssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// RunParams is a command to run on the pod and its streams.
type RunParams struct {
	// Command is the command line the pod's login shell runs, as ssh(1)
	// sends it. Required.
	Command string
	// Stdin is what the command reads; nil means nothing (end of file at
	// once). It is copied by a goroutine that Run waits for before it
	// returns, as exec.Cmd's Wait does: the copy stops at Stdin's end, at
	// a read error, or once the command ended, at the first Read that
	// returns; so a Stdin whose Read may block for ever (a terminal, an
	// io.Pipe no one closes) can keep Run from returning.
	Stdin io.Reader
	// Stdout and Stderr receive the command's output as it comes, byte
	// for byte; nil discards it. When they are the same writer, their
	// writes are not interleaved within one write.
	Stdout, Stderr io.Writer
	// Grace is how long Run, once ctx ended, waits for the command to exit
	// after it was sent SIGTERM, before it sends SIGKILL: DefaultGrace
	// when zero. A negative Grace sends SIGKILL at once.
	Grace time.Duration
	// Verbatim sends Command to the server as it is, without the shell
	// line that tells Run the command's process group. Use it for a
	// server whose login shell is not a POSIX shell (sh, bash, dash, zsh,
	// ksh): Run cannot then stop a cancelled command itself, and only asks
	// the server to (which OpenSSH refuses for root).
	Verbatim bool
}

// DefaultGrace is how long Run gives a cancelled command, by default,
// between SIGTERM and SIGKILL (as docker stop does).
const DefaultGrace = 10 * time.Second

// stopWait bounds each exchange of a cancel that is not the grace: the
// report of the process group, each kill, the exit status after SIGKILL.
const stopWait = 10 * time.Second

// ExitError reports that the command ran and exited with a status other
// than 0.
type ExitError struct {
	// PodID is the pod the command ran on; empty after DialAddr.
	PodID string
	// Addr is the address of the server the command ran on.
	Addr string
	// ExitStatus is the command's exit status (127: command not found).
	ExitStatus int
}

// Error names the pod and the status; it never quotes the command, which
// may hold a secret.
func (e *ExitError) Error() string {
	return fmt.Sprintf("podssh: command on %s exited with status %d", target(e.PodID, e.Addr), e.ExitStatus)
}

// InterruptedError reports that the command ended without an exit
// status, or that Run returned before it ended because its context did.
//
// Without a cancel, the command was killed by a signal (Signal names it,
// such as "KILL"), or its session or connection was lost first (Signal
// is empty, Err says why); whether it finished its work is unknown.
//
// When Run's context ended, Err is the context's error (errors.Is(err,
// context.Canceled) holds), and the other fields say what Run did to the
// command on the pod and what became of it: ProcessGroup, Sent, and, if
// it was seen to end, Ended with ExitStatus or Signal. Stop says it all
// in words.
type InterruptedError struct {
	// PodID is the pod the command ran on; empty after DialAddr.
	PodID string
	// Addr is the address of the server the command ran on.
	Addr string
	// Signal is the signal that killed the command, without "SIG";
	// empty when it exited, or when the connection or session was lost.
	Signal string
	// Err is why there is no exit status when it is not a signal, or the
	// context's error after a cancel.
	Err error
	// ProcessGroup is the command's process group on the pod, which Run
	// signals after a cancel; 0 when Run did not learn it.
	ProcessGroup int
	// Sent are the signals Run sent the process group after a cancel, in
	// order ("TERM", "KILL").
	Sent []string
	// Ended reports that the command was seen to end after a cancel,
	// before Run returned: killed by Signal, or exited with ExitStatus.
	Ended bool
	// ExitStatus is the status the command exited with after a cancel,
	// when Ended and Signal is empty.
	ExitStatus int
	// Stop says, after a cancel, what Run did to stop the command and
	// what it saw: "sent SIGTERM to its process group 4242; it exited
	// with status 143".
	Stop string
}

// Error names the pod, then the signal, the loss, or the cancel and what
// was done about it.
func (e *InterruptedError) Error() string {
	switch {
	case e.Stop != "":
		return fmt.Sprintf("podssh: command on %s: %v; %s", target(e.PodID, e.Addr), e.Err, e.Stop)
	case e.Signal != "":
		return fmt.Sprintf("podssh: command on %s was killed by signal %s", target(e.PodID, e.Addr), e.Signal)
	}
	return fmt.Sprintf("podssh: command on %s ended without an exit status: %v", target(e.PodID, e.Addr), e.Err)
}

// Unwrap returns Err.
func (e *InterruptedError) Unwrap() error { return e.Err }

// target names pod podID, or the server at addr.
func target(podID, addr string) string {
	if podID == "" {
		return addr
	}
	return "pod " + podID
}

// Run runs p.Command on the pod and waits for it: nil when it exits 0, a
// *ExitError for another status, a *InterruptedError when there is no
// status. Its stdin, stdout and stderr are the command's, byte for byte.
//
// When ctx ends first, Run stops the command on the pod and returns a
// *InterruptedError matching ctx.Err() that says how it went. OpenSSH
// neither delivers a client's signal to a root session nor stops a
// command whose session (without a terminal) closes, so Run does it
// itself: the command is sent behind a first shell line that reports the
// login shell's process id on stderr under a random marker, which Run
// strips. The shell leads the session's process group (sshd makes each
// session without a terminal a session and process group of its own), so
// on cancel Run sends SIGTERM to that whole group with kill(1) over a
// second session of the connection, waits up to p.Grace for the command
// to exit, then sends SIGKILL. A process that leaves the group (setsid,
// a shell's job control, a daemon) escapes it and goes on running. Run
// waits for the command's end (or the grace and a few seconds) before it
// returns, so that the GPU it held is free again.
func (c *Conn) Run(ctx context.Context, p RunParams) error {
	if strings.TrimSpace(p.Command) == "" {
		return fail.Invalid("RunParams.Command", "is empty")
	}
	if strings.IndexByte(p.Command, 0) >= 0 {
		return fail.Invalid("RunParams.Command", "holds a NUL byte, which no shell reads")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("podssh: command on %s: %w", c.target(), err)
	}
	sess, err := c.client.NewSession()
	if err != nil {
		return c.lost(fmt.Errorf("open session: %w", err))
	}
	// The session copies the output from goroutines of its own; the
	// gates make sure none writes after Run returned.
	stdout, stderr := newGate(p.Stdout), newGate(p.Stderr)
	if p.Stdout != nil && p.Stdout == p.Stderr {
		stderr = stdout
	}
	defer stdout.shut()
	defer stderr.shut()
	sess.Stdout = stdout
	cmd, scan := p.Command, (*pgidScanner)(nil)
	if p.Verbatim {
		sess.Stderr = stderr
	} else {
		scan = newPGIDScanner(stderr)
		sess.Stderr = scan
		cmd = scan.wrap(p.Command)
	}
	// Stdin is copied here rather than by the session, whose Wait would
	// wait for a reader that never ends.
	var stdin io.WriteCloser
	if p.Stdin != nil {
		if stdin, err = sess.StdinPipe(); err != nil {
			_ = sess.Close()
			return c.lost(fmt.Errorf("open stdin: %w", err))
		}
	}
	if err := sess.Start(cmd); err != nil {
		_ = sess.Close()
		return c.lost(fmt.Errorf("start command: %w", err))
	}
	// The session's end is watched by a goroutine of the Conn's (bg),
	// which Run waits for once it closed the session: the server answers
	// the close at once, unless it is not answering at all, and then the
	// goroutine ends when the connection does (Close waits for it).
	done, watched := make(chan error, 1), make(chan struct{})
	var copying sync.WaitGroup
	defer copying.Wait() // after the session's close, which ends a blocked write
	defer c.closeSession(sess, watched)
	if stdin != nil {
		copying.Go(func() {
			_, _ = io.Copy(stdin, p.Stdin)
			_ = stdin.Close()
		})
	}
	c.bg.Go(func() {
		defer close(watched)
		done <- sess.Wait()
	})
	select {
	case err := <-done:
		scan.finish()
		return c.exitError(err)
	case <-ctx.Done():
	}
	select {
	case err := <-done: // it ended as the context did: its own outcome
		scan.finish()
		return c.exitError(err)
	default:
	}
	ie := c.stop(sess, scan, done, p.grace())
	ie.Err = ctx.Err()
	scan.finish()
	return ie
}

// closeSession closes sess and waits, up to stopWait, for the goroutine
// that waits for its end (watched closes as it returns). A server that
// does not answer the close leaves that goroutine to the Conn, whose
// Close ends and waits for it.
func (c *Conn) closeSession(sess *ssh.Session, watched <-chan struct{}) {
	_ = sess.Close()
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case <-watched:
	case <-t.C:
	}
}

// grace is p.Grace, or its default.
func (p RunParams) grace() time.Duration {
	if p.Grace == 0 {
		return DefaultGrace
	}
	return p.Grace
}

// stop ends a command whose context ended (see Run) and reports what it
// did: the server is asked to send SIGTERM (OpenSSH does for a user
// other than root), then SIGTERM is sent to the process group the
// command's shell reported, over another session; after grace without an
// exit, SIGKILL.
func (c *Conn) stop(sess *ssh.Session, scan *pgidScanner, done <-chan error, grace time.Duration) *InterruptedError {
	ie := &InterruptedError{PodID: c.podID, Addr: c.addr}
	_ = sess.Signal(ssh.SIGTERM)
	if scan == nil {
		ie.Stop = "asked the SSH server to send SIGTERM (OpenSSH does not for root) and closed the session (Verbatim: its process group is unknown); it may still be running"
		return ie
	}
	var steps []string
	var ended error
	isEnded := false
	waitEnd := func(d time.Duration) {
		if isEnded {
			return
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case ended = <-done:
			isEnded = true
		case <-t.C:
		}
	}
	// The shell reports its process id first thing; it may still be on
	// its way.
	t := time.NewTimer(stopWait)
	select {
	case <-scan.found:
	case ended = <-done:
		isEnded = true
		scan.finish() // the session's output is all in: the search is over
	case <-t.C:
	}
	t.Stop()
	pgid, ok := scan.pgid()
	if !ok {
		steps = append(steps, "could not signal it: the shell on the server did not report the command's process group (is the login shell a POSIX shell?)")
		ie.Stop = strings.Join(append(steps, c.outcome(ie, ended, isEnded, "it may still be running")), "; ")
		return ie
	}
	ie.ProcessGroup = pgid
	first := "TERM"
	if grace < 0 {
		first = "KILL"
	}
	if err := c.killGroup(first, pgid); err != nil {
		steps = append(steps, fmt.Sprintf("could not send SIG%s to its process group %d: %v", first, pgid, err))
		waitEnd(stopWait)
		ie.Stop = strings.Join(append(steps, c.outcome(ie, ended, isEnded, "it may still be running")), "; ")
		return ie
	}
	ie.Sent = append(ie.Sent, first)
	steps = append(steps, fmt.Sprintf("sent SIG%s to its process group %d", first, pgid))
	if first == "TERM" {
		waitEnd(grace)
		if !isEnded {
			if err := c.killGroup("KILL", pgid); err != nil {
				steps = append(steps, fmt.Sprintf("it was still running after %s, and SIGKILL could not be sent: %v", grace, err))
				ie.Stop = strings.Join(append(steps, c.outcome(ie, ended, isEnded, "it may still be running")), "; ")
				return ie
			}
			ie.Sent = append(ie.Sent, "KILL")
			steps = append(steps, fmt.Sprintf("then SIGKILL, as it was still running after %s", grace))
		}
	}
	waitEnd(stopWait)
	ie.Stop = strings.Join(append(steps, c.outcome(ie, ended, isEnded, fmt.Sprintf("no exit status came within %s", stopWait))), "; ")
	return ie
}

// outcome fills ie with how the command ended, when it did, and says it.
func (c *Conn) outcome(ie *InterruptedError, err error, ended bool, otherwise string) string {
	if !ended {
		return otherwise
	}
	var exit *ssh.ExitError
	switch {
	case err == nil:
		ie.Ended = true
		return "it exited with status 0"
	case errors.As(err, &exit) && exit.Signal() != "":
		ie.Ended, ie.Signal = true, strings.TrimPrefix(exit.Signal(), "SIG")
		return "it was killed by SIG" + ie.Signal
	case errors.As(err, &exit):
		ie.Ended, ie.ExitStatus = true, exit.ExitStatus()
		return fmt.Sprintf("it exited with status %d", exit.ExitStatus())
	}
	return "its session ended without an exit status"
}

// killGroup sends signal sig to process group pgid on the server with
// kill(1), over a session of its own, within stopWait.
func (c *Conn) killGroup(sig string, pgid int) error {
	sess, err := c.client.NewSession()
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	defer sess.Close()
	out := &limitedBuffer{max: 512}
	sess.Stdout, sess.Stderr = out, out
	res := make(chan error, 1)
	// A kill that does not answer within stopWait leaves this goroutine
	// to the Conn (see Conn.bg); the session's close ends it unless the
	// server is not answering at all, and then the connection's close.
	c.bg.Go(func() { res <- sess.Run(fmt.Sprintf("kill -s %s -- -%d", sig, pgid)) })
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case err := <-res:
		if err != nil {
			return fmt.Errorf("kill failed (%v): %q", err, strings.TrimSpace(out.String()))
		}
		return nil
	case <-t.C:
		return fmt.Errorf("kill did not answer within %s", stopWait)
	}
}

// lost is the error of a session that failed before the command ran.
func (c *Conn) lost(err error) error {
	return &InterruptedError{PodID: c.podID, Addr: c.addr, Err: err}
}

// exitError turns what Session.Wait returned into the package's errors.
func (c *Conn) exitError(err error) error {
	var exit *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.Signal() != "":
		return &InterruptedError{PodID: c.podID, Addr: c.addr, Signal: strings.TrimPrefix(exit.Signal(), "SIG")}
	case errors.As(err, &exit):
		return &ExitError{PodID: c.podID, Addr: c.addr, ExitStatus: exit.ExitStatus()}
	case errors.As(err, &missing):
		return c.lost(errors.New("the session closed without an exit status"))
	}
	return c.lost(err)
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

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
