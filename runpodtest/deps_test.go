package runpodtest_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// fakesDeps matches the libraries of the fake's subpackages: the OpenAPI
// validator and its dependencies (contract), the S3 server (fakes3), SSH
// and SFTP (fakessh) and the GraphQL engine (fakegraphql).
var fakesDeps = regexp.MustCompile(`getkin/kin-openapi|go-openapi/|oasdiff/|santhosh-tekuri/jsonschema|johannesboyne/gofakes3|golang\.org/x/crypto/ssh|pkg/sftp|graph-gophers/graphql-go`)

// TestCoreLinksNoFakesLibraries: a test that imports runpodtest alone
// links no OpenAPI validator, S3 server, SSH server or GraphQL engine;
// the subpackages that serve them link them, so the pattern is not stale.
func TestCoreLinksNoFakesLibraries(t *testing.T) {
	var heavy []string
	for _, d := range testkit.Deps(t, ".") {
		if fakesDeps.MatchString(d) {
			heavy = append(heavy, d)
		}
	}
	assert.Empty(t, heavy, "runpodtest links packages it should not")
	for _, pkg := range []string{"./contract", "./fakes3", "./fakessh", "./fakegraphql"} {
		assert.Regexp(t, fakesDeps, strings.Join(testkit.Deps(t, pkg), "\n"), "%s links none of the libraries the pattern names: the pattern is stale", pkg)
	}
}
