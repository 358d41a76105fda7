// Package openai talks to the OpenAI-compatible route of RunPod endpoints,
// {inference URL}/v2/<endpoint_id>/openai/v1: chat completions (plain and
// streamed), text completions and the model list, with typed requests and
// responses (content parts, tools, structured output, vLLM's extras and
// reasoning) and every completion's raw JSON.
//
// Get a Route with rp.OpenAI.Route(id), for your endpoint or a public one
// (PublicQwen3, PublicGranite4). ChatCompletion returns the whole answer;
// ChatCompletionStream yields it chunk by chunk:
//
//	ep := rp.OpenAI.Route(openai.PublicQwen3)
//	var acc openai.ChatAccumulator
//	for chunk, err := range ep.ChatCompletionStream(ctx, openai.ChatCompletionParams{
//		Model:    openai.Qwen3Model,
//		Messages: []openai.Message{openai.UserMessage("Hello!")},
//	}) {
//		if err != nil { … } // an HTTP error comes first; any failure ends the loop
//		acc.Add(chunk)
//	}
//	reply := acc.Completion() // the assembled message, tool calls included
//
// Requests are checked before anything is sent (a *errs.ValidationError
// names the field), and a chat or completion request is not repeated after
// it may have reached the endpoint. An error the server writes in OpenAI's
// shape ({"error": {...}}), as a response or in the middle of a stream, is
// an *Error; for an HTTP error it wraps the *errs.APIError. A vLLM worker
// needs tool calling turned on before Tools work: ToolCallingEnv gives the
// environment.
//
// Other OpenAI clients work too: point them at Route.BaseURL with the
// API key as their key (see examples/openai-go).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Public endpoints that speak the OpenAI protocol, and their model names.
const (
	// PublicQwen3 is the public Qwen3 32B (AWQ) endpoint.
	PublicQwen3 = "qwen3-32b-awq"
	// Qwen3Model is the model name PublicQwen3 serves.
	Qwen3Model = "Qwen/Qwen3-32B-AWQ"
	// PublicGranite4 is the public IBM Granite 4.0 H Small endpoint; its
	// model name is not documented: list it with Route.Models.
	PublicGranite4 = "granite-4-0-h-small"
)

// ToolCallingEnv returns the worker environment a vLLM worker needs for
// tool calling, for endpoint templates or pods: ENABLE_AUTO_TOOL_CHOICE=true
// and the reasoning and tool-call parsers that match the model.
func ToolCallingEnv(reasoningParser, toolCallParser string) map[string]string {
	env := map[string]string{"ENABLE_AUTO_TOOL_CHOICE": "true", "TOOL_CALL_PARSER": toolCallParser}
	if reasoningParser != "" {
		env["REASONING_PARSER"] = reasoningParser
	}
	return env
}

// Qwen3ToolCallingEnv is ToolCallingEnv for Qwen3 32B, as the platform's
// sample sets it: the qwen3 reasoning parser and the hermes tool-call
// parser.
func Qwen3ToolCallingEnv() map[string]string { return ToolCallingEnv("qwen3", "hermes") }

// Service reaches the OpenAI-compatible route of endpoints. Get it as
// runpod.Client.OpenAI, or build one with NewFromConfig.
type Service struct {
	t *transport.Transport
}

// NewFromConfig returns the OpenAI-compatible service built from cfg (see
// option.NewConfig), for a program that uses openai alone;
// runpod.NewClient builds one for Client.OpenAI. Services built from one
// Config share its connection pool and rate-limit Tracker. A cfg that
// does not validate gives a service whose every call fails with the
// validation error, before anything is sent.
func NewFromConfig(cfg option.Config) *Service { return &Service{t: transport.New(cfg)} }

// The route templates of the OpenAI-compatible API, for middleware,
// attempt hooks and logs.
const (
	routeChat        = "/v2/{endpointId}/openai/v1/chat/completions"
	routeCompletions = "/v2/{endpointId}/openai/v1/completions"
	routeModels      = "/v2/{endpointId}/openai/v1/models"
)

// Route returns the OpenAI-compatible API of an endpoint (yours, or a
// public one such as PublicQwen3).
func (s *Service) Route(id string) *Route { return &Route{t: s.t, id: id} }

// Route is one endpoint's OpenAI-compatible API.
type Route struct {
	t  *transport.Transport
	id string
}

// BaseURL returns {inference URL}/v2/<id>/openai/v1, the base URL to give
// any OpenAI client (with the API key as its key).
func (e *Route) BaseURL() string { return e.url("").String() }

func (e *Route) url(path string) *url.URL {
	return e.t.InferenceURL("/v2/", url.PathEscape(e.id), "/openai/v1", path)
}

// ChatCompletion sends a chat request and returns the completion. It is
// not repeated after the request may have reached the endpoint.
func (e *Route) ChatCompletion(ctx context.Context, req ChatCompletionParams, opts ...option.RequestOption) (*ChatCompletion, error) {
	body, err := e.chatBody(req, false)
	if err != nil {
		return nil, err
	}
	return post(ctx, e, "/chat/completions", routeChat, body, func(c *ChatCompletion) *json.RawMessage { return &c.Raw }, opts)
}

// Completion sends a text-completion request.
func (e *Route) Completion(ctx context.Context, req CompletionParams, opts ...option.RequestOption) (*Completion, error) {
	if err := e.validID(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Model) == "" {
		return nil, fail.Invalid("CompletionParams.Model", "is required")
	}
	body, err := withExtra(req, req.Extra)
	if err != nil {
		return nil, err
	}
	return post(ctx, e, "/completions", routeCompletions, body, func(c *Completion) *json.RawMessage { return &c.Raw }, opts)
}

// Models lists the models the endpoint serves.
func (e *Route) Models(ctx context.Context, opts ...option.RequestOption) ([]Model, error) {
	if err := e.validID(); err != nil {
		return nil, err
	}
	var out struct {
		Data []Model `json:"data"`
	}
	err := e.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: e.url("/models"), Route: routeModels, Idempotent: true}, &out, opts...)
	if err != nil {
		return nil, openAIError(err)
	}
	return out.Data, nil
}

// post sends body to e's path (whose route template is route) and returns
// the decoded answer, keeping a copy of the raw JSON in the field raw
// points to.
func post[T any](ctx context.Context, e *Route, path, route string, body []byte, raw func(*T) *json.RawMessage, opts []option.RequestOption) (*T, error) {
	var out T
	err := e.t.DoDecode(ctx, &transport.Request{Method: http.MethodPost, URL: e.url(path), Route: route, Body: body}, func(b []byte) error {
		if err := json.Unmarshal(b, &out); err != nil {
			return err
		}
		*raw(&out) = bytes.Clone(b)
		return nil
	}, opts...)
	if err != nil {
		return nil, openAIError(err)
	}
	return &out, nil
}

func (e *Route) validID() error {
	if strings.TrimSpace(e.id) == "" {
		return fail.Invalid("endpoint id", "is empty")
	}
	return nil
}

// chatBody validates and encodes a chat request.
func (e *Route) chatBody(req ChatCompletionParams, stream bool) ([]byte, error) {
	if err := e.validID(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Model) == "" {
		return nil, fail.Invalid("ChatCompletionParams.Model", "is required")
	}
	if len(req.Messages) == 0 {
		return nil, fail.Invalid("ChatCompletionParams.Messages", "at least one message is required")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem, RoleDeveloper, RoleUser, RoleAssistant:
		case RoleTool:
			if m.ToolCallID == "" {
				return nil, fail.Invalid(fmt.Sprintf("ChatCompletionParams.Messages[%d].ToolCallID", i), "a tool message answers a call: set its id")
			}
		default:
			return nil, fail.Invalid(fmt.Sprintf("ChatCompletionParams.Messages[%d].Role", i), "want system, developer, user, assistant or tool, got %q", m.Role)
		}
	}
	for i, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return nil, fail.Invalid(fmt.Sprintf("ChatCompletionParams.Tools[%d]", i), "want a function tool with a name")
		}
	}
	type wire ChatCompletionParams // drops the methods, keeps the tags
	w := struct {
		wire
		Stream        bool           `json:"stream,omitempty"`
		StreamOptions map[string]any `json:"stream_options,omitempty"`
	}{wire: wire(req), Stream: stream}
	if stream && req.IncludeUsage {
		w.StreamOptions = map[string]any{"include_usage": true}
	}
	return withExtra(w, req.Extra)
}

// withExtra encodes v and merges extra fields into the object.
func withExtra(v any, extra map[string]any) ([]byte, error) {
	b, err := transport.MarshalBody(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, x := range extra {
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, fail.Invalid("Extra["+k+"]", "cannot be encoded as JSON: %v", err)
		}
		m[k] = raw
	}
	return transport.MarshalBody(m)
}

// Error is an error in OpenAI's shape: {"error": {"message", "type",
// "param", "code"}}, from an HTTP error response or arriving in the middle
// of a stream. For HTTP errors it wraps the *errs.APIError, so
// errors.Is(err, errs.ErrRateLimited) and the like still match.
type Error struct {
	// StatusCode is the HTTP status of an error response; 0 for an error
	// that arrived in a stream.
	StatusCode int
	// Message is the error's description (error.message), or the whole
	// error value when it is not an object.
	Message string
	// Type is the error's class (error.type), such as
	// "BadRequestError" or "NotFoundError"; empty when not given.
	Type string
	// Param names the request parameter at fault (error.param), when
	// given.
	Param string
	// Code is the error's code (error.code), a string or number written
	// as text; empty when not given.
	Code string
	// Raw is the error object as received.
	Raw json.RawMessage
	api error
}

// Error returns the message with its type and code.
func (e *Error) Error() string {
	s := "runpod: openai: "
	if e.StatusCode != 0 {
		s += fmt.Sprintf("%d ", e.StatusCode)
	}
	s += e.Message
	if e.Type != "" || e.Code != "" {
		s += " (" + strings.Trim(e.Type+" "+e.Code, " ") + ")"
	}
	return s
}

// Unwrap returns the underlying *errs.APIError, if any.
func (e *Error) Unwrap() error { return e.api }

// parseError reads an OpenAI error object ({"error": {...}}), or returns
// nil when raw is not one.
func parseError(raw []byte) *Error {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return nil
	}
	return errorBody(env.Error)
}

// errorBody reads the value of an error object's "error" member: an
// object with a message (and type, param, code), or a string; nil when
// there is none (absent or null).
func errorBody(raw json.RawMessage) *Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var body struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Param   json.RawMessage `json:"param"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &body) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil { // {"error": "text"}
			return &Error{Message: s, Raw: raw}
		}
		return &Error{Message: string(raw), Raw: raw}
	}
	return &Error{Message: body.Message, Type: body.Type, Param: scalar(body.Param), Code: scalar(body.Code), Raw: raw}
}

// scalar renders a JSON string or number as text ("" for null).
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// openAIError turns an *errs.APIError with an OpenAI error body into an
// *Error wrapping it.
func openAIError(err error) error {
	var apiErr *errs.APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	oe := parseError(apiErr.Body)
	if oe == nil {
		return err
	}
	oe.StatusCode, oe.api = apiErr.StatusCode, err
	return oe
}
