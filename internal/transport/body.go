package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/sse"
)

// Request and response bodies: encoding a JSON body, draining a body so
// its connection is reused, and typing a failure of a stream (SSE, a
// download) after its 2xx response began.

// MarshalBody encodes v as a JSON request body.
func MarshalBody(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("runpod: encoding request body: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// drain reads what is left of a body (up to a limit, so the connection can
// be reused) and closes it.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	_ = body.Close()
}

// StreamError types a failure that ended a stream (SSE, a download) of r
// after its 2xx response began: an event over the stream's limit is a
// *errs.ResponseError matching errs.ErrResponseTooLarge; anything else (a
// reset, a body cut short) is a *errs.TransportError.
func (t *Transport) StreamError(r *Request, status int, limit int64, err error) error {
	path := r.URL.EscapedPath()
	if errors.Is(err, sse.ErrEventTooLarge) {
		return &errs.ResponseError{Method: r.Method, Path: path, StatusCode: status, Limit: limit, Err: errs.ErrResponseTooLarge}
	}
	return &errs.TransportError{Method: r.Method, Path: path, Attempts: 1, Err: t.red.error(err)}
}

// BadEvent types a stream event of r that is not the JSON the stream
// carries: a *errs.ResponseError with the event's start as its excerpt.
func (t *Transport) BadEvent(r *Request, status int, data []byte, err error) error {
	return fail.ResponseError(r.Method, r.URL.EscapedPath(), status, "text/event-stream", t.red.bytes(data), t.red.error(err))
}
