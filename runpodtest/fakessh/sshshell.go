package fakessh

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A pod's processes and its login shell, as the pod's SSH server runs
// commands: enough of Linux and of POSIX sh for a client to learn a
// command's process group and signal it, as it would on a pod.
//
// Each session's command is a process with a pid of its own, the leader
// of a process group (and session) of its own, as sshd makes it. The
// process ends when its command does, or when a signal ends it: any
// signal but 0 ends the context the command handler runs under (its
// default action is to terminate), and the process is reported killed by
// that signal once the handler returns; SIGKILL ends the process at once,
// whether the handler returns or not.
//
// The login shell parses a command line as sh does, for a small part of
// the language: simple commands joined by ";", newlines, "&&" and "||";
// words with '…', "…" and \ quoting; the parameters $$ (the shell's pid)
// and $?; redirections >&2, 2>&1 (any [n]>&m) and >/dev/null; comments.
// Its builtins are ":", eval, exit, kill and printf. A command line that
// parses and uses only these, the shell runs itself; any other (a
// program, a pipeline, anything it does not parse) goes whole, as it
// came, to the pod's PodCommandHandler, which stands for the shell
// running it. eval's arguments, joined by spaces, are a command line
// again: a test's handler gets it whole, whatever it holds (it stands
// for the shell evaluating it); the default handler runs it as above.

// shellBuiltins are the commands the fake's shell runs itself.
var shellBuiltins = []string{":", "eval", "exit", "kill", "printf"}

// signals are the signals kill knows, by name and number.
var signals = map[string]int{"HUP": 1, "INT": 2, "QUIT": 3, "KILL": 9, "USR1": 10, "USR2": 12, "TERM": 15}

// podProc is one process on a pod.
type podProc struct {
	pid, pgid int
	ctx       context.Context
	cancel    context.CancelCauseFunc
	mu        sync.Mutex
	fatal     string        // the signal that ends it, "" while none has
	killed    chan struct{} // closed by SIGKILL
	gone      bool          // it exited
}

// signalled is the cause of a process's context when a signal ended it.
type signalled struct{ sig string }

func (e *signalled) Error() string { return "runpodtest: process killed by SIG" + e.sig }

// deliver sends the process signal sig ("TERM", "KILL"…; "0" checks
// only).
func (p *podProc) deliver(sig string) {
	if sig == "0" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return
	}
	switch {
	case sig == "KILL" && p.fatal != "KILL":
		p.fatal = sig
		close(p.killed)
	case p.fatal == "":
		p.fatal = sig
	}
	p.cancel(&signalled{sig})
}

// signal returns the signal that ends the process, if one did.
func (p *podProc) signal() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fatal
}

// procTable is a pod's processes.
type procTable struct {
	mu    sync.Mutex
	last  int
	procs map[int]*podProc
}

// spawn starts a process under parent that leads a new process group.
func (t *procTable) spawn(parent context.Context) *podProc {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.procs == nil {
		t.procs, t.last = map[int]*podProc{}, 100 // what the container's own processes took
	}
	t.last++
	ctx, cancel := context.WithCancelCause(parent)
	p := &podProc{pid: t.last, pgid: t.last, ctx: ctx, cancel: cancel, killed: make(chan struct{})}
	t.procs[p.pid] = p
	return p
}

// exit removes p from the table: its pid, and its group if it was the
// last there, are no more.
func (t *procTable) exit(p *podProc) {
	t.mu.Lock()
	delete(t.procs, p.pid)
	t.mu.Unlock()
	p.mu.Lock()
	p.gone = true
	p.mu.Unlock()
	p.cancel(context.Canceled)
}

// kill sends sig to what pid names as kill(2) reads it: a process (pid >
// 0), the sender's group (0), every process but the sender (-1), a
// process group (< -1). It returns how many processes it reached.
func (t *procTable) kill(pid int, sig string, sender *podProc) int {
	t.mu.Lock()
	var to []*podProc
	for _, p := range t.procs {
		switch {
		case pid > 0 && p.pid == pid,
			pid == 0 && p.pgid == sender.pgid,
			pid == -1 && p != sender,
			pid < -1 && p.pgid == -pid:
			to = append(to, p)
		}
	}
	t.mu.Unlock()
	for _, p := range to {
		p.deliver(sig)
	}
	return len(to)
}

// killAll sends sig to every process: the pod stopped.
func (t *procTable) killAll(sig string) {
	t.mu.Lock()
	all := make([]*podProc, 0, len(t.procs))
	for _, p := range t.procs {
		all = append(all, p)
	}
	t.mu.Unlock()
	for _, p := range all {
		p.deliver(sig)
	}
}

// shell is the login shell of one process.
type shell struct {
	procs   *procTable
	proc    *podProc
	program PodCommandHandler // runs what the shell does not
	custom  bool              // program is a test's handler, which eval's argument goes to whole
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	status  int // $?
}

// runLine runs a command line with stdout and stderr and returns its
// status, and whether exit (or a signal) ended the shell.
func (sh *shell) runLine(line string, stdout, stderr io.Writer) (int, bool) {
	cmds, ok := parseShell(line)
	if !ok || !onlyBuiltins(cmds) {
		sh.status = sh.program(sh.proc.ctx, line, sh.stdin, stdout, stderr)
		return sh.status, false
	}
	for _, c := range cmds {
		if sh.proc.signal() != "" {
			return sh.status, true // a signal ended the shell
		}
		if c.op == "&&" && sh.status != 0 || c.op == "||" && sh.status == 0 {
			continue
		}
		args := make([]string, len(c.words))
		for i, w := range c.words {
			args[i] = sh.expand(w)
		}
		fds := [3]io.Writer{nil, stdout, stderr}
		for _, r := range c.redirs {
			switch {
			case r.devNull:
				fds[r.fd] = io.Discard
			default:
				fds[r.fd] = fds[r.to]
			}
		}
		var exited bool
		sh.status, exited = sh.builtin(args, fds[1], fds[2])
		if exited {
			return sh.status, true
		}
	}
	return sh.status, false
}

// onlyBuiltins reports whether every command of cmds is a builtin,
// named by a word without parameters.
func onlyBuiltins(cmds []shCommand) bool {
	for _, c := range cmds {
		if len(c.words) == 0 || len(c.words[0]) != 1 || c.words[0][0].param != 0 || !slices.Contains(shellBuiltins, c.words[0][0].lit) {
			return false
		}
	}
	return len(cmds) > 0
}

// expand returns the word's value.
func (sh *shell) expand(w []shPart) string {
	var b strings.Builder
	for _, p := range w {
		switch p.param {
		case '$':
			b.WriteString(strconv.Itoa(sh.proc.pid))
		case '?':
			b.WriteString(strconv.Itoa(sh.status))
		default:
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// builtin runs one of shellBuiltins.
func (sh *shell) builtin(args []string, stdout, stderr io.Writer) (int, bool) {
	switch args[0] {
	case ":":
		return 0, false
	case "exit":
		if len(args) < 2 {
			return sh.status, true
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 {
			fmt.Fprintf(stderr, "sh: 1: exit: Illegal number: %s\n", args[1])
			return 2, true
		}
		return n & 0xff, true
	case "eval":
		line := strings.Join(args[1:], " ")
		if sh.custom {
			sh.status = sh.program(sh.proc.ctx, line, sh.stdin, stdout, stderr)
			return sh.status, false
		}
		return sh.runLine(line, stdout, stderr)
	case "kill":
		return sh.kill(args[1:], stderr), false
	case "printf":
		return shPrintf(args[1:], stdout, stderr), false
	}
	return 127, false
}

// kill is kill(1): kill [-s SIG | -SIG] [--] pid…, a negative pid naming
// a process group.
func (sh *shell) kill(args []string, stderr io.Writer) int {
	sig := "TERM"
	switch {
	case len(args) > 0 && args[0] == "-s":
		if len(args) < 2 {
			fmt.Fprintln(stderr, "sh: 1: kill: option requires an argument -- s")
			return 2
		}
		sig, args = args[1], args[2:]
	case len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0] != "--":
		sig, args = args[0][1:], args[1:]
	}
	name, ok := signalName(sig)
	if !ok {
		fmt.Fprintf(stderr, "sh: 1: kill: invalid signal number or name: %s\n", sig)
		return 1
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "sh: 1: kill: usage: kill [-s sigspec | -signum | -sigspec] pid...")
		return 2
	}
	status := 0
	for _, a := range args {
		pid, err := strconv.Atoi(a)
		if err != nil {
			fmt.Fprintf(stderr, "sh: 1: kill: Illegal number: %s\n", a)
			status = 1
			continue
		}
		if sh.procs.kill(pid, name, sh.proc) == 0 {
			fmt.Fprintln(stderr, "sh: 1: kill: No such process")
			status = 1
		}
	}
	return status
}

// signalName returns the name kill's argument gives a signal ("TERM",
// "SIGTERM", "15"), "0" for the check-only signal.
func signalName(s string) (string, bool) {
	if s == "0" {
		return s, true
	}
	if n, err := strconv.Atoi(s); err == nil {
		for name, num := range signals {
			if num == n {
				return name, true
			}
		}
		return "", false
	}
	s = strings.TrimPrefix(s, "SIG")
	_, ok := signals[s]
	return s, ok
}

// shPrintf is printf(1) for %s, %d, %i, %% and the usual backslash
// escapes; the format is used again while arguments remain.
func shPrintf(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "sh: 1: printf: usage: printf format [arg ...]")
		return 2
	}
	format, rest := args[0], args[1:]
	var out strings.Builder
	status := 0
	for {
		used := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				i++
				if e, ok := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', '\\': '\\', 'a': 7, 'b': 8, 'f': 12, 'v': 11, '"': '"', '\'': '\''}[format[i]]; ok {
					out.WriteByte(e)
				} else {
					out.WriteByte('\\')
					out.WriteByte(format[i])
				}
			case c == '%' && i+1 < len(format):
				i++
				verb := format[i]
				if verb == '%' {
					out.WriteByte('%')
					continue
				}
				var arg string
				if len(rest) > 0 {
					arg, rest, used = rest[0], rest[1:], true
				}
				switch verb {
				case 's':
					out.WriteString(arg)
				case 'd', 'i':
					n, err := strconv.ParseInt(cmp.Or(arg, "0"), 10, 64)
					if err != nil {
						fmt.Fprintf(stderr, "sh: 1: printf: %s: expected numeric value\n", arg)
						status = 1
					}
					out.WriteString(strconv.FormatInt(n, 10))
				default:
					fmt.Fprintf(stderr, "sh: 1: printf: %%%c: invalid directive\n", verb)
					_, _ = io.WriteString(stdout, out.String())
					return 1
				}
			default:
				out.WriteByte(c)
			}
		}
		if !used || len(rest) == 0 {
			break
		}
	}
	_, _ = io.WriteString(stdout, out.String())
	return status
}

// shCommand is a simple command of a command line, with the operator
// that joins it to the one before ("", ";", "\n", "&&", "||").
type shCommand struct {
	op     string
	words  [][]shPart
	redirs []shRedir
}

// shPart is a piece of a word: literal text, or a parameter ('$', '?').
type shPart struct {
	lit   string
	param byte
}

// shRedir makes fd a copy of to, or /dev/null.
type shRedir struct {
	fd, to  int
	devNull bool
}

// parseShell parses a command line in the fake shell's part of the sh
// language; false for anything else.
func parseShell(src string) ([]shCommand, bool) {
	p := &shParser{src: src}
	var cmds []shCommand
	cur := shCommand{}
	pending := "" // the operator before cur
	// finish ends cur at operator op ("" at the end of the line).
	finish := func(op string) bool {
		if len(cur.words) == 0 { // no command: only a newline may end it
			switch {
			case len(cur.redirs) > 0, op == ";", op == "&&", op == "||":
				return false
			case op == "" && (pending == "&&" || pending == "||"):
				return false
			}
			return true
		}
		cur.op = pending
		cmds = append(cmds, cur)
		pending, cur = op, shCommand{}
		return true
	}
	for {
		p.blanks()
		if p.i >= len(p.src) {
			if !finish("") {
				return nil, false
			}
			return cmds, true
		}
		c := p.src[p.i]
		switch {
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '\n' || c == ';':
			if c == ';' && p.peek(1) == ';' {
				return nil, false
			}
			p.i++
			if !finish(string(c)) {
				return nil, false
			}
		case c == '&' && p.peek(1) == '&', c == '|' && p.peek(1) == '|':
			p.i += 2
			if !finish(string([]byte{c, c})) {
				return nil, false
			}
		case c == '>' || c >= '0' && c <= '9' && p.peek(1) == '>' && len(p.src) > p.i+1:
			r, ok := p.redir()
			if !ok {
				return nil, false
			}
			cur.redirs = append(cur.redirs, r)
		case strings.IndexByte("&|<()`", c) >= 0:
			return nil, false
		default:
			w, ok := p.word()
			if !ok {
				return nil, false
			}
			cur.words = append(cur.words, w)
		}
	}
}

// shParser reads a command line.
type shParser struct {
	src string
	i   int
}

// peek returns the byte k after the current one, or 0.
func (p *shParser) peek(k int) byte {
	if p.i+k < len(p.src) {
		return p.src[p.i+k]
	}
	return 0
}

// blanks skips spaces, tabs and escaped newlines.
func (p *shParser) blanks() {
	for p.i < len(p.src) {
		switch {
		case p.src[p.i] == ' ' || p.src[p.i] == '\t':
			p.i++
		case p.src[p.i] == '\\' && p.peek(1) == '\n':
			p.i += 2
		default:
			return
		}
	}
}

// redir reads [n]>&m or [n]>/dev/null.
func (p *shParser) redir() (shRedir, bool) {
	r := shRedir{fd: 1}
	if c := p.src[p.i]; c != '>' {
		r.fd = int(c - '0')
		p.i++
	}
	p.i++ // '>'
	if r.fd != 1 && r.fd != 2 {
		return r, false
	}
	if p.peek(0) == '&' {
		p.i++
		c := p.peek(0)
		if c != '1' && c != '2' || p.peek(1) != 0 && strings.IndexByte(" \t\n;&|", p.peek(1)) < 0 {
			return r, false
		}
		r.to = int(c - '0')
		p.i++
		return r, true
	}
	if p.peek(0) == '>' {
		p.i++
	}
	p.blanks()
	w, ok := p.word()
	if !ok || len(w) != 1 || w[0].param != 0 || w[0].lit != "/dev/null" {
		return r, false
	}
	r.devNull = true
	return r, true
}

// word reads a word up to an unquoted blank or operator.
func (p *shParser) word() ([]shPart, bool) {
	var parts []shPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, shPart{lit: lit.String()})
			lit.Reset()
		}
	}
	param := func() bool { // at '$'
		switch c := p.peek(1); {
		case c == '$' || c == '?':
			flush()
			parts = append(parts, shPart{param: c})
			p.i += 2
		case c == '_' || c == '{' || c == '(' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '#' || c == '@' || c == '*' || c == '!' || c == '-':
			return false
		default:
			lit.WriteByte('$')
			p.i++
		}
		return true
	}
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case strings.IndexByte(" \t\n;&|<>()", c) >= 0:
			flush()
			return parts, len(parts) > 0 || p.i > start
		case c == '\\':
			if p.i+1 >= len(p.src) {
				return nil, false
			}
			if p.src[p.i+1] != '\n' {
				lit.WriteByte(p.src[p.i+1])
			}
			p.i += 2
		case c == '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			lit.WriteString(p.src[p.i+1 : p.i+1+end])
			p.i += end + 2
		case c == '"':
			p.i++
			for {
				if p.i >= len(p.src) {
					return nil, false
				}
				d := p.src[p.i]
				if d == '"' {
					p.i++
					break
				}
				switch {
				case d == '\\' && p.i+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i+1]) >= 0:
					if p.src[p.i+1] != '\n' {
						lit.WriteByte(p.src[p.i+1])
					}
					p.i += 2
				case d == '$':
					if !param() {
						return nil, false
					}
				case d == '`':
					return nil, false
				default:
					lit.WriteByte(d)
					p.i++
				}
			}
		case c == '$':
			if !param() {
				return nil, false
			}
		case strings.IndexByte("`*?[", c) >= 0, c == '~' && p.i == start:
			return nil, false // substitution, globbing, tilde: not this shell's
		default:
			lit.WriteByte(c)
			p.i++
		}
	}
	flush()
	return parts, len(parts) > 0 || p.i > start
}

// A pod's terminal, when a session asked for one (pty-req): the
// command's stdout and stderr are the terminal's output, each "\n" sent
// as "\r\n"; its input is read a line at a time and echoed, "\r" read as
// "\n", DEL erasing, ^D at the start of a line its end.

// onlcr writes to w with each "\n" as "\r\n".
type onlcr struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *onlcr) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.w.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ttyInput cooks what the client types, read from in, echoing it to
// echo, into the reader it returns; stop ends it. Its goroutine is wg's.
func ttyInput(in io.Reader, echo io.Writer, wg *sync.WaitGroup) (io.Reader, func()) {
	pr, pw := io.Pipe()
	wg.Go(func() {
		var line []byte
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			for _, b := range buf[:n] {
				switch b {
				case '\r', '\n':
					line = append(line, '\n')
					_, _ = echo.Write([]byte("\n"))
					if _, werr := pw.Write(line); werr != nil {
						return
					}
					line = line[:0]
				case 4: // ^D
					if len(line) == 0 {
						_ = pw.Close()
						return
					}
					if _, werr := pw.Write(line); werr != nil {
						return
					}
					line = line[:0]
				case 0x7f, 8:
					if len(line) > 0 {
						line = line[:len(line)-1]
						_, _ = echo.Write([]byte("\b \b"))
					}
				default:
					line = append(line, b)
					_, _ = echo.Write([]byte{b})
				}
			}
			if err != nil {
				_ = pw.Close()
				return
			}
		}
	})
	return bufio.NewReader(pr), func() { _ = pr.Close() }
}

// interactive runs the lines the shell reads from its input, prompting
// for each with a terminal, until exit or the input's end; it returns
// the last status.
func (sh *shell) interactive(prompt bool) int {
	r, ok := sh.stdin.(*bufio.Reader)
	if !ok {
		r = bufio.NewReader(sh.stdin)
		sh.stdin = r // what a command reads follows the lines read
	}
	for {
		if prompt {
			_, _ = io.WriteString(sh.stdout, "# ")
		}
		line, err := r.ReadString('\n')
		if line = strings.TrimSuffix(line, "\n"); strings.TrimSpace(line) != "" {
			if code, exited := sh.runLine(line, sh.stdout, sh.stderr); exited {
				return code
			}
		}
		if err != nil || sh.proc.signal() != "" {
			return sh.status
		}
	}
}
