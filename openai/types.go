package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Role is who wrote a message.
type Role string

// Message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message.
type Message struct {
	Role Role `json:"role"`
	// Content is text, or parts (text and images) for user messages.
	Content Content `json:"content"`
	// Name optionally names the author.
	Name string `json:"name,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ReasoningContent is a reasoning model's thinking, as vLLM's reasoning
	// parsers return it.
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// Content is a message's content: plain text, or a list of parts.
type Content struct {
	Text  string
	Parts []ContentPart
}

// ContentPart is a text or image part of a message.
type ContentPart struct {
	Type     string    `json:"type"` // "text" or "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image given by URL or data: URI.
type ImageURL struct {
	URL string `json:"url"`
	// Detail is "auto", "low" or "high".
	Detail string `json:"detail,omitempty"`
}

// MarshalJSON writes a string, or an array when there are parts.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// UnmarshalJSON reads a string, an array of parts, or null.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*c = Content{}
		return nil
	case b[0] == '"':
		*c = Content{}
		return json.Unmarshal(b, &c.Text)
	case b[0] == '[':
		*c = Content{}
		return json.Unmarshal(b, &c.Parts)
	}
	return fmt.Errorf("openai: content must be a string or an array, got %.20s", b)
}

// String returns the text, or the text parts joined.
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var b bytes.Buffer
	for _, p := range c.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// SystemMessage returns a system message.
func SystemMessage(text string) Message {
	return Message{Role: RoleSystem, Content: Content{Text: text}}
}

// UserMessage returns a user message with text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: Content{Text: text}} }

// UserParts returns a user message made of parts (TextPart, ImagePart).
func UserParts(parts ...ContentPart) Message {
	return Message{Role: RoleUser, Content: Content{Parts: append([]ContentPart{}, parts...)}}
}

// AssistantMessage returns an assistant message, for conversation history.
func AssistantMessage(text string) Message {
	return Message{Role: RoleAssistant, Content: Content{Text: text}}
}

// ToolMessage returns the result of a tool call.
func ToolMessage(callID, result string) Message {
	return Message{Role: RoleTool, ToolCallID: callID, Content: Content{Text: result}}
}

// TextPart returns a text content part.
func TextPart(text string) ContentPart { return ContentPart{Type: "text", Text: text} }

// ImagePart returns an image content part (an http(s) URL or data: URI).
func ImagePart(url string) ContentPart {
	return ContentPart{Type: "image_url", ImageURL: &ImageURL{URL: url}}
}

// Tool is a function the model may call.
type Tool struct {
	Type     string      `json:"type"` // "function"
	Function FunctionDef `json:"function"`
}

// FunctionDef describes a callable function.
type FunctionDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	Strict     *bool           `json:"strict,omitempty"`
}

// FunctionTool returns a function tool.
func FunctionTool(name, description string, parameters json.RawMessage) Tool {
	return Tool{Type: "function", Function: FunctionDef{Name: name, Description: description, Parameters: parameters}}
}

// ToolCall is a call the model asks for.
type ToolCall struct {
	// Index orders calls in a stream's deltas.
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its JSON arguments.
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// ToolChoice steers tool use: ToolChoiceAuto, ToolChoiceNone,
// ToolChoiceRequired, or ToolChoiceFunction(name).
type ToolChoice struct {
	mode     string
	function string
}

// Tool choices.
var (
	ToolChoiceAuto     = &ToolChoice{mode: "auto"}
	ToolChoiceNone     = &ToolChoice{mode: "none"}
	ToolChoiceRequired = &ToolChoice{mode: "required"}
)

// ToolChoiceFunction forces a call of the named function.
func ToolChoiceFunction(name string) *ToolChoice { return &ToolChoice{function: name} }

// MarshalJSON writes "auto", "none", "required" or the function object.
func (t ToolChoice) MarshalJSON() ([]byte, error) {
	if t.function != "" {
		return json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": t.function}})
	}
	if t.mode == "" {
		return nil, errors.New("openai: empty tool choice")
	}
	return json.Marshal(t.mode)
}

// ResponseFormat constrains the reply: {"type": "text"}, {"type":
// "json_object"}, or a JSON schema.
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is a named schema for structured output.
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict *bool           `json:"strict,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Sampling holds the sampling parameters shared by chat and text
// completions, including vLLM's extras. nil fields are left to the server.
type Sampling struct {
	MaxTokens        *int     `json:"max_tokens,omitempty"`
	Temperature      *float64 `json:"temperature,omitempty"`
	TopP             *float64 `json:"top_p,omitempty"`
	N                *int     `json:"n,omitempty"`
	Stop             []string `json:"stop,omitempty"`
	Seed             *int     `json:"seed,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	// TopK, MinP and RepetitionPenalty are vLLM's extra sampling
	// parameters.
	TopK              *int     `json:"top_k,omitempty"`
	MinP              *float64 `json:"min_p,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
}

// ChatCompletionParams is a chat-completions request.
type ChatCompletionParams struct {
	// Model is the served model name (the Hugging Face id, or the
	// endpoint's OPENAI_SERVED_MODEL_NAME_OVERRIDE).
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Sampling
	Tools          []Tool          `json:"tools,omitempty"`
	ToolChoice     *ToolChoice     `json:"tool_choice,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	// IncludeUsage asks a stream for a final chunk with the usage
	// (stream_options.include_usage).
	IncludeUsage bool `json:"-"`
	// Extra holds fields the SDK does not model; they are sent as given
	// and win over modelled fields of the same name.
	Extra map[string]any `json:"-"`
}

// Choice is one completion choice.
type Choice struct {
	Index        int             `json:"index"`
	Message      Message         `json:"message"`
	FinishReason string          `json:"finish_reason"`
	Logprobs     json.RawMessage `json:"logprobs,omitempty"`
}

// ChatCompletion is a finished chat completion.
type ChatCompletion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
	// Raw is the response as received, for fields the SDK does not model.
	Raw json.RawMessage `json:"-"`
}

// Delta is what a stream chunk adds to a choice.
type Delta struct {
	Role             Role       `json:"role,omitempty"`
	Content          string     `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

// ChunkChoice is one choice of a stream chunk.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// ChatChunk is one chunk of a streamed chat completion.
type ChatChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	// Usage is set on the final chunk when IncludeUsage was asked.
	Usage *Usage `json:"usage,omitempty"`
	// Raw is the chunk as received.
	Raw json.RawMessage `json:"-"`
}

// CompletionParams is a text-completions request.
type CompletionParams struct {
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	Sampling
	// Extra holds fields the SDK does not model.
	Extra map[string]any `json:"-"`
}

// CompletionChoice is one text completion choice.
type CompletionChoice struct {
	Index        int    `json:"index"`
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason"`
}

// Completion is a finished text completion.
type Completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []CompletionChoice `json:"choices"`
	Usage   *Usage             `json:"usage,omitempty"`
	Raw     json.RawMessage    `json:"-"`
}

// Model is a model the endpoint serves.
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}
