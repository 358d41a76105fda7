package openai_test

import (
	"context"
	"encoding/json"
	"iter"

	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

func lastReq(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

var weatherTool = openai.FunctionTool("get_weather", "Current weather for a city", json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`))

func TestBaseURLAndEnv(t *testing.T) {
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"))
	require.NoError(t, err)
	assert.Equal(t, "https://api.runpod.ai/v2/qwen3-32b-awq/openai/v1", rp.OpenAI.Route(openai.PublicQwen3).BaseURL())
	assert.Equal(t, "https://api.runpod.ai/v2/granite-4-0-h-small/openai/v1", rp.OpenAI.Route(openai.PublicGranite4).BaseURL())
	assert.Equal(t, map[string]string{"ENABLE_AUTO_TOOL_CHOICE": "true", "REASONING_PARSER": "qwen3", "TOOL_CALL_PARSER": "hermes"}, openai.Qwen3ToolCallingEnv())
	assert.Equal(t, map[string]string{"ENABLE_AUTO_TOOL_CHOICE": "true", "TOOL_CALL_PARSER": "llama3_json"}, openai.ToolCallingEnv("", "llama3_json"))
}

func TestChatWireFormat(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	_, err := ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{
		Model: openai.Qwen3Model,
		Messages: []openai.Message{
			openai.SystemMessage("be brief"),
			openai.UserParts(openai.TextPart("what is this?"), openai.ImagePart("https://example.com/cat.png")),
		},
		Sampling: openai.Sampling{MaxTokens: runpod.Ptr(64), Temperature: runpod.Ptr(0.0), TopK: runpod.Ptr(20), MinP: runpod.Ptr(0.05),
			RepetitionPenalty: runpod.Ptr(1.1), Stop: []string{"\n\n"}},
		Tools:          []openai.Tool{weatherTool},
		ToolChoice:     openai.ToolChoiceNone(),
		ResponseFormat: &openai.ResponseFormat{Type: "json_object"},
		Extra:          map[string]any{"chat_template_kwargs": map[string]bool{"enable_thinking": false}, "top_k": 40},
	})
	require.NoError(t, err)
	r := lastReq(srv)
	assert.Equal(t, "/v2/qwen3-32b-awq/openai/v1/chat/completions", r.Path)
	assert.Equal(t, "bearer", r.Auth)
	assert.JSONEq(t, `{"model":"Qwen/Qwen3-32B-AWQ",
		"messages":[{"role":"system","content":"be brief"},
			{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]}],
		"max_tokens":64,"temperature":0,"stop":["\n\n"],"top_k":40,"min_p":0.05,"repetition_penalty":1.1,
		"tools":[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}}],
		"tool_choice":"none","response_format":{"type":"json_object"},"chat_template_kwargs":{"enable_thinking":false}}`, string(r.Body))

	for _, err := range ep.ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hi")},
		IncludeUsage: true, ToolChoice: openai.ToolChoiceFunction("f"), Tools: []openai.Tool{openai.FunctionTool("f", "", nil)}}) {
		require.NoError(t, err)
		break // the request is what is checked
	}
	assert.JSONEq(t, `{"model":"Qwen/Qwen3-32B-AWQ","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},
		"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}}}`, string(lastReq(srv).Body))
}

func TestChatCompletion(t *testing.T) {
	_, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	res, err := ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hello there")}})
	require.NoError(t, err)
	require.Len(t, res.Choices, 1)
	msg := res.Choices[0].Message
	assert.Equal(t, openai.RoleAssistant, msg.Role)
	assert.Equal(t, "You said: hello there", msg.Content.String())
	assert.Equal(t, "The user wrote 2 words; I will repeat them.", msg.Reasoning)
	assert.Equal(t, "stop", res.Choices[0].FinishReason)
	require.NotNil(t, res.Usage)
	assert.Equal(t, res.Usage.PromptTokens+res.Usage.CompletionTokens, res.Usage.TotalTokens)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(res.Raw, &raw), "the raw response stays reachable")
	assert.Equal(t, "chat.completion", raw["object"])

	// Tool calls, and the conversation continuing with the tool's result.
	res, err = ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Tools: []openai.Tool{weatherTool},
		Messages: []openai.Message{openai.UserMessage("call get_weather for Paris")}})
	require.NoError(t, err)
	calls := res.Choices[0].Message.ToolCalls
	require.Len(t, calls, 1)
	assert.Equal(t, "get_weather", calls[0].Function.Name)
	assert.JSONEq(t, `{"query":"call get_weather for Paris"}`, calls[0].Function.Arguments)
	assert.Equal(t, "tool_calls", res.Choices[0].FinishReason)
	res, err = ep.ChatCompletion(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model, Tools: []openai.Tool{weatherTool},
		Messages: []openai.Message{openai.UserMessage("call get_weather for Paris"), res.Choices[0].Message, openai.ToolMessage(calls[0].ID, "18°C")}})
	require.NoError(t, err)
	assert.Equal(t, "The tool returned: 18°C", res.Choices[0].Message.Content.String())
}

func TestStreamAssemblesChunks(t *testing.T) {
	_, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	var content string
	n := 0
	var usage *openai.Usage
	var acc openai.ChatAccumulator
	for chunk, err := range ep.ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: openai.Qwen3Model,
		Messages: []openai.Message{openai.UserMessage("one two three")}, IncludeUsage: true}) {
		require.NoError(t, err)
		acc.Add(chunk)
		n++
		for _, c := range chunk.Choices {
			content += c.Delta.Content
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		assert.NotEmpty(t, chunk.Raw)
	}
	assert.Equal(t, "You said: one two three", content)
	assert.Greater(t, n, 5, "one word per chunk")
	require.NotNil(t, usage)
	res := acc.Completion()
	assert.Equal(t, "You said: one two three", res.Choices[0].Message.Content.String())
	assert.Equal(t, "The user wrote 3 words; I will repeat them.", res.Choices[0].Message.Reasoning)
	assert.Equal(t, "stop", res.Choices[0].FinishReason)
	assert.Equal(t, usage, res.Usage)
}

func TestStreamToolCallDeltas(t *testing.T) {
	_, rp, _ := fixture.New(t)
	fragments := 0
	var acc openai.ChatAccumulator
	for chunk, err := range rp.OpenAI.Route(openai.PublicGranite4).ChatCompletionStream(t.Context(), openai.ChatCompletionParams{
		Model: "ibm-granite/granite-4.0-h-small", Tools: []openai.Tool{weatherTool}, ToolChoice: openai.ToolChoiceRequired(),
		Messages: []openai.Message{openai.UserMessage("weather in Oslo")}}) {
		require.NoError(t, err)
		acc.Add(chunk)
		for _, c := range chunk.Choices {
			fragments += len(c.Delta.ToolCalls)
		}
	}
	assert.Equal(t, 3, fragments, "name first, then the arguments in pieces")
	calls := acc.Completion().Choices[0].Message.ToolCalls
	require.Len(t, calls, 1)
	assert.Equal(t, "get_weather", calls[0].Function.Name)
	assert.Equal(t, "function", calls[0].Type)
	assert.NotEmpty(t, calls[0].ID)
	assert.JSONEq(t, `{"query":"weather in Oslo"}`, calls[0].Function.Arguments, "deltas joined into whole arguments")
	assert.Equal(t, "tool_calls", acc.Completion().Choices[0].FinishReason)
}

// TestHTTPErrorIsTheFirstYield: an HTTP error ends the stream at once, as
// its only yield.
func TestHTTPErrorIsTheFirstYield(t *testing.T) {
	_, rp, _ := fixture.New(t)
	var got []error
	for chunk, err := range rp.OpenAI.Route(openai.PublicQwen3).ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "gpt-4", Messages: []openai.Message{openai.UserMessage("x")}}) {
		assert.Empty(t, chunk.ID)
		got = append(got, err)
	}
	require.Len(t, got, 1)
	err := got[0]
	var oe *openai.Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 404, oe.StatusCode)
	assert.Equal(t, "The model `gpt-4` does not exist.", oe.Message)
	assert.Equal(t, "NotFoundError", oe.Type)
	assert.Equal(t, "404", oe.Code)
	assert.ErrorIs(t, err, errs.ErrNotFound)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr, "the APIError stays reachable")

	_, err = rp.OpenAI.Route("not-an-openai-endpoint").Models(t.Context())
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 404, oe.StatusCode)
	testkit.NoSecret(t, err)
}

func TestMidStreamError(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.HandleOpenAI("crashy", runpodtest.OpenAIOptions{Model: "m", FailAfterChunks: 3})
	var got []error
	chunks := 0
	for _, err := range rp.OpenAI.Route("crashy").ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("a b c d e f")}}) {
		if err != nil {
			got = append(got, err)
			continue
		}
		chunks++
	}
	assert.Equal(t, 3, chunks)
	require.Len(t, got, 1)
	var oe *openai.Error
	require.ErrorAs(t, got[0], &oe)
	assert.Equal(t, "the worker stopped unexpectedly", oe.Message)
}

// TestStopEarly: breaking out closes the stream; nothing is left running
// (goleak checks at the end of the package).
func TestStopEarly(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.HandleOpenAI("slow", runpodtest.OpenAIOptions{Model: "m", ChunkDelay: 20 * time.Millisecond})
	n := 0
	for range rp.OpenAI.Route("slow").ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("many words to stream here")}}) {
		n++
		break
	}
	assert.Equal(t, 1, n)
}

// TestNoBufferingDelay: the first chunk reaches the caller before the
// server writes the second.
func TestNoBufferingDelay(t *testing.T) {
	release := make(chan struct{})
	var secondWritten atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"first"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
			return
		}
		secondWritten.Store(true)
		_, _ = io.WriteString(w, `data: {"id":"c1","choices":[{"index":0,"delta":{"content":" second"}}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithInferenceURL(srv.URL))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	var got []string
	for chunk, err := range rp.OpenAI.Route("ep").ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("x")}}) {
		require.NoError(t, err)
		if len(got) == 0 {
			assert.False(t, secondWritten.Load(), "the first chunk arrived before the server wrote the second")
			close(release)
		}
		got = append(got, chunk.Choices[0].Delta.Content)
	}
	assert.Equal(t, []string{"first", " second"}, got)
}

func TestCompletionAndModels(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	c, err := ep.Completion(t.Context(), openai.CompletionParams{Model: openai.Qwen3Model, Prompt: "Once upon", Sampling: openai.Sampling{MaxTokens: runpod.Ptr(8)}})
	require.NoError(t, err)
	assert.Equal(t, "You said: Once upon", c.Choices[0].Text)
	assert.JSONEq(t, `{"model":"Qwen/Qwen3-32B-AWQ","prompt":"Once upon","max_tokens":8}`, string(lastReq(srv).Body))
	models, err := rp.OpenAI.Route(openai.PublicGranite4).Models(t.Context())
	require.NoError(t, err)
	require.Len(t, models, 1)
	assert.Equal(t, "ibm-granite/granite-4.0-h-small", models[0].ID)
}

func TestValidation(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ep := rp.OpenAI.Route(openai.PublicQwen3)
	cases := map[string]openai.ChatCompletionParams{
		"ChatCompletionParams.Model":                  {Messages: []openai.Message{openai.UserMessage("x")}},
		"ChatCompletionParams.Messages":               {Model: "m"},
		"ChatCompletionParams.Messages[0].Role":       {Model: "m", Messages: []openai.Message{{Role: "robot"}}},
		"ChatCompletionParams.Messages[1].ToolCallID": {Model: "m", Messages: []openai.Message{openai.UserMessage("x"), {Role: openai.RoleTool}}},
		"ChatCompletionParams.Tools[0]":               {Model: "m", Messages: []openai.Message{openai.UserMessage("x")}, Tools: []openai.Tool{{Type: "function"}}},
	}
	for field, req := range cases {
		_, err := ep.ChatCompletion(t.Context(), req)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, field, ve.Field)
		for _, err := range ep.ChatCompletionStream(context.Background(), req) {
			require.ErrorAs(t, err, &ve, field)
		}
	}
	_, err := rp.OpenAI.Route("").Models(t.Context())
	require.ErrorIs(t, err, errs.ErrValidation)
	assert.Zero(t, srv.Count("*"))
}

func TestContentJSON(t *testing.T) {
	var m openai.Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`), &m))
	assert.Empty(t, m.Content.String())
	require.NoError(t, json.Unmarshal([]byte(`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"b"}]}`), &m))
	assert.Equal(t, "ab", m.Content.String())
	require.Error(t, json.Unmarshal([]byte(`{"role":"user","content":7}`), &m))
	_, err := json.Marshal(openai.ToolChoice{})
	require.Error(t, err)
}

// TestStreamCutBeforeDone: a stream whose body ends without [DONE] (a proxy
// cutting it at an event boundary, or mid-event) is an error, never a
// finished answer; the chunks read so far stay available.
func TestStreamCutBeforeDone(t *testing.T) {
	for name, tail := range map[string]string{
		"at an event boundary": "",
		"inside an event":      `data: {"id":"c1","choi`,
	} {
		t.Run(name, func(t *testing.T) {
			stream := rawStream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"The answer is"}}]}`+"\n\n"+tail)
			})
			var got []string
			var last error
			var acc openai.ChatAccumulator
			for chunk, err := range stream {
				if err != nil {
					last = err
					break
				}
				acc.Add(chunk)
				got = append(got, chunk.Choices[0].Delta.Content)
			}
			assert.Equal(t, []string{"The answer is"}, got)
			require.Error(t, last)
			var te *errs.TransportError
			require.ErrorAs(t, last, &te)
			assert.ErrorIs(t, last, io.ErrUnexpectedEOF)
			assert.Equal(t, "/v2/ep/openai/v1/chat/completions", te.Path)
			assert.Equal(t, "The answer is", acc.Completion().Choices[0].Message.Content.Text, "what arrived is kept")
		})
	}
}

// TestStreamBadChunk: an event that is not a chunk's JSON ends the stream
// with a typed error carrying the event's start.
func TestStreamBadChunk(t *testing.T) {
	stream := rawStream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: <html>oops</html>\n\ndata: [DONE]\n\n")
	})
	for _, err := range stream {
		var re *errs.ResponseError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, "<html>oops</html>", re.Excerpt)
	}
}

// rawStream starts a server answering every request with h, and returns a
// chat stream against it.
func rawStream(t *testing.T, h http.HandlerFunc) iter.Seq2[openai.ChatChunk, error] {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithInferenceURL(srv.URL))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return rp.OpenAI.Route("ep").ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("x")}})
}

// TestNewFromConfig: the OpenAI-compatible service works alone, built
// from a Config, and one built from a Config that does not validate fails
// every call with the validation error.
func TestNewFromConfig(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	cfg, err := option.NewConfig(srv.ClientOptions()...)
	require.NoError(t, err)
	models, err := openai.NewFromConfig(cfg).Route(openai.PublicGranite4).Models(t.Context())
	require.NoError(t, err)
	assert.NotEmpty(t, models)

	n := len(srv.Requests())
	_, err = openai.NewFromConfig(option.Config{}).Route(openai.PublicGranite4).Models(t.Context())
	require.ErrorIs(t, err, errs.ErrNoAPIKey)
	assert.Len(t, srv.Requests(), n, "nothing sent")
}
