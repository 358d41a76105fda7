package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
)

// Role is who wrote a message, as the "role" of OpenAI's chat format.
type Role string

// Message roles.
const (
	// RoleSystem is an instruction that frames the conversation.
	RoleSystem Role = "system"
	// RoleDeveloper is an instruction from the application's developer,
	// the name OpenAI's newer models give RoleSystem; current vLLM
	// servers accept it (and apply it as a system message).
	RoleDeveloper Role = "developer"
	// RoleUser is the person's turn.
	RoleUser Role = "user"
	// RoleAssistant is the model's turn: a reply, or tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of one tool call, named by ToolCallID.
	RoleTool Role = "tool"
)

// Message is one chat message, in a request's history or a completion's
// reply.
type Message struct {
	// Role says who wrote it; a request accepts system, developer, user,
	// assistant and tool.
	Role Role `json:"role"`
	// Content is text, or parts (text and images) for user messages. An
	// assistant message that only calls tools may have none (null on the
	// wire).
	Content Content `json:"content"`
	// Name optionally names the author, to tell participants of the same
	// role apart; omitted when empty.
	Name string `json:"name,omitempty"`
	// ToolCalls are the calls an assistant message asks for; send them back
	// in the history, followed by one RoleTool message per call.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the id of the call a tool message answers (ToolCall.ID);
	// required for RoleTool.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Reasoning is a reasoning model's thinking, as vLLM's reasoning
	// parsers return it beside Content; empty for other models. It is
	// read from "reasoning" (current vLLM) or "reasoning_content" (older
	// vLLM, and servers that kept DeepSeek's name), "reasoning" winning
	// when both are set, and written as "reasoning", the name current vLLM
	// reads back in a conversation's history. It is not part of OpenAI's
	// format.
	Reasoning string `json:"reasoning,omitempty"`
}

// UnmarshalJSON reads a message, its reasoning under either name.
func (m *Message) UnmarshalJSON(b []byte) error {
	type wire Message // drops the method, keeps the tags
	var w struct {
		wire
		ReasoningContent string `json:"reasoning_content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message(w.wire)
	m.Reasoning = cmp.Or(m.Reasoning, w.ReasoningContent)
	return nil
}

// Content is a message's content: plain text, or a list of parts. It is a
// JSON string when Parts is nil, and an array of parts otherwise.
type Content struct {
	// Text is the content as plain text; ignored when Parts is not nil.
	Text string
	// Parts is the content as text and image parts (TextPart, ImagePart),
	// for user messages; nil for plain text.
	Parts []ContentPart
}

// ContentPart is a text or image part of a message.
type ContentPart struct {
	// Type is "text" or "image_url", and says which of the other fields
	// is set.
	Type string `json:"type"`
	// Text is the text of a "text" part.
	Text string `json:"text,omitempty"`
	// ImageURL is the image of an "image_url" part; the model must accept
	// images.
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image given by URL or data: URI.
type ImageURL struct {
	// URL is an http(s) URL the server fetches, or a data: URI carrying
	// the image itself (data:image/png;base64,…).
	URL string `json:"url"`
	// Detail is "auto", "low" or "high": how finely the model looks at
	// the image; empty leaves it to the server.
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

// DeveloperMessage returns a developer message (RoleDeveloper).
func DeveloperMessage(text string) Message {
	return Message{Role: RoleDeveloper, Content: Content{Text: text}}
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

// Tool is a function the model may call. Build one with FunctionTool.
type Tool struct {
	// Type is "function", the only kind of tool.
	Type string `json:"type"`
	// Function describes the function.
	Function FunctionDef `json:"function"`
}

// FunctionDef describes a callable function.
type FunctionDef struct {
	// Name is the function's name, as the model will write it in a
	// ToolCall; required.
	Name string `json:"name"`
	// Description tells the model what the function does and when to
	// call it.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments, an object schema;
	// nil declares none.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// Strict, when true, asks the server to make the arguments follow
	// Parameters exactly; nil leaves it to the server (servers may ignore
	// it).
	Strict *bool `json:"strict,omitempty"`
}

// FunctionTool returns a function tool.
func FunctionTool(name, description string, parameters json.RawMessage) Tool {
	return Tool{Type: "function", Function: FunctionDef{Name: name, Description: description, Parameters: parameters}}
}

// ToolCall is a call the model asks for. In a stream it arrives in pieces
// (Delta.ToolCalls) that ChatAccumulator joins by Index.
type ToolCall struct {
	// Index orders calls in a stream's deltas: the pieces of one call
	// share it. nil outside streams.
	Index *int `json:"index,omitempty"`
	// ID identifies the call; a RoleTool message answers it by this id
	// (Message.ToolCallID). In a stream only the first piece carries it.
	ID string `json:"id,omitempty"`
	// Type is "function"; in a stream only the first piece carries it.
	Type string `json:"type,omitempty"`
	// Function is the function called and its arguments.
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its JSON arguments.
type FunctionCall struct {
	// Name is the function's name, one of the request's Tools.
	Name string `json:"name,omitempty"`
	// Arguments is the arguments as a JSON object in a string, as the
	// model wrote it: it may not be valid JSON, or may not match the
	// schema, so check it before use. In a stream each piece adds to it.
	Arguments string `json:"arguments,omitempty"`
}

// ToolChoice steers tool use: ToolChoiceAuto(), ToolChoiceNone(),
// ToolChoiceRequired(), or ToolChoiceFunction(name).
type ToolChoice struct {
	mode     string
	function string
}

// ToolChoiceAuto lets the model choose between replying and calling
// tools (OpenAI's default when tools are given).
func ToolChoiceAuto() *ToolChoice { return &ToolChoice{mode: "auto"} }

// ToolChoiceNone forbids tool calls: the model replies with text.
func ToolChoiceNone() *ToolChoice { return &ToolChoice{mode: "none"} }

// ToolChoiceRequired makes the model call at least one tool.
func ToolChoiceRequired() *ToolChoice { return &ToolChoice{mode: "required"} }

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
	// Type is "text" (free text, the default), "json_object" (any valid
	// JSON object) or "json_schema" (JSON that follows JSONSchema).
	Type string `json:"type"`
	// JSONSchema is the schema the reply must follow; set it with Type
	// "json_schema" only.
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is a named schema for structured output.
type JSONSchema struct {
	// Name names the schema (letters, digits, _ and -).
	Name string `json:"name"`
	// Schema is the JSON Schema the reply must follow.
	Schema json.RawMessage `json:"schema"`
	// Strict, when true, asks the server to follow Schema exactly; nil
	// leaves it to the server.
	Strict *bool `json:"strict,omitempty"`
}

// Usage counts the tokens a request used, as the server reports them.
type Usage struct {
	// PromptTokens is the number of tokens of the input (messages or
	// prompt).
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is the number of tokens generated, over all
	// choices.
	CompletionTokens int `json:"completion_tokens"`
	// TotalTokens is PromptTokens plus CompletionTokens.
	TotalTokens int `json:"total_tokens"`
}

// Sampling holds the sampling parameters shared by chat and text
// completions, including vLLM's extras. nil fields are left to the server.
type Sampling struct {
	// MaxTokens caps the tokens generated per choice; the reply stops
	// with finish reason "length" when it reaches it. nil: up to the
	// model's context.
	MaxTokens *int `json:"max_tokens,omitempty"`
	// Temperature is the sampling temperature, 0 to 2: 0 is close to
	// deterministic, higher is more varied.
	Temperature *float64 `json:"temperature,omitempty"`
	// TopP samples from the smallest set of tokens whose probabilities
	// add up to TopP (nucleus sampling), 0 to 1.
	TopP *float64 `json:"top_p,omitempty"`
	// N is how many choices to generate (1 when nil).
	N *int `json:"n,omitempty"`
	// Stop lists sequences at which generation stops (OpenAI takes up to
	// four); the sequence is not part of the reply.
	Stop []string `json:"stop,omitempty"`
	// Seed makes sampling repeatable, as far as the server can.
	Seed *int `json:"seed,omitempty"`
	// PresencePenalty, -2 to 2, penalizes tokens that already appeared,
	// pushing toward new topics.
	PresencePenalty *float64 `json:"presence_penalty,omitempty"`
	// FrequencyPenalty, -2 to 2, penalizes tokens by how often they
	// already appeared, against repetition.
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	// TopK samples from the K most likely tokens only (vLLM; nil leaves
	// the server's default, every token).
	TopK *int `json:"top_k,omitempty"`
	// MinP drops tokens less likely than MinP times the most likely one
	// (vLLM; 0 to 1).
	MinP *float64 `json:"min_p,omitempty"`
	// RepetitionPenalty penalizes tokens already in the prompt or the
	// reply (vLLM): 1 is none, above 1 discourages repeats, below 1
	// encourages them.
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
}

// ChatCompletionParams is a chat-completions request (POST
// /chat/completions): the conversation so far, and how to continue it.
type ChatCompletionParams struct {
	// Model is the served model name (the Hugging Face id, or the
	// endpoint's OPENAI_SERVED_MODEL_NAME_OVERRIDE); required.
	Model string `json:"model"`
	// Messages is the conversation, oldest first; at least one is
	// required.
	Messages []Message `json:"messages"`
	// Sampling holds the sampling parameters, sent as top-level fields
	// (max_tokens, temperature, …); nil ones are left to the server.
	Sampling
	// Tools lists the functions the model may call; the worker needs tool
	// calling enabled (see ToolCallingEnv).
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice steers tool use; nil leaves it to the server (auto when
	// Tools are given).
	ToolChoice *ToolChoice `json:"tool_choice,omitempty"`
	// ResponseFormat constrains the reply to JSON; nil means free text.
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
	// Index is the choice's position, from 0 (up to Sampling.N-1).
	Index int `json:"index"`
	// Message is the reply: RoleAssistant, with Content, ToolCalls or
	// both.
	Message Message `json:"message"`
	// FinishReason says why generation stopped: "stop" (a natural end or
	// a Stop sequence), "length" (MaxTokens or the context ran out),
	// "tool_calls" (the model called tools), or another value the server
	// uses.
	FinishReason string `json:"finish_reason"`
	// Logprobs is the tokens' log probabilities, as raw JSON, when the
	// request asked for them (through Extra); nil otherwise.
	Logprobs json.RawMessage `json:"logprobs,omitempty"`
}

// ChatCompletion is a finished chat completion.
type ChatCompletion struct {
	// ID is the completion's id, as the server made it.
	ID string `json:"id"`
	// Object is "chat.completion".
	Object string `json:"object"`
	// Created is when the completion was made, in Unix seconds.
	Created int64 `json:"created"`
	// Model is the model that answered.
	Model string `json:"model"`
	// Choices holds the replies, one per Sampling.N.
	Choices []Choice `json:"choices"`
	// Usage counts the tokens; nil when the server did not report it.
	Usage *Usage `json:"usage,omitempty"`
	// Raw is the response as received, for fields the SDK does not model.
	Raw json.RawMessage `json:"-"`
}

// Delta is what a stream chunk adds to a choice. Every field is a piece to
// append to what came before (ChatAccumulator does it); most chunks set
// only one.
type Delta struct {
	// Role is set on a choice's first chunk (RoleAssistant), and empty
	// after.
	Role Role `json:"role,omitempty"`
	// Content is the next piece of the reply's text.
	Content string `json:"content,omitempty"`
	// Reasoning is the next piece of a reasoning model's thinking (vLLM's
	// reasoning parsers; not part of OpenAI's format), read from
	// "reasoning" or "reasoning_content" as Message.Reasoning is.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are pieces of tool calls, each placed by its Index.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// UnmarshalJSON reads a delta, its reasoning under either name.
func (d *Delta) UnmarshalJSON(b []byte) error {
	type wire Delta // drops the method, keeps the tags
	// Most chunks hold no "_" (no reasoning_content, however spelled or
	// escaped): they are decoded once.
	if bytes.IndexByte(b, '_') < 0 && !bytes.Contains(b, []byte(`\u`)) {
		return json.Unmarshal(b, (*wire)(d))
	}
	var w struct {
		wire
		ReasoningContent string `json:"reasoning_content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Delta(w.wire)
	d.Reasoning = cmp.Or(d.Reasoning, w.ReasoningContent)
	return nil
}

// ChunkChoice is one choice of a stream chunk.
type ChunkChoice struct {
	// Index is the choice the delta belongs to, from 0.
	Index int `json:"index"`
	// Delta is what this chunk adds to the choice.
	Delta Delta `json:"delta"`
	// FinishReason is nil until the choice's last chunk, which sets it as
	// Choice.FinishReason does ("stop", "length", "tool_calls", …).
	FinishReason *string `json:"finish_reason"`
}

// ChatChunk is one chunk of a streamed chat completion.
type ChatChunk struct {
	// ID is the completion's id; every chunk of one stream carries the
	// same.
	ID string `json:"id"`
	// Object is "chat.completion.chunk".
	Object string `json:"object"`
	// Created is when the completion was made, in Unix seconds; the same
	// in every chunk.
	Created int64 `json:"created"`
	// Model is the model that answers.
	Model string `json:"model"`
	// Choices holds this chunk's deltas; empty in the final usage chunk.
	Choices []ChunkChoice `json:"choices"`
	// Usage is set on the final chunk when IncludeUsage was asked.
	Usage *Usage `json:"usage,omitempty"`
	// Raw is the chunk as received. Chunks of a stream share the blocks
	// the stream reads their JSON into (16 KiB each), so keeping one
	// chunk keeps its block; copy Raw to keep it alone.
	Raw json.RawMessage `json:"-"`
}

// CompletionParams is a text-completions request (POST /completions): a
// prompt for the model to continue, without a chat template.
type CompletionParams struct {
	// Model is the served model name, as for ChatCompletionParams;
	// required.
	Model string `json:"model"`
	// Prompt is the text to continue.
	Prompt string `json:"prompt"`
	// Sampling holds the sampling parameters, sent as top-level fields;
	// nil ones are left to the server.
	Sampling
	// Extra holds fields the SDK does not model; they are sent as given
	// and win over modelled fields of the same name.
	Extra map[string]any `json:"-"`
}

// CompletionChoice is one text completion choice.
type CompletionChoice struct {
	// Index is the choice's position, from 0.
	Index int `json:"index"`
	// Text is the generated continuation, without the prompt.
	Text string `json:"text"`
	// FinishReason says why generation stopped: "stop" or "length".
	FinishReason string `json:"finish_reason"`
}

// Completion is a finished text completion.
type Completion struct {
	// ID is the completion's id, as the server made it.
	ID string `json:"id"`
	// Object is "text_completion".
	Object string `json:"object"`
	// Created is when the completion was made, in Unix seconds.
	Created int64 `json:"created"`
	// Model is the model that answered.
	Model string `json:"model"`
	// Choices holds the continuations, one per Sampling.N.
	Choices []CompletionChoice `json:"choices"`
	// Usage counts the tokens; nil when the server did not report it.
	Usage *Usage `json:"usage,omitempty"`
	// Raw is the response as received, for fields the SDK does not model.
	Raw json.RawMessage `json:"-"`
}

// Model is a model the endpoint serves, as Route.Models lists it.
type Model struct {
	// ID is the model's name, the value to send as
	// ChatCompletionParams.Model.
	ID string `json:"id"`
	// Object is "model".
	Object string `json:"object"`
	// Created is a time the server gives the model, in Unix seconds.
	Created int64 `json:"created"`
	// OwnedBy is who the server says owns the model ("vllm" for vLLM
	// workers).
	OwnedBy string `json:"owned_by"`
}
