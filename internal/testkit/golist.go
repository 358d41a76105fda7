package testkit

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Deps returns the import paths go list -deps prints for pkg (a pattern
// relative to the test's directory): pkg and every package it links. It
// skips the test when the go command is not found, and fails it when go
// list fails or lists no package of this module (a check looking at the
// wrong package).
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not found:", err)
	}
	cmd := exec.Command("go", "list", "-deps", pkg)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr.String())
	}
	deps := strings.Fields(out.String())
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/runpodkit/runpod-go") {
			return deps
		}
	}
	t.Fatalf("go list -deps %s lists no package of this module: the check is looking at the wrong package", pkg)
	return nil
}
