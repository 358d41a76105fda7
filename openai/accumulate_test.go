package openai_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/openai"
)

// TestAccumulatorJoinsLongToolCallsInLinearSpace: a tool call whose
// arguments arrive in 20,000 pieces is joined whole, and joining it
// allocates a small multiple of its length (joining each piece onto a
// string would copy the arguments once per piece: about 2 GB here).
func TestAccumulatorJoinsLongToolCallsInLinearSpace(t *testing.T) {
	const pieces, piece = 20000, `"0123456",`
	idx := 0
	var acc openai.ChatAccumulator
	acc.Add(openai.ChatChunk{ID: "c1", Choices: []openai.ChunkChoice{{Delta: openai.Delta{
		ToolCalls: []openai.ToolCall{{Index: &idx, ID: "call_1", Function: openai.FunctionCall{Name: "lookup", Arguments: "["}}},
	}}}})
	chunk := openai.ChatChunk{Choices: []openai.ChunkChoice{{Delta: openai.Delta{
		ToolCalls: []openai.ToolCall{{Index: &idx, Function: openai.FunctionCall{Arguments: piece}}},
	}}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range pieces {
		acc.Add(chunk)
	}
	runtime.ReadMemStats(&after)

	got := acc.Completion().Choices[0].Message.ToolCalls
	require.Len(t, got, 1)
	require.Equal(t, "call_1", got[0].ID)
	require.Equal(t, "function", got[0].Type)
	require.Equal(t, "lookup", got[0].Function.Name)
	require.Equal(t, "["+strings.Repeat(piece, pieces), got[0].Function.Arguments)
	length := uint64(len(got[0].Function.Arguments))
	require.Less(t, after.TotalAlloc-before.TotalAlloc, 8*length, "joining %d pieces allocated %d bytes for %d", pieces, after.TotalAlloc-before.TotalAlloc, length)
}
