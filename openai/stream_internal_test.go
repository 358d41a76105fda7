package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzChatStream: whatever bytes arrive, iterating a stream yields chunks
// or one error, never panics, and always ends.
func FuzzChatStream(f *testing.F) {
	f.Add([]byte("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"x\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\n"))
	f.Add([]byte("event: error\ndata: boom\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"m\",\"code\":\"c\"}}\r\n\r\n"))
	f.Add([]byte(": ping\n\ndata: {\"choices\":[{\"index\":-3,\"finish_reason\":\"stop\",\"delta\":{}}],\"usage\":{\"total_tokens\":3}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := newChatStream(io.NopCloser(bytes.NewReader(body)), streamErrors{})
		errs := 0
		var acc ChatAccumulator
		for c, err := range s.chunks() {
			if err != nil {
				errs++
				continue
			}
			acc.Add(c)
		}
		if errs > 1 {
			t.Fatalf("%d errors; a stream ends at its first", errs)
		}
		_ = acc.Completion()
	})
}

// TestChunkRawKept: each chunk's Raw is its JSON as received, whole and
// still intact after the stream has read on, across the blocks the copies
// share (chunks smaller and larger than a block); appending to one Raw
// does not reach the next.
func TestChunkRawKept(t *testing.T) {
	var body bytes.Buffer
	var want []string
	for i := range 300 {
		pad := strings.Repeat("x", i*i%700)
		if i%97 == 0 {
			pad = strings.Repeat("y", 16<<10+i) // larger than the stream's 16 KiB blocks
		}
		data := fmt.Sprintf(`{"id":"c%d","choices":[{"index":0,"delta":{"content":"%s"}}]}`, i, pad)
		want = append(want, data)
		fmt.Fprintf(&body, "data: %s\n\n", data)
	}
	body.WriteString("data: [DONE]\n\n")
	s := newChatStream(io.NopCloser(&body), streamErrors{})
	var got []json.RawMessage
	for c, err := range s.chunks() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Raw)
	}
	if len(got) != len(want) {
		t.Fatalf("%d chunks, want %d", len(got), len(want))
	}
	for i := range got {
		if string(got[i]) != want[i] {
			t.Fatalf("chunk %d: Raw %.60q…, want %.60q…", i, got[i], want[i])
		}
	}
	grown := append(got[0], "tail"...)
	if string(got[1]) != want[1] || string(grown) != want[0]+"tail" {
		t.Fatalf("an append to one Raw changed the next: %.60q", got[1])
	}
}

// streamBytes is n chunks of a realistic stream, then [DONE].
func streamBytes(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-abc123","object":"chat.completion.chunk","created":1748736000,"model":"Qwen/Qwen3-32B-AWQ","choices":[{"index":0,"delta":{"content":"token%d "},"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStreamDecode decodes the same SSE bytes through the SDK's
// stream (event parsing, error detection, chunk JSON, accumulation) and
// with the floor: bufio.Scanner lines, json.Unmarshal of each data line
// and the content added up in a strings.Builder, the text both check.
func BenchmarkStreamDecode(b *testing.B) {
	body := streamBytes(1000)
	b.Run("floor", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			sc := bufio.NewScanner(bytes.NewReader(body))
			sc.Buffer(make([]byte, 64<<10), 8<<20)
			n := 0
			var text strings.Builder
			for sc.Scan() {
				line := sc.Bytes()
				data, ok := bytes.CutPrefix(line, []byte("data: "))
				if !ok || bytes.Equal(data, []byte("[DONE]")) {
					continue
				}
				var c ChatChunk
				if err := json.Unmarshal(data, &c); err != nil {
					b.Fatal(err)
				}
				if len(c.Choices) > 0 {
					text.WriteString(c.Choices[0].Delta.Content)
				}
				n++
			}
			if n != 1000 || !strings.HasPrefix(text.String(), "token0 ") {
				b.Fatal(n)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			s := newChatStream(io.NopCloser(bytes.NewReader(body)), streamErrors{})
			n := 0
			var acc ChatAccumulator
			for c, err := range s.chunks() {
				if err != nil {
					b.Fatal(err)
				}
				acc.Add(c)
				n++
			}
			if n != 1000 || !strings.HasPrefix(acc.Completion().Choices[0].Message.Content.Text, "token0 ") {
				b.Fatal(n)
			}
		}
	})
}

// TestStreamErrorShapes: a data line with a top-level "error" (an object,
// a string; beside a chunk's own fields, or with a field of the wrong
// type) ends the stream with that *Error; "error" elsewhere (in content,
// nested, null) is a chunk like any other; an "error" event is an error
// whatever its data.
func TestStreamErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		data, event string
		msg         string // "" when the line is a chunk
		code        string
	}{
		{data: `{"error":{"message":"overloaded","type":"server_error","code":503}}`, msg: "overloaded", code: "503"},
		{data: `{"id":"c1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"error":{"message":"provider died","code":"server_error"}}`, msg: "provider died", code: "server_error"},
		{data: `{"error":"rate limited"}`, msg: "rate limited"},
		{data: `{"choices":"not a list","error":{"message":"bad"}}`, msg: "bad"},
		{data: `{"id":"c1","choices":[{"index":0,"delta":{"content":"an \"error\": none"}}]}`},
		{data: `{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"error\":1}"}}]}}],"error":null}`},
		{data: `boom`, event: "error", msg: "boom"},
		{data: `{"error":{"message":"named"}}`, event: "error", msg: "named"},
	} {
		body := "data: " + tc.data + "\n\ndata: [DONE]\n\n"
		if tc.event != "" {
			body = "event: " + tc.event + "\n" + body
		}
		s := newChatStream(io.NopCloser(strings.NewReader(body)), streamErrors{})
		var chunks int
		var errs []error
		for _, err := range s.chunks() {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			chunks++
		}
		if tc.msg == "" {
			require.Empty(t, errs, tc.data)
			require.Equal(t, 1, chunks, tc.data)
			continue
		}
		require.Len(t, errs, 1, tc.data)
		require.Zero(t, chunks, tc.data)
		var oe *Error
		require.ErrorAs(t, errs[0], &oe, tc.data)
		assert.Equal(t, tc.msg, oe.Message, tc.data)
		assert.Equal(t, tc.code, oe.Code, tc.data)
	}
}

// TestChunkOrErrorMirrorsChatChunk: the structs a stream decodes into
// have every JSON member of ChatChunk, ChunkChoice and Delta, of the same
// type (or its mirror), under the same tag, and nothing else but the
// "error" member and the reasoning's other name, so that a field added to
// the chunk types is not dropped from streams; chunk copies each.
func TestChunkOrErrorMirrorsChatChunk(t *testing.T) {
	mirrors := map[reflect.Type]reflect.Type{
		reflect.TypeFor[ChatChunk]():     reflect.TypeFor[chunkOrError](),
		reflect.TypeFor[[]ChunkChoice](): reflect.TypeFor[[]chunkChoice](),
		reflect.TypeFor[ChunkChoice]():   reflect.TypeFor[chunkChoice](),
		reflect.TypeFor[Delta]():         reflect.TypeFor[chunkDelta](),
	}
	extra := map[string]bool{"chunkOrError.Error": true, "chunkDelta.ReasoningContent": true}
	for pub, wire := range mirrors {
		if pub.Kind() != reflect.Struct {
			continue
		}
		seen := map[string]bool{}
		for i := range pub.NumField() {
			f := pub.Field(i)
			if f.Tag.Get("json") == "-" {
				continue
			}
			g, ok := wire.FieldByName(f.Name)
			if !assert.True(t, ok, "%s has no %s", wire.Name(), f.Name) {
				continue
			}
			seen[f.Name] = true
			want := f.Type
			if m, ok := mirrors[f.Type]; ok {
				want = m
			}
			assert.Equal(t, want, g.Type, "%s.%s", wire.Name(), f.Name)
			assert.Equal(t, f.Tag, g.Tag, "%s.%s", wire.Name(), f.Name)
		}
		for i := range wire.NumField() {
			name := wire.Name() + "." + wire.Field(i).Name
			assert.True(t, seen[wire.Field(i).Name] || extra[name], "%s is in no public type", name)
		}
	}
	// chunk copies each member: a line setting every one decodes to the
	// chunk json.Unmarshal makes of it (Delta reading the reasoning's
	// other name, the first name winning when both come).
	for _, line := range []string{
		`{"id":"i","object":"o","created":7,"model":"m","usage":{"total_tokens":3},"choices":[{"index":1,"finish_reason":"stop","delta":{"role":"assistant","content":"c","reasoning":"r","tool_calls":[{"index":0,"id":"t"}]}},{"index":2,"delta":{"reasoning_content":"rc"}}]}`,
		`{"choices":[{"delta":{"reasoning":"r","reasoning_content":"rc"}},{"delta":{"REASONING_CONTENT":"u"}},{"delta":null},{}]}`,
		`{"choices":[]}`,
	} {
		var w chunkOrError
		require.NoError(t, json.Unmarshal([]byte(line), &w))
		var want ChatChunk
		require.NoError(t, json.Unmarshal([]byte(line), &want))
		want.Raw = json.RawMessage(line)
		assert.Equal(t, want, w.chunk(json.RawMessage(line)), line)
	}
}

// FuzzStreamDecodeMatchesUnmarshal: the stream's one json.Decoder for
// all its data lines reads each line exactly as json.Unmarshal does (the
// same chunk, the same error), whatever came before it (lines that did
// not decode among them).
func FuzzStreamDecodeMatchesUnmarshal(f *testing.F) {
	f.Add([]byte(`{"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n" + `{"error":{"message":"m"}}`))
	f.Add([]byte(`{"id":"a"} {"id":"b"}` + "\n" + `{"id":"c"}`))
	f.Add([]byte(`{"id":` + "\n" + `{"choices":"x","error":{"message":"m"}}` + "\n" + `{"id":"d"}`))
	f.Add([]byte(`123` + "\n" + `"s"` + "\n" + `{"created":1e3}` + "\n" + `{"id":"\u00e9","model":null}`))
	f.Add([]byte(`{"choices":[{"delta":{"reasoning\u005fcontent":"a","Reasoning_Content":"b"}},{"delta":{"reasoning":"","reasoning_content":"c"}}]}`))
	f.Fuzz(func(t *testing.T, lines []byte) {
		s := newChatStream(io.NopCloser(bytes.NewReader(nil)), streamErrors{})
		for line := range bytes.SplitSeq(lines, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			var got, want chunkOrError
			gotErr := s.decode(bytes.Clone(line), &got)
			wantErr := json.Unmarshal(line, &want)
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Fatalf("%q: error %v, json.Unmarshal's %v", line, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: read %+v, json.Unmarshal reads %+v", line, got, want)
			}
			var public ChatChunk
			if json.Unmarshal(line, &public) == nil && gotErr == nil {
				public.Raw = line
				if c := got.chunk(line); !reflect.DeepEqual(c, public) {
					t.Fatalf("%q: the stream's chunk %+v, ChatChunk's decoding %+v", line, c, public)
				}
			}
		}
	})
}
