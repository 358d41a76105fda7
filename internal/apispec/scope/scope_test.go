package scope

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestOf: a scope is found by method and route template (any parameter
// names) or by request path, behind a base URL's path prefix too; other
// methods, paths and shapes find none.
func TestOf(t *testing.T) {
	defer Set(map[string]string{"GET /v2/tags/{}": "tags:read", "POST /v2/pods": "pods:write"})()
	for _, c := range []struct{ method, route, want string }{
		{"GET", "/v2/tags/{tagId}", "tags:read"},
		{"GET", "/v2/tags/tag_1", "tags:read"},
		{"GET", "/base/v2/tags/tag_1", "tags:read"},
		{"POST", "/v2/pods", "pods:write"},
		{"GET", "/v2/pods", ""},
		{"DELETE", "/v2/tags/tag_1", ""},
		{"GET", "/v2/tags", ""},
		{"GET", "/v2/tags/", ""},
		{"GET", "/v2/tags/a/b", ""},
		{"GET", "/v2/{x}/{y}", ""},
	} {
		assert.Equal(t, c.want, Of(c.method, c.route), "%s %s", c.method, c.route)
	}
}
