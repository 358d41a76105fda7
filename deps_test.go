package runpod_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// heavyDeps matches the libraries a program pays for only when it
// imports the package that needs them: the S3 client (volumes/files),
// SSH and SFTP (pods/podssh) and the GraphQL client
// (serverless/graphqlendpoints).
var heavyDeps = regexp.MustCompile(`aws-sdk-go-v2|smithy-go|golang\.org/x/crypto/ssh|pkg/sftp|Khan/genqlient|vektah/gqlparser`)

// lightPackages are the packages that must link none of heavyDeps: the
// client, and every REST service and serverless package it reaches.
var lightPackages = []string{
	".", "./billing", "./serverless", "./serverless/webhook", "./serverless/tracker",
	"./account", "./catalog", "./clusters", "./pods", "./registries", "./secrets", "./globalvolumes", "./templates",
	"./volumes", "./video", "./openai", "./lease", "./sandboxes",
}

// TestDependenciesFollowImports: the client and the REST packages link
// no S3, SSH or GraphQL library; those come with volumes/files,
// pods/podssh and serverless/graphqlendpoints, which a program imports
// when it uses them.
func TestDependenciesFollowImports(t *testing.T) {
	for _, pkg := range lightPackages {
		t.Run(strings.TrimPrefix(pkg, "./"), func(t *testing.T) {
			var heavy []string
			for _, d := range testkit.Deps(t, pkg) {
				if heavyDeps.MatchString(d) {
					heavy = append(heavy, d)
				}
			}
			assert.Empty(t, heavy, "%s links packages it should not", pkg)
		})
	}
}

// TestHeavyPackagesStillLinkTheirLibraries: the pattern of
// TestDependenciesFollowImports finds the libraries where they are meant
// to be, so a renamed module cannot make it pass by matching nothing.
func TestHeavyPackagesStillLinkTheirLibraries(t *testing.T) {
	for _, pkg := range []string{"./volumes/files", "./pods/podssh", "./serverless/graphqlendpoints"} {
		assert.Regexp(t, heavyDeps, strings.Join(testkit.Deps(t, pkg), "\n"), "%s links none of the libraries the pattern names: the pattern is stale", pkg)
	}
}
