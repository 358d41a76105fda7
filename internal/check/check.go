// Package check holds the validation rules several surfaces share: the
// settings of a container (disk, port specs, environment variable names,
// CUDA versions, a persistent mount), as the platform reads them for every
// container it starts (pods, clusters, templates and serverless workers).
// Each returns a *errs.ValidationError naming the field.
package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/secretref"
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
			return fail.Invalid(at, `want "<port>/http" or "<port>/tcp", got %q`, spec)
		case v >= SymmetricPortBase && proto != "tcp":
			return fail.Invalid(at, `ports from %d request symmetric TCP mapping: want "%d/tcp", got %q`, SymmetricPortBase, v, spec)
		case v < 1 || (v > 65535 && v < SymmetricPortBase):
			return fail.Invalid(at, "want a port from 1 to 65535, or from %d for symmetric TCP mapping, got %q", SymmetricPortBase, spec)
		}
	}
	return nil
}

// EnvNames checks the names of environment variables: not empty, and
// without '=', white space or control characters, which no process
// environment can hold; and the references to account secrets the values
// hold ("{{ RUNPOD_SECRET_<name> }}", see package secrets): each must name
// a secret an account can hold, or the platform could not resolve it at
// boot. Only the names of variables are ever put in the error: the values
// may be secrets, and so may what a reference in one holds. The names are checked in sorted
// order, so the error is the same on every run.
func EnvNames(field string, env map[string]string) error {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if k == "" {
			return fail.Invalid(field, "has an empty variable name")
		}
		for _, r := range k {
			if r == '=' || r <= ' ' || r == 0x7f {
				return fail.Invalid(field, "variable name %q: want no '=', white space or control characters", k)
			}
		}
	}
	for _, k := range names {
		for _, name := range secretref.Names(env[k]) {
			if secretref.Problem(name) != "" {
				// The name is not quoted: it was read out of a value,
				// which may hold a secret.
				return fail.Invalid(fmt.Sprintf("%s[%q]", field, k), "refers to a secret by a name no secret can have "+
					"(1 to 191 letters, digits and _.-/, starting with a letter or '_', not starting with RUNPOD in any case)")
			}
		}
	}
	return nil
}

// Container checks the settings every container takes, as field.Disk,
// field.Ports and field.Env: a container disk of at least 1 GB when one
// is given, the port specs (Ports) and the variable names (EnvNames).
func Container(field string, disk *int, ports []string, env map[string]string) error {
	if disk != nil && *disk < 1 {
		return fail.Invalid(field+".Disk", "must be at least 1 GB, got %d", *disk)
	}
	if err := Ports(field+".Ports", ports); err != nil {
		return err
	}
	return EnvNames(field+".Env", env)
}

// cudaVersion is the document's pattern for CUDA versions: major.minor.
var cudaVersion = regexp.MustCompile(`^\d+\.\d+$`)

// CUDAVersions checks CUDA versions, each major.minor such as 12.4. field
// names the list; the entry's index is added.
func CUDAVersions(field string, versions []string) error {
	for i, v := range versions {
		if err := CUDAVersion(fmt.Sprintf("%s[%d]", field, i), v); err != nil {
			return err
		}
	}
	return nil
}

// CUDAVersion checks one CUDA version, major.minor such as 12.4.
func CUDAVersion(field, v string) error {
	if !cudaVersion.MatchString(v) {
		return fail.Invalid(field, "want major.minor such as 12.4, got %q", v)
	}
	return nil
}

// PersistentMount checks a persistent volume as the platform mounts it in
// a container: at least 10 GB, at an absolute path. field names the mount
// ("CreatePodRequest.Mounts.Persistent"); .Size or .Path is added.
func PersistentMount(field string, size int, path string) error {
	switch {
	case size < 10:
		return fail.Invalid(field+".Size", "must be at least 10 GB, got %d", size)
	case !strings.HasPrefix(path, "/"):
		return fail.Invalid(field+".Path", "want an absolute path inside the container, got %q", path)
	}
	return nil
}
