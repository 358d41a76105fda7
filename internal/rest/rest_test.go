package rest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestSegmentID(t *testing.T) {
	require.NoError(t, segmentID("podID", "abc123", ""))
	require.NoError(t, segmentID("clusterID", "a_b-c", "_-"))
	for _, c := range []struct{ id, extra, msg string }{
		{"", "", "is empty"},
		{"a/b", "", `want letters and digits, got "a/b"`},
		{"a b", "_-", `want letters, digits, '_' and '-', got "a b"`},
		{"a b", "-_.", `want letters, digits, '-', '_' and '.', got "a b"`},
	} {
		err := segmentID("x", c.id, c.extra)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.id)
		assert.Equal(t, "x", ve.Field)
		assert.Contains(t, err.Error(), c.msg)
	}
}

func TestLogQueryCheck(t *testing.T) {
	bad, tail := source("kernel"), 5001
	for field, q := range map[string]LogQuery[source]{"P.Source": {Params: "P", Source: &bad}, "P.Tail": {Params: "P", Tail: &tail}} {
		err := q.Check()
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
	}
	assert.NoError(t, LogQuery[source]{Params: "P"}.Check())
}
