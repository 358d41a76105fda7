package serverless_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/runpodkit/runpod-go/serverless"
)

// FuzzJobJSON: whatever the platform (or a webhook sender) sends as job
// JSON decodes into a Job or fails cleanly, and a decoded job's output
// decodes or errors without panicking.
func FuzzJobJSON(f *testing.F) {
	f.Add([]byte(`{"delayTime":824,"executionTime":3391,"id":"sync-1-u1","output":[1,2],"status":"COMPLETED","workerId":"w"}`))
	f.Add([]byte(`{"id":"a","status":"FAILED","error":{"error_type":"x"}}`))
	f.Add([]byte(`{"id":"a","status":"IN_QUEUE","delayTime":-5,"executionTime":1e30}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var j serverless.Job
		if json.Unmarshal(body, &j) == nil {
			var v any
			_ = j.Decode(&v)
			_ = j.Status.Terminal()
		}
		r := httptest.NewRequest("POST", "/hook", bytes.NewReader(body))
		job, err := serverless.ReadWebhook(httptest.NewRecorder(), r, 1<<16)
		if err == nil && (job.ID == "" || job.Status == "") {
			t.Fatal("a webhook job without id or status was accepted")
		}
	})
}
