package serverless_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

// sseBody answers every request with body as a 200 event stream.
type sseBody []byte

func (b sseBody) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

// FuzzWorkerLogStream: whatever stream the platform sends, WorkerLogs
// yields lines and errors without panicking, ends, and never yields a
// line together with an error.
func FuzzWorkerLogStream(f *testing.F) {
	f.Add([]byte("id: 2026-06-01T12:05:04Z\ndata: {\"ts\":\"2026-06-01T12:05:04Z\",\"source\":\"container\",\"line\":\"Worker ready.\"}\n\n"))
	f.Add([]byte("id: x\ndata: {\"ts\":\"yesterday\"}\n\ndata: not json\n\n: comment\n\nretry: 10\n"))
	f.Add([]byte("data: {\"line\":\"a\"}\r\ndata: {\"line\":\"b\"}\r\n\r\n"))
	f.Add([]byte("data"))
	f.Fuzz(func(t *testing.T, body []byte) {
		rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"),
			option.WithBaseURL("https://api.example.test"), option.WithHTTPClient(&http.Client{Transport: sseBody(body)}))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for line, err := range rp.Serverless.Endpoints.WorkerLogs(context.Background(), "ep1", "wk1", serverless.GetWorkerLogsParams{}) {
			if err != nil && (line.ID != "" || line.Line != "") {
				t.Fatalf("a line with an error: %+v, %v", line, err)
			}
			if n++; n > len(body)+1 {
				t.Fatalf("%d values from %d bytes", n, len(body))
			}
		}
	})
}
