// Package version holds the SDK's release version, shared by the root
// package (runpod.Version), and the User-Agent every part of the SDK
// sends (the client's transport, the worker's job loop).
package version

import (
	"runtime"
	"strings"
)

// Version is the SDK's semantic version.
const Version = "0.1.0"

// UserAgent returns "<product>/<version> (<goos>/<goarch>; <go version>)",
// followed by suffix when it is not empty.
func UserAgent(product, suffix string) string {
	ua := product + "/" + Version + " (" + runtime.GOOS + "/" + runtime.GOARCH + "; " + runtime.Version() + ")"
	if suffix = strings.TrimSpace(suffix); suffix != "" {
		ua += " " + suffix
	}
	return ua
}
