package worker

import (
	"fmt"
	"strconv"
	"strings"
)

// The flags the worker owns, as the platform's workers name them. Each is
// also accepted with hyphens (--rp-serve-api) and with one leading dash;
// any other flag in the rp_ namespace is refused as a misspelling.
const (
	flagServeAPI    = "rp_serve_api" // the local API server, for curl and the SDK (see serveLocal)
	flagAPIPort     = "rp_api_port"
	flagAPIHost     = "rp_api_host"
	flagConcurrency = "rp_api_concurrency"
	flagLogLevel    = "rp_log_level"
	flagDebugger    = "rp_debugger"
	flagTestInput   = "test_input"
)

var boolFlags = map[string]bool{flagServeAPI: true, flagDebugger: true}
var valueFlags = map[string]bool{flagAPIPort: true, flagAPIHost: true, flagConcurrency: true, flagLogLevel: true, flagTestInput: true}

type flags struct {
	serveAPI    bool
	port        int
	host        string
	concurrency int
	logLevel    level
	logLevelSet bool
	debugger    bool
	testInput   *string
	rest        []string
}

// flagName returns the canonical name of a worker flag in arg ("--x" or
// "-x", optionally "=value"), or "".
func flagName(arg string) (name, value string, hasValue bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", "", false
	}
	body := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, value, hasValue = strings.Cut(body, "=")
	name = strings.ReplaceAll(name, "-", "_")
	if !boolFlags[name] && !valueFlags[name] {
		return "", "", false
	}
	return name, value, hasValue
}

// unknownWorkerFlag returns arg's flag when it is in the worker's
// namespace (rp_ or rp-, after one or two dashes) but not a flag the worker
// knows, such as a misspelt --rp_serve_apii; "" otherwise. Running such a
// command would silently do something else (test mode instead of the API
// server), so it is refused.
func unknownWorkerFlag(arg string) string {
	if !strings.HasPrefix(arg, "-") {
		return ""
	}
	body := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, _ := strings.Cut(body, "=")
	if !strings.HasPrefix(strings.ReplaceAll(name, "-", "_"), "rp_") {
		return ""
	}
	return strings.TrimSuffix(arg, body) + name
}

// parseFlags reads the worker's flags from args and keeps the others, in
// order, for the application.
func parseFlags(args []string) (*flags, error) {
	f := &flags{port: 8000, host: "localhost", concurrency: 1, logLevel: levelInfo}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			f.rest = append(f.rest, args[i:]...)
			break
		}
		name, value, hasValue := flagName(arg)
		if name == "" {
			if unknown := unknownWorkerFlag(arg); unknown != "" {
				return nil, fmt.Errorf("unknown worker flag %s (the worker's flags are --%s, --%s, --%s, --%s, --%s, --%s and --%s)",
					unknown, flagServeAPI, flagAPIPort, flagAPIHost, flagConcurrency, flagLogLevel, flagDebugger, flagTestInput)
			}
			f.rest = append(f.rest, arg)
			continue
		}
		if boolFlags[name] {
			on := true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, fmt.Errorf("--%s: want true or false, got %q", name, value)
				}
				on = b
			}
			switch name {
			case flagServeAPI:
				f.serveAPI = on
			case flagDebugger:
				f.debugger = on
			}
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case flagAPIPort:
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n > 65535 {
				return nil, fmt.Errorf("--%s: want a port number (0 to 65535), got %q", name, value)
			}
			f.port = n
		case flagAPIHost:
			if strings.TrimSpace(value) == "" {
				return nil, fmt.Errorf("--%s: want a host name", name)
			}
			f.host = value
		case flagConcurrency:
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("--%s: want a whole number of at least 1, got %q", name, value)
			}
			f.concurrency = n
		case flagLogLevel:
			l, ok := parseLevel(value)
			if !ok {
				return nil, fmt.Errorf("--%s: want ERROR, WARN, INFO or DEBUG, got %q", name, value)
			}
			f.logLevel, f.logLevelSet = l, true
		case flagTestInput:
			v := value
			f.testInput = &v
		}
	}
	return f, nil
}

// AppArgs returns args without the flags the worker owns (and their
// values), for the application's own flag parsing.
func AppArgs(args []string) []string {
	f, err := parseFlags(args)
	if err != nil {
		// Leave out the worker's flags (and their values) all the same.
		var rest []string
		for i := 0; i < len(args); i++ {
			n, _, hasValue := flagName(args[i])
			switch {
			case args[i] == "--":
				return append(rest, args[i:]...)
			case n == "":
				rest = append(rest, args[i])
			case valueFlags[n] && !hasValue:
				i++ // its value
			}
		}
		return rest
	}
	return f.rest
}
