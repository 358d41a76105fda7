// Package check holds the validation rules several surfaces share: port
// specs and environment variable names, as the platform reads them for
// every container it starts (pods, clusters, templates and serverless
// workers). Each returns a *errs.ValidationError naming the field.
package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
)

// SymmetricPortBase is the first port number that requests symmetric TCP
// mapping: "70000/tcp" asks the platform to pick a port N, tell the
// container (RUNPOD_TCP_PORT_70000=N) and map public N to internal N.
const SymmetricPortBase = 70000

// Ports checks port specs: "<port>/http" or "<port>/tcp" with a port from
// 1 to 65535, or "<port>/tcp" from SymmetricPortBase up. field names the
// list; the entry's index is added.
func Ports(field string, ports []string) error {
	for i, spec := range ports {
		n, proto, ok := strings.Cut(spec, "/")
		v, err := strconv.Atoi(n)
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !ok || err != nil || strings.Trim(n, "0123456789") != "" || (proto != "http" && proto != "tcp"):
			return errs.Invalid(at, `want "<port>/http" or "<port>/tcp", got %q`, spec)
		case v >= SymmetricPortBase && proto != "tcp":
			return errs.Invalid(at, `ports from %d request symmetric TCP mapping: want "%d/tcp", got %q`, SymmetricPortBase, v, spec)
		case v < 1 || (v > 65535 && v < SymmetricPortBase):
			return errs.Invalid(at, "want a port from 1 to 65535, or from %d for symmetric TCP mapping, got %q", SymmetricPortBase, spec)
		}
	}
	return nil
}

// EnvNames checks the names of environment variables: not empty, and
// without '=', white space or control characters, which no process
// environment can hold. Only names are ever put in the error: the values
// may be secrets. The names are checked in sorted order, so the error is
// the same on every run.
func EnvNames(field string, env map[string]string) error {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if k == "" {
			return errs.Invalid(field, "has an empty variable name")
		}
		for _, r := range k {
			if r == '=' || r <= ' ' || r == 0x7f {
				return errs.Invalid(field, "variable name %q: want no '=', white space or control characters", k)
			}
		}
	}
	return nil
}
