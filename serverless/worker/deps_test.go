package worker

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// clientCode matches the import paths of the SDK's client side: the
// serverless client package, its GraphQL layer and the libraries behind
// it, and the request layer. A worker binary needs none of them.
var clientCode = regexp.MustCompile(`genqlient|gqlparser|serverless/graphqlendpoints|runpod-go/serverless$|internal/transport|internal/link|internal/rest`)

// TestLinksNoClientCode: the worker runtime (what a worker binary links)
// depends on nothing of the SDK's client, only on what the worker
// protocol needs.
func TestLinksNoClientCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", ".")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var linked []string
	for _, p := range strings.Fields(out.String()) {
		if clientCode.MatchString(p) {
			linked = append(linked, p)
		}
	}
	if len(linked) > 0 {
		t.Errorf("the worker runtime links client code:\n%s", strings.Join(linked, "\n"))
	}
	if !strings.Contains(out.String(), "runpod-go/internal/jobqueue") {
		t.Error("go list did not list the worker's own dependencies: the check is looking at the wrong package")
	}
}
