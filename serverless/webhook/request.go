package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/serverless"
)

// NewRequest returns the request the platform sends to a webhook URL when
// job ends: a POST of the job's status JSON ({"id", "status",
// "delayTime", "executionTime", "workerId", "output", "error"}, times in
// milliseconds), Content-Type application/json. It is for tests: give it
// a URL that Signer.URL minted to make a genuine delivery, one that
// Signer.ForgedURL made to make a forgery, and serve it to your handler
// (httptest.NewRecorder) or send it to your server (http.Client.Do).
// job.Output, when set, must be JSON.
func NewRequest(ctx context.Context, url string, job *serverless.Job) (*http.Request, error) {
	if job == nil {
		return nil, fail.Invalid("job", "is nil")
	}
	if len(job.Output) > 0 && !json.Valid(job.Output) {
		return nil, fail.Invalid("Job.Output", "is not JSON")
	}
	wire := struct {
		ID            string          `json:"id"`
		Status        string          `json:"status"`
		DelayTime     int64           `json:"delayTime"`
		ExecutionTime int64           `json:"executionTime"`
		WorkerID      string          `json:"workerId,omitempty"`
		Output        json.RawMessage `json:"output,omitempty"`
		Error         string          `json:"error,omitempty"`
	}{job.ID, string(job.Status), job.DelayTime.Milliseconds(), job.ExecutionTime.Milliseconds(), job.WorkerID, job.Output, job.Error}
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, fail.Invalid("job", "cannot be encoded: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fail.Invalid("url", "not a URL")
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}
