package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
)

// Exit codes of every example: 0 when it succeeded (or -h printed the
// flags), 1 when it failed, 2 when it was called wrongly.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// UsageError is a mistake in how a command was called: an unknown flag,
// a flag value the command cannot use, flags that do not go together, a
// required flag missing, or a stray positional argument. It is found
// before anything is sent to the platform. Main exits 2 for it.
type UsageError struct {
	Err error
}

// Error returns the mistake.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the mistake, so that errors.As still finds, for example,
// the *errs.ValidationError a flag's value caused.
func (e *UsageError) Unwrap() error { return e.Err }

// Usage marks err, caused by the command line, as a usage error; nil stays
// nil.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// Usagef returns a usage error with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Parse parses args into fs. -h and -help write the flags to w and return
// flag.ErrHelp; an unknown flag, a bad value or any positional argument is
// a *UsageError.
func Parse(fs *flag.FlagSet, args []string, w io.Writer) error {
	fs.SetOutput(io.Discard) // errors are returned, not printed twice
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(w)
		fmt.Fprintf(w, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		return flag.ErrHelp
	case err != nil:
		return &UsageError{Err: err}
	case fs.NArg() > 0:
		return Usagef("unexpected argument(s): %s (%s takes only flags)", strings.Join(fs.Args(), " "), fs.Name())
	}
	return nil
}

// IsSet reports whether the flag name was given on the command line.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// ExitCode maps what an example's run returned to its exit code: 0 for
// nil and flag.ErrHelp, 2 for a *UsageError, 1 for any other error.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	default:
		return ExitFailure
	}
}

// Report writes err to stderr (with a hint to -h for a usage error) as
// the command name, and returns the exit code for it.
func Report(name string, err error, stderr io.Writer) int {
	code := ExitCode(err)
	switch code {
	case ExitUsage:
		fmt.Fprintf(stderr, "%s: %v\nRun %s -h to list the flags.\n", name, err, name)
	case ExitFailure:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
	}
	return code
}

// Main is every example's main: it runs run with the command line's
// arguments and standard output, under a context that ends on Ctrl-C,
// then reports the error on standard error and exits with ExitCode.
func Main(run func(ctx context.Context, args []string, w io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	os.Exit(Report(filepath.Base(os.Args[0]), err, os.Stderr))
}

// IsTerminal reports whether w is a character device, such as a
// terminal, where a progress line can be redrawn in place with \r. Pipes,
// files and buffers are not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Online reports whether RUNPOD_API_KEY is set, that is whether Connect
// will use the real platform (and money may be spent).
func Online() bool { return os.Getenv(option.EnvAPIKey) != "" }

// FlagError marks err as a usage error when it is a *errs.ValidationError:
// for a call whose parameters come from the command line, the SDK refused
// a flag's value before sending anything, so the command was called
// wrongly (exit 2). Any other error is returned as it is.
func FlagError(err error) error {
	var ve *errs.ValidationError
	if errors.As(err, &ve) {
		return Usage(err)
	}
	return err
}
