package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/sse"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// MaxStreamEvent caps the size of one server-sent event of a chat stream,
// in bytes (8 MiB); a larger event ends the stream with an error.
const MaxStreamEvent = 8 << 20

// ChatCompletionStream sends a chat request with "stream": true and
// yields its chunks as they arrive, the shape every stream of the SDK has
// (pods.Service.Logs, serverless.Queue.Stream): a range loop over chunks
// and an error. The request is sent when the loop starts. Any failure is
// yielded once and ends the loop: an invalid request (nothing sent), an
// HTTP error (*Error, with the *errs.APIError reachable), an error in
// the stream (*Error), a broken connection or a body that ends without
// [DONE] (*errs.TransportError, matching io.ErrUnexpectedEOF when the
// body was cut, so a cut answer is never taken for a whole one), an event
// that is not a chunk's JSON or is larger than MaxStreamEvent
// (*errs.ResponseError). A stream that ends before [DONE] for any reason
// but an error the server wrote (a cut, a reset, a bad event, the context
// ending) matches errs.ErrOutcomeUnknown: the endpoint received the
// request and began generating, so the tokens may be billed; the chunks
// received before the failure were yielded and stay valid. Breaking out of
// the loop closes the connection. Assemble the answer with a
// ChatAccumulator:
//
//	var acc openai.ChatAccumulator
//	for chunk, err := range ep.ChatCompletionStream(ctx, req) {
//		if err != nil { … }
//		acc.Add(chunk)
//	}
//	completion := acc.Completion()
func (e *Route) ChatCompletionStream(ctx context.Context, req ChatCompletionParams, opts ...option.RequestOption) iter.Seq2[ChatChunk, error] {
	return func(yield func(ChatChunk, error) bool) {
		body, err := e.chatBody(req, true)
		if err != nil {
			yield(ChatChunk{}, err)
			return
		}
		r := &transport.Request{Method: http.MethodPost, URL: e.url("/chat/completions"), Route: routeChat, Body: body,
			Header: http.Header{"Accept": {"text/event-stream"}}}
		resp, err := e.t.Do(ctx, r, opts...)
		if err != nil {
			yield(ChatChunk{}, openAIError(err))
			return
		}
		newChatStream(resp.Body, streamErrors{t: e.t, req: r, status: resp.StatusCode}).chunks()(yield)
	}
}

// streamErrors types the failures that end a stream after its response
// began.
type streamErrors struct {
	t      *transport.Transport
	req    *transport.Request
	status int
}

// broken is a stream cut by the network, or ended before [DONE]: the
// request reached the endpoint and generation began (tokens may be
// billed), but the answer is incomplete, so the outcome is unknown.
func (se streamErrors) broken(err error) error {
	if se.t == nil {
		return &errs.TransportError{Method: http.MethodPost, Path: "/chat/completions", Attempts: 1, OutcomeUnknown: true, Err: err}
	}
	return outcomeUnknown(se.t.StreamError(se.req, se.status, MaxStreamEvent, err))
}

// badChunk is an event that is not a chunk's JSON: the stream cannot be
// read on, so it too ends with the outcome unknown.
func (se streamErrors) badChunk(data []byte, err error) error {
	if se.t == nil {
		return &errs.ResponseError{Method: http.MethodPost, Path: "/chat/completions", OutcomeUnknown: true, Err: fmt.Errorf("chunk is not JSON: %w", err)}
	}
	return outcomeUnknown(se.t.BadEvent(se.req, se.status, data, fmt.Errorf("chunk is not JSON: %w", err)))
}

// outcomeUnknown marks the *errs.TransportError or *errs.ResponseError
// that err is as one whose outcome is unknown, so that it matches
// errs.ErrOutcomeUnknown.
func outcomeUnknown(err error) error {
	var te *errs.TransportError
	if errors.As(err, &te) {
		te.OutcomeUnknown = true
	}
	var re *errs.ResponseError
	if errors.As(err, &re) {
		re.OutcomeUnknown = true
	}
	return err
}

// errNoDone reports a stream whose body ended without the [DONE] event
// every OpenAI-compatible server sends last: a proxy or the connection cut
// it at an event boundary, so the answer may be incomplete.
var errNoDone = fmt.Errorf("stream ended without [DONE]: %w", io.ErrUnexpectedEOF)

// chatStream decodes a streamed chat completion's body.
type chatStream struct {
	body  io.ReadCloser
	dec   *sse.Decoder
	once  sync.Once
	ended bool
	errs  streamErrors

	// One json.Decoder reads every data line (line holds the current
	// one; fed counts the bytes it was given), so the decoding state
	// json.Unmarshal would make for each chunk is made once per stream:
	// a third of what a stream allocates.
	json *json.Decoder
	line lineReader
	fed  int64
}

func newChatStream(body io.ReadCloser, errs streamErrors) *chatStream {
	s := &chatStream{body: body, dec: sse.NewKeepingDecoder(body, MaxStreamEvent), errs: errs}
	s.json = json.NewDecoder(&s.line)
	return s
}

// lineReader hands a stream's json.Decoder the current data line, then
// io.EOF (which it asks for only when the line is not a whole value).
type lineReader struct{ b []byte }

func (r *lineReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// decode reads the data line into w as json.Unmarshal would: the whole
// line one JSON value, or the error json.Unmarshal gives for it (the
// line is decoded again by json.Unmarshal then, so that errors and what
// was read despite them, a top-level "error" among it, are its).
func (s *chatStream) decode(data []byte, w *chunkOrError) error {
	s.line.b = data
	s.fed += int64(len(data))
	if err := s.json.Decode(w); err == nil && s.json.InputOffset() == s.fed && len(s.line.b) == 0 {
		return nil
	}
	// What the decoder holds of this line is not the next line's start: a
	// new one reads that (an error ends a stream, so this is rare).
	s.json, s.fed, s.line.b = json.NewDecoder(&s.line), 0, nil
	*w = chunkOrError{}
	return json.Unmarshal(data, w)
}

// chunks yields the stream's chunks until [DONE], then closes the body
// (as it does when the loop breaks or a failure ends it).
func (s *chatStream) chunks() iter.Seq2[ChatChunk, error] {
	return func(yield func(ChatChunk, error) bool) {
		defer s.close()
		if s.ended {
			return
		}
		for {
			c, err := s.next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(ChatChunk{}, err)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}

// next decodes the next chunk; io.EOF at [DONE].
func (s *chatStream) next() (ChatChunk, error) {
	for {
		ev, err := s.dec.Next()
		if err != nil {
			s.ended = true
			if errors.Is(err, io.EOF) {
				err = errNoDone
			}
			return ChatChunk{}, s.errs.broken(err)
		}
		data := bytes.TrimSpace(ev.Data) // its own: the decoder keeps events
		data = data[:len(data):len(data)]
		if len(data) == 0 {
			continue
		}
		if bytes.Equal(data, []byte("[DONE]")) {
			s.ended = true
			return ChatChunk{}, io.EOF
		}
		if ev.Type == "error" {
			s.ended = true
			oe := parseError(data)
			if oe == nil {
				oe = &Error{Message: string(data), Raw: json.RawMessage(data)}
			}
			return ChatChunk{}, oe
		}
		// One decode reads the chunk and, beside it, a top-level "error"
		// (an OpenAI error object sent mid-stream), which wins over the
		// chunk's fields: a server that failed says so in it.
		var w chunkOrError
		err = s.decode(data, &w)
		if oe := errorBody(w.Error); oe != nil {
			s.ended = true
			return ChatChunk{}, oe
		}
		if err != nil {
			s.ended = true
			return ChatChunk{}, s.errs.badChunk(data, err)
		}
		return w.chunk(data), nil
	}
}

// chunkOrError is what a stream's data line decodes into: a chunk's
// members (ChatChunk's, which a test holds equal), and the "error" member
// an error object has instead. A struct of its own rather than one that
// embeds ChatChunk, which encoding/json decodes with an allocation more per
// chunk; its choices are chunkChoice, whose delta is read in the same pass.
type chunkOrError struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chunkChoice   `json:"choices"`
	Usage   *Usage          `json:"usage,omitempty"`
	Error   json.RawMessage `json:"error"`
}

// chunkChoice is ChunkChoice (a test holds the two alike) with its delta
// as chunkDelta.
type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

// chunkDelta is Delta's members (a test holds them alike) and the other
// name its reasoning comes under, decoded in the chunk's one pass: Delta's
// UnmarshalJSON, which reads both names too, decodes its bytes again.
type chunkDelta struct {
	Role             Role       `json:"role,omitempty"`
	Content          string     `json:"content,omitempty"`
	Reasoning        string     `json:"reasoning,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string     `json:"reasoning_content"`
}

// chunk returns the chunk w holds, its JSON raw.
func (w *chunkOrError) chunk(raw json.RawMessage) ChatChunk {
	c := ChatChunk{ID: w.ID, Object: w.Object, Created: w.Created, Model: w.Model, Usage: w.Usage, Raw: raw}
	if w.Choices != nil {
		c.Choices = make([]ChunkChoice, len(w.Choices))
		for i, ch := range w.Choices {
			d := ch.Delta
			c.Choices[i] = ChunkChoice{Index: ch.Index, FinishReason: ch.FinishReason, Delta: Delta{Role: d.Role, Content: d.Content,
				Reasoning: cmp.Or(d.Reasoning, d.ReasoningContent), ToolCalls: d.ToolCalls}}
		}
	}
	return c
}

// close closes the connection, once.
func (s *chatStream) close() {
	s.once.Do(func() {
		s.ended = true
		_ = s.body.Close()
	})
}

// ChatAccumulator assembles stream chunks into a completion: content and
// reasoning concatenated, tool-call deltas joined into whole calls by
// index.
type ChatAccumulator struct {
	id, model string
	created   int64
	choices   map[int]*accChoice
	usage     *Usage
}

type accChoice struct {
	role      Role
	content   bytes.Buffer
	reasoning bytes.Buffer
	calls     map[int]*accCall
	finish    string
}

// accCall is a tool call being assembled: its name and arguments arrive
// in pieces, joined in builders so that a long call costs time linear in
// its length.
type accCall struct {
	id, typ    string
	name, args strings.Builder
}

// Add folds one chunk in.
func (a *ChatAccumulator) Add(c ChatChunk) {
	if a.choices == nil {
		a.choices = map[int]*accChoice{}
	}
	if c.ID != "" {
		a.id = c.ID
	}
	if c.Model != "" {
		a.model = c.Model
	}
	if c.Created != 0 {
		a.created = c.Created
	}
	if c.Usage != nil {
		u := *c.Usage
		a.usage = &u
	}
	for _, ch := range c.Choices {
		acc := a.choices[ch.Index]
		if acc == nil {
			acc = &accChoice{calls: map[int]*accCall{}}
			a.choices[ch.Index] = acc
		}
		if ch.Delta.Role != "" {
			acc.role = ch.Delta.Role
		}
		acc.content.WriteString(ch.Delta.Content)
		acc.reasoning.WriteString(ch.Delta.Reasoning)
		if ch.FinishReason != nil {
			acc.finish = *ch.FinishReason
		}
		for i, d := range ch.Delta.ToolCalls {
			idx := i
			if d.Index != nil {
				idx = *d.Index
			}
			call := acc.calls[idx]
			if call == nil {
				call = &accCall{}
				acc.calls[idx] = call
			}
			if d.ID != "" {
				call.id = d.ID
			}
			if d.Type != "" {
				call.typ = d.Type
			}
			call.name.WriteString(d.Function.Name)
			call.args.WriteString(d.Function.Arguments)
		}
	}
}

// Completion returns what the chunks added up to.
func (a *ChatAccumulator) Completion() *ChatCompletion {
	out := &ChatCompletion{ID: a.id, Object: "chat.completion", Created: a.created, Model: a.model, Usage: a.usage}
	indexes := make([]int, 0, len(a.choices))
	for i := range a.choices {
		indexes = append(indexes, i)
	}
	sort.Ints(indexes)
	for _, i := range indexes {
		acc := a.choices[i]
		role := acc.role
		if role == "" {
			role = RoleAssistant
		}
		msg := Message{Role: role, Content: Content{Text: acc.content.String()}, Reasoning: acc.reasoning.String()}
		callIdx := make([]int, 0, len(acc.calls))
		for j := range acc.calls {
			callIdx = append(callIdx, j)
		}
		sort.Ints(callIdx)
		for _, j := range callIdx {
			call := acc.calls[j]
			c := ToolCall{ID: call.id, Type: call.typ, Function: FunctionCall{Name: call.name.String(), Arguments: call.args.String()}}
			if c.Type == "" {
				c.Type = "function"
			}
			msg.ToolCalls = append(msg.ToolCalls, c)
		}
		out.Choices = append(out.Choices, Choice{Index: i, Message: msg, FinishReason: acc.finish})
	}
	return out
}
