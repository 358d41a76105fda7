package runpod_test

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	"./account", "./catalog", "./clusters", "./pods", "./registries", "./templates",
	"./volumes", "./video", "./openai", "./lease",
}

// TestDependenciesFollowImports: the client and the REST packages link
// no S3, SSH or GraphQL library; those come with volumes/files,
// pods/podssh and serverless/graphqlendpoints, which a program imports
// when it uses them.
func TestDependenciesFollowImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not found:", err)
	}
	for _, pkg := range lightPackages {
		t.Run(strings.TrimPrefix(pkg, "./"), func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", pkg)
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			require.NoError(t, cmd.Run(), "go list -deps %s\n%s", pkg, stderr.String())
			deps := strings.Fields(out.String())
			require.Contains(t, deps, "github.com/runpodkit/runpod-go/option",
				"go list -deps %s did not list the SDK's own packages: the check is looking at the wrong package", pkg)
			var heavy []string
			for _, d := range deps {
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
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not found:", err)
	}
	for _, pkg := range []string{"./volumes/files", "./pods/podssh", "./serverless/graphqlendpoints"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		require.NoError(t, err, "go list -deps %s", pkg)
		assert.Regexp(t, heavyDeps, string(out), "%s links none of the libraries the pattern names: the pattern is stale", pkg)
	}
}

// TestWorkerLinksNoClient: the worker runtime, which runs inside a
// serverless worker's container, links neither the client's transport
// nor package serverless; the job states it shares with them come from
// internal/jobstatus.
func TestWorkerLinksNoClient(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not found:", err)
	}
	cmd := exec.Command("go", "list", "-deps", "./serverless/worker")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	deps := strings.Fields(out.String())
	require.Contains(t, deps, "github.com/runpodkit/runpod-go/internal/jobstatus")
	for _, client := range []string{"github.com/runpodkit/runpod-go/serverless", "github.com/runpodkit/runpod-go/internal/transport", "github.com/hashicorp/go-retryablehttp"} {
		assert.NotContains(t, deps, client)
	}
}
