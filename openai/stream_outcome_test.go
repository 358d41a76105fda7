package openai_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
)

// newRaw starts a server answering every request with h.
func newRaw(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// resetAfter writes a 200 stream's headers and body, then closes the
// connection under the response, as a reset does.
func resetAfter(t *testing.T, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, body)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		conn, _, err := rc.Hijack()
		if assert.NoError(t, err) {
			_ = conn.Close()
		}
	}
}

// TestStreamResetAfterHeaders: a chat stream whose connection breaks after
// its 200 headers (before any event, inside a line, or after whole chunks)
// ends with an error matching errs.ErrOutcomeUnknown: the endpoint got
// the request and may bill the tokens, as the non-stream call reports. The
// chunks received before the break are kept.
func TestStreamResetAfterHeaders(t *testing.T) {
	const chunk = `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"The answer is"}}]}` + "\n\n"
	cases := []struct {
		name, body string
		kept       string
	}{
		{"right after the headers", "", ""},
		{"inside a line", `data: {"id"`, ""},
		{"inside the second line", chunk + `data: {"id":"c1","choi`, "The answer is"},
		{"between a data line and its blank line", chunk + `data: {"id":"c1","choices":[]}` + "\n", "The answer is"},
		{"at an event boundary", chunk, "The answer is"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newRaw(t, resetAfter(t, c.body))
			rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithInferenceURL(srv.URL))
			require.NoError(t, err)
			t.Cleanup(rp.CloseIdleConnections)
			var acc openai.ChatAccumulator
			var got []error
			for chunk, err := range rp.OpenAI.Route("ep").ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("x")}}) {
				if err != nil {
					got = append(got, err)
					continue
				}
				acc.Add(chunk)
			}
			require.Len(t, got, 1)
			err = got[0]
			require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
			var te *errs.TransportError
			require.ErrorAs(t, err, &te)
			assert.True(t, te.OutcomeUnknown)
			assert.Equal(t, "/v2/ep/openai/v1/chat/completions", te.Path)
			assert.Contains(t, err.Error(), "outcome unknown")
			if c.kept != "" {
				assert.Equal(t, c.kept, acc.Completion().Choices[0].Message.Content.Text, "what arrived is kept")
			}
			testkit.NoSecret(t, err)
		})
	}
}

// TestStreamResetSameAsNonStream: the same reset after the headers is an
// unknown outcome for ChatCompletion and for ChatCompletionStream.
func TestStreamResetSameAsNonStream(t *testing.T) {
	srv := newRaw(t, resetAfter(t, `{"id":"c1","cho`))
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithInferenceURL(srv.URL))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	params := openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("x")}}
	_, err = rp.OpenAI.Route("ep").ChatCompletion(t.Context(), params)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	for _, err := range rp.OpenAI.Route("ep").ChatCompletionStream(t.Context(), params) {
		require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	}
}

// TestStreamBadOrHugeEventOutcomeUnknown: an event that cannot be read (not
// a chunk's JSON, or over MaxStreamEvent) ends a stream the endpoint is
// generating: the outcome is unknown too.
func TestStreamBadOrHugeEventOutcomeUnknown(t *testing.T) {
	stream := rawStream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: <html>oops</html>\n\ndata: [DONE]\n\n")
	})
	n := 0
	for _, err := range stream {
		n++
		var re *errs.ResponseError
		require.ErrorAs(t, err, &re)
		assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	}
	assert.Equal(t, 1, n)

	stream = rawStream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: ")
		big := make([]byte, 64<<10)
		for i := range big {
			big[i] = 'x'
		}
		for range openai.MaxStreamEvent/len(big) + 2 {
			if _, err := w.Write(big); err != nil {
				return
			}
		}
	})
	for _, err := range stream {
		var re *errs.ResponseError
		require.ErrorAs(t, err, &re)
		assert.ErrorIs(t, err, errs.ErrResponseTooLarge)
		assert.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	}
}

// TestStreamCancelledOutcomeUnknown: a context that ends while the
// endpoint streams leaves the outcome unknown (the generation was
// started); the error still matches context.Canceled.
func TestStreamCancelledOutcomeUnknown(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.HandleOpenAI("slow", runpodtest.OpenAIOptions{Model: "m", ChunkDelay: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []error
	chunks := 0
	for _, err := range rp.OpenAI.Route("slow").ChatCompletionStream(ctx, openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("a b c")}}) {
		if err != nil {
			got = append(got, err)
			continue
		}
		chunks++
		cancel()
	}
	assert.Equal(t, 1, chunks)
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0], context.Canceled)
	assert.ErrorIs(t, got[0], errs.ErrOutcomeUnknown)
}

// TestServerErrorInStreamIsNotUnknown: an error the server writes in the
// stream is its answer: the outcome is known (it failed).
func TestServerErrorInStreamIsNotUnknown(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	srv.HandleOpenAI("crashy", runpodtest.OpenAIOptions{Model: "m", FailAfterChunks: 2})
	for _, err := range rp.OpenAI.Route("crashy").ChatCompletionStream(t.Context(), openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("a b c d")}}) {
		if err != nil {
			var oe *openai.Error
			require.ErrorAs(t, err, &oe)
			assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
		}
	}
}
