package runpodtest_test

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakesDeps matches the libraries of the fake's subpackages: the OpenAPI
// validator and its dependencies (contract), the S3 server (fakes3), SSH
// and SFTP (fakessh) and the GraphQL engine (fakegraphql).
var fakesDeps = regexp.MustCompile(`getkin/kin-openapi|go-openapi/|oasdiff/|santhosh-tekuri/jsonschema|johannesboyne/gofakes3|golang\.org/x/crypto/ssh|pkg/sftp|graph-gophers/graphql-go`)

// listDeps returns go list -deps pkg.
func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", pkg)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	require.NoError(t, cmd.Run(), "go list -deps %s\n%s", pkg, stderr.String())
	deps := strings.Fields(out.String())
	require.Contains(t, deps, "github.com/runpodkit/runpod-go/option",
		"go list -deps %s did not list the SDK's own packages: the check is looking at the wrong package", pkg)
	return deps
}

// TestCoreLinksNoFakesLibraries: a test that imports runpodtest alone
// links no OpenAPI validator, S3 server, SSH server or GraphQL engine;
// the subpackages that serve them link them, so the pattern is not stale.
func TestCoreLinksNoFakesLibraries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not found:", err)
	}
	var heavy []string
	for _, d := range listDeps(t, ".") {
		if fakesDeps.MatchString(d) {
			heavy = append(heavy, d)
		}
	}
	assert.Empty(t, heavy, "runpodtest links packages it should not")
	for _, pkg := range []string{"./contract", "./fakes3", "./fakessh", "./fakegraphql"} {
		assert.Regexp(t, fakesDeps, strings.Join(listDeps(t, pkg), "\n"), "%s links none of the libraries the pattern names: the pattern is stale", pkg)
	}
}
