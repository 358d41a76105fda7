package runpod_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// maxREADMEWords is the README's budget: it is the entry point (what the
// SDK is, a first program, where to go for each task), and reference
// detail belongs in the packages' documentation.
const maxREADMEWords = 5000

// TestREADMEIsAnEntryPoint: README.md stays within maxREADMEWords words
// (counted as wc -w counts them), keeps the test command CI runs, and
// links every task of its index to a package's documentation.
func TestREADMEIsAnEntryPoint(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := len(strings.Fields(readme)); n > maxREADMEWords {
		t.Errorf("README.md has %d words, more than %d: move reference detail into the packages' doc comments and Example functions", n, maxREADMEWords)
	}
	if !strings.Contains(readme, "go test -race -count=1 ./...") {
		t.Error("README.md lost the test command .ci/run runs: go test -race -count=1 ./...")
	}
	_, tasks, _ := strings.Cut(readme, "\n## Tasks\n")
	tasks, _, _ = strings.Cut(tasks, "\n## ")
	sections := regexp.MustCompile(`(?m)^### `).Split(tasks, -1)[1:]
	if len(sections) < 8 {
		t.Fatalf("README.md's task index has %d tasks", len(sections))
	}
	for _, s := range sections {
		title, _, _ := strings.Cut(s, "\n")
		if !strings.Contains(s, "](https://pkg.go.dev/github.com/runpodkit/runpod-go") && !strings.Contains(s, "](otel/") {
			t.Errorf("README.md's task %q links to no package documentation", title)
		}
	}
}
