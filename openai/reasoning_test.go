package openai_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
)

// TestReasoningUnderEitherName: current vLLM writes a reasoning model's
// thinking as "reasoning" (it renamed "reasoning_content", then removed
// the old name); older servers write "reasoning_content". Both are read,
// in whole messages and in stream deltas, "reasoning" winning when both
// are set.
func TestReasoningUnderEitherName(t *testing.T) {
	cases := []struct {
		name, fields, want string
	}{
		{"current vLLM", `"reasoning":"think new"`, "think new"},
		{"old name", `"reasoning_content":"think old"`, "think old"},
		{"both", `"reasoning_content":"think old","reasoning":"think new"`, "think new"},
		{"both, old first empty", `"reasoning":"think new","reasoning_content":""`, "think new"},
		{"new null", `"reasoning":null,"reasoning_content":"think old"`, "think old"},
		{"none", `"content":"x"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m openai.Message
			require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":"hi",`+c.fields+`}`), &m))
			assert.Equal(t, c.want, m.Reasoning)
			var d openai.Delta
			require.NoError(t, json.Unmarshal([]byte(`{`+c.fields+`}`), &d))
			assert.Equal(t, c.want, d.Reasoning)

			// Over the wire: a whole completion, and a stream.
			route := rawRoute(t, func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Stream bool `json:"stream"`
				}
				assert.NoError(t, json.NewDecoder(r.Body).Decode(&req))
				if !req.Stream {
					w.Header().Set("Content-Type", "application/json")
					_, _ = fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi",%s},"finish_reason":"stop"}]}`, c.fields)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = fmt.Fprintf(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",%s}}]}\n\n", c.fields)
				_, _ = fmt.Fprintf(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{%s}}]}\n\n", c.fields)
				_, _ = io.WriteString(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			})
			params := openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("x")}}
			res, err := route.ChatCompletion(t.Context(), params)
			require.NoError(t, err)
			assert.Equal(t, c.want, res.Choices[0].Message.Reasoning)
			var acc openai.ChatAccumulator
			for chunk, err := range route.ChatCompletionStream(t.Context(), params) {
				require.NoError(t, err)
				acc.Add(chunk)
			}
			assert.Equal(t, c.want+c.want, acc.Completion().Choices[0].Message.Reasoning)
		})
	}
}

// TestReasoningWrittenAsCurrentVLLMReadsIt: a message sent back in the
// history carries its reasoning as "reasoning", the name current vLLM
// reads, never the removed "reasoning_content".
func TestReasoningWrittenAsCurrentVLLMReadsIt(t *testing.T) {
	b, err := json.Marshal(openai.Message{Role: openai.RoleAssistant, Content: openai.Content{Text: "4"}, Reasoning: "2+2"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"assistant","content":"4","reasoning":"2+2"}`, string(b))

	srv, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	res, err := ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hello there")}})
	require.NoError(t, err)
	_, err = ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model,
		Messages: []openai.Message{openai.UserMessage("hello there"), res.Choices[0].Message, openai.UserMessage("again")}})
	require.NoError(t, err)
	var sent struct {
		Messages []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(lastReq(srv).Body, &sent))
	require.Len(t, sent.Messages, 3)
	assert.Equal(t, "The user wrote 2 words; I will repeat them.", sent.Messages[1]["reasoning"])
	assert.NotContains(t, sent.Messages[1], "reasoning_content")
}

// TestFakeWritesReasoning: the fake's reasoning model answers as current
// vLLM does, with "reasoning" in messages and deltas.
func TestFakeWritesReasoning(t *testing.T) {
	_, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	params := openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("one two")}}
	res, err := ep.ChatCompletion(t.Context(), params)
	require.NoError(t, err)
	assert.Contains(t, string(res.Raw), `"reasoning":"The user wrote 2 words; I will repeat them."`)
	assert.NotContains(t, string(res.Raw), "reasoning_content")
	deltas := 0
	for chunk, err := range ep.ChatCompletionStream(t.Context(), params) {
		require.NoError(t, err)
		assert.NotContains(t, string(chunk.Raw), "reasoning_content")
		for _, c := range chunk.Choices {
			if c.Delta.Reasoning != "" {
				deltas++
				assert.Contains(t, string(chunk.Raw), `"reasoning":`)
			}
		}
	}
	assert.Positive(t, deltas)
}

// TestDeveloperRole: the developer role, which current servers accept, is
// sent as given.
func TestDeveloperRole(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	for _, m := range []openai.Message{{Role: "developer", Content: openai.Content{Text: "be brief"}}, openai.DeveloperMessage("be brief")} {
		res, err := ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{m, openai.UserMessage("hi")}})
		require.NoError(t, err)
		assert.Equal(t, "You said: hi", res.Choices[0].Message.Content.String())
		var sent struct {
			Messages []map[string]any `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(lastReq(srv).Body, &sent))
		assert.Equal(t, map[string]any{"role": "developer", "content": "be brief"}, sent.Messages[0])
	}
	_, err := ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{{Role: "moderator"}}})
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "developer")
}

// FuzzReasoningNames: whatever the two names hold, a message and a delta
// decode without panicking, "reasoning" winning when it is set.
func FuzzReasoningNames(f *testing.F) {
	f.Add("new", "old", true, true)
	f.Add("", "old", true, true)
	f.Add("new", "", false, true)
	f.Add("\u2028\x00", "\"", true, false)
	f.Fuzz(func(t *testing.T, current, old string, withCurrent, withOld bool) {
		obj := map[string]any{"role": "assistant", "content": "c"}
		if withCurrent {
			obj["reasoning"] = current
		}
		if withOld {
			obj["reasoning_content"] = old
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Skip()
		}
		want := ""
		if withOld {
			want = old
		}
		if withCurrent && current != "" {
			want = current
		}
		var m openai.Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var d openai.Delta
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		// Invalid UTF-8 is replaced when encoded, so compare what JSON
		// can carry.
		w, _ := json.Marshal(want)
		var wantDecoded string
		_ = json.Unmarshal(w, &wantDecoded)
		if m.Reasoning != wantDecoded || d.Reasoning != wantDecoded {
			t.Fatalf("reasoning %q / %q, want %q", m.Reasoning, d.Reasoning, wantDecoded)
		}
	})
}

// FuzzMessageJSON: any bytes decode into a message and a delta, or fail,
// without panicking; when both decode, they read the same reasoning (the
// delta's shortcut for chunks without reasoning_content loses nothing).
func FuzzMessageJSON(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","content":null,"reasoning":"r","reasoning_content":"o"}`))
	f.Add([]byte(`{"reasoning":7}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"a"}],"tool_calls":[{"index":0}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"reasoning\u005fcontent":"o"}`))
	f.Add([]byte(`{"Reasoning_Content":"o","content":"_"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m openai.Message
		errM := json.Unmarshal(b, &m)
		var d openai.Delta
		errD := json.Unmarshal(b, &d)
		if errM == nil && errD == nil && m.Reasoning != d.Reasoning {
			t.Fatalf("a message reads reasoning %q, a delta %q", m.Reasoning, d.Reasoning)
		}
	})
}

// rawRoute returns the route "ep" of a client aimed at a server answering
// every request with h.
func rawRoute(t *testing.T, h http.HandlerFunc) *openai.Route {
	t.Helper()
	srv := newRaw(t, h)
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithInferenceURL(srv.URL))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return rp.OpenAI.Route("ep")
}
