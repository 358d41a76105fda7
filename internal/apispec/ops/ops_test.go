package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFind: an operation is found by method and route template whatever
// its parameters are named; a route the document lacks is not.
func TestFind(t *testing.T) {
	op, ok := Find("GET", "/v2/pods/{podId}")
	assert.True(t, ok)
	assert.Equal(t, "/v2/pods/{id}", op.Path)
	assert.False(t, op.Cursor)

	op, ok = Find("GET", "/v2/pods")
	assert.True(t, ok)
	assert.True(t, op.Cursor)
	assert.Equal(t, "pods", op.Items)
	assert.Contains(t, op.Query, "limit")

	_, ok = Find("POST", "/graphql")
	assert.False(t, ok)
	_, ok = Find("PUT", "/v2/pods")
	assert.False(t, ok)
}
