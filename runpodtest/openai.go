package runpodtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// openaiUnit maps endpoint ids to the OpenAI-compatible route each one
// serves.
type openaiUnit struct {
	mu     sync.Mutex
	routes map[string]OpenAIOptions
}

// Routes of the OpenAI-compatible API of endpoints, on the inference host.
const (
	RouteChatCompletions = "POST /v2/{endpoint}/openai/v1/chat/completions"
	RouteCompletions     = "POST /v2/{endpoint}/openai/v1/completions"
	RouteModels          = "GET /v2/{endpoint}/openai/v1/models"
)

// OpenAIOptions describes a fake OpenAI-compatible endpoint.
type OpenAIOptions struct {
	// Model is the served model name requests must use.
	Model string
	// Reasoning makes replies carry the model's thinking, as a reasoning
	// model behind a reasoning parser does: in "reasoning" of messages and
	// stream deltas, the name current vLLM writes (it renamed
	// "reasoning_content" and then removed the old name).
	Reasoning bool
	// ChunkDelay is the pause between streamed chunks.
	ChunkDelay time.Duration
	// FailAfterChunks, when positive, ends streams with an error object
	// after that many chunks, as a crashing worker does.
	FailAfterChunks int
}

// HandleOpenAI makes endpointID serve the OpenAI-compatible API with
// deterministic replies: "You said: <last user text>", a tool call when
// the request offers tools and asks for one (or names one in its text),
// JSON when a JSON response format is asked, and streaming one word per
// chunk. The public endpoints qwen3-32b-awq and granite-4-0-h-small are
// there from the start.
func (s *Server) HandleOpenAI(endpointID string, o OpenAIOptions) {
	s.openai.mu.Lock()
	defer s.openai.mu.Unlock()
	s.openai.routes[endpointID] = o
}

func (s *Server) registerOpenAI() {
	s.openai.routes["qwen3-32b-awq"] = OpenAIOptions{Model: "Qwen/Qwen3-32B-AWQ", Reasoning: true}
	s.openai.routes["granite-4-0-h-small"] = OpenAIOptions{Model: "ibm-granite/granite-4.0-h-small"}
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request, o OpenAIOptions)) {
		s.Handle(Route{Pattern: pattern, Permission: PermissionInference, Inference: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.openai.mu.Lock()
			o, ok := s.openai.routes[r.PathValue("endpoint")]
			s.openai.mu.Unlock()
			if !ok {
				openAIError(w, http.StatusNotFound, "NotFoundError", "endpoint "+r.PathValue("endpoint")+" does not serve the OpenAI API")
				return
			}
			h(w, r, o)
		}))
	}
	route(RouteModels, func(w http.ResponseWriter, r *http.Request, o OpenAIOptions) {
		WriteJSON(w, map[string]any{"object": "list", "data": []map[string]any{{"id": o.Model, "object": "model", "created": 1748736000, "owned_by": "vllm"}}})
	})
	route(RouteCompletions, func(w http.ResponseWriter, r *http.Request, o OpenAIOptions) {
		var req struct {
			Model  string `json:"model"`
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Prompt == "" {
			openAIError(w, http.StatusBadRequest, "BadRequestError", "prompt is required")
			return
		}
		if req.Model != o.Model {
			openAIError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model))
			return
		}
		text := "You said: " + req.Prompt
		WriteJSON(w, map[string]any{"id": "cmpl-" + newPodID(), "object": "text_completion", "created": s.now().Unix(), "model": o.Model,
			"choices": []map[string]any{{"index": 0, "text": text, "finish_reason": "stop"}},
			"usage":   usage(req.Prompt, text)})
	})
	route(RouteChatCompletions, s.chat)
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// reply is what the fake model answers.
type reply struct {
	reasoning, content string
	tool, args         string
	prompt             string
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, o OpenAIOptions) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		openAIError(w, http.StatusBadRequest, "BadRequestError", "invalid JSON body: "+err.Error())
		return
	}
	if req.Model != o.Model {
		openAIError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	if len(req.Messages) == 0 {
		openAIError(w, http.StatusBadRequest, "BadRequestError", "messages must not be empty")
		return
	}
	rep := answer(req, o)
	id, created := "chatcmpl-"+newPodID(), s.now().Unix()
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": rep.content}
		finish := "stop"
		if rep.tool != "" {
			msg["content"] = nil
			msg["tool_calls"] = []map[string]any{{"id": "call_" + id[9:17], "type": "function", "function": map[string]string{"name": rep.tool, "arguments": rep.args}}}
			finish = "tool_calls"
		}
		if rep.reasoning != "" {
			msg["reasoning"] = rep.reasoning
		}
		WriteJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": o.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   usage(rep.prompt, rep.reasoning+" "+rep.content+" "+rep.args)})
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sent := 0
	send := func(v any) bool {
		if o.FailAfterChunks > 0 && sent == o.FailAfterChunks {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "the worker stopped unexpectedly", "type": "InternalServerError", "code": 500}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			flushWriter(w)
			return false
		}
		if sent > 0 && o.ChunkDelay > 0 {
			select {
			case <-time.After(o.ChunkDelay):
			case <-r.Context().Done():
				return false
			case <-s.closing:
				return false
			}
		}
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		flushWriter(w)
		sent++
		return true
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": o.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if !send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	for _, word := range strings.SplitAfter(rep.reasoning, " ") {
		if word != "" && !send(chunk(map[string]any{"reasoning": word}, nil)) {
			return
		}
	}
	finish := "stop"
	if rep.tool != "" {
		finish = "tool_calls"
		call := func(fields map[string]any) map[string]any {
			return map[string]any{"tool_calls": []map[string]any{fields}}
		}
		if !send(chunk(call(map[string]any{"index": 0, "id": "call_" + id[9:17], "type": "function", "function": map[string]string{"name": rep.tool, "arguments": ""}}), nil)) {
			return
		}
		half := len(rep.args) / 2
		for _, part := range []string{rep.args[:half], rep.args[half:]} {
			if !send(chunk(call(map[string]any{"index": 0, "function": map[string]string{"arguments": part}}), nil)) {
				return
			}
		}
	} else {
		for _, word := range strings.SplitAfter(rep.content, " ") {
			if word != "" && !send(chunk(map[string]any{"content": word}, nil)) {
				return
			}
		}
	}
	if !send(chunk(map[string]any{}, finish)) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		if !send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": o.Model, "choices": []any{},
			"usage": usage(rep.prompt, rep.reasoning+" "+rep.content+" "+rep.args)}) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flushWriter(w)
}

// answer decides the fake model's reply.
func answer(req chatRequest, o OpenAIOptions) reply {
	var rep reply
	last := req.Messages[len(req.Messages)-1]
	text, images := contentText(last.Content)
	for _, m := range req.Messages {
		t, _ := contentText(m.Content)
		rep.prompt += t + " "
	}
	if last.Role == "tool" {
		rep.content = "The tool returned: " + text
		return rep
	}
	rep.content = "You said: " + text
	if images > 0 {
		rep.content += fmt.Sprintf(" (and sent %d image(s))", images)
	}
	if o.Reasoning {
		rep.reasoning = "The user wrote " + fmt.Sprint(len(strings.Fields(text))) + " words; I will repeat them."
	}
	choice := strings.Trim(string(req.ToolChoice), `"`)
	if len(req.Tools) > 0 && choice != "none" {
		var named struct {
			Function struct{ Name string } `json:"function"`
		}
		_ = json.Unmarshal(req.ToolChoice, &named)
		switch {
		case named.Function.Name != "":
			rep.tool = named.Function.Name
		case choice == "required":
			rep.tool = req.Tools[0].Function.Name
		default:
			for _, t := range req.Tools {
				if strings.Contains(strings.ToLower(text), strings.ToLower(t.Function.Name)) {
					rep.tool = t.Function.Name
					break
				}
			}
		}
		if rep.tool != "" {
			args, _ := json.Marshal(map[string]string{"query": text})
			rep.args, rep.content = string(args), ""
			return rep
		}
	}
	if rf := req.ResponseFormat; rf != nil && (rf.Type == "json_object" || rf.Type == "json_schema") {
		b, _ := json.Marshal(map[string]string{"reply": rep.content})
		rep.content = string(b)
	}
	return rep
}

// contentText returns a message's text and its number of image parts.
func contentText(raw json.RawMessage) (string, int) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, 0
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	images := 0
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			images++
		}
	}
	return strings.Join(texts, " "), images
}

func usage(prompt, completion string) map[string]int {
	p, c := len(strings.Fields(prompt)), len(strings.Fields(completion))
	return map[string]int{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
}

// openAIError writes an error in OpenAI's shape, {"error": {"message",
// "type", "param", "code"}}, which OpenAI's clients read (without it they
// report "401 status code (no body)").
func openAIError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": status}})
}

// openAIErrorTypes name an error's class by status, as vLLM and OpenAI's
// clients name them.
var openAIErrorTypes = map[int]string{
	http.StatusBadRequest:          "BadRequestError",
	http.StatusUnauthorized:        "AuthenticationError",
	http.StatusForbidden:           "PermissionDeniedError",
	http.StatusNotFound:            "NotFoundError",
	http.StatusMethodNotAllowed:    "MethodNotAllowedError",
	http.StatusConflict:            "ConflictError",
	http.StatusUnprocessableEntity: "UnprocessableEntityError",
	http.StatusTooManyRequests:     "RateLimitError",
}

// openAIProblem is Problem for the OpenAI-compatible routes: the errors
// the platform's gateway answers there (401, 403, 404, 429, …) in OpenAI's
// shape.
func openAIProblem(w http.ResponseWriter, status int, detail string, _ ...string) int {
	typ := openAIErrorTypes[status]
	if typ == "" {
		typ = "InternalServerError"
		if status < 500 {
			typ = "APIError"
		}
	}
	openAIError(w, status, typ, detail)
	return status
}

func flushWriter(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
