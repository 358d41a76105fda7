package runpodtest

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/apispec/ops"
)

// A REST v2 route's answer is held back until the handler returns, so
// that the engine can cut a list's page out of it (pages.go) and, with
// contract.Check, check it against the document before it is sent.

// heldWriter holds a response back until it is finished; a stream
// (text/event-stream) is passed through as it is written.
type heldWriter struct {
	w      http.ResponseWriter
	header http.Header
	status int
	body   bytes.Buffer
	stream bool
}

func newHeldWriter(w http.ResponseWriter) *heldWriter {
	return &heldWriter{w: w, header: w.Header()}
}

// Header returns the response header.
func (c *heldWriter) Header() http.Header { return c.header }

// WriteHeader records the status; a stream starts at once.
func (c *heldWriter) WriteHeader(code int) {
	if c.status != 0 {
		return
	}
	c.status = code
	if mt, _, _ := mime.ParseMediaType(c.header.Get("Content-Type")); mt == "text/event-stream" {
		c.stream = true
		c.w.WriteHeader(code)
	}
}

// Write buffers the body, or passes a stream through.
func (c *heldWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.stream {
		return c.w.Write(b)
	}
	return c.body.Write(b)
}

// Flush flushes a stream.
func (c *heldWriter) Flush() {
	if f, ok := c.w.(http.Flusher); c.stream && ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (c *heldWriter) Unwrap() http.ResponseWriter { return c.w }

// finish sends a held-back response, after check (when not nil) found
// nothing wrong with it; else a 500 naming the rules of operation op it
// breaks. It returns the status sent.
func (c *heldWriter) finish(op ops.Op, check func(status int, header http.Header, body []byte) []string) int {
	status := cmpOr(c.status, http.StatusOK)
	if c.stream {
		return status
	}
	if check != nil {
		if problems := check(status, c.header, c.body.Bytes()); len(problems) > 0 {
			for k := range c.header {
				delete(c.header, k)
			}
			return Problem(c.w, http.StatusInternalServerError,
				fmt.Sprintf("runpodtest: the fake's %d response to %s %s breaks the REST v2 document", status, op.Method, op.Path), problems...)
		}
	}
	c.w.WriteHeader(status)
	_, _ = c.w.Write(c.body.Bytes())
	return status
}
